/* results/verdict.c: cell health and base-against-kit performance calls (Welch's t-test and a noise floor). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results/metricindex.h"
#include "results/verdict.h"

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


static const char *const call_names[] = {
	[PERF_NO_CALL] = "no-call",
	[PERF_SAME] = "same",
	[PERF_REGRESSION] = "regression",
	[PERF_IMPROVEMENT] = "improvement",
	[PERF_COST] = "cost",
};

const char *perf_call_name(enum perf_call c)
{
	return (size_t)c < ARRAY_SIZE(call_names) ? call_names[c] : "?";
}


/* The pooled relative standard deviation of two sides, in per cent of |mean|. */
static double pooled_pct(const struct sample_stats *a, const struct sample_stats *b, double mean)
{
	return sqrt((a->stddev * a->stddev + b->stddev * b->stddev) / 2) / fabs(mean) * 100;
}

double branch_threshold_pct(const struct branch_result *b)
{
	return b && b->threshold_pct > 0 ? b->threshold_pct : VERDICT_MIN_CHANGE_PCT;
}

void perf_judge(struct perf_verdict *out, const struct sample_stats *base,
		const struct sample_stats *kit, enum ktap_direction dir, double threshold_pct)
{
	double pooled, diff;
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
	diff = kit->mean - base->mean;
	/* No noise at all (instruction-paced samples): any difference is real, and exact. */
	out->exact = base->stddev == 0 && kit->stddev == 0;
	if (!out->exact)
		out->p = stats_welch_p(base, kit);
	pooled = pooled_pct(base, kit, base->mean);
	out->threshold_pct = fmax(threshold_pct > 0 ? threshold_pct : VERDICT_MIN_CHANGE_PCT,
				  VERDICT_NOISE_FACTOR * pooled);
	if (out->exact && diff == 0) {
		out->call = PERF_SAME;
		out->why = "the same value in every sample on both sides";
		return;
	}
	if (!out->exact && !(out->p < VERDICT_ALPHA)) {
		out->call = PERF_SAME;
		out->why = "within the noise (Welch p >= 0.01)";
		return;
	}
	if (fabs(out->change_pct) < out->threshold_pct) {
		out->call = PERF_SAME;
		out->why = "significant but below the threshold or the spread";
		return;
	}
	worse = dir == KTAP_LOWER_IS_BETTER ? diff > 0 : diff < 0;
	out->call = worse ? PERF_REGRESSION : PERF_IMPROVEMENT;
	out->why = worse ? "worse beyond the noise" : "better beyond the noise";
}

void perf_judge_cost(struct perf_verdict *out, const struct sample_stats *base,
		     const struct sample_stats *kit, enum ktap_direction dir, double threshold_pct,
		     const struct kit_cost *cost)
{
	double bound;
	int worse;

	perf_judge(out, base, kit, dir, threshold_pct);
	/* a cost is what is beyond the noise: a p under alpha, or an exact difference */
	if (!cost || out->call == PERF_NO_CALL ||
	    (out->exact ? kit->mean == base->mean : !(out->p < VERDICT_ALPHA)))
		return;
	worse = dir == KTAP_LOWER_IS_BETTER ? kit->mean > base->mean : kit->mean < base->mean;
	if (!worse)
		return;
	/*
	 * For a metric with a declared cost, the bound takes the threshold's
	 * place on the worse side: beyond it (and beyond the spread) it is a
	 * regression, whatever the branch's threshold; a significant change
	 * up to it is the cost, paid and shown.
	 */
	bound = fmax(cost->worse_pct, VERDICT_NOISE_FACTOR * pooled_pct(base, kit, base->mean));
	out->threshold_pct = bound;
	if (fabs(out->change_pct) > bound) {
		out->call = PERF_REGRESSION;
		out->why = "worse beyond the noise and beyond its declared cost";
	} else {
		out->call = PERF_COST;
		out->why = "worse beyond the noise, within its declared cost";
	}
}

