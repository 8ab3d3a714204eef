/* test-verdict.c: unit tests for the statistics and verdicts, and for the keys that decide "up to date". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gitutil.h"
#include "results/results.h"
#include "record/key.h"
#include "tap.h"
#include "lib/util.h"
#include "results/verdict.h"

static void stats(struct sample_stats *s, const double *v, size_t n)
{
	sample_stats(s, v, n);
}

static enum perf_call judge(const double *b, size_t nb, const double *k, size_t nk,
			    enum ktap_direction dir, struct perf_verdict *out)
{
	struct sample_stats sb, sk;
	struct perf_verdict v;

	stats(&sb, b, nb);
	stats(&sk, k, nk);
	perf_judge(out ? out : &v, &sb, &sk, dir, 0);
	return (out ? out : &v)->call;
}

static void test_sample_stats(void)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct sample_stats s;

	stats(&s, v, ARRAY_SIZE(v));
	is_int(s.n, 8, "stats: n");
	ok(fabs(s.mean - 5) < 1e-12, "stats: mean 5 (got %g)", s.mean);
	/* The sample standard deviation (n - 1), as mm-regress prints it. */
	ok(fabs(s.stddev - sqrt(32.0 / 7)) < 1e-12, "stats: sample stddev (got %g)", s.stddev);
	stats(&s, v, 1);
	ok(s.n == 1 && s.mean == 2 && s.stddev == 0, "stats: one sample has no stddev");
}

static void test_t_distribution(void)
{
	double p;

	/* Critical values of Student's t, two-sided. */
	p = t_two_sided_p(2.776445, 4);
	ok(fabs(p - 0.05) < 1e-4, "t: df=4, t=2.776 gives p=0.05 (got %.6f)", p);
	p = t_two_sided_p(4.604095, 4);
	ok(fabs(p - 0.01) < 1e-4, "t: df=4, t=4.604 gives p=0.01 (got %.6f)", p);
	p = t_two_sided_p(63.65674, 1);
	ok(fabs(p - 0.01) < 1e-4, "t: df=1, t=63.657 gives p=0.01 (got %.6f)", p);
	p = t_two_sided_p(1.959964, 1e6);
	ok(fabs(p - 0.05) < 1e-4, "t: large df tends to the normal, p=0.05 (got %.6f)", p);
	p = t_two_sided_p(-2.776445, 4);
	ok(fabs(p - 0.05) < 1e-4, "t: symmetric in the sign of t (got %.6f)", p);
	ok(t_two_sided_p(0, 7) == 1, "t: t=0 gives p=1");
	ok(t_two_sided_p(INFINITY, 7) == 0, "t: infinite t gives p=0");
	ok(isnan(t_two_sided_p(1, 0)), "t: no degrees of freedom gives NAN");
}

static void test_calls(void)
{
	const double noise_b[] = { 100, 102, 98, 101, 99 }, noise_k[] = { 101, 99, 100, 102, 98 };
	const double slow_b[] = { 100, 101, 99, 100, 100 }, slow_k[] = { 120, 121, 119, 120, 120 };
	const double tput_b[] = { 1000, 1010, 990, 1005, 995 };
	const double tput_k[] = { 1500, 1490, 1510, 1505, 1495 };
	const double wide_b[] = { 100, 150, 60, 130, 70 }, wide_k[] = { 120, 170, 80, 150, 90 };
	const double one_b[] = { 100 }, one_k[] = { 200 };
	const double flat_b[] = { 50, 50, 50, 50 }, flat_k[] = { 55, 55, 55, 55 };
	const double flat_s[] = { 51, 51, 51, 51 };
	struct perf_verdict v;

	is_int(judge(noise_b, 5, noise_k, 5, KTAP_LOWER_IS_BETTER, &v), PERF_SAME,
	       "pure noise: no call");
	ok(v.p > 0.5, "pure noise: p is large (%g)", v.p);

	is_int(judge(slow_b, 5, slow_k, 5, KTAP_LOWER_IS_BETTER, &v), PERF_REGRESSION,
	       "a clear slowdown of a lower_is_better metric is a regression");
	ok(fabs(v.change_pct - 20) < 1e-9, "regression: +20%% (got %g)", v.change_pct);
	ok(v.p < 1e-6, "regression: p is tiny (%g)", v.p);
	ok(v.threshold_pct == VERDICT_MIN_CHANGE_PCT, "regression: the 5%% floor applies (%g)",
	   v.threshold_pct);

	is_int(judge(tput_b, 5, tput_k, 5, KTAP_HIGHER_IS_BETTER, &v), PERF_IMPROVEMENT,
	       "a clear gain of a higher_is_better metric is an improvement");
	ok(fabs(v.change_pct - 50) < 1e-9, "improvement: +50%% (got %g)", v.change_pct);

	is_int(judge(slow_k, 5, slow_b, 5, KTAP_LOWER_IS_BETTER, NULL), PERF_IMPROVEMENT,
	       "lower_is_better: going down is an improvement");
	is_int(judge(tput_k, 5, tput_b, 5, KTAP_HIGHER_IS_BETTER, NULL), PERF_REGRESSION,
	       "higher_is_better: going down is a regression");
	is_int(judge(slow_b, 5, slow_k, 5, KTAP_HIGHER_IS_BETTER, NULL), PERF_IMPROVEMENT,
	       "higher_is_better: going up is an improvement");

	is_int(judge(wide_b, 5, wide_k, 5, KTAP_LOWER_IS_BETTER, &v), PERF_SAME,
	       "+18%% inside a 35%% noise: no call");

	is_int(judge(one_b, 1, one_k, 1, KTAP_LOWER_IS_BETTER, &v), PERF_NO_CALL,
	       "n=1: no call, even for a doubling");
	ok(fabs(v.change_pct - 100) < 1e-9 && isnan(v.p), "n=1: %%change shown, no p-value");
	is_int(judge(slow_b, 5, slow_k, 2, KTAP_LOWER_IS_BETTER, NULL), PERF_NO_CALL,
	       "2 samples on a side: no call");

	is_int(judge(flat_b, 4, flat_k, 4, KTAP_LOWER_IS_BETTER, &v), PERF_REGRESSION,
	       "zero stddev on both sides: +10%% is a regression");
	ok(v.exact && isnan(v.p), "zero stddev: exact, and no p (it would mean nothing)");
	is_int(judge(flat_b, 4, flat_b, 4, KTAP_LOWER_IS_BETTER, &v), PERF_SAME,
	       "zero stddev, equal means: no change");
	ok(v.exact && isnan(v.p), "zero stddev, equal means: exact, no p");
	is_int(judge(flat_b, 4, flat_s, 4, KTAP_LOWER_IS_BETTER, &v), PERF_SAME,
	       "zero stddev: +2%% is below the 5%% floor");
}

/* Significant by the t-test, yet within twice the noise: not called. */
static void test_noise_floor(void)
{
	double b[30], k[30];
	struct perf_verdict v;
	size_t i;

	for (i = 0; i < 30; i++) {
		b[i] = i % 2 ? 97 : 103;
		k[i] = i % 2 ? 102.5 : 108.5;
	}
	is_int(judge(b, 30, k, 30, KTAP_LOWER_IS_BETTER, &v), PERF_SAME,
	       "noise floor: +5.5%% with a 3%% stddev is not called");
	ok(v.p < 1e-6, "noise floor: although p is tiny (%g)", v.p);
	ok(v.threshold_pct > 6 && v.threshold_pct < 6.2,
	   "noise floor: the threshold is 2 x the pooled stddev%% (%g)", v.threshold_pct);
	for (i = 0; i < 30; i++)
		k[i] += 2;
	is_int(judge(b, 30, k, 30, KTAP_LOWER_IS_BETTER, &v), PERF_REGRESSION,
	       "noise floor: +7.5%% is past it");
}

