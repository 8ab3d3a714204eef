/* verdict.c: cell health and base-against-kit performance calls (Welch's t-test and a noise floor). */
#include <math.h>
#include <string.h>

#include "verdict.h"

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

void metric_stats(struct sample_stats *out, const struct metric_result *m)
{
	if (m->nr_samples) {
		sample_stats(out, m->samples, m->nr_samples);
		return;
	}
	out->n = m->n ? m->n : 1;
	out->mean = m->mean;
	out->stddev = out->n > 1 ? m->stddev : 0;
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

static const char *const call_names[] = {
	[PERF_NO_CALL] = "no-call",
	[PERF_SAME] = "same",
	[PERF_REGRESSION] = "regression",
	[PERF_IMPROVEMENT] = "improvement",
};

const char *perf_call_name(enum perf_call c)
{
	return (size_t)c < ARRAY_SIZE(call_names) ? call_names[c] : "?";
}

void perf_judge(struct perf_verdict *out, const struct sample_stats *base,
		const struct sample_stats *kit, enum ktap_direction dir)
{
	double vb, vk, se2, pooled, diff;
	int worse;

	out->call = PERF_NO_CALL;
	out->change_pct = NAN;
	out->p = NAN;
	out->threshold_pct = NAN;
	out->why = NULL;
	if (base->mean != 0)
		out->change_pct = (kit->mean - base->mean) / fabs(base->mean) * 100;
	if (base->n < VERDICT_MIN_SAMPLES || kit->n < VERDICT_MIN_SAMPLES) {
		out->why = "fewer than 3 samples on a side: no call";
		return;
	}
	if (base->mean == 0) {
		out->why = "the base mean is 0: no relative change";
		return;
	}
	vb = base->stddev * base->stddev / base->n;
	vk = kit->stddev * kit->stddev / kit->n;
	se2 = vb + vk;
	diff = kit->mean - base->mean;
	if (se2 == 0) {
		/* No noise at all: any difference is real. */
		out->p = diff == 0 ? 1 : 0;
	} else {
		double df = se2 * se2 / (vb * vb / (base->n - 1) + vk * vk / (kit->n - 1));

		out->p = t_two_sided_p(diff / sqrt(se2), df);
	}
	pooled = sqrt((base->stddev * base->stddev + kit->stddev * kit->stddev) / 2) /
		 fabs(base->mean) * 100;
	out->threshold_pct = fmax(VERDICT_MIN_CHANGE_PCT, VERDICT_NOISE_FACTOR * pooled);
	if (!(out->p < VERDICT_ALPHA)) {
		out->call = PERF_SAME;
		out->why = "within the noise (Welch p >= 0.01)";
		return;
	}
	if (fabs(out->change_pct) < out->threshold_pct) {
		out->call = PERF_SAME;
		out->why = "significant but smaller than the noise floor";
		return;
	}
	worse = dir == KTAP_LOWER_IS_BETTER ? diff > 0 : diff < 0;
	out->call = worse ? PERF_REGRESSION : PERF_IMPROVEMENT;
	out->why = worse ? "worse beyond the noise" : "better beyond the noise";
}

/* ------------------------------------------------------------------ */
/* Health */

static const char *const health_names[] = {
	[CELL_OK] = "ok",
	[CELL_FAILED] = "failed",
	[CELL_CONFLICT] = "conflict",
	[CELL_INCOMPLETE] = "incomplete",
};

const char *cell_health_name(enum cell_health h)
{
	return (size_t)h < ARRAY_SIZE(health_names) ? health_names[h] : "?";
}

const struct check *cell_first_problem(const struct cell_result *c, const char **what)
{
	/* A splat explains a failing case better than the case does, so it comes first. */
	const struct check *checks[] = { &c->apply, &c->build, &c->boot, &c->splats, &c->tests };
	static const char *const names[] = { "apply", "build", "boot", "splats", "tests" };
	size_t i;

	/* A failure explains more than a step left out, so look for one first. */
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		if (checks[i]->status == CHECK_FAILED || checks[i]->status == CHECK_CONFLICT) {
			*what = names[i];
			return checks[i];
		}
	for (i = 0; i < ARRAY_SIZE(checks); i++)
		if (checks[i]->status == CHECK_NOT_RUN) {
			*what = names[i];
			return checks[i];
		}
	*what = NULL;
	return NULL;
}

enum cell_health cell_health(const struct cell_result *c)
{
	const char *what;
	const struct check *p = cell_first_problem(c, &what);

	if (!p) {
		/* Everything skipped (e.g. the import failed) is not a pass. */
		if (c->build.status == CHECK_SKIPPED)
			return CELL_INCOMPLETE;
		return CELL_OK;
	}
	if (p->status == CHECK_CONFLICT)
		return CELL_CONFLICT;
	return p->status == CHECK_FAILED ? CELL_FAILED : CELL_INCOMPLETE;
}

/* ------------------------------------------------------------------ */
/* Expected failures */

int ktap_complete(const struct ktap_result *k)
{
	return k->version && k->has_plan && !k->missing && !k->extra && !k->misnumbered &&
	       k->done && !k->bail_out;
}

void expectations_judge(struct expectations *e, const struct ktap_result *k,
			char *const *expect_fail, size_t nr)
{
	size_t i, j;

	memset(e, 0, sizeof(*e));
	strvec_init(&e->xfail);
	strvec_init(&e->unexpected_pass);
	strvec_init(&e->not_run);
	strvec_init(&e->skipped);
	for (i = 0; i < k->nr_cases; i++) {
		const struct ktap_case *c = &k->cases[i];

		for (j = 0; j < nr && strcmp(expect_fail[j], c->name); j++)
			;
		if (c->status == KTAP_FAIL && j == nr) {
			if (!e->nr_fail++)
				e->first_fail = c;
		}
	}
	for (j = 0; j < nr; j++) {
		const struct ktap_case *c = ktap_find_case(k, expect_fail[j]);

		if (!c)
			strvec_push(&e->not_run, expect_fail[j]);
		else if (c->status == KTAP_FAIL)
			strvec_push(&e->xfail, c->name);
		else if (c->status == KTAP_SKIP)
			strvec_pushf(&e->skipped, "%s: %s", c->name, c->reason ? c->reason : "no reason given");
		else
			strvec_push(&e->unexpected_pass, c->name);
	}
}

void expectations_release(struct expectations *e)
{
	strvec_clear(&e->xfail);
	strvec_clear(&e->unexpected_pass);
	strvec_clear(&e->not_run);
	strvec_clear(&e->skipped);
	memset(e, 0, sizeof(*e));
}

void expectations_describe(struct strbuf *sb, const struct expectations *e, const char *without)
{
	size_t i;

	for (i = 0; i < e->xfail.nr; i++) {
		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "%s failed as expected", e->xfail.v[i]);
		if (without && *without)
			strbuf_addf(sb, ": shows %s %s", without,
				    strchr(without, ',') ? "matter" : "matters");
	}
	for (i = 0; i < e->skipped.nr; i++) {
		const char *colon = strchr(e->skipped.v[i], ':');

		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "%.*s was expected to fail, but was skipped:%s",
			    (int)(colon - e->skipped.v[i]), e->skipped.v[i], colon + 1);
	}
}