/* ------------------------------------------------------------------ */
/* Health */

static const char *const health_names[] = {
	[CELL_OK] = "ok",
	[CELL_FAILED] = "failed",
	[CELL_CONFLICT] = "conflict",
	[CELL_INCOMPLETE] = "incomplete",
	[CELL_STALE] = "stale",
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
/* Comparing a branch's kit with its base */

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

/* The first metric like `like` in the cell tagged `tag` (0 base, 1 kit), or NULL. */
static const struct metric_result *ix_find(struct metric_index *ix, size_t tag,
					   const struct metric_result *like)
{
	size_t i = metric_index_lookup_tag(ix, like->case_name, like->name, tag);

	return i < ix->nr ? ix->v[i].m : NULL;
}

/*
 * The rows of out: kit's metrics in its order, each with base's, then
 * base's that kit lacks. Paired through one sorted index, not by a walk
 * of one cell's metrics for each of the other's.
 */
static void compare_metrics(struct branch_comparison *out, const struct branch_result *b,
			    const struct cell_result *base, const struct cell_result *kit,
			    const char *name)
{
	struct metric_index ix = METRIC_INDEX_INIT;
	size_t i;

	metric_index_add_cell(&ix, base, 0);
	metric_index_add_cell(&ix, kit, 1);
	metric_index_sort(&ix);
	for (i = 0; kit && i < kit->nr_metrics; i++) {
		struct metric_row *r = add_row(out);

		r->kit = &kit->metrics[i];
		r->base = ix_find(&ix, 0, r->kit);
		metric_stats(&r->k, r->kit);
		if (r->base)
			metric_stats(&r->b, r->base);
		if (!out->comparable) {
			r->v.why = "not compared";
			continue;
		}
		if (!r->base) {
			r->v.why = cell_find_metric_skip(base, r->kit->case_name, r->kit->name) ?
				   "skipped by mm-regress on base: its clock could not resolve it" :
				   "not measured on base";
			continue;
		}
		/* Costs are the kit's: a variant is compared with base as it is. */
		if (!strcmp(name, "kit"))
			r->cost = branch_find_cost(b->costs, b->nr_costs, r->kit->case_name,
						   r->kit->name);
		perf_judge_cost(&r->v, &r->b, &r->k, r->kit->direction, out->threshold_pct, r->cost);
		/* the call stands; a p over samples that repeat is not one to show */
		if (timing_repeatable(out->timing)) {
			r->v.repeatable = 1;
			r->v.p = NAN;
		}
		if (out->same_tree) {
			r->v.call = PERF_SAME;
			r->v.why = "same tree as base: no change";
			continue;
		}
		if (r->v.call == PERF_REGRESSION)
			out->nr_regressions++;
		else if (r->v.call == PERF_IMPROVEMENT)
			out->nr_improvements++;
		else if (r->v.call == PERF_COST)
			out->nr_costs++;
	}
	for (i = 0; base && i < base->nr_metrics; i++) {
		struct metric_row *r;

		if (ix_find(&ix, 1, &base->metrics[i]))
			continue;
		r = add_row(out);
		r->base = &base->metrics[i];
		metric_stats(&r->b, r->base);
		if (!out->comparable)
			r->v.why = "not compared";
		else if (cell_find_metric_skip(kit, r->base->case_name, r->base->name))
			r->v.why = strcmp(name, "kit") ?
				   "skipped by mm-regress on the variant: its clock could not resolve it" :
				   "skipped by mm-regress on kit: its clock could not resolve it";
		else
			r->v.why = strcmp(name, "kit") ? "not measured on the variant" :
				   "not measured on kit";
	}
	metric_index_release(&ix);
}

void branch_compare_cell(struct branch_comparison *out, const struct branch_result *b,
			 const struct cell_result *kit)
{
	const struct cell_result *base = branch_find_cell(b, "base");
	const char *name = kit ? kit->variant : "kit";

	memset(out, 0, sizeof(*out));
	out->base = base;
	out->kit = kit;
	out->threshold_pct = branch_threshold_pct(b);
	if (!base || base->boot.status != CHECK_OK) {
		out->note = xstrdup("no base results to compare with");
	} else if (!kit || kit->boot.status != CHECK_OK) {
		out->note = xstrfmt("no %s results to compare", name);
	} else if (cell_is_base_tree(b, kit)) {
		/* Nothing applied: the tree is base's, so is any number it has. */
		out->comparable = 1;
		out->same_tree = 1;
		out->note = kit->reused ?
			xstrfmt("%s is base's tree (nothing applied): base's build and results reused, no change against base",
				name) :
			xstrfmt("%s is base's tree (nothing applied): no change against base", name);
	} else if (!same_str(base->accel, kit->accel)) {
		out->note = xstrfmt("base ran under %s, %s under %s: not compared",
				    base->accel ? base->accel : "?", name,
				    kit->accel ? kit->accel : "?");
	} else if (cell_timing(base) != cell_timing(kit)) {
		out->note = xstrfmt("base measured %s, %s %s: not compared",
				    timing_words(cell_timing(base), 1), name,
				    timing_words(cell_timing(kit), 1));
	} else if (!same_str(base->mode, kit->mode)) {
		out->note = xstrfmt("base ran mm-regress %s, %s %s: not compared",
				    base->mode ? base->mode : "?", name, kit->mode ? kit->mode : "?");
	} else {
		out->comparable = 1;
	}
	out->timing = cell_timing(kit) ? cell_timing(kit) : cell_timing(base);
	out->emulated = cell_timing(kit) == TIMING_EMULATED || cell_timing(base) == TIMING_EMULATED;

	compare_metrics(out, b, base, kit, name);
}

void branch_comparison_release(struct branch_comparison *c)
{
	free(c->note);
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

static void count_claims(struct run_summary *s, const struct branch_result *b,
			 const struct cell_result *c)
{
	size_t i;

	for (i = 0; i < b->nr_claims; i++) {
		struct claim_verdict v;

		if (!claim_applies(b, c, &b->claims[i]))
			continue;
		claim_judge(&v, b, c, &b->claims[i]);
		if (v.outcome == CLAIM_HELD)
			s->claims_held++;
		else if (v.outcome == CLAIM_FAILED)
			s->claims_failed++;
		else
			s->claims_not_checked++;
		claim_verdict_release(&v);
	}
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
			count_claims(s, b, c);
			switch (cell_status(b, c)) {
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
			case CELL_STALE:
				s->stale++;
				break;
			}
		}
		branch_compare(&bc, b);
		s->regressions += bc.nr_regressions;
		if (bc.emulated)
			s->emulated_regressions += bc.nr_regressions;
		s->improvements += bc.nr_improvements;
		s->costs += bc.nr_costs;
		branch_comparison_release(&bc);
	}
}