static void test_base_zero(void)
{
	const double z[] = { 0, 0, 0 }, k[] = { 1, 1, 1 };
	struct perf_verdict v;

	is_int(judge(z, 3, k, 3, KTAP_LOWER_IS_BETTER, &v), PERF_NO_CALL,
	       "a base mean of 0 gives no relative change: no call");
	ok(isnan(v.change_pct), "base mean 0: %%change is NAN");
}

/* c must be zeroed or hold a cell: it is released first. */
static void fill_ok(struct cell_result *c, const char *variant, const char *accel)
{
	char *v = xstrdup(variant);

	cell_result_release(c);
	c->variant = v;
	check_set(&c->apply, strcmp(variant, "base") ? CHECK_OK : CHECK_NA, NULL);
	check_set(&c->build, CHECK_OK, NULL);
	check_set(&c->boot, CHECK_OK, NULL);
	check_set(&c->tests, CHECK_OK, NULL);
	check_set(&c->splats, CHECK_OK, NULL);
	c->accel = xstrdup(accel);
	c->mode = xstrdup("quick");
}

/* A threshold from the kit replaces the 5% floor; identical samples never give NAN or inf. */
static void test_threshold_zero_variance(void)
{
	const double b[] = { 1000, 1000, 1000, 1000, 1000 }, k3[] = { 1030, 1030, 1030, 1030, 1030 };
	struct sample_stats sb, sk;
	struct perf_verdict v;

	sample_stats(&sb, b, 5);
	sample_stats(&sk, k3, 5);
	perf_judge(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0);
	is_int(v.call, PERF_SAME, "threshold: +3%% is under the default 5%%");
	ok(v.exact && v.threshold_pct == 5, "threshold: though the difference is exact (identical samples)");
	perf_judge(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 2);
	is_int(v.call, PERF_REGRESSION, "threshold: with a kit threshold of 2%%, +3%% is called");
	ok(v.threshold_pct == 2, "threshold: and the verdict says what it had to reach (%g)",
	   v.threshold_pct);
	perf_judge(&v, &sb, &sb, KTAP_LOWER_IS_BETTER, 2);
	is_int(v.call, PERF_SAME, "zero variance: equal means are the same");
	ok(v.exact && isnan(v.p) && v.change_pct == 0 && !isnan(v.threshold_pct) &&
	   !isinf(v.threshold_pct), "zero variance: exact, no change, a finite threshold");
}

/* The rule of a better/worse claim, and of above/below. */
static void test_claim_rule(void)
{
	const double flat[] = { 100, 100, 100, 100, 100 }, flat80[] = { 80, 80, 80, 80, 80 };
	const double flat95[] = { 95, 95, 95, 95, 95 };
	const double noisy[] = { 100, 130, 70, 120, 80 }, noisy85[] = { 85, 115, 55, 105, 65 };
	const double tight[] = { 100, 101, 99, 100, 100 }, tight70[] = { 70, 71, 69, 70, 70 };
	const double two[] = { 100, 100 }, two80[] = { 80, 80 };
	const double zero[] = { 0, 0, 0 };
	struct sample_stats a, b;
	struct claim_verdict v;

	/* lower_is_better: 100 -> 80 is 20% better. */
	sample_stats(&a, flat80, 5);
	sample_stats(&b, flat, 5);
	claim_judge_stats(&v, CLAIM_BETTER, 20, KTAP_LOWER_IS_BETTER, &a, &b);
	is_int(v.outcome, CLAIM_HELD, "claim: -20%% of a lower_is_better metric is better by 20%%");
	ok(v.change_pct == -20 && v.spread_pct == 0 && v.exact && isnan(v.p) && v.n == 5 &&
	   v.other_n == 5, "claim: zero variance is exact: a spread of 0, no p (%g %g %g)",
	   v.change_pct, v.spread_pct, v.p);
	claim_judge_stats(&v, CLAIM_BETTER, 25, KTAP_LOWER_IS_BETTER, &a, &b);
	ok(v.outcome == CLAIM_FAILED && v.shortfall == CLAIM_SHORT_SIZE,
	   "claim: better by 25%% does not hold at 20%%: too small");
	claim_judge_stats(&v, CLAIM_WORSE, 10, KTAP_LOWER_IS_BETTER, &a, &b);
	ok(v.outcome == CLAIM_FAILED && (v.shortfall & CLAIM_SHORT_SIZE),
	   "claim: worse does not hold when it got better");
	claim_judge_stats(&v, CLAIM_WORSE, 20, KTAP_HIGHER_IS_BETTER, &a, &b);
	is_int(v.outcome, CLAIM_HELD, "claim: -20%% of a higher_is_better metric is worse by 20%%");
	claim_judge_stats(&v, CLAIM_BETTER, 0, KTAP_LOWER_IS_BETTER, &b, &b);
	ok(v.outcome == CLAIM_FAILED && (v.shortfall & CLAIM_SHORT_SPREAD),
	   "claim: identical samples, equal means: not better even by 0%%");
	sample_stats(&a, flat95, 5);
	claim_judge_stats(&v, CLAIM_BETTER, 5, KTAP_LOWER_IS_BETTER, &a, &b);
	is_int(v.outcome, CLAIM_HELD, "claim: identical samples, -5%%: better by 5%% holds exactly");

	/* Beyond the spread: 2 x the pooled relative stddev. */
	sample_stats(&a, noisy85, 5);
	sample_stats(&b, noisy, 5);
	claim_judge_stats(&v, CLAIM_BETTER, 10, KTAP_LOWER_IS_BETTER, &a, &b);
	ok(v.outcome == CLAIM_FAILED && (v.shortfall & CLAIM_SHORT_SPREAD) &&
	   (v.shortfall & CLAIM_SHORT_P) && !(v.shortfall & CLAIM_SHORT_SIZE),
	   "claim: -15%% in a 25%% noise is big enough but within the spread and not significant (%g)",
	   v.spread_pct);
	sample_stats(&a, tight70, 5);
	sample_stats(&b, tight, 5);
	claim_judge_stats(&v, CLAIM_BETTER, 20, KTAP_LOWER_IS_BETTER, &a, &b);
	ok(v.outcome == CLAIM_HELD && v.p < 0.01 && v.spread_pct > 0 && v.spread_pct < 3,
	   "claim: -30%% with a tight spread holds (spread %g%%, p %g)", v.spread_pct, v.p);

	/* Fewer than 3 samples: no t-test, the size and the spread decide. */
	sample_stats(&a, two80, 2);
	sample_stats(&b, two, 2);
	claim_judge_stats(&v, CLAIM_BETTER, 10, KTAP_LOWER_IS_BETTER, &a, &b);
	ok(v.outcome == CLAIM_HELD && isnan(v.p), "claim: 2 samples a side: held without a p-value");

	sample_stats(&b, zero, 3);
	claim_judge_stats(&v, CLAIM_BETTER, 10, KTAP_LOWER_IS_BETTER, &a, &b);
	ok(v.outcome == CLAIM_NOT_CHECKED && isnan(v.change_pct),
	   "claim: against a mean of 0 there is no relative change: not checked");

	sample_stats(&a, flat, 5);
	claim_judge_stats(&v, CLAIM_ABOVE, 99.5, KTAP_HIGHER_IS_BETTER, &a, NULL);
	is_int(v.outcome, CLAIM_HELD, "claim: 100 is above 99.5");
	claim_judge_stats(&v, CLAIM_BELOW, 100, KTAP_LOWER_IS_BETTER, &a, NULL);
	is_int(v.outcome, CLAIM_FAILED, "claim: 100 is not below 100");
}

static void add_flat(struct cell_result *c, const char *case_name, const char *name,
		     enum ktap_direction dir, double v)
{
	const double s[] = { v, v, v, v, v };

	cell_add_metric(c, case_name, name, "us", dir, 5, v, 0, s, 5);
}