size_t expectations_missed(struct strbuf *sb, const struct expectations *e, const char *without)
{
	const char *w = without && *without ? without : NULL;
	size_t i;

	for (i = 0; i < e->unexpected_pass.nr; i++) {
		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "unexpected pass: %s was expected to fail%s%s (the demonstration did not work)",
			    e->unexpected_pass.v[i], w ? " without " : "", w ? w : "");
	}
	for (i = 0; i < e->not_run.nr; i++) {
		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "%s was expected to fail%s%s but did not run", e->not_run.v[i],
			    w ? " without " : "", w ? w : "");
	}
	return e->unexpected_pass.nr + e->not_run.nr;
}

/* ------------------------------------------------------------------ */
/* Comparing a branch's kit with its base */

static const struct metric_result *find_metric(const struct cell_result *c,
					       const struct metric_result *like)
{
	size_t i;

	for (i = 0; c && i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].case_name, like->case_name) &&
		    !strcmp(c->metrics[i].name, like->name))
			return &c->metrics[i];
	return NULL;
}

static struct metric_row *add_row(struct branch_comparison *bc)
{
	struct metric_row *r;

	ALLOC_GROW(bc->rows, bc->nr + 1, bc->alloc);
	r = &bc->rows[bc->nr++];
	memset(r, 0, sizeof(*r));
	r->v.call = PERF_NO_CALL;
	r->v.change_pct = r->v.p = r->v.threshold_pct = NAN;
	return r;
}

