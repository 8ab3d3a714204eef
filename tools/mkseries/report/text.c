/* report/text.c: the matrix for a terminal and the Markdown for a mailing-list reply. */
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "report/perf.h"
#include "report/html.h"
#include "report/render.h"
#include "report/sections.h"
#include "report/table.h"
#include "report/words.h"
#include "results/verdict.h"

int report_have_series(const struct run_results *r)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		if (r->branches[i].nr_series)
			return 1;
	return 0;
}

void report_series_table(struct table *t, const struct run_results *r)
{
	struct strvec ids = STRVEC_INIT;
	size_t i, j, k, col;

	for (i = 0; i < r->nr_branches; i++)
		for (j = 0; j < r->branches[i].nr_series; j++) {
			const char *id = r->branches[i].series[j].id;

			for (k = 0; k < ids.nr && strcmp(ids.v[k], id); k++)
				;
			if (k == ids.nr)
				strvec_push(&ids, id);
		}
	for (i = 0, col = 1; i < r->nr_branches; i++)
		col += r->branches[i].nr_series > 0;
	table_init(t, col);
	table_row(t);
	table_set(t, 0, NULL, "series");
	for (i = 0, col = 1; i < r->nr_branches; i++)
		if (r->branches[i].nr_series)
			table_set(t, col++, NULL, r->branches[i].name);
	for (k = 0; k < ids.nr; k++) {
		table_row(t);
		table_set(t, 0, NULL, ids.v[k]);
		for (i = 0, col = 1; i < r->nr_branches; i++) {
			const struct branch_result *b = &r->branches[i];
			const struct series_result *s = NULL;

			if (!b->nr_series)
				continue;
			for (j = 0; j < b->nr_series; j++)
				if (!strcmp(b->series[j].id, ids.v[k]))
					s = &b->series[j];
			if (s)
				table_set(t, col, series_color(s->state), series_state_name(s->state));
			else
				table_set(t, col, NULL, "-");
			col++;
		}
	}
	strvec_clear(&ids);
}

/*
 * The branch x variant matrix. `compact` (Markdown) folds splats into
 * the boot column and shortens the tests and perf columns, to fit in 72.
 */
void report_cells_table(struct table *t, const struct run_results *r, int compact)
{
	static const char *const head[] = { "cell", "apply", "build", "boot", "tests", "splats",
					    "perf" };
	size_t i, j, k, cols = compact ? 6 : 7;
	/* Compact folds splats into boot, so perf moves into the splats column. */
	size_t perf = compact ? 5 : 6;

	table_init(t, cols);
	table_row(t);
	for (k = 0; k < cols; k++)
		table_set(t, k, NULL, head[k]);
	table_set(t, perf, NULL, "perf");
	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct comparisons cs;

		comparisons_init(&cs, b);
		for (j = 0; j < b->nr_cells; j++) {
			const struct cell_result *c = &b->cells[j];
			const struct branch_comparison *bc = comparison_of(&cs, c->variant);
			struct strbuf sb = STRBUF_INIT;
			char *name = cell_name(b, c);
			int is_kit = !strcmp(c->variant, "kit");

			table_row(t);
			/* A result whose inputs changed vouches for nothing: say so where it is read. */
			if (c->stale)
				table_setf(t, 0, C_YELLOW, "%s (stale)", name);
			else
				table_set(t, 0, NULL, name);
			table_set(t, 1, check_color(c->apply.status),
				  c->apply.status == CHECK_NA ? "-" : check_word(&c->apply));
			table_set(t, 2, check_color(c->build.status), check_word(&c->build));
			if (compact && c->splats.status == CHECK_FAILED)
				table_set(t, 3, NULL, "SPLAT");
			else if (!compact && c->boot.status == CHECK_OK && c->accel)
				table_setf(t, 3, C_GREEN, "ok %s", c->accel);
			else
				table_set(t, 3, check_color(c->boot.status), check_word(&c->boot));
			if (compact && c->tests.status == CHECK_OK && c->nr_xfail)
				strbuf_addf(&sb, "%zu ok, %zu xfail", c->nr_pass, c->nr_xfail);
			else if (compact && c->tests.status == CHECK_OK)
				strbuf_addf(&sb, "%zu ok", c->nr_pass);
			else if (compact && c->tests.status == CHECK_FAILED && c->nr_fail)
				strbuf_addf(&sb, "%zu failed", c->nr_fail);
			else
				tests_word(&sb, c);
			table_set(t, 4, check_color(c->tests.status), sb.buf);
			strbuf_reset(&sb);
			if (!bc) {
				strbuf_addstr(&sb, "-");
			} else if (!compact) {
				perf_notable(&sb, bc);
			} else if (!bc->comparable) {
				strbuf_addstr(&sb, c->nr_metrics && bc->nr ? "not compared" : "-");
			} else if (bc->same_tree) {
				strbuf_addstr(&sb, "base's tree");
			} else {
				if (bc->nr_regressions)
					strbuf_addf(&sb, "%zu worse", bc->nr_regressions);
				if (bc->nr_improvements)
					strbuf_addf(&sb, "%s%zu better", sb.len ? ", " : "",
						    bc->nr_improvements);
				if (!sb.len)
					strbuf_addstr(&sb, bc->nr ? "no change" : "-");
			}
			/* Only the kit's regressions are failures; a variant's are its point. */
			table_set(t, perf, bc && bc->nr_regressions ? is_kit ? C_RED : C_YELLOW : NULL,
				  sb.buf);
			if (!compact)
				table_set(t, 5, check_color(c->splats.status), splat_word(&c->splats));
			strbuf_release(&sb);
			free(name);
		}
		comparisons_release(&cs);
	}
}