int branch_passed(const struct branch_result *b)
{
	struct branch_comparison bc;
	int ok = b->nr_cells > 0 && b->import.status != CHECK_FAILED &&
		 b->apply.status != CHECK_FAILED;
	size_t j;

	for (j = 0; ok && j < b->nr_cells; j++)
		ok = cell_status(b, &b->cells[j]) == CELL_OK;
	if (!ok)
		return 0;
	branch_compare(&bc, b);
	ok = !bc.nr_regressions || bc.emulated;
	branch_comparison_release(&bc);
	return ok;
}

int results_failed(const struct run_results *r)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		if (!branch_passed(&r->branches[i]))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Performance claims */

static const char *const outcome_names[] = {
	[CLAIM_NOT_CHECKED] = "not-checked",
	[CLAIM_HELD] = "held",
	[CLAIM_FAILED] = "failed",
};

const char *claim_outcome_name(enum claim_outcome o)
{
	return (size_t)o < ARRAY_SIZE(outcome_names) ? outcome_names[o] : "?";
}

static void claim_verdict_init(struct claim_verdict *out)
{
	memset(out, 0, sizeof(*out));
	out->outcome = CLAIM_NOT_CHECKED;
	out->mean = out->other_mean = out->change_pct = out->spread_pct = out->p = NAN;
}

