/* results/verdict.h: health of each cell, and whether kit differs from base by more than the noise. */
#ifndef MKSERIES_VERDICT_H
#define MKSERIES_VERDICT_H

#include <stddef.h>

#include "console/console.h"
#include "results/results.h"

/*
 * The rule for calling a performance change (docs/verdicts.md, "Verdicts"):
 * both sides have at least VERDICT_MIN_SAMPLES samples, Welch's t-test
 * gives p < VERDICT_ALPHA, and |%change| reaches the larger of the
 * threshold (the kit's `verdicts: { threshold: N% }`, by default
 * VERDICT_MIN_CHANGE_PCT) and VERDICT_NOISE_FACTOR times the pooled
 * relative standard deviation. The metric's direction says whether the
 * change is a regression or an improvement. With no spread at all on
 * either side (instruction-paced samples can be identical), equal means
 * are the same and different means differ: p is 1 or 0.
 */
#define VERDICT_MIN_SAMPLES 3
#define VERDICT_ALPHA 0.01
#define VERDICT_MIN_CHANGE_PCT 5.0
#define VERDICT_NOISE_FACTOR 2.0

/* A metric's statistics: from its samples when it has them, else as recorded. */
void metric_stats(struct sample_stats *out, const struct metric_result *m);

enum perf_call {
	PERF_NO_CALL = 0,	/* cannot tell: too few samples, nothing to compare */
	PERF_SAME,		/* within the noise */
	PERF_REGRESSION,
	PERF_IMPROVEMENT,
	/*
	 * Worse beyond the noise, but within the bound of a cost the kernel
	 * file declares for this metric (`costs:`): accepted, shown with its
	 * why, never a failure. Beyond the bound it is a PERF_REGRESSION.
	 */
	PERF_COST,
};
const char *perf_call_name(enum perf_call c);

struct perf_verdict {
	enum perf_call call;
	double change_pct;	/* (kit - base) / |base| x 100; NAN when the base mean is 0 */
	double p;		/* Welch's two-sided p; NAN when not computed, or exact */
	/*
	 * Both sides' samples each the same value (instruction-paced or
	 * modelled time): the difference is exact and repeatable, and a p
	 * would mean nothing; p stays NAN.
	 */
	int exact;
	/* measured on a clock that repeats (timing_repeatable()): p is not shown, NAN */
	int repeatable;
	double threshold_pct;	/* what |change_pct| had to reach; NAN when not computed */
	const char *why;	/* a static sentence saying how the call was made */
};

/* `threshold_pct` <= 0 means VERDICT_MIN_CHANGE_PCT. */
void perf_judge(struct perf_verdict *out, const struct sample_stats *base,
		const struct sample_stats *kit, enum ktap_direction dir, double threshold_pct);
/*
 * perf_judge(), then the declared cost `cost` (NULL: none) of the metric
 * applied: a regression no larger than cost->worse_pct becomes
 * PERF_COST; a larger one stays a regression, its why naming the bound.
 */
void perf_judge_cost(struct perf_verdict *out, const struct sample_stats *base,
		     const struct sample_stats *kit, enum ktap_direction dir, double threshold_pct,
		     const struct kit_cost *cost);
/* What a change must reach on branch b: its threshold, or VERDICT_MIN_CHANGE_PCT. */
double branch_threshold_pct(const struct branch_result *b);

enum cell_health {
	CELL_OK,
	CELL_FAILED,		/* a check failed: build, boot, a case, a splat, apply error */
	CELL_CONFLICT,		/* the kit did not apply */
	CELL_INCOMPLETE,	/* something was not run (or interrupted) and nothing failed */
	/*
	 * It passed its run, but what it ran is no longer what the kit
	 * says (c->stale): it vouches for nothing until run again.
	 */
	CELL_STALE,
};
const char *cell_health_name(enum cell_health h);
enum cell_health cell_health(const struct cell_result *c);
/*
 * cell_health(), and a cell that is ok but has a claim of b that did
 * not hold is FAILED; one that would be ok but whose inputs changed
 * since its run is STALE.
 */
enum cell_health cell_status(const struct branch_result *b, const struct cell_result *c);

/*
 * The check of c that explains best why it is not ok: the first that
 * failed in the order apply, build, boot, splats, tests, else the first
 * not run; *what names it. NULL when none.
 */
const struct check *cell_first_problem(const struct cell_result *c, const char **what);

/*
 * One metric of a branch, base against kit, or against a declared
 * variant (`kit` is then the variant's; either side may be missing).
 */
struct metric_row {
	const struct metric_result *base, *kit;
	struct sample_stats b, k;
	struct perf_verdict v;
	const struct kit_cost *cost;	/* the kit cell's declared cost for this metric, or NULL */
};

struct branch_comparison {
	const struct cell_result *base, *kit;	/* kit: the cell compared with base */
	int comparable;		/* both booted, same accelerator, kind of time and mode */
	char *note;		/* why they cannot be compared, or what to know; NULL; owned */
	enum timing_kind timing;	/* what kind of time both sides measured (the kit's when they differ) */
	int emulated;		/* either side's numbers are emulated time: they never fail a run */
	/*
	 * The cell is base's tree (reused, or built from base's commit): no
	 * change at all, whatever the samples say; every row is "same".
	 */
	int same_tree;
	double threshold_pct;	/* what a change had to reach */
	struct metric_row *rows;	/* kit's metric order, then base-only ones */
	size_t nr, alloc;
	size_t nr_regressions, nr_improvements;
	size_t nr_costs;		/* rows within a declared cost (PERF_COST) */
};