/* One line per cell whose variant expected failures: what they showed. */
size_t report_expected_failures(struct strbuf *sb, const struct run_results *r, int markdown)
{
	size_t i, j, nr = 0;

	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];

		for (j = 0; j < b->nr_cells; j++) {
			const struct cell_result *c = &b->cells[j];
			char *line;

			if (!c->expected)
				continue;
			line = xstrfmt("%s %s: %s", b->name, c->variant, c->expected);
			if (markdown) {
				char *one = report_clean(line);

				add_wrapped(sb, one, REPORT_MARKDOWN_WIDTH, "    ", "      ");
				free(one);
			} else {
				char *one = report_clean(line);

				strbuf_addf(sb, "  %s\n", one);
				free(one);
			}
			free(line);
			nr++;
		}
	}
	return nr;
}

/* "6.12 kit: claim did not hold: series x: m better by 20% than base", one per such claim. */
static void claim_problems(struct strvec *lines, const struct branch_result *b,
			   const struct cell_result *c)
{
	const struct claim *cl;
	struct claim_verdict v;
	size_t i = 0;

	while ((cl = cell_claim_next(b, c, &i, &v))) {
		if (v.outcome == CLAIM_FAILED) {
			char *text = kit_claim_text(&cl->c);

			strvec_pushf(lines, "%s %s: claim did not hold: %s: %s", b->name, c->variant,
				     claim_owner_label(cl), text);
			free(text);
		}
		claim_verdict_release(&v);
	}
}

const char *report_claim_line(struct strbuf *line, const struct branch_result *b,
			      const struct cell_result *c, const struct claim *cl,
			      const struct claim_verdict *v, int color)
{
	const char *word, *col;
	char *text, *one;

	word = v->outcome == CLAIM_HELD ? "held" :
	       v->outcome == CLAIM_FAILED ? "DID NOT HOLD" : "not checked";
	col = v->outcome == CLAIM_HELD ? C_GREEN :
	      v->outcome == CLAIM_FAILED ? C_RED : C_YELLOW;
	text = kit_claim_text(&cl->c);
	strbuf_addf(line, "%s %s: %s: %s", b->name, c->variant, claim_owner_label(cl), text);
	if (cl->c.why)
		strbuf_addf(line, " (\"%s\")", cl->c.why);
	one = report_clean(line->buf);
	strbuf_reset(line);
	strbuf_addf(line, "%s: %s%s%s: ", one, color ? col : "", word, color ? C_RESET : "");
	free(one);
	report_add_clean(line, v->evidence, 0);
	free(text);
	return word;
}

/*
 * Every claim checked on a cell, with its outcome and evidence:
 * "6.12 kit: series x: m better by 20% than base ("why"): held: ...".
 * Returns how many.
 */