static int same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

void branch_compare(struct branch_comparison *out, const struct branch_result *b)
{
	branch_compare_cell(out, b, branch_find_cell(b, "kit"));
}

void branch_compare_cell(struct branch_comparison *out, const struct branch_result *b,
			 const struct cell_result *kit)
{
	const struct cell_result *base = branch_find_cell(b, "base");
	const char *name = kit ? kit->variant : "kit";
	size_t i;

	memset(out, 0, sizeof(*out));
	out->base = base;
	out->kit = kit;
	if (!base || base->boot.status != CHECK_OK)
		out->note = xstrdup("no base results to compare with");
	else if (!kit || kit->boot.status != CHECK_OK)
		out->note = xstrfmt("no %s results to compare", name);
	else if (base->commit && kit->commit && !strcmp(base->commit, kit->commit))
		/* Nothing applied: any difference is the emulator's noise. */
		out->note = xstrfmt("%s is the base tree (nothing applied): not compared", name);
	else if (!same_str(base->accel, kit->accel))
		out->note = xstrfmt("base ran under %s, %s under %s: not compared",
				    base->accel ? base->accel : "?", name,
				    kit->accel ? kit->accel : "?");
	else if (!same_str(base->mode, kit->mode))
		out->note = xstrfmt("base ran mm-regress %s, %s %s: not compared",
				    base->mode ? base->mode : "?", name, kit->mode ? kit->mode : "?");
	else
		out->comparable = 1;
	out->emulated = (kit && same_str(kit->accel, "tcg")) || (base && same_str(base->accel, "tcg"));

	for (i = 0; kit && i < kit->nr_metrics; i++) {
		struct metric_row *r = add_row(out);

		r->kit = &kit->metrics[i];
		r->base = find_metric(base, r->kit);
		metric_stats(&r->k, r->kit);
		if (r->base)
			metric_stats(&r->b, r->base);
		if (!out->comparable) {
			r->v.why = "not compared";
			continue;
		}
		if (!r->base) {
			r->v.why = "not measured on base";
			continue;
		}
		perf_judge(&r->v, &r->b, &r->k, r->kit->direction);
		if (r->v.call == PERF_REGRESSION)
			out->nr_regressions++;
		else if (r->v.call == PERF_IMPROVEMENT)
			out->nr_improvements++;
	}
	for (i = 0; base && i < base->nr_metrics; i++) {
		struct metric_row *r;

		if (find_metric(kit, &base->metrics[i]))
			continue;
		r = add_row(out);
		r->base = &base->metrics[i];
		metric_stats(&r->b, r->base);
		r->v.why = out->comparable ? (strcmp(name, "kit") ? "not measured on the variant" :
					      "not measured on kit") : "not compared";
	}
}

void branch_comparison_release(struct branch_comparison *c)
{
	free(c->note);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

void results_summarise(struct run_summary *s, const struct run_results *r)
{
	size_t i, j;

	memset(s, 0, sizeof(*s));
	s->branches = r->nr_branches;
	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct branch_comparison bc;

		if (b->import.status == CHECK_FAILED || b->apply.status == CHECK_FAILED)
			s->branch_failures++;
		for (j = 0; j < b->nr_cells; j++) {
			const struct cell_result *c = &b->cells[j];

			s->cells++;
			s->xfail += c->nr_xfail;
			if (strcmp(c->variant, "base") && strcmp(c->variant, "kit")) {
				branch_compare_cell(&bc, b, c);
				s->variant_regressions += bc.nr_regressions;
				s->variant_improvements += bc.nr_improvements;
				branch_comparison_release(&bc);
			}
			switch (cell_health(c)) {
			case CELL_OK:
				s->ok++;
				break;
			case CELL_FAILED:
				s->failed++;
				break;
			case CELL_CONFLICT:
				s->conflicts++;
				break;
			case CELL_INCOMPLETE:
				s->incomplete++;
				break;
			}
		}
		branch_compare(&bc, b);
		s->regressions += bc.nr_regressions;
		if (bc.emulated)
			s->emulated_regressions += bc.nr_regressions;
		s->improvements += bc.nr_improvements;
		branch_comparison_release(&bc);
	}
}

int run_summary_failed(const struct run_summary *s)
{
	return s->failed || s->conflicts || s->incomplete || s->branch_failures ||
	       s->regressions > s->emulated_regressions;
}