static struct claim *claim_on(struct branch_result *b, enum claim_origin origin, const char *owner,
			      const char *metric, enum claim_kind kind, double value, const char *than)
{
	struct kit_claim kc;
	const char *dot = strchr(metric, '.');

	memset(&kc, 0, sizeof(kc));
	kc.case_name = xstrndup(metric, dot - metric);
	kc.metric = xstrdup(dot + 1);
	kc.kind = kind;
	kc.value = value;
	kc.than = than ? xstrdup(than) : NULL;
	branch_add_claim(b, origin, owner, &kc);
	free(kc.case_name);
	free(kc.metric);
	free(kc.than);
	return &b->claims[b->nr_claims - 1];
}

/* Where claims are checked, what stops them, and how a failed one fails its cell and the run. */
static void test_claims(void)
{
	struct run_results r;
	struct branch_result *br;
	struct cell_result *base, *kit, *var;
	struct claim_verdict v;
	struct run_summary s;
	struct series_result *sr;
	struct claim *series_better, *series_bound, *branch_claim, *var_claim;

	results_init(&r);
	br = results_branch(&r, "6.12");
	base = branch_cell(br, "base");
	fill_ok(base, "base", "tcg");
	base->timing = TIMING_INSTRUCTIONS;
	add_flat(base, "perf", "us", KTAP_LOWER_IS_BETTER, 100);
	add_flat(base, "rate", "ops", KTAP_HIGHER_IS_BETTER, 1000);
	kit = branch_cell(br, "kit");
	fill_ok(kit, "kit", "tcg");
	kit->timing = TIMING_INSTRUCTIONS;
	add_flat(kit, "perf", "us", KTAP_LOWER_IS_BETTER, 80);
	add_flat(kit, "rate", "ops", KTAP_HIGHER_IS_BETTER, 1000);
	var = branch_cell(br, "no-fix");
	fill_ok(var, "no-fix", "tcg");
	var->timing = TIMING_INSTRUCTIONS;
	add_flat(var, "perf", "us", KTAP_LOWER_IS_BETTER, 100);
	cell_add_metric_skip(var, "rate", "ops", "interval under 100 x the resolution");
	sr = branch_add_series(br, "batch", NULL);
	sr->state = SERIES_APPLIED;
	sr = branch_add_series(br, "old", NULL);
	sr->state = SERIES_PRESENT;
	sr = branch_add_series(br, "skipped", NULL);
	sr->state = SERIES_SKIPPED;

	series_better = claim_on(br, CLAIM_OF_SERIES, "batch", "perf.us", CLAIM_BETTER, 15, "base");
	claim_on(br, CLAIM_OF_SERIES, "old", "perf.us", CLAIM_BETTER, 15, "base");
	series_bound = claim_on(br, CLAIM_OF_SERIES, "old", "rate.ops", CLAIM_ABOVE, 900, NULL);
	claim_on(br, CLAIM_OF_SERIES, "skipped", "rate.ops", CLAIM_ABOVE, 900, NULL);
	branch_claim = claim_on(br, CLAIM_OF_BRANCH, "6.12", "rate.ops", CLAIM_BETTER, 5, "base");
	var_claim = claim_on(br, CLAIM_OF_VARIANT, "no-fix", "perf.us", CLAIM_WORSE, 20, "kit");

	ok(claim_applies(br, kit, series_better) && !claim_applies(br, base, series_better) &&
	   !claim_applies(br, var, series_better),
	   "where: an applied series' claim is checked on the kit only");
	ok(!claim_applies(br, kit, &br->claims[1]) && !claim_applies(br, base, &br->claims[1]),
	   "where: a present series' better/worse claim is checked nowhere");
	ok(claim_applies(br, kit, series_bound) && claim_applies(br, base, series_bound) &&
	   !claim_applies(br, var, series_bound),
	   "where: a present series' bound is checked on base and kit");
	ok(!claim_applies(br, kit, &br->claims[3]) && !claim_applies(br, base, &br->claims[3]),
	   "where: a skipped series' claims are checked nowhere");
	ok(claim_applies(br, kit, branch_claim) && !claim_applies(br, var, branch_claim),
	   "where: a branch's claim is checked on its kit");
	ok(claim_applies(br, var, var_claim) && !claim_applies(br, kit, var_claim),
	   "where: a variant's claim on the variant");

	claim_judge(&v, br, kit, series_better);
	is_int(v.outcome, CLAIM_HELD, "judge: -20%% instruction-paced holds better by 15%%");
	ok(v.evidence && strstr(v.evidence, "-20.0% against base") && strstr(v.evidence, "needed -15%"),
	   "judge: the evidence has the change and what was needed (%s)", v.evidence);
	claim_verdict_release(&v);
	claim_judge(&v, br, var, var_claim);
	is_int(v.outcome, CLAIM_HELD, "judge: a variant 25%% worse than the kit holds worse by 20%%");
	claim_verdict_release(&v);
	claim_judge(&v, br, kit, branch_claim);
	is_int(v.outcome, CLAIM_FAILED, "judge: no change does not hold better by 5%%");
	ok(v.evidence && strstr(v.evidence, "+0.0% against base") &&
	   strstr(v.evidence, "smaller than claimed"), "judge: and says why (%s)", v.evidence);
	claim_verdict_release(&v);
	is_int(cell_status(br, kit), CELL_FAILED, "judge: a claim that did not hold fails its cell");
	is_int(cell_health(kit), CELL_OK, "judge: though every check of it passed");
	results_summarise(&s, &r);
	ok(s.claims_held == 4 && s.claims_failed == 1 && s.failed == 1 && results_failed(&r),
	   "summary: 4 held, 1 did not, the run fails (%zu %zu %zu)", s.claims_held,
	   s.claims_failed, s.failed);

	/* A metric mm-regress skipped: not checked, with its reason. */
	claim_on(br, CLAIM_OF_VARIANT, "no-fix", "rate.ops", CLAIM_ABOVE, 1, NULL);
	claim_judge(&v, br, var, &br->claims[br->nr_claims - 1]);
	ok(v.outcome == CLAIM_NOT_CHECKED && v.evidence &&
	   strstr(v.evidence, "mm-regress skipped it (interval under 100 x the resolution)"),
	   "judge: a skipped metric is not checked (%s)", v.evidence);
	claim_verdict_release(&v);
	claim_judge(&v, br, var, claim_on(br, CLAIM_OF_VARIANT, "no-fix", "nope.x", CLAIM_ABOVE, 1,
					  NULL));
	ok(v.outcome == CLAIM_NOT_CHECKED && strstr(v.evidence, "nope.x not measured on no-fix"),
	   "judge: a missing metric is not checked (%s)", v.evidence);
	claim_verdict_release(&v);

	/* Emulated time: never checked, never a failure. */
	kit->timing = TIMING_EMULATED;
	base->timing = TIMING_EMULATED;
	claim_judge(&v, br, kit, branch_claim);
	ok(v.outcome == CLAIM_NOT_CHECKED && strstr(v.evidence, "emulated time"),
	   "judge: emulated time is not checked (%s)", v.evidence);
	claim_verdict_release(&v);
	is_int(cell_status(br, kit), CELL_OK, "judge: so it fails nothing");
	/* Against a cell in emulated time, or timed differently. */
	kit->timing = TIMING_INSTRUCTIONS;
	claim_judge(&v, br, kit, branch_claim);
	ok(v.outcome == CLAIM_NOT_CHECKED && strstr(v.evidence, "base measured emulated time"),
	   "judge: base in emulated time: not checked (%s)", v.evidence);
	claim_verdict_release(&v);
	base->timing = TIMING_HARDWARE;
	free(base->accel);
	base->accel = xstrdup("kvm");
	claim_judge(&v, br, kit, branch_claim);
	ok(v.outcome == CLAIM_NOT_CHECKED && strstr(v.evidence, "not comparable"),
	   "judge: base on hardware, kit instruction-paced: not comparable (%s)", v.evidence);
	claim_verdict_release(&v);
	claim_judge(&v, br, kit, claim_on(br, CLAIM_OF_BRANCH, "6.12", "perf.us", CLAIM_BETTER, 5,
					  "gone"));
	ok(v.outcome == CLAIM_NOT_CHECKED && strstr(v.evidence, "no gone cell"),
	   "judge: a than cell not in the results (%s)", v.evidence);
	claim_verdict_release(&v);
	results_release(&r);
}

