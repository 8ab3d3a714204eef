/* report/sections.h: the parts of the text report other formats show too; internal to the report files. */
#ifndef MKSERIES_REPORTSECTIONS_H
#define MKSERIES_REPORTSECTIONS_H

#include "report/table.h"
#include "results/results.h"
#include "results/verdict.h"
#include "lib/util.h"

/* Whether any branch of r has series: the series x branch matrix is worth showing. */
int report_have_series(const struct run_results *r);

/* The series x branch matrix: each series' state on each branch. */
void report_series_table(struct table *t, const struct run_results *r);

/*
 * The branch x variant matrix. `compact` (Markdown) folds splats into
 * the boot column and shortens the tests and perf columns, to fit in 72.
 */
void report_cells_table(struct table *t, const struct run_results *r, int compact);

/*
 * One line per problem ("6.12 kit: build: mm/mremap.c:12:3: error: ..."),
 * each "  line\n" (`markdown`: wrapped to 72 columns); returns how many.
 */
size_t report_problems(struct strbuf *sb, const struct run_results *r, int markdown);

/* One line per cell whose variant expected failures, as report_problems() lays them. */
size_t report_expected_failures(struct strbuf *sb, const struct run_results *r, int markdown);

/* "4 cells: 3 ok, 1 failed; 1 regression, 0 improvements; claims: ...". */
void report_summary_line(struct strbuf *sb, const struct run_results *r);

/*
 * Claim cl judged on cell c as one line, appended to the empty `line`:
 * "6.12 kit: series x: m better by 20% than base ("why"): held: evidence",
 * made printable. Returns the outcome's word ("held", "DID NOT HOLD",
 * "not checked").
 */
const char *report_claim_line(struct strbuf *line, const struct branch_result *b,
			      const struct cell_result *c, const struct claim *cl,
			      const struct claim_verdict *v, int color);

#endif