static size_t claims_section(struct strbuf *sb, const struct run_results *r, int markdown,
			     int color)
{
	struct claim_walk w = CLAIM_WALK_INIT;
	size_t nr = 0;

	while (run_claim_next(r, &w)) {
		struct strbuf line = STRBUF_INIT;

		report_claim_line(&line, w.b, w.c, w.cl, &w.v, color);
		if (markdown)
			add_wrapped(sb, line.buf, REPORT_MARKDOWN_WIDTH, "    ", "      ");
		else
			strbuf_addf(sb, "  %s\n", line.buf);
		strbuf_release(&line);
		claim_verdict_release(&w.v);
		nr++;
	}
	return nr;
}

/*
 * Every cost a branch declares, with what the kit's cell measured:
 * "5.10 kit: cost m up to 9% worse ("why"): +7.9%, within it". Returns how many.
 */
static size_t costs_section(struct strbuf *sb, const struct run_results *r, int markdown,
			    int color)
{
	size_t i, j, k, nr = 0;

	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct branch_comparison bc;

		if (!b->nr_costs)
			continue;
		branch_compare(&bc, b);
		for (k = 0; k < b->nr_costs; k++) {
			const struct kit_cost *co = &b->costs[k];
			const struct metric_row *row = NULL;
			struct strbuf line = STRBUF_INIT;
			const char *col = NULL;
			char *one;

			for (j = 0; j < bc.nr; j++)
				if (bc.rows[j].cost == co)
					row = &bc.rows[j];
			strbuf_addf(&line, "%s kit: declared cost: %s.%s up to %g%% worse than base",
				    b->name, co->case_name, co->metric, co->worse_pct);
			if (co->why)
				strbuf_addf(&line, " (\"%s\")", co->why);
			one = report_clean(line.buf);
			strbuf_reset(&line);
			strbuf_addf(&line, "%s: ", one);
			free(one);
			if (!row || isnan(row->v.change_pct) || !row->base) {
				strbuf_addstr(&line, "not measured");
			} else if (row->v.call == PERF_REGRESSION) {
				col = C_RED;
				strbuf_addf(&line, "%+.1f%%, BEYOND IT", row->v.change_pct);
			} else if (row->v.call == PERF_COST) {
				strbuf_addf(&line, "%+.1f%%, within it", row->v.change_pct);
			} else {
				strbuf_addf(&line, "%+.1f%% (%s), not paid", row->v.change_pct,
					    perf_call_name(row->v.call));
			}
			if (color && col)
				strbuf_addf(&line, "%s", C_RESET);
			if (markdown)
				add_wrapped(sb, line.buf, REPORT_MARKDOWN_WIDTH, "    ", "      ");
			else
				strbuf_addf(sb, "  %s%s\n", color && col ? col : "", line.buf);
			strbuf_release(&line);
			nr++;
		}
		branch_comparison_release(&bc);
	}
	return nr;
}

/* One line per problem: "6.12 kit: build: mm/mremap.c:12:3: error: ..." */
size_t report_problems(struct strbuf *sb, const struct run_results *r, int markdown)
{
	struct strvec lines = STRVEC_INIT;
	size_t i, j, nr;

	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];

		if (b->import.status == CHECK_FAILED) {
			strvec_pushf(&lines, "%s: import: %s", b->name,
				     b->import.evidence ? b->import.evidence : "failed");
			continue;
		}
		for (j = 0; j < b->nr_cells; j++) {
			const struct cell_result *c = &b->cells[j];
			const struct check *checks[] = { &c->apply, &c->build, &c->boot,
							 &c->splats, &c->tests };
			static const char *const names[] = { "apply", "build", "boot", "splats",
							     "tests" };
			const char *what;
			const struct check *p;
			size_t k, before = lines.nr;

			if (cell_status(b, c) == CELL_OK)
				continue;
			if (c->stale)
				strvec_pushf(&lines, "%s %s: stale: %s (run again: mkseries run --branch %s)",
					     b->name, c->variant, c->stale, b->name);
			claim_problems(&lines, b, c);
			/* Every check that failed has its own evidence. */
			for (k = 0; k < ARRAY_SIZE(checks); k++)
				if (checks[k]->status == CHECK_FAILED ||
				    checks[k]->status == CHECK_CONFLICT)
					strvec_pushf(&lines, "%s %s: %s: %s", b->name, c->variant,
						     names[k], checks[k]->evidence ?
						     checks[k]->evidence : check_word(checks[k]));
			if (lines.nr == before && (p = cell_first_problem(c, &what)))
				strvec_pushf(&lines, "%s %s: %s: %s", b->name, c->variant, what,
					     p->evidence ? p->evidence : check_word(p));
		}
	}
	for (i = 0; i < lines.nr; i++) {
		char *one = report_clean(lines.v[i]);

		if (markdown)
			add_wrapped(sb, one, REPORT_MARKDOWN_WIDTH, "    ", "      ");
		else
			strbuf_addf(sb, "  %s\n", one);
		free(one);
	}
	nr = lines.nr;
	strvec_clear(&lines);
	return nr;
}