/* Instruction-paced regressions fail the run; different kinds of time are not compared. */
static void test_timing(void)
{
	struct run_results r;
	struct branch_result *br;
	struct branch_comparison bc;
	struct run_summary s;

	results_init(&r);
	br = results_branch(&r, "6.12");
	fill_ok(branch_cell(br, "base"), "base", "tcg");
	fill_ok(branch_cell(br, "kit"), "kit", "tcg");
	add_flat(&br->cells[0], "perf", "us", KTAP_LOWER_IS_BETTER, 100);
	add_flat(&br->cells[1], "perf", "us", KTAP_LOWER_IS_BETTER, 110);
	is_int(cell_timing(&br->cells[0]), TIMING_EMULATED, "timing: tcg without a kind is emulated");
	br->cells[0].timing = br->cells[1].timing = TIMING_INSTRUCTIONS;
	branch_compare(&bc, br);
	ok(bc.comparable && !bc.emulated && bc.timing == TIMING_INSTRUCTIONS && bc.nr_regressions == 1,
	   "timing: instruction-paced +10%% is a regression, not emulated");
	branch_comparison_release(&bc);
	results_summarise(&s, &r);
	ok(s.regressions == 1 && !s.emulated_regressions && results_failed(&r),
	   "timing: and it fails the run");
	br->cells[0].timing = br->cells[1].timing = TIMING_EMULATED;
	results_summarise(&s, &r);
	ok(s.regressions == 1 && s.emulated_regressions == 1 && !results_failed(&r),
	   "timing: in emulated time the same regression fails nothing");
	br->cells[0].timing = TIMING_INSTRUCTIONS;
	branch_compare(&bc, br);
	ok(!bc.comparable && bc.note && strstr(bc.note, "instruction-paced") &&
	   strstr(bc.note, "emulated"), "timing: instruction-paced against emulated is not compared (%s)",
	   bc.note ? bc.note : "");
	branch_comparison_release(&bc);

	/* A cell that is base's tree, its results base's: no change at all. */
	br->cells[1].timing = TIMING_INSTRUCTIONS;
	free(br->cells[0].commit);
	br->cells[0].commit = xstrdup("1111111111111111111111111111111111111111");
	br->cells[1].reused = xstrdup("base");
	branch_compare(&bc, br);
	ok(bc.comparable && bc.same_tree && !bc.nr_regressions && !bc.nr_improvements &&
	   bc.rows[0].v.call == PERF_SAME && strstr(bc.note, "base's build and results reused"),
	   "reused: the same tree as base, no change (%s)", bc.note ? bc.note : "");
	branch_comparison_release(&bc);
	results_summarise(&s, &r);
	ok(!s.regressions && !results_failed(&r), "reused: never a regression");
	results_release(&r);
}

/* Several boots of one cell: samples merged, the worst result of each case. */
static void test_boots(void)
{
	const char *one =
		"KTAP version 1\n"
		"1..3\n"
		"# clocksource: tsc\n"
		"# clock: resolution_ns=1 getres_ns=1 step_ns=1\n"
		"# sample: perf us 1/2 10.0 us\n"
		"# sample: perf us 2/2 10.0 us\n"
		"# metric: perf us 10.000 us lower_is_better n=2 stddev=0.000\n"
		"# metric: rate ops 7.000 ops higher_is_better\n"
		"ok 1 perf\n"
		"ok 2 flaky\n"
		"ok 3 thp # SKIP no THP\n"
		"# mm-regress: done\n";
	const char *two =
		"KTAP version 1\n"
		"1..3\n"
		"# clocksource: hpet\n"
		"# sample: perf us 1/2 12.0 us\n"
		"# sample: perf us 2/2 12.0 us\n"
		"# metric: perf us 12.000 us lower_is_better n=2 stddev=0.000\n"
		"# metric-skip: rate ops too short for the clock\n"
		"ok 1 perf\n"
		"# flaky: lost a race\n"
		"not ok 2 flaky\n"
		"ok 3 thp\n"
		"# mm-regress: done\n";
	const char *consoles[] = { one, two }, *dead = "[ 0.0] Linux\n[ 1.0] Kernel panic - not syncing: VFS\n";
	size_t lens[] = { strlen(one), strlen(two) };
	struct sample_stats st;
	struct cell_result c;

	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("base");
	cell_read_consoles(&c, consoles, lens, 2, NULL);
	is_int(c.boots, 2, "boots: two");
	ok(c.nr_metrics == 1 && c.metrics[0].nr_samples == 4 && c.metrics[0].n == 4,
	   "boots: the samples of both boots, and a metric one boot skipped is not measured");
	metric_stats(&st, &c.metrics[0]);
	ok(st.mean == 11 && fabs(st.stddev - sqrt(4.0 / 3)) < 1e-12 && c.metrics[0].mean == 11,
	   "boots: mean and stddev from every sample (%g, %g)", st.mean, st.stddev);
	ok(c.nr_metric_skips == 1 && !strcmp(c.metric_skips[0].reason, "too short for the clock"),
	   "boots: the skip is kept with its reason");
	is_str(c.clocksource, "tsc", "boots: the first boot's clock");
	ok(c.clock_resolution_ns == 1, "boots: and its resolution");
	is_int(c.tests.status, CHECK_FAILED, "boots: a case that failed in one boot fails");
	is_str(c.tests.evidence, "boot 2 of 2: not ok 2 flaky: flaky: lost a race",
	       "boots: the evidence names the boot");
	ok(c.nr_cases == 3 && c.cases[1].status == KTAP_FAIL && c.cases[2].status == KTAP_SKIP,
	   "boots: each case shows its worst result");
	cell_result_release(&c);

	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("kit");
	consoles[1] = dead;
	lens[1] = strlen(dead);
	cell_read_consoles(&c, consoles, lens, 2, NULL);
	ok(c.boot.status == CHECK_FAILED && c.boot.evidence &&
	   !strncmp(c.boot.evidence, "boot 2 of 2: ", 13), "boots: a boot that never started fails (%s)",
	   c.boot.evidence ? c.boot.evidence : "");
	ok(c.splats.status == CHECK_FAILED && strstr(c.splats.evidence, "boot 2 of 2: console line 2: "),
	   "boots: the splat of a later boot is found (%s)", c.splats.evidence);
	cell_result_release(&c);

	/* Metrics printed as summaries only: pooled. */
	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("kit");
	consoles[0] = "KTAP version 1\n1..1\n# metric: p x 10.000 us lower_is_better n=3 stddev=1.000\nok 1 p\n# mm-regress: done\n";
	consoles[1] = "KTAP version 1\n1..1\n# metric: p x 12.000 us lower_is_better n=3 stddev=1.000\nok 1 p\n# mm-regress: done\n";
	lens[0] = strlen(consoles[0]);
	lens[1] = strlen(consoles[1]);
	cell_read_consoles(&c, consoles, lens, 2, NULL);
	ok(c.nr_metrics == 1 && c.metrics[0].n == 6 && c.metrics[0].mean == 11 &&
	   fabs(c.metrics[0].stddev - sqrt((2 + 2 + 3 + 3) / 5.0)) < 1e-12 && !c.metrics[0].nr_samples,
	   "boots: summaries are pooled (n %u, mean %g, stddev %g)", c.nr_metrics ? c.metrics[0].n : 0,
	   c.nr_metrics ? c.metrics[0].mean : 0, c.nr_metrics ? c.metrics[0].stddev : 0);
	is_int(c.tests.status, CHECK_OK, "boots: both complete, the tests pass");
	cell_result_release(&c);
}