/* Compare b's kit cell with its base cell. Release the result. */
void branch_compare(struct branch_comparison *out, const struct branch_result *b);
/* Compare cell c of b (the kit or a declared variant, or NULL) with b's base cell. */
void branch_compare_cell(struct branch_comparison *out, const struct branch_result *b,
			 const struct cell_result *c);
void branch_comparison_release(struct branch_comparison *c);

struct run_summary {
	size_t branches, cells;
	size_t ok, failed, conflicts, incomplete, stale;
	size_t branch_failures;		/* imports or applies that failed outright */
	size_t regressions, improvements;	/* the kit's, against base */
	size_t costs;			/* the kit's metrics worse within a declared cost */
	/*
	 * Of those regressions, the ones measured in emulated time (TCG on
	 * host time): they say little about the kernel, so they are
	 * reported but do not fail the run. Instruction-paced ones do.
	 */
	size_t emulated_regressions;
	size_t claims_held, claims_failed, claims_not_checked;	/* over every cell */
	/*
	 * The declared variants', against base: what leaving something out
	 * costs is what a variant is there to show, so they fail nothing.
	 */
	size_t variant_regressions, variant_improvements;
	size_t xfail;			/* expected failures seen, in every cell */
};

void results_summarise(struct run_summary *s, const struct run_results *r);

/*
 * The one verdict on a branch, which the exit status of `run` and
 * `report`, the report's status and Tested-by, and the export gate all
 * ask: b passed when it has cells (a branch with none verified
 * nothing), its import and apply did not fail, every cell is ok (not
 * stale either)
 * (cell_status(): a claim that did not hold fails its cell, a case
 * failing as its variant expects does not) and the kit has no
 * regression measured in hardware or instruction-paced time. Whatever
 * else reads results asks this, never its own test.
 */
int branch_passed(const struct branch_result *b);
/* Whether r failed (the run or report exits 1): a branch of it did not pass. */
int results_failed(const struct run_results *r);

/* ------------------------------------------------------------------ */
/* Performance claims (docs/verdicts.md, "Verdicts") */

enum claim_outcome {
	CLAIM_NOT_CHECKED = 0,	/* emulated time, a metric missing or skipped, nothing to compare with */
	CLAIM_HELD,
	CLAIM_FAILED,		/* fails its cell */
};
const char *claim_outcome_name(enum claim_outcome o);	/* "not-checked", "held", "failed" */

/* Why a better/worse claim fell short: a mask of these. */
enum claim_shortfall {
	CLAIM_SHORT_SIZE = 1 << 0,	/* the change is smaller than claimed (or the other way) */
	CLAIM_SHORT_SPREAD = 1 << 1,	/* not beyond VERDICT_NOISE_FACTOR x the pooled relative stddev */
	CLAIM_SHORT_P = 1 << 2,		/* Welch's p not below VERDICT_ALPHA */
};

struct claim_verdict {
	enum claim_outcome outcome;
	double mean, other_mean;	/* the cell's and (better, worse) the other cell's; NAN when unknown */
	double change_pct;		/* better, worse: (mean - other) / |other| x 100; else NAN */
	double spread_pct;		/* better, worse: VERDICT_NOISE_FACTOR x pooled relative stddev; else NAN */
	double p;			/* Welch's p when both sides have 3 samples or more and spread; else NAN */
	int exact;			/* better, worse: both sides without spread (see perf_verdict) */
	int repeatable;			/* measured on a clock that repeats: p not shown (NAN) */
	unsigned n, other_n;		/* better, worse: the samples of each side */
	unsigned shortfall;		/* enum claim_shortfall, when FAILED */
	char *evidence;			/* what was measured and what was needed, or why not checked; owned */
};

/*
 * The rule for a better/worse claim of `pct` per cent on a metric in
 * direction `dir`: the cell's change against the other cell's mean, in
 * the claimed direction, is at least pct; it is beyond the spread (more
 * than VERDICT_NOISE_FACTOR x the pooled relative stddev); and when both
 * have VERDICT_MIN_SAMPLES samples, Welch's p < VERDICT_ALPHA. For
 * above/below, the cell's mean against the bound (`other` unused). No
 * evidence is written here. An other mean of 0 leaves it NOT_CHECKED.
 */
void claim_judge_stats(struct claim_verdict *out, enum claim_kind kind, double value,
		       enum ktap_direction dir, const struct sample_stats *cell,
		       const struct sample_stats *other);

/* Whether claim cl of b is checked on cell c (docs/verdicts.md, "Verdicts": where claims are checked). */
int claim_applies(const struct branch_result *b, const struct cell_result *c, const struct claim *cl);

/*
 * Judge claim cl on cell c of b, with evidence. Only hardware and
 * instruction-paced numbers are judged; emulated time, a metric that is
 * missing or that mm-regress skipped, and a `than` cell that is missing
 * or not comparable leave the claim NOT_CHECKED, with the reason.
 * Release the verdict.
 */
void claim_judge(struct claim_verdict *out, const struct branch_result *b,
		 const struct cell_result *c, const struct claim *cl);
void claim_verdict_release(struct claim_verdict *v);

#endif