void report_summary_line(struct strbuf *sb, const struct run_results *r)
{
	struct run_summary s;

	results_summarise(&s, r);
	strbuf_addf(sb, "%zu cell%s: %zu ok", s.cells, s.cells == 1 ? "" : "s", s.ok);
	if (s.failed)
		strbuf_addf(sb, ", %zu failed", s.failed);
	if (s.conflicts)
		strbuf_addf(sb, ", %zu conflict%s", s.conflicts, s.conflicts > 1 ? "s" : "");
	if (s.incomplete)
		strbuf_addf(sb, ", %zu incomplete", s.incomplete);
	if (s.stale)
		strbuf_addf(sb, ", %zu stale (run again)", s.stale);
	if (s.branch_failures)
		strbuf_addf(sb, "; %zu branch%s failed to import or apply", s.branch_failures,
			    s.branch_failures > 1 ? "es" : "");
	strbuf_addf(sb, "; %zu regression%s, %zu improvement%s", s.regressions,
		    s.regressions == 1 ? "" : "s", s.improvements, s.improvements == 1 ? "" : "s");
	if (s.emulated_regressions)
		strbuf_addf(sb, " (%zu of the regressions in emulated time, TCG on host time: not a failure)",
			    s.emulated_regressions);
	if (s.variant_regressions || s.variant_improvements)
		strbuf_addf(sb, " (variants: %zu worse, %zu better)", s.variant_regressions,
			    s.variant_improvements);
	if (s.xfail)
		strbuf_addf(sb, "; %zu expected failure%s", s.xfail, s.xfail == 1 ? "" : "s");
	if (s.claims_held || s.claims_failed || s.claims_not_checked)
		strbuf_addf(sb, "; claims: %zu held, %zu did not hold, %zu not checked",
			    s.claims_held, s.claims_failed, s.claims_not_checked);
}

void render_text(struct strbuf *sb, const struct run_results *r, int color)
{
	struct table t;
	struct strbuf sum = STRBUF_INIT, probs = STRBUF_INIT;
	size_t i;

	if (!r->nr_branches) {
		strbuf_addstr(sb, "no results\n");
		return;
	}
	if (report_have_series(r)) {
		report_series_table(&t, r);
		table_print(sb, &t, 0, 0, color);
		table_release(&t);
		strbuf_addch(sb, '\n');
	}
	report_cells_table(&t, r, 0);
	table_print(sb, &t, 0, 0, color);
	table_release(&t);
	strbuf_addch(sb, '\n');
	if (report_problems(&probs, r, 0)) {
		strbuf_addf(sb, "%sproblems:%s\n%s\n", color ? C_BOLD : "", color ? C_RESET : "",
			    probs.buf);
	}
	strbuf_reset(&probs);
	if (report_expected_failures(&probs, r, 0)) {
		strbuf_addf(sb, "%sexpected failures:%s\n%s\n", color ? C_BOLD : "",
			    color ? C_RESET : "", probs.buf);
	}
	for (i = 0; i < r->nr_branches; i++) {
		struct comparisons cs;

		comparisons_init(&cs, &r->branches[i]);
		perf_section(sb, &r->branches[i], &cs, 0, color);
		comparisons_release(&cs);
	}
	strbuf_reset(&probs);
	if (claims_section(&probs, r, 0, color))
		strbuf_addf(sb, "%sclaims:%s\n%s\n", color ? C_BOLD : "", color ? C_RESET : "",
			    probs.buf);
	strbuf_reset(&probs);
	if (costs_section(&probs, r, 0, color))
		strbuf_addf(sb, "%sdeclared costs:%s\n%s\n", color ? C_BOLD : "",
			    color ? C_RESET : "", probs.buf);
	report_summary_line(&sum, r);
	strbuf_addf(sb, "%s\n", sum.buf);
	strbuf_release(&sum);
	strbuf_release(&probs);
}

/* Branches whose every cell is ok, with no regression: what a Tested-by can vouch for. */
static void passed_branches(struct strvec *out, const struct run_results *r)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		if (branch_passed(&r->branches[i]))
			strvec_push(out, r->branches[i].name);
}