static void test_health(void)
{
	struct cell_result c = { 0 };
	const struct check *p;
	const char *what;

	fill_ok(&c, "kit", "kvm");
	is_int(cell_health(&c), CELL_OK, "health: every check ok");
	ok(!cell_first_problem(&c, &what), "health: no problem to show");
	check_set(&c.tests, CHECK_FAILED, "not ok 3 x");
	check_set(&c.splats, CHECK_FAILED, "console line 9: BUG: x");
	is_int(cell_health(&c), CELL_FAILED, "health: a failed case fails the cell");
	p = cell_first_problem(&c, &what);
	is_str(what, "splats", "health: a splat explains more than the case it broke");
	is_str(p ? p->evidence : NULL, "console line 9: BUG: x", "health: with its console line");
	cell_result_release(&c);

	fill_ok(&c, "kit", "kvm");
	check_set(&c.apply, CHECK_CONFLICT, "cannot apply 'a 1/2'");
	check_set(&c.build, CHECK_SKIPPED, "apply conflict");
	is_int(cell_health(&c), CELL_CONFLICT, "health: a conflict is its own verdict");
	cell_result_release(&c);

	fill_ok(&c, "base", "kvm");
	check_set(&c.boot, CHECK_NOT_RUN, NULL);
	is_int(cell_health(&c), CELL_INCOMPLETE, "health: a check not run leaves the cell incomplete");
	cell_result_release(&c);

	fill_ok(&c, "base", "kvm");
	check_set(&c.build, CHECK_SKIPPED, "not imported");
	check_set(&c.boot, CHECK_SKIPPED, "not imported");
	check_set(&c.tests, CHECK_SKIPPED, "not imported");
	check_set(&c.splats, CHECK_SKIPPED, "not imported");
	is_int(cell_health(&c), CELL_INCOMPLETE, "health: all skipped is not a pass");
	cell_result_release(&c);
}

/* The one verdict on a branch: what run's and report's exit status and the export gate ask. */
static void test_branch_passed(void)
{
	struct run_results r;
	struct branch_result *b;

	results_init(&r);
	b = results_branch(&r, "t");
	ok(!branch_passed(b), "passed: a branch with no cells verified nothing");
	ok(results_failed(&r), "passed: and the run with it fails");
	fill_ok(branch_cell(b, "base"), "base", "kvm");
	fill_ok(branch_cell(b, "kit"), "kit", "kvm");
	ok(branch_passed(b) && !results_failed(&r), "passed: base and kit ok");
	cell_expect_fail(branch_cell(b, "kit"), "steady");
	branch_cell(b, "kit")->nr_xfail = 1;
	ok(branch_passed(b), "passed: a case failing as expected does not fail it");
	check_set(&branch_cell(b, "kit")->build, CHECK_FAILED, "mm/mremap.c:3: error: x");
	ok(!branch_passed(b) && results_failed(&r), "passed: a failed build fails it");
	fill_ok(branch_cell(b, "kit"), "kit", "kvm");
	check_set(&b->apply, CHECK_FAILED, "apply could not run");
	ok(!branch_passed(b), "passed: an apply that could not run fails it");
	check_set(&b->apply, CHECK_OK, NULL);
	add_flat(branch_cell(b, "base"), "perf", "us", KTAP_LOWER_IS_BETTER, 100);
	add_flat(branch_cell(b, "kit"), "perf", "us", KTAP_LOWER_IS_BETTER, 150);
	ok(!branch_passed(b) && results_failed(&r), "passed: a regression in hardware time fails it");
	results_release(&r);
}

static void test_compare(void)
{
	const double b[] = { 10, 10.2, 9.8, 10.1, 9.9 }, k[] = { 13, 13.1, 12.9, 13.2, 12.8 };
	struct run_results r;
	struct branch_result *br;
	struct branch_comparison bc;
	struct run_summary s;

	results_init(&r);
	br = results_branch(&r, "6.12");
	fill_ok(branch_cell(br, "kit"), "kit", "tcg");
	fill_ok(branch_cell(br, "base"), "base", "tcg");
	ok(!strcmp(br->cells[0].variant, "base"), "cells: base is kept before kit");
	cell_add_metric(&br->cells[0], "perf", "us", "us", KTAP_LOWER_IS_BETTER, 5, 10, 0.16, b, 5);
	cell_add_metric(&br->cells[1], "perf", "us", "us", KTAP_LOWER_IS_BETTER, 5, 13, 0.16, k, 5);
	cell_add_metric(&br->cells[1], "only", "kit", "x", KTAP_HIGHER_IS_BETTER, 1, 1, 0, NULL, 0);
	branch_compare(&bc, br);
	ok(bc.comparable && bc.emulated, "compare: same accelerator, marked emulated under tcg");
	is_int(bc.nr, 2, "compare: one row per metric");
	is_int(bc.rows[0].v.call, PERF_REGRESSION, "compare: +30%% is called");
	is_int(bc.nr_regressions, 1, "compare: one regression counted");
	is_int(bc.rows[1].v.call, PERF_NO_CALL, "compare: a kit-only metric gets no call");
	branch_comparison_release(&bc);
	results_summarise(&s, &r);
	ok(s.cells == 2 && s.ok == 2 && s.regressions == 1, "summary: 2 ok cells, 1 regression");
	is_int(s.emulated_regressions, 1, "summary: measured under tcg, it is an emulated one");
	ok(!results_failed(&r), "summary: an emulated regression does not fail the run");
	free(br->cells[0].accel);
	br->cells[0].accel = xstrdup("kvm");
	free(br->cells[1].accel);
	br->cells[1].accel = xstrdup("kvm");
	memset(&s, 0, sizeof(s));
	results_summarise(&s, &r);
	ok(s.regressions == 1 && !s.emulated_regressions, "summary: under kvm it is a real one");
	ok(results_failed(&r), "summary: a regression on real hardware makes the run fail");
	free(br->cells[0].accel);
	br->cells[0].accel = xstrdup("tcg");

	free(br->cells[0].commit);
	br->cells[0].commit = xstrdup("1111111111111111111111111111111111111111");
	free(br->cells[1].commit);
	br->cells[1].commit = xstrdup("1111111111111111111111111111111111111111");
	branch_compare(&bc, br);
	ok(bc.comparable && bc.same_tree && bc.note && strstr(bc.note, "nothing applied"),
	   "compare: a kit that is the base tree is the same tree (%s)", bc.note ? bc.note : "");
	is_int(bc.nr_regressions, 0, "compare: and nothing is called on it");
	ok(bc.nr && bc.rows[0].v.call == PERF_SAME, "compare: its +30%% is no change (%s)",
	   bc.nr && bc.rows[0].v.why ? bc.rows[0].v.why : "");
	branch_comparison_release(&bc);
	free(br->cells[1].commit);
	br->cells[1].commit = xstrdup("2222222222222222222222222222222222222222");

	free(br->cells[1].accel);
	br->cells[1].accel = xstrdup("kvm");
	branch_compare(&bc, br);
	ok(!bc.comparable && bc.note && strstr(bc.note, "tcg") && strstr(bc.note, "kvm"),
	   "compare: tcg against kvm is not compared (%s)", bc.note ? bc.note : "");
	is_int(bc.nr_regressions, 0, "compare: and nothing is called");
	branch_comparison_release(&bc);
	results_release(&r);
}

/*
 * A declared cost: its bound takes the threshold's place on the worse
 * side of its metric only; every other metric keeps the threshold.
 */
