/* lib/stats.c: the mean and spread of samples, and the two-sided p of Welch's t-test. */
#include <math.h>
#include <string.h>

#include "lib/stats.h"

void sample_stats(struct sample_stats *out, const double *v, size_t n)
{
	double sum = 0, sq = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->n = (unsigned)n;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += v[i];
	out->mean = sum / n;
	if (n < 2)
		return;
	for (i = 0; i < n; i++)
		sq += (v[i] - out->mean) * (v[i] - out->mean);
	out->stddev = sqrt(sq / (n - 1));
}

/*
 * The continued fraction of the incomplete beta function, evaluated with
 * the modified Lentz method; it converges fast for x < (a+1)/(a+b+2).
 */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d, h;
	int m;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 500; m++) {
		double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		double step;

		d = 1 + even * d;
		c = 1 + even / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		d = 1 + odd * d;
		c = 1 + odd / c;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		if (fabs(c) < tiny)
			c = tiny;
		step = d * c;
		h *= step;
		if (fabs(step - 1) < eps)
			break;
	}
	return h;
}

/* The regularised incomplete beta function I_x(a, b). */
static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double t_two_sided_p(double t, double df)
{
	if (isnan(t) || df <= 0)
		return NAN;
	if (isinf(t))
		return 0;
	return incomplete_beta(df / 2, 0.5, df / (df + t * t));
}

/* Welch's two-sided p for a difference of means; with no spread at all, 1 or 0. */
double stats_welch_p(const struct sample_stats *a, const struct sample_stats *b)
{
	double va = a->stddev * a->stddev / a->n, vb = b->stddev * b->stddev / b->n;
	double se2 = va + vb, diff = b->mean - a->mean, df;

	if (se2 == 0)
		return diff == 0 ? 1 : 0;
	df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	return t_two_sided_p(diff / sqrt(se2), df);
}
