/* report/report.h: the results of a run as a terminal table, JSON, JUnit XML, Markdown or HTML; the fan-out plan as JSON. */
#ifndef MKSERIES_REPORT_H
#define MKSERIES_REPORT_H

#include <stdio.h>

#include <git2.h>

#include "apply/plan.h"
#include "results/results.h"
#include "lib/util.h"

enum report_format {
	REPORT_TEXT,
	REPORT_JSON,		/* docs/report-json.md */
	REPORT_JUNIT,		/* JUnit XML: a testsuite per branch x variant */
	REPORT_MARKDOWN,	/* for a mailing-list reply: every line fits in 72 columns */
	REPORT_HTML,		/* one self-contained page: the matrices, the claims, a chart per metric */
};

/* "text", "json", "junit", "markdown" or "html"; MKS_ECONFIG with a message for anything else. */
int report_format_parse(enum report_format *out, const char *name);

#define REPORT_MARKDOWN_WIDTH 72

struct report_opts {
	int color;		/* text only: ANSI colours */
	const char *html_url;	/* markdown only: link each branch's charts at this HTML report */
};

/*
 * Render the results in `fmt` into out (appended). Everything taken
 * from consoles and logs is made printable first: control characters
 * (escape sequences included) are replaced and invalid UTF-8 becomes
 * U+FFFD, so a hostile console cannot drive the terminal or break the
 * JSON and XML.
 */
void report_render(struct strbuf *out, const struct run_results *r, enum report_format fmt,
		   const struct report_opts *opts);

/*
 * The report step of `run` and `report`: stamp res (this mkseries, now,
 * and the tester git names, when it names one), render it as fmt
 * (opts->color is decided here: text to a terminal that wants it) and
 * write it to `output`, said on `log` when there is one ("report:
 * FILE"), else to stdout (text a blank line after the steps' lines when
 * `log` has them). Returns 0, or -1 when writing failed (printed).
 */
int report_step(struct run_results *res, enum report_format fmt, const char *output,
		const struct report_opts *opts, FILE *log);

/*
 * The fan-out plan as JSON (docs/report-json.md, "The plan"): each
 * branch's plan with its variants' plans, and the independent cells
 * (branch x variant: base, kit, each declared variant) with the command
 * a CI job runs for each and the report it writes, plus the command that
 * merges them. `plans` holds each branch's kit plan followed by the plans
 * of its variants (plan->variant set). Returns 0, or -1 when writing
 * failed.
 */
int plan_print_json(const struct plan *const *plans, size_t nr, FILE *out);
void plan_render_json(struct strbuf *out, const struct plan *const *plans, size_t nr);

/* One cell of the fan-out: a variant (base, kit or a declared one) of a branch. */
struct plan_cell {
	const struct kernel_branch *b;
	const char *variant;	/* points into the kit or build_variants[] */
};

/*
 * The cells of `plans` (as plan_print_json() takes them), in the order
 * the JSON plan lists them: per branch base, kit, then its variants.
 * Returns their number; *out is caller-freed (NULL when there are none).
 */
size_t plan_cells(struct plan_cell **out, const struct plan *const *plans, size_t nr);

/*
 * "mkseries-<branch>+<variant>.json", each name as cell_id() writes it:
 * the report a cell's CI job writes, a name no other cell's can have.
 * Caller frees.
 */
char *plan_cell_report_name(const char *branch, const char *variant);

/* The ids of the nr cells ("6.12/base 6.12/kit ..."), for `report --merge --cells`. Caller frees. */
char *plan_cells_list(const struct plan_cell *cells, size_t nr);

/*
 * The fan-out plan as a GitLab CI pipeline (docs/gitlab-ci.md, "The matrix on GitLab
 * CI"): a job per cell of plan_cells() and a job that merges their
 * reports. Every value that comes from the kit reaches the YAML quoted
 * and the jobs' shells only through variables: the script lines are the
 * same whatever the kit names. Appended to out.
 */
void plan_render_gitlab(struct strbuf *out, const struct plan *const *plans, size_t nr);

#endif
