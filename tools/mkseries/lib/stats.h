/* lib/stats.h: sample statistics for the performance calls. */
#ifndef MKSERIES_STATS_H
#define MKSERIES_STATS_H

#include <stddef.h>

/* The mean and spread of samples. */
struct sample_stats {
	unsigned n;
	double mean;
	double stddev;		/* sample standard deviation (n - 1); 0 when n < 2 */
};

void sample_stats(struct sample_stats *out, const double *v, size_t n);

/* Two-sided p-value of Student's t with df degrees of freedom (df > 0). */
double t_two_sided_p(double t, double df);

/* Welch's two-sided p for a difference of the means of a and b; with no spread at all, 1 or 0. */
double stats_welch_p(const struct sample_stats *a, const struct sample_stats *b);

#endif