/*
 * "Charts of 6.12: <URL#perf-6.12>" when the page draws b's charts; on
 * one line, however long: a URL cut by wrapping would not work.
 */
static void chart_link(struct strbuf *sb, const struct branch_result *b, const char *url)
{
	char *name, *link;

	if (perf_branch_charts(b) != PERF_CHARTS)
		return;
	name = report_clean(b->name);
	link = report_clean(url);
	strbuf_addf(sb, "Charts of %s: <%s#" HTML_BRANCH_ANCHOR "%s>\n\n", name, link, name);
	free(name);
	free(link);
}

void render_markdown(struct strbuf *sb, const struct run_results *r, const char *html_url)
{
	struct table t;
	struct strbuf line = STRBUF_INIT, probs = STRBUF_INIT;
	struct strvec passed = STRVEC_INIT;
	size_t i;

	strbuf_addstr(sb, "## mkseries results\n\n");
	report_summary_line(&line, r);
	add_wrapped(sb, line.buf, REPORT_MARKDOWN_WIDTH, "", "");
	strbuf_addch(sb, '\n');
	if (report_have_series(r)) {
		strbuf_addstr(sb, "### Series\n\n");
		report_series_table(&t, r);
		table_print(sb, &t, 1, REPORT_MARKDOWN_WIDTH, 0);
		table_release(&t);
		strbuf_addch(sb, '\n');
	}
	if (r->nr_branches) {
		strbuf_addstr(sb, "### Builds, boots and tests\n\n");
		report_cells_table(&t, r, 1);
		table_print(sb, &t, 1, REPORT_MARKDOWN_WIDTH, 0);
		table_release(&t);
		strbuf_addch(sb, '\n');
	}
	if (report_problems(&probs, r, 1))
		strbuf_addf(sb, "Problems:\n\n%s\n", probs.buf);
	strbuf_reset(&probs);
	if (report_expected_failures(&probs, r, 1))
		strbuf_addf(sb, "Expected failures:\n\n%s\n", probs.buf);
	for (i = 0; i < r->nr_branches; i++) {
		struct comparisons cs;

		comparisons_init(&cs, &r->branches[i]);
		perf_section(sb, &r->branches[i], &cs, 1, 0);
		if (html_url)
			chart_link(sb, &r->branches[i], html_url);
		comparisons_release(&cs);
	}
	strbuf_reset(&probs);
	if (claims_section(&probs, r, 1, 0))
		strbuf_addf(sb, "Claims:\n\n%s\n", probs.buf);
	strbuf_reset(&probs);
	if (costs_section(&probs, r, 1, 0))
		strbuf_addf(sb, "Declared costs:\n\n%s\n", probs.buf);
	add_wrapped(sb, "Performance: " RULE_TEXT ".", REPORT_MARKDOWN_WIDTH, "", "");
	strbuf_addch(sb, '\n');

	passed_branches(&passed, r);
	strbuf_reset(&line);
	if (passed.nr && r->tester) {
		char *tester = report_clean(r->tester);
		struct strbuf which = STRBUF_INIT;

		for (i = 0; i < passed.nr; i++)
			strbuf_addf(&which, "%s%s", i ? ", " : "", passed.v[i]);
		strbuf_addf(&line, "Tested-by: %s", tester);
		/* A trailer is one line: the branches follow as a comment when it would be long. */
		if (display_width(line.buf) + 3 + display_width(which.buf) <= REPORT_MARKDOWN_WIDTH) {
			strbuf_addf(sb, "%s # %s\n", line.buf, which.buf);
		} else {
			strbuf_addf(sb, "%s\n", line.buf);
			add_wrapped(sb, which.buf, REPORT_MARKDOWN_WIDTH, "# ", "# ");
		}
		strbuf_release(&which);
		free(tester);
	} else if (passed.nr) {
		strbuf_addstr(&line, "Passed on:");
		for (i = 0; i < passed.nr; i++)
			strbuf_addf(&line, " %s", passed.v[i]);
		add_wrapped(sb, line.buf, REPORT_MARKDOWN_WIDTH, "", "");
	} else {
		strbuf_addstr(sb, "No branch passed every check: no Tested-by.\n");
	}
	strvec_clear(&passed);
	strbuf_release(&line);
	strbuf_release(&probs);
}