void claim_verdict_release(struct claim_verdict *v)
{
	free(v->evidence);
	v->evidence = NULL;
}

void claim_judge_stats(struct claim_verdict *out, enum claim_kind kind, double value,
		       enum ktap_direction dir, const struct sample_stats *cell,
		       const struct sample_stats *other)
{
	double gain, wanted;

	claim_verdict_init(out);
	out->mean = cell->mean;
	if (kind == CLAIM_ABOVE || kind == CLAIM_BELOW) {
		int held = kind == CLAIM_ABOVE ? cell->mean > value : cell->mean < value;

		out->outcome = held ? CLAIM_HELD : CLAIM_FAILED;
		out->shortfall = held ? 0 : CLAIM_SHORT_SIZE;
		return;
	}
	out->other_mean = other->mean;
	if (other->mean == 0)
		return;
	out->change_pct = (cell->mean - other->mean) / fabs(other->mean) * 100;
	out->spread_pct = VERDICT_NOISE_FACTOR * pooled_pct(cell, other, other->mean);
	out->n = cell->n;
	out->other_n = other->n;
	/* no spread on either side: exact, and a p would mean nothing */
	out->exact = cell->n > 1 && other->n > 1 && cell->stddev == 0 && other->stddev == 0;
	if (!out->exact && cell->n >= VERDICT_MIN_SAMPLES && other->n >= VERDICT_MIN_SAMPLES)
		out->p = stats_welch_p(other, cell);
	/* The change in the metric's good direction, then in the claimed one. */
	gain = dir == KTAP_HIGHER_IS_BETTER ? out->change_pct : -out->change_pct;
	wanted = kind == CLAIM_BETTER ? gain : -gain;
	if (wanted < value)
		out->shortfall |= CLAIM_SHORT_SIZE;
	if (!(fabs(out->change_pct) > out->spread_pct))
		out->shortfall |= CLAIM_SHORT_SPREAD;
	if (!isnan(out->p) && !(out->p < VERDICT_ALPHA))
		out->shortfall |= CLAIM_SHORT_P;
	out->outcome = out->shortfall ? CLAIM_FAILED : CLAIM_HELD;
}

static const struct series_result *find_series(const struct branch_result *b, const char *id)
{
	size_t i;

	for (i = 0; id && i < b->nr_series; i++)
		if (!strcmp(b->series[i].id, id))
			return &b->series[i];
	return NULL;
}

static int is_bound(const struct kit_claim *c)
{
	return c->kind == CLAIM_ABOVE || c->kind == CLAIM_BELOW;
}

int claim_applies(const struct branch_result *b, const struct cell_result *c, const struct claim *cl)
{
	const struct series_result *s;
	int kit = !strcmp(c->variant, "kit");

	switch (cl->origin) {
	case CLAIM_OF_BRANCH:
		return kit;
	case CLAIM_OF_VARIANT:
		return !strcmp(c->variant, cl->owner);
	case CLAIM_OF_SERIES:
		/* The code runs on the kit where the series is applied, on both where it is present. */
		s = find_series(b, cl->owner);
		if (!s)
			return 0;
		if (s->state == SERIES_APPLIED)
			return kit;
		if (s->state == SERIES_PRESENT)
			return is_bound(&cl->c) && (kit || !strcmp(c->variant, "base"));
		return 0;
	}
	return 0;
}

/* "1250 calls/s": a mean and its unit. */
static void add_value(struct strbuf *sb, double v, const char *unit)
{
	char num[32];

	metric_value_format(num, sizeof(num), v);
	strbuf_addstr(sb, num);
	if (unit && *unit)
		strbuf_addf(sb, " %s", unit);
}