static void test_costs(void)
{
	const double b[] = { 1000, 1000, 1000, 1000, 1000 }, k8[] = { 1079, 1079, 1079, 1079, 1079 },
		     k12[] = { 1120, 1120, 1120, 1120, 1120 }, k2[] = { 1022, 1022, 1022, 1022, 1022 },
		     k4[] = { 1040, 1040, 1040, 1040, 1040 }, better[] = { 900, 900, 900, 900, 900 };
	struct kit_cost cost = { "mremap_pud_time", "move_1g_pmd_aligned", 9, "the PUD check", 0 };
	struct kit_cost small = { "process_madvise_dontneed", "cold_madvise", 3, "split-out locking", 0 };
	struct sample_stats sb, sk;
	struct perf_verdict v;
	struct run_results r;
	struct branch_result *br;
	struct branch_comparison bc;
	struct run_summary s;

	sample_stats(&sb, b, 5);
	sample_stats(&sk, k8, 5);
	perf_judge_cost(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0, &cost);
	ok(v.call == PERF_COST && v.why && strstr(v.why, "within its declared cost"),
	   "cost: +7.9%% under a 9%% bound is the declared cost (%s)", v.why ? v.why : "");
	ok(fabs(v.threshold_pct - 9) < 1e-9, "cost: the bound is what it had to stay under (%g)",
	   v.threshold_pct);
	perf_judge_cost(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0, NULL);
	is_int(v.call, PERF_REGRESSION, "cost: without it, +7.9%% is a regression");
	sample_stats(&sk, k12, 5);
	perf_judge_cost(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0, &cost);
	ok(v.call == PERF_REGRESSION && strstr(v.why, "beyond its declared cost"),
	   "cost: +12%% beyond a 9%% bound is a regression (%s)", v.why);
	/* A bound below the threshold is stricter than it: 4% fails a 3% cost. */
	sample_stats(&sk, k4, 5);
	perf_judge_cost(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0, &small);
	is_int(v.call, PERF_REGRESSION, "cost: +4%% beyond a 3%% bound fails, under the 5%% threshold too");
	perf_judge_cost(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0, NULL);
	is_int(v.call, PERF_SAME, "cost: without a cost, +4%% is below the threshold");
	sample_stats(&sk, k2, 5);
	perf_judge_cost(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0, &small);
	is_int(v.call, PERF_COST, "cost: +2.2%% within a 3%% bound is shown as the cost");
	/* The better side keeps the threshold. */
	sample_stats(&sk, better, 5);
	perf_judge_cost(&v, &sb, &sk, KTAP_LOWER_IS_BETTER, 0, &cost);
	is_int(v.call, PERF_IMPROVEMENT, "cost: an improvement of the metric stays one");
	/* Higher is better: worse is lower. */
	sample_stats(&sk, b, 5);
	sample_stats(&sb, k8, 5);
	perf_judge_cost(&v, &sb, &sk, KTAP_HIGHER_IS_BETTER, 0, &cost);
	is_int(v.call, PERF_COST, "cost: higher-is-better, -7.3%% within 9%% is the cost");
	ok(!strcmp(perf_call_name(PERF_COST), "cost"), "cost: its name is 'cost'");

	/* In a branch: the cost is the kit's metric's, a second metric keeps the threshold. */
	results_init(&r);
	br = results_branch(&r, "5.10");
	fill_ok(branch_cell(br, "base"), "base", "kvm");
	fill_ok(branch_cell(br, "kit"), "kit", "kvm");
	fill_ok(branch_cell(br, "v"), "v", "kvm");
	cell_add_metric(&br->cells[0], "mremap_pud_time", "move_1g_pmd_aligned", "us",
			KTAP_LOWER_IS_BETTER, 5, 1000, 0, b, 5);
	cell_add_metric(&br->cells[1], "mremap_pud_time", "move_1g_pmd_aligned", "us",
			KTAP_LOWER_IS_BETTER, 5, 1079, 0, k8, 5);
	cell_add_metric(&br->cells[2], "mremap_pud_time", "move_1g_pmd_aligned", "us",
			KTAP_LOWER_IS_BETTER, 5, 1079, 0, k8, 5);
	cell_add_metric(&br->cells[0], "other", "ns", "ns", KTAP_LOWER_IS_BETTER, 5, 1000, 0, b, 5);
	cell_add_metric(&br->cells[1], "other", "ns", "ns", KTAP_LOWER_IS_BETTER, 5, 1079, 0, k8, 5);
	branch_add_cost(br, &cost);
	branch_compare(&bc, br);
	ok(bc.nr == 2 && bc.rows[0].cost && bc.rows[0].v.call == PERF_COST,
	   "cost: the kit's row of the metric is the declared cost");
	ok(!bc.rows[1].cost && bc.rows[1].v.call == PERF_REGRESSION,
	   "cost: the same +7.9%% on another metric is a regression");
	ok(bc.nr_costs == 1 && bc.nr_regressions == 1, "cost: counted apart from regressions");
	branch_comparison_release(&bc);
	branch_compare_cell(&bc, br, branch_find_cell(br, "v"));
	ok(!bc.rows[0].cost && bc.rows[0].v.call == PERF_REGRESSION,
	   "cost: a variant is compared without the kit's costs");
	branch_comparison_release(&bc);
	results_summarise(&s, &r);
	ok(s.costs == 1 && s.regressions == 1 && results_failed(&r),
	   "cost: the summary counts 1 cost; the other metric's regression still fails the run");
	results_release(&r);
}

static void test_console(void)
{
	const char *console =
		"[    0.000000] Linux version 6.12\n"
		"KTAP version 1\n"
		"1..2\n"
		"# sample: perf us 1/3 10.0 us\n"
		"# sample: perf us 2/3 11.0 us\n"
		"# sample: perf us 3/3 12.0 us\n"
		"# metric: perf us 11.000 us lower_is_better n=3 stddev=1.000\n"
		"ok 1 perf\n"
		"# move: pattern mismatch at 0x1000\n"
		"[    3.100000] BUG: Bad page map in process mm-regress\n"
		"not ok 2 move\n"
		"# mm-regress: done\n";
	struct cell_result c;

	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("kit");
	cell_read_console(&c, console, strlen(console), NULL);
	is_int(c.boot.status, CHECK_OK, "console: KTAP seen, it booted");
	is_int(c.tests.status, CHECK_FAILED, "console: a failed case fails the tests");
	is_str(c.tests.evidence, "not ok 2 move: move: pattern mismatch at 0x1000",
	       "console: the evidence is the case and its last diagnostic");
	is_int(c.splats.status, CHECK_FAILED, "console: the splat is found");
	is_str(c.splats.evidence, "console line 10: [    3.100000] BUG: Bad page map in process mm-regress",
	       "console: with its line");
	ok(c.nr_metrics == 1 && c.metrics[0].nr_samples == 3, "console: the metric and its samples");
	cell_result_release(&c);

	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("base");
	cell_read_console(&c, "[ 0.0] Linux\n", 13, "timeout (boot): no 'KTAP version' in 300s");
	is_int(c.boot.status, CHECK_FAILED, "console: no KTAP, no boot");
	is_str(c.boot.evidence, "timeout (boot): no 'KTAP version' in 300s",
	       "console: vm.c's reason is the evidence");
	is_int(c.tests.status, CHECK_SKIPPED, "console: tests skipped when it did not boot");
	cell_result_release(&c);
}

static const char xfail_console[] =
	"KTAP version 1\n"
	"1..5\n"
	"# a: pattern mismatch\n"
	"not ok 1 a\n"
	"# b: the child saw the write\n"
	"not ok 2 b\n"
	"ok 3 c\n"
	"ok 4 e # SKIP no THP\n"
	"ok 5 f\n"
	"# mm-regress: done\n";

