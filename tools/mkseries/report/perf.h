/* report/perf.h: base against kit in the kernel test robot's layout; internal to the report files. */
#ifndef MKSERIES_REPORTPERF_H
#define MKSERIES_REPORTPERF_H

#include "results/results.h"
#include "lib/util.h"
#include "results/verdict.h"

/* When a change is called, in words, for the foot of a performance section. */
#define RULE_TEXT "a change is called when Welch's t-test gives p < 0.01 and |%change| " \
		  "reaches max(the threshold, 2 x the pooled stddev%); fewer than 3 samples: " \
		  "no call; the kit's regressions fail the run in hardware and " \
		  "instruction-paced time, never in emulated time"

/*
 * Every cell of a branch compared with its base: the kit and the
 * declared variants, in cell order.
 */
struct comparisons {
	struct branch_comparison *v;
	size_t nr;
};

/* Compare every cell of b with its base; comparisons_release() frees. */
void comparisons_init(struct comparisons *cs, const struct branch_result *b);
void comparisons_release(struct comparisons *cs);

/* The comparison of cell `variant`, or NULL. */
const struct branch_comparison *comparison_of(const struct comparisons *cs,
					      const char *variant);

/* The performance section of a branch: every compared cell against base. */
void perf_section(struct strbuf *sb, const struct branch_result *b,
		  const struct comparisons *cs, int markdown, int color);

/* The four header lines of the layout, each line starting with `indent`. */
void lkp_header(struct strbuf *sb, const char *indent);

/* The kit-only layout (JUnit's failure details): one row of one comparison. */
void lkp_row(struct strbuf *sb, const struct metric_row *r, const char *indent,
	     int name_above, int color);

/* The most notable called change of a branch, for the matrix; "-" when none. */
void perf_notable(struct strbuf *sb, const struct branch_comparison *bc);

/*
 * The next claim of b from *i on that cell c checks, judged into *v
 * (the caller releases it with claim_verdict_release()); NULL when no
 * claim is left. Start with *i = 0.
 */
const struct claim *cell_claim_next(const struct branch_result *b, const struct cell_result *c,
				    size_t *i, struct claim_verdict *v);

/*
 * A walk over every claim checked on every cell of a run, branch by
 * branch and cell by cell: after each run_claim_next() that returns 1,
 * cl is the claim, c the cell it checks, b their branch and v its
 * verdict (the caller releases it with claim_verdict_release()).
 */
struct claim_walk {
	size_t branch, cell, k;
	const struct branch_result *b;
	const struct cell_result *c;
	const struct claim *cl;
	struct claim_verdict v;
};
#define CLAIM_WALK_INIT { 0 }

/* The walk's next claim: 1 with w filled in, 0 when no claim is left. */
int run_claim_next(const struct run_results *r, struct claim_walk *w);

/*
 * What the HTML page draws for b: PERF_CHARTS when a cell has numbers to
 * chart; PERF_NOTHING_TO_COMPARE when only base has them because the
 * kit did not apply (a chart of base alone compares nothing: the page
 * says so instead); PERF_NO_CHARTS when no cell has numbers. The
 * markdown reply links a branch's charts only for PERF_CHARTS.
 */
enum perf_charts { PERF_NO_CHARTS, PERF_CHARTS, PERF_NOTHING_TO_COMPARE };
enum perf_charts perf_branch_charts(const struct branch_result *b);

#endif