/*
 * The metric a claim names on cell c, or NULL with *why saying so
 * (the cell is named `who`).
 */
static const struct metric_result *claim_metric(const struct cell_result *c, const struct claim *cl,
						struct strbuf *why)
{
	const struct metric_skip *skip;
	size_t i;

	for (i = 0; i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i].case_name, cl->c.case_name) &&
		    !strcmp(c->metrics[i].name, cl->c.metric))
			return &c->metrics[i];
	skip = cell_find_metric_skip(c, cl->c.case_name, cl->c.metric);
	if (skip)
		strbuf_addf(why, "%s.%s not measured on %s: mm-regress skipped it (%s)",
			    cl->c.case_name, cl->c.metric, c->variant, skip->reason);
	else
		strbuf_addf(why, "%s.%s not measured on %s", cl->c.case_name, cl->c.metric,
			    c->variant);
	return NULL;
}

/* Why cell c has no numbers a claim can use, or NULL (then it has). */
static const char *no_numbers(const struct cell_result *c)
{
	if (c->boot.status != CHECK_OK)
		return "did not boot: no numbers";
	if (cell_timing(c) == TIMING_EMULATED)
		return "measured emulated time (TCG on host time): its numbers say little about the kernel";
	if (!timing_counts(cell_timing(c)))
		return "measured an unknown kind of time";
	return NULL;
}

/*
 * "+25.9% against base (kit 1260, base 1000 calls/s), spread 0.1%,
 * p=9.5e-26; needed +20% or more (better by 20%), beyond 2 x the spread
 * and at p < 0.01": a better/worse claim's change and what it needed
 * (want: the signed change), the spread said as exact or repeatable
 * where a p would mean nothing.
 */
static void say_change(struct strbuf *sb, const struct claim_verdict *out,
		       const struct cell_result *c, const struct cell_result *other,
		       const struct claim *cl, double want, double mean, double other_mean,
		       const char *unit)
{
	strbuf_addf(sb, "%+.1f%% against %s (%s ", out->change_pct, other->variant, c->variant);
	add_value(sb, mean, NULL);
	strbuf_addf(sb, ", %s ", other->variant);
	add_value(sb, other_mean, unit);
	if (out->exact)
		strbuf_addf(sb, "), exact: the same value in each of the %u and %u samples",
			    out->n, out->other_n);
	else if (out->repeatable)
		strbuf_addf(sb, "), spread %.1f%% over %u and %u samples of %s, which repeats",
			    out->spread_pct, out->n, out->other_n, timing_words(cell_timing(c), 1));
	else
		strbuf_addf(sb, "), spread %.1f%%", out->spread_pct);
	if (!isnan(out->p))
		strbuf_addf(sb, ", p=%.2g", out->p);
	strbuf_addf(sb, "; needed %+g%% or %s (%s by %g%%)%s",
		    want, want < 0 ? "less" : "more",
		    cl->c.kind == CLAIM_BETTER ? "better" : "worse", cl->c.value,
		    out->exact ? "" : ", beyond 2 x the spread");
	if (!isnan(out->p))
		strbuf_addstr(sb, " and at p < 0.01");
}