/* A variant's expect-fail list against what ran. */
static void test_expectations(void)
{
	char *expect[] = { "b", "c", "d", "e" };
	struct ktap_result k;
	struct expectations e;
	struct strbuf sb = STRBUF_INIT;

	ktap_parse(&k, xfail_console, strlen(xfail_console));
	ok(ktap_complete(&k), "expect: a complete run, whatever its cases did");
	expectations_judge(&e, &k, expect, ARRAY_SIZE(expect));
	ok(e.nr_fail == 1 && e.first_fail && !strcmp(e.first_fail->name, "a"),
	   "expect: a failure not listed is still one");
	ok(e.xfail.nr == 1 && !strcmp(e.xfail.v[0], "b"), "expect: a listed failure is an XFAIL");
	ok(e.unexpected_pass.nr == 1 && !strcmp(e.unexpected_pass.v[0], "c"),
	   "expect: a listed pass is an unexpected pass");
	ok(e.not_run.nr == 1 && !strcmp(e.not_run.v[0], "d"), "expect: a listed case that never ran");
	ok(e.skipped.nr == 1 && !strcmp(e.skipped.v[0], "e: no THP"), "expect: a listed skip keeps its reason");
	expectations_describe(&sb, &e, "0b5be138ce00, 04d1c9d60c6e");
	is_str(sb.buf, "b failed as expected: shows 0b5be138ce00, 04d1c9d60c6e matter; "
	       "e was expected to fail, but was skipped: no THP", "expect: what the XFAILs showed");
	strbuf_reset(&sb);
	is_int(expectations_missed(&sb, &e, "04d1c9d60c6e"), 2, "expect: two demonstrations missed");
	is_str(sb.buf, "unexpected pass: c was expected to fail without 04d1c9d60c6e (the demonstration "
	       "did not work); d was expected to fail without 04d1c9d60c6e but did not run",
	       "expect: and how");
	expectations_release(&e);

	expectations_judge(&e, &k, NULL, 0);
	is_int(e.nr_fail, 2, "expect: with no list, every failure counts");
	strbuf_reset(&sb);
	is_int(expectations_missed(&sb, &e, NULL), 0, "expect: and nothing is missed");
	expectations_release(&e);
	ktap_release(&k);
	strbuf_release(&sb);
}

/* A cell of a variant read from its console: XFAIL, unexpected pass, splat. */
static void test_console_expected(void)
{
	const char *console =
		"KTAP version 1\n"
		"1..2\n"
		"ok 1 perf\n"
		"# wrbit: the child saw the parent's write at page 1\n"
		"not ok 2 wrbit\n"
		"# mm-regress: done\n";
	const char *passed =
		"KTAP version 1\n"
		"1..2\n"
		"ok 1 perf\n"
		"ok 2 wrbit\n"
		"# mm-regress: done\n";
	const char *splat =
		"KTAP version 1\n"
		"1..2\n"
		"ok 1 perf\n"
		"[    3.100000] BUG: Bad rss-counter state mm:0000 type:MM_ANONPAGES val:1\n"
		"not ok 2 wrbit\n"
		"# mm-regress: done\n";
	struct cell_result c;

	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("no-fixes");
	c.without = xstrdup("0b5be138ce00, 04d1c9d60c6e");
	check_set(&c.apply, CHECK_OK, NULL);
	check_set(&c.build, CHECK_OK, NULL);
	cell_expect_fail(&c, "wrbit");
	cell_expect_fail(&c, "wrbit");
	is_int(c.nr_expect_fail, 1, "console: an expected failure listed once");
	cell_read_console(&c, console, strlen(console), NULL);
	is_int(c.tests.status, CHECK_OK, "console: the expected failure leaves the tests ok");
	is_str(c.tests.evidence, "wrbit failed as expected: shows 0b5be138ce00, 04d1c9d60c6e matter",
	       "console: saying what it showed");
	is_str(c.expected, c.tests.evidence, "console: the cell keeps it");
	ok(c.nr_fail == 0 && c.nr_xfail == 1 && c.nr_pass == 1, "console: 1 ok, 0 fail, 1 xfail");
	ok(c.nr_cases == 2 && c.cases[1].expected_fail && !c.cases[0].expected_fail,
	   "console: the case is marked expected");
	is_int(cell_health(&c), CELL_OK, "console: the cell is ok");
	cell_result_release(&c);

	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("no-fixes");
	c.without = xstrdup("04d1c9d60c6e");
	cell_expect_fail(&c, "wrbit");
	cell_read_console(&c, passed, strlen(passed), NULL);
	is_int(c.tests.status, CHECK_FAILED, "console: an unexpected pass fails the tests");
	is_str(c.tests.evidence, "unexpected pass: wrbit was expected to fail without 04d1c9d60c6e "
	       "(the demonstration did not work)", "console: and says so");
	is_int(cell_health(&c), CELL_FAILED, "console: the cell fails");
	cell_result_release(&c);

	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("no-fixes");
	cell_expect_fail(&c, "wrbit");
	cell_read_console(&c, splat, strlen(splat), NULL);
	is_int(c.tests.status, CHECK_OK, "console: the case itself was expected to fail");
	is_int(c.splats.status, CHECK_FAILED, "console: but the splat fails the cell all the same");
	is_int(cell_health(&c), CELL_FAILED, "console: the cell fails");
	cell_result_release(&c);
}

/* A variant is compared with base too; its regressions fail nothing. */
static void test_compare_variant(void)
{
	const double b[] = { 1000, 1002, 998, 1001, 999 }, v[] = { 700, 702, 698, 701, 699 };
	struct run_results r;
	struct branch_result *br;
	struct cell_result *base, *var;
	struct branch_comparison bc;
	struct run_summary s;

	results_init(&r);
	br = results_branch(&r, "6.12");
	fill_ok(branch_cell(br, "no-hotfix"), "no-hotfix", "tcg");
	fill_ok(branch_cell(br, "kit"), "kit", "tcg");
	fill_ok(branch_cell(br, "no-fixes"), "no-fixes", "tcg");
	fill_ok(branch_cell(br, "base"), "base", "tcg");
	ok(br->nr_cells == 4 && !strcmp(br->cells[0].variant, "base") &&
	   !strcmp(br->cells[1].variant, "kit") && !strcmp(br->cells[2].variant, "no-hotfix") &&
	   !strcmp(br->cells[3].variant, "no-fixes"),
	   "cells: base, kit, then the variants in the order they came");
	base = &br->cells[0];
	var = &br->cells[2];
	cell_add_metric(base, "realloc", "calls", "calls/s", KTAP_HIGHER_IS_BETTER, 5, 1000, 1.6, b, 5);
	cell_add_metric(&br->cells[1], "realloc", "calls", "calls/s", KTAP_HIGHER_IS_BETTER, 5, 1000,
			1.6, b, 5);
	cell_add_metric(var, "realloc", "calls", "calls/s", KTAP_HIGHER_IS_BETTER, 5, 700, 1.6, v, 5);
	branch_compare_cell(&bc, br, var);
	ok(bc.comparable && bc.kit == var, "compare: a variant against base");
	is_int(bc.nr_regressions, 1, "compare: -30%% is called");
	branch_comparison_release(&bc);
	branch_compare_cell(&bc, br, &br->cells[3]);
	ok(bc.comparable && bc.nr == 1 && !bc.rows[0].kit &&
	   !strcmp(bc.rows[0].v.why, "not measured on the variant"),
	   "compare: a metric the variant did not measure");
	branch_comparison_release(&bc);
	free(var->accel);
	var->accel = xstrdup("kvm");
	branch_compare_cell(&bc, br, var);
	is_str(bc.note, "base ran under tcg, no-hotfix under kvm: not compared",
	       "compare: the note names the variant");
	branch_comparison_release(&bc);
	free(var->accel);
	var->accel = xstrdup("tcg");
	var->nr_xfail = 1;
	results_summarise(&s, &r);
	ok(s.regressions == 0 && s.variant_regressions == 1 && s.xfail == 1,
	   "summary: the variant's regression and XFAIL are counted apart");
	ok(!results_failed(&r), "summary: they do not fail the run");
	results_release(&r);
}

/* The hash of the test key of in, or NULL when there is none. */
static char *test_key_hash(const struct test_inputs *in)
{
	struct step_key k = STEP_KEY_INIT;
	char *ret = test_key(&k, in) ? NULL : step_key_hash(&k);

	step_key_release(&k);
	return ret;
}

/* record_fresh() of st against the test key of in; why is what it says. */
static int fresh_for(const struct step_record *st, const struct test_inputs *in, int forced,
		     struct strbuf *why)
{
	struct step_key k = STEP_KEY_INIT;
	int known = !test_key(&k, in), ret = record_fresh(st, known ? &k : NULL, forced, why);

	step_key_release(&k);
	return ret;
}

/* The keys behind "up to date": equal inputs, equal keys; any input changed, another key. */
static void test_keys(void)
{
	struct kernel_boot boot;
	struct step_record st = STEP_RECORD_INIT;
	struct step_key key = STEP_KEY_INIT;
	struct strbuf why = STRBUF_INIT;
	struct step_key a = STEP_KEY_INIT, b = STEP_KEY_INIT;
	struct strvec argv = STRVEC_INIT;
	struct test_inputs in = { 0 };
	enum run_step step;
	char *k1, *k2;
	char *h1, *h2;

	memset(&boot, 0, sizeof(boot));
	boot.memory_mb = 2048;
	boot.cpus = 2;
	strvec_pushl(&argv, "qemu-system-x86_64", "-accel", "tcg", "-append", "console=ttyS0", NULL);
	in.bzimage_hash = "aaaa";
	in.regress_hash = "bbbb";
	in.qemu_argv = &argv;
	in.qemu_version = "QEMU emulator version 7.2.0";
	in.accel = "auto";
	in.repeat = 5;
	in.boots = 2;
	in.boot = &boot;
	k1 = test_key_hash(&in);
	k2 = test_key_hash(&in);
	is_str(k1, k2, "keys: the same inputs give the same test key");
	free(k2);
#define KEY_CHANGES(what, change, undo) do { \
		change; \
		k2 = test_key_hash(&in); \
		ok(k2 && strcmp(k1, k2), "keys: " what " changes the test key"); \
		free(k2); \
		undo; \
	} while (0)
	KEY_CHANGES("--repeat", in.repeat = 3, in.repeat = 5);
	KEY_CHANGES("--full", in.full = 1, in.full = 0);
	KEY_CHANGES("another bzImage", in.bzimage_hash = "aaab", in.bzimage_hash = "aaaa");
	KEY_CHANGES("another mm-regress", in.regress_hash = "bbbc", in.regress_hash = "bbbb");
	KEY_CHANGES("another accelerator asked for", in.accel = "tcg", in.accel = "auto");
	KEY_CHANGES("the boot command line", boot.cmdline = "quiet", boot.cmdline = NULL);
	KEY_CHANGES("the console", boot.console = "ttyS1", boot.console = NULL);
	KEY_CHANGES("boot.accel", boot.accel = "kvm", boot.accel = NULL);
	KEY_CHANGES("the number of boots", in.boots = 3, in.boots = 2);
	KEY_CHANGES("how the TCG clock runs", boot.tcg_clock = "host", boot.tcg_clock = NULL);
	KEY_CHANGES("QEMU's version", in.qemu_version = "QEMU emulator version 8.0.0",
		    in.qemu_version = "QEMU emulator version 7.2.0");
	KEY_CHANGES("a word of QEMU's command line", strvec_push(&argv, "-no-reboot"),
		    (free((char *)argv.v[--argv.nr]), argv.v[argv.nr] = NULL));
	k2 = test_key_hash(&in);
	is_str(k1, k2, "keys: back to the same inputs, back to the same key");
	free(k2);
	in.qemu_argv = NULL;
	ok(!test_key_hash(&in), "keys: no test key while the accelerator is not settled");
	in.qemu_argv = &argv;
	{
		char *expect[] = { "pte_batch_wrbit" };
		struct kernel_variant v;

		memset(&v, 0, sizeof(v));
		v.name = "no-fixes";
		in.variant = &v;
		k2 = test_key_hash(&in);
		ok(strcmp(k1, k2), "keys: a declared variant has a test key of its own");
		h1 = k2;
		v.expect_fail = expect;
		v.nr_expect_fail = 1;
		k2 = test_key_hash(&in);
		ok(strcmp(h1, k2), "keys: what it expects to fail is part of it");
		free(h1);
		free(k2);
		in.variant = NULL;
	}
	test_key(&key, &in);
	record_set_key(&st, &key);
	record_set_status(&st, RS_OK);
	ok(fresh_for(&st, &in, 0, &why) && !why.len, "state: ok under the same key is up to date");
	ok(!fresh_for(&st, &in, 1, &why), "state: forced is not up to date");
	is_str(why.buf, "forced", "state: and says it is forced");
	record_set_status(&st, RS_FAILED);
	ok(fresh_for(&st, &in, 0, &why), "state: a recorded failure is up to date too");
	record_set_status(&st, RS_ERROR);
	ok(!fresh_for(&st, &in, 0, &why), "state: an error of mkseries is always retried");
	is_str(why.buf, "the last attempt could not run", "state: and says why");
	record_set_status(&st, RS_OK);
	boot.console = "ttyS1";
	ok(!fresh_for(&st, &in, 0, &why), "state: another console is not up to date");
	is_str(why.buf, "console changed", "state: it names the part of the key that changed");
	boot.console = NULL;
	in.qemu_version = "QEMU emulator version 8.0.0";
	ok(!fresh_for(&st, &in, 0, &why), "state: another QEMU is not up to date");
	is_str(why.buf, "qemu-version changed", "state: only QEMU's version changed");
	in.qemu_version = "QEMU emulator version 7.2.0";
	in.qemu_argv = NULL;
	ok(!fresh_for(&st, &in, 0, &why), "state: no key (the accelerator unsettled) is not up to date");
	in.qemu_argv = &argv;
	record_set(&st, RF_KEY_PARTS, "");
	record_set(&st, RF_KEY, "0123");
	ok(!fresh_for(&st, &in, 0, &why), "state: a key recorded without its parts is not up to date");
	is_str(why.buf, "its inputs changed", "state: and says so without naming a part");
	record_release(&st);
	ok(!fresh_for(&st, &in, 0, &why) && !why.len,
	   "state: nothing recorded is not up to date, and needs no reason");
	step_key_release(&key);
	strbuf_release(&why);
	strvec_clear(&argv);

	/* A value cannot pose as a line of its own. */
	step_key_add(&a, "x", "1\ny 2");
	step_key_add(&b, "x", "1");
	step_key_add(&b, "y", "2");
	h1 = step_key_hash(&a);
	h2 = step_key_hash(&b);
	ok(strcmp(h1, h2), "keys: a newline in a value does not forge another line");
	free(h1);
	free(h2);
	step_key_release(&a);
	step_key_release(&b);

	free(k1);

	ok(!run_step_parse(&step, "build") && step == STEP_BUILD, "--force=build parses");
	ok(STEP_IMPORT < STEP_APPLY && STEP_APPLY < STEP_BUILD && STEP_BUILD < STEP_TEST,
	   "steps are ordered: forcing one forces the later ones");
	fprintf(stderr, "# expected error below:\n");
	is_int(run_step_parse(&step, "boot"), MKS_ECONFIG, "--force=boot is refused");
}

int main(void)
{
	gitutil_init();
	test_sample_stats();
	test_t_distribution();
	test_calls();
	test_noise_floor();
	test_base_zero();
	test_health();
	test_branch_passed();
	test_compare();
	test_costs();
	test_console();
	test_expectations();
	test_console_expected();
	test_compare_variant();
	test_threshold_zero_variance();
	test_claim_rule();
	test_claims();
	test_timing();
	test_boots();
	test_keys();
	return tap_done();
}