void claim_judge(struct claim_verdict *out, const struct branch_result *b,
		 const struct cell_result *c, const struct claim *cl)
{
	struct strbuf sb = STRBUF_INIT;
	const struct metric_result *m, *om = NULL;
	const struct cell_result *other = NULL;
	struct sample_stats cs, os;
	const char *why, *unit;
	double want = 0;

	claim_verdict_init(out);
	if ((why = no_numbers(c))) {
		strbuf_addf(&sb, "%s %s", c->variant, why);
		goto done;
	}
	if (!(m = claim_metric(c, cl, &sb)))
		goto done;
	unit = m->unit;
	metric_stats(&cs, m);
	if (is_bound(&cl->c)) {
		claim_judge_stats(out, cl->c.kind, cl->c.value, m->direction, &cs, &cs);
		strbuf_addf(&sb, "%s mean ", c->variant);
		add_value(&sb, cs.mean, unit);
		if (cs.n > 1 && cs.mean != 0)
			strbuf_addf(&sb, " \xc2\xb1 %.1f%%", cs.stddev / fabs(cs.mean) * 100);
		strbuf_addf(&sb, " (n=%u); needed %s ", cs.n,
			    cl->c.kind == CLAIM_ABOVE ? "above" : "below");
		add_value(&sb, cl->c.value, unit);
		goto done;
	}
	other = branch_find_cell(b, cl->c.than);
	if (!other) {
		strbuf_addf(&sb, "no %s cell in these results to compare with", cl->c.than);
		goto done;
	}
	if ((why = no_numbers(other))) {
		strbuf_addf(&sb, "%s %s", other->variant, why);
		goto done;
	}
	if (!same_str(c->accel, other->accel) || cell_timing(c) != cell_timing(other) ||
	    !same_str(c->mode, other->mode)) {
		strbuf_addf(&sb, "%s ran %s under %s (%s), %s %s under %s (%s): not comparable",
			    other->variant, other->mode ? other->mode : "?",
			    other->accel ? other->accel : "?", timing_words(cell_timing(other), 1),
			    c->variant, c->mode ? c->mode : "?", c->accel ? c->accel : "?",
			    timing_words(cell_timing(c), 1));
		goto done;
	}
	if (!(om = claim_metric(other, cl, &sb)))
		goto done;
	metric_stats(&os, om);
	claim_judge_stats(out, cl->c.kind, cl->c.value, m->direction, &cs, &os);
	/* On a clock that repeats, the spread decides, not a p over samples that differ by no chance. */
	if (timing_repeatable(cell_timing(c)) && !out->exact) {
		out->repeatable = 1;
		out->p = NAN;
		out->shortfall &= ~CLAIM_SHORT_P;
		out->outcome = out->shortfall ? CLAIM_FAILED : CLAIM_HELD;
	}
	if (os.mean == 0) {
		strbuf_addf(&sb, "the mean of %s is 0: no relative change", other->variant);
		goto done;
	}
	want = (m->direction == KTAP_HIGHER_IS_BETTER) == (cl->c.kind == CLAIM_BETTER) ?
	       cl->c.value : -cl->c.value;
	say_change(&sb, out, c, other, cl, want, cs.mean, os.mean, unit);
	if (cell_is_base_tree(b, c) && !strcmp(other->variant, "base"))
		strbuf_addf(&sb, " (%s is base's tree: nothing applied)", c->variant);
done:
	if (out->outcome == CLAIM_FAILED && out->shortfall) {
		const char *sep = ": ";

		if (out->shortfall & CLAIM_SHORT_SIZE) {
			strbuf_addf(&sb, "%s%s", sep, is_bound(&cl->c) ? "it is not" :
				    out->change_pct * want < 0 ? "it went the other way" :
				    "smaller than claimed");
			sep = ", ";
		}
		if (out->shortfall & CLAIM_SHORT_SPREAD) {
			strbuf_addf(&sb, "%swithin the spread", sep);
			sep = ", ";
		}
		if (out->shortfall & CLAIM_SHORT_P)
			strbuf_addf(&sb, "%snot significant", sep);
	}
	out->evidence = strbuf_detach(&sb, NULL);
}

enum cell_health cell_status(const struct branch_result *b, const struct cell_result *c)
{
	enum cell_health h = cell_health(c);
	size_t i;

	for (i = 0; b && h == CELL_OK && i < b->nr_claims; i++) {
		struct claim_verdict v;

		if (!claim_applies(b, c, &b->claims[i]))
			continue;
		claim_judge(&v, b, c, &b->claims[i]);
		if (v.outcome == CLAIM_FAILED)
			h = CELL_FAILED;
		claim_verdict_release(&v);
	}
	if (h == CELL_OK && c->stale)
		h = CELL_STALE;
	return h;
}
