/* report/perf.c: base against kit in the kernel test robot's layout, and the notable change of a branch. */
#include <math.h>
#include <string.h>

#include "report/report.h"
#include "report/perf.h"
#include "report/words.h"
#include "results/metricindex.h"

/* ------------------------------------------------------------------ */
/* The kernel test robot's layout for base against kit */

void comparisons_init(struct comparisons *cs, const struct branch_result *b)
{
	size_t i;

	cs->v = xcalloc(b->nr_cells ? b->nr_cells : 1, sizeof(*cs->v));
	cs->nr = 0;
	for (i = 0; i < b->nr_cells; i++)
		if (strcmp(b->cells[i].variant, "base"))
			branch_compare_cell(&cs->v[cs->nr++], b, &b->cells[i]);
}

void comparisons_release(struct comparisons *cs)
{
	size_t i;

	for (i = 0; i < cs->nr; i++)
		branch_comparison_release(&cs->v[i]);
	free(cs->v);
	cs->v = NULL;
	cs->nr = 0;
}

/* The comparison of cell `variant`, or NULL. */
const struct branch_comparison *comparison_of(const struct comparisons *cs,
					      const char *variant)
{
	size_t i;

	for (i = 0; i < cs->nr; i++)
		if (cs->v[i].kit && !strcmp(cs->v[i].kit->variant, variant))
			return &cs->v[i];
	return NULL;
}

static const struct metric_result *row_metric(const struct metric_row *r)
{
	return r->kit ? r->kit : r->base;
}

/* Whether bc has a metric measured on both sides: something to lay out. */
static int has_pairs(const struct branch_comparison *bc)
{
	size_t i;

	for (i = 0; i < bc->nr; i++)
		if (bc->rows[i].base && bc->rows[i].kit)
			return 1;
	return 0;
}

/*
 * The kernel test robot's layout, with one or more compared columns:
 * base, then per column "%change  mean ± stddev%". `compact` (Markdown
 * with several columns) narrows each column so that two fit in 72.
 */
struct lkp {
	const struct branch_comparison **cols;
	size_t nr;
	const char *indent;
	int compact;
	int name_above;
	int color;
};

static void lkp_header_cols(struct strbuf *sb, const struct lkp *t)
{
	size_t i;

	strbuf_addf(sb, "%s%*s%s", t->indent, t->compact ? 11 : 12, "base", t->compact ? "    " : "      ");
	for (i = 0; i < t->nr; i++) {
		char *name = report_clean(t->cols[i]->kit->variant);

		strbuf_addf(sb, "%*s", t->compact ? (i ? 25 : 21) : (i ? 28 : 22), name);
		free(name);
	}
	strbuf_rtrim(sb);
	strbuf_addf(sb, "\n%s%s", t->indent, t->compact ? "---------------" : "----------------");
	for (i = 0; i < t->nr; i++)
		strbuf_addstr(sb, t->compact ? " ------------------------" : " ---------------------------");
	strbuf_addf(sb, "\n%s%s", t->indent, t->compact ? "        %stddev" : "         %stddev");
	for (i = 0; i < t->nr; i++)
		strbuf_addstr(sb, t->compact ? "  %change        %stddev" : "     %change         %stddev");
	strbuf_addf(sb, "\n%s%s", t->indent, t->compact ? "              \\" : "             \\");
	for (i = 0; i < t->nr; i++)
		strbuf_addstr(sb, t->compact ? "        |              \\" : "          |                \\");
	strbuf_addch(sb, '\n');
}

void lkp_header(struct strbuf *sb, const char *indent)
{
	strbuf_addf(sb, "%s%12s%s%22s\n", indent, "base", "      ", "kit");
	strbuf_addf(sb, "%s---------------- ---------------------------\n", indent);
	strbuf_addf(sb, "%s         %%stddev     %%change         %%stddev\n", indent);
	strbuf_addf(sb, "%s             \\          |                \\\n", indent);
}

/* "  1234.5 ±  2%": 16 columns; compact, 15. */
static void add_mean_sd_w(struct strbuf *sb, const struct sample_stats *s, int present, int compact)
{
	char num[32];
	int w = compact ? 9 : 10;

	if (!present) {
		strbuf_addf(sb, "%*s      ", w, "-");
		return;
	}
	metric_value_format(num, sizeof(num), s->mean);
	strbuf_addf(sb, "%*s", w, num);
	if (s->n > 1 && s->mean != 0)
		strbuf_addf(sb, " \xc2\xb1%3.0f%%", fmin(999, s->stddev / fabs(s->mean) * 100));
	else
		strbuf_addstr(sb, "      ");
}

/* The name column: "case.name (unit)", and the changes called ("(worse)", "(kit worse, x better)"). */
static char *lkp_name(const struct metric_result *m, const struct metric_row *const *rows,
		      const struct lkp *t)
{
	char *label = report_clean(metric_label(m)), *unit = report_clean(m->unit), *ret;
	struct strbuf marks = STRBUF_INIT;
	size_t i;

	/* mm-regress would not time it: say so, where a number would be. */
	if (t->cols[0]->base && cell_find_metric_skip(t->cols[0]->base, m->case_name, m->name))
		strbuf_addstr(&marks, "base not measured");
	for (i = 0; i < t->nr; i++) {
		const struct cell_result *c = t->cols[i]->kit;

		if (c && (!rows[i] || !rows[i]->kit) &&
		    cell_find_metric_skip(c, m->case_name, m->name))
			strbuf_addf(&marks, "%s%s not measured", marks.len ? ", " : "", c->variant);
	}
	for (i = 0; i < t->nr; i++) {
		const struct metric_row *r = rows[i];
		const char *word;

		if (!r || (r->v.call != PERF_REGRESSION && r->v.call != PERF_IMPROVEMENT &&
			   r->v.call != PERF_COST))
			continue;
		word = r->v.call == PERF_REGRESSION ? "worse" :
		       r->v.call == PERF_COST ? "declared cost" : "better";
		if (t->nr == 1 && !strcmp(t->cols[i]->kit->variant, "kit")) {
			strbuf_addstr(&marks, word);
			continue;
		}
		strbuf_addf(&marks, "%s%s %s", marks.len ? ", " : "", t->cols[i]->kit->variant, word);
	}
	ret = xstrfmt("%s%s%s%s%s%s%s", label, *unit ? " (" : "", unit, *unit ? ")" : "",
		      marks.len ? "  (" : "", marks.buf, marks.len ? ")" : "");
	free(label);
	free(unit);
	strbuf_release(&marks);
	return ret;
}

/* One metric: base, then %change and the mean of each column, then the name. */
static void lkp_row_cols(struct strbuf *sb, const struct metric_result *m,
			 const struct metric_row *const *rows, const struct lkp *t)
{
	const struct metric_row *with_base = NULL;
	char *name = lkp_name(m, rows, t);
	size_t i;

	for (i = 0; i < t->nr && !with_base; i++)
		if (rows[i] && rows[i]->base)
			with_base = rows[i];
	if (t->name_above)
		add_wrapped(sb, name, REPORT_MARKDOWN_WIDTH, t->indent, t->indent);
	strbuf_addstr(sb, t->indent);
	add_mean_sd_w(sb, with_base ? &with_base->b : NULL, with_base != NULL, t->compact);
	for (i = 0; i < t->nr; i++) {
		const struct metric_row *r = rows[i];
		const char *col = !r ? NULL : r->v.call == PERF_REGRESSION ? C_RED :
				  r->v.call == PERF_IMPROVEMENT ? C_GREEN : NULL;

		if (t->color && col)
			strbuf_addstr(sb, col);
		if (!r || isnan(r->v.change_pct) || !r->base || !r->kit)
			strbuf_addf(sb, t->compact ? " %8s" : " %10s ", "");
		else
			strbuf_addf(sb, t->compact ? " %+7.1f%%" : " %+9.1f%% ", r->v.change_pct);
		if (t->color && col)
			strbuf_addstr(sb, C_RESET);
		if (t->compact)
			strbuf_addch(sb, ' ');
		add_mean_sd_w(sb, r ? &r->k : NULL, r && r->kit, t->compact);
	}
	if (t->name_above)
		strbuf_rtrim(sb);
	else
		strbuf_addf(sb, "  %s", name);
	strbuf_addch(sb, '\n');
	free(name);
}

/* The kit-only layout (JUnit's failure details): one row of one comparison. */
void lkp_row(struct strbuf *sb, const struct metric_row *r, const char *indent,
	     int name_above, int color)
{
	struct branch_comparison one;
	const struct branch_comparison *cols[1] = { &one };
	struct cell_result kit;
	struct lkp t = { cols, 1, indent, 0, name_above, color };

	memset(&one, 0, sizeof(one));
	memset(&kit, 0, sizeof(kit));
	kit.variant = (char *)"kit";
	one.kit = &kit;
	lkp_row_cols(sb, row_metric(r), &r, &t);
}

/* Columns a row takes with its name at the end. */
static size_t lkp_row_width(const struct metric_result *m, const struct metric_row *const *rows,
			    const struct lkp *t)
{
	char *name = lkp_name(m, rows, t);
	size_t w = display_width(t->indent) + (t->compact ? 15 + 25 * t->nr : 16 + 28 * t->nr) + 2 +
		   display_width(name);

	free(name);
	return w;
}

/*
 * "mm-regress quick, 5 samples a metric, tcg: instruction-paced time
 * (TCG icount: ...), clock tsc (resolution 1 ns), threshold 5%"
 */
static void describe_run(struct strbuf *sb, const struct branch_comparison *bc)
{
	const struct cell_result *c = bc->kit && bc->kit->mode ? bc->kit : bc->base;

	strbuf_addf(sb, "mm-regress %s", c && c->mode ? c->mode : "?");
	if (c && c->repeat)
		strbuf_addf(sb, ", %u sample%s a metric", c->repeat, c->repeat > 1 ? "s" : "");
	if (c && c->accel)
		strbuf_addf(sb, ", %s", c->accel);
	strbuf_addf(sb, "%s%s", c && c->accel ? ": " : ", ", timing_words(bc->timing, 0));
	if (c && c->clocksource) {
		char *cs = report_clean(c->clocksource);

		strbuf_addf(sb, ", clock %s", cs);
		free(cs);
	}
	if (c && c->clock_resolution_ns > 0) {
		double ns = c->clock_resolution_ns;

		strbuf_addstr(sb, c->clocksource ? " (resolution " : ", clock resolution ");
		if (ns >= 1e6)
			strbuf_addf(sb, "%g ms", ns / 1e6);
		else if (ns >= 1e3)
			strbuf_addf(sb, "%g us", ns / 1e3);
		else
			strbuf_addf(sb, "%g ns", ns);
		strbuf_addstr(sb, c->clocksource ? ")" : "");
	}
	strbuf_addf(sb, ", threshold %g%%", bc->threshold_pct);
}

/* ", boots: base 2, kit 1, no-fix 1" when a cell of b booted more than once. */
static void describe_boots(struct strbuf *sb, const struct branch_result *b)
{
	size_t i;
	int several = 0;

	for (i = 0; i < b->nr_cells; i++)
		several |= b->cells[i].boots > 1;
	if (!several)
		return;
	strbuf_addstr(sb, ", boots (samples merged):");
	for (i = 0; i < b->nr_cells; i++) {
		char *v = report_clean(b->cells[i].variant);

		if (b->cells[i].boots)
			strbuf_addf(sb, "%s %s %u", i ? "," : "", v, b->cells[i].boots);
		free(v);
	}
}

/* One table: the metrics of `cols`, in the order they first appear, each against base. */
struct lkp_metric {
	size_t first;			/* where it first appears */
	const struct metric_result *m;
	const struct metric_row **rows;	/* a column each, NULL where it has none */
};

static int lkp_metric_cmp(const void *pa, const void *pb)
{
	const struct lkp_metric *a = pa, *b = pb;

	return a->first < b->first ? -1 : a->first > b->first;
}

/*
 * Every metric of t's columns once, in the order they first appear, with
 * its row in each column (the first there). The rows are sorted by name
 * once: n metrics cost n log n, not a comparison of every pair.
 */
static struct lkp_metric *lkp_metrics(const struct lkp *t, size_t *nr_out)
{
	struct metric_index ix = METRIC_INDEX_INIT;
	struct lkp_metric *ms = NULL;
	size_t nr = 0, alloc = 0, i, j;

	for (i = 0; i < t->nr; i++)
		for (j = 0; j < t->cols[i]->nr; j++)
			metric_index_add(&ix, row_metric(&t->cols[i]->rows[j]), i,
					 &t->cols[i]->rows[j]);
	metric_index_sort(&ix);
	for (i = 0; i < ix.nr; i++) {
		const struct metric_index_entry *e = &ix.v[i];

		if (!i || !metric_index_same(&ix, i - 1, i)) {
			ALLOC_GROW(ms, nr + 1, alloc);
			ms[nr].first = e->seq;
			ms[nr].m = e->m;
			ms[nr++].rows = xcalloc(t->nr, sizeof(*ms->rows));
		}
		if (!ms[nr - 1].rows[e->tag])
			ms[nr - 1].rows[e->tag] = e->data;
	}
	if (nr)
		qsort(ms, nr, sizeof(*ms), lkp_metric_cmp);
	metric_index_release(&ix);
	*nr_out = nr;
	return ms;
}

static void lkp_table(struct strbuf *sb, const struct lkp *t0)
{
	struct lkp t = *t0;
	size_t nr, i;
	struct lkp_metric *ms = lkp_metrics(&t, &nr);

	/* In 72 columns, when one name does not fit after its numbers, none goes there. */
	for (i = 0; *t.indent && i < nr && !t.name_above; i++)
		t.name_above = lkp_row_width(ms[i].m, ms[i].rows, &t) > REPORT_MARKDOWN_WIDTH;
	if (t.nr == 1 && !t.compact && !strcmp(t.cols[0]->kit->variant, "kit"))
		lkp_header(sb, t.indent);
	else
		lkp_header_cols(sb, &t);
	for (i = 0; i < nr; i++)
		lkp_row_cols(sb, ms[i].m, ms[i].rows, &t);
	strbuf_addch(sb, '\n');
	for (i = 0; i < nr; i++)
		free(ms[i].rows);
	free(ms);
}

/* The metrics mm-regress would not report as numbers on a branch's cells, with its reasons. */
static void metric_skips_section(struct strbuf *sb, const struct branch_result *b, int markdown)
{
	size_t i, j, nr = 0;

	for (i = 0; i < b->nr_cells; i++) {
		const struct cell_result *c = &b->cells[i];

		for (j = 0; j < c->nr_metric_skips; j++) {
			const struct metric_skip *ms = &c->metric_skips[j];
			char *line = xstrfmt("%s %s %s.%s: not measured: %s", b->name, c->variant,
					     ms->case_name, ms->name, ms->reason);
			char *one = report_clean(line);

			if (!nr++)
				strbuf_addstr(sb, markdown ?
					      "Not measured (mm-regress's clock could not resolve them):\n\n" :
					      "not measured (mm-regress's clock could not resolve them):\n");
			if (markdown)
				add_wrapped(sb, one, REPORT_MARKDOWN_WIDTH, "    ", "      ");
			else
				strbuf_addf(sb, "  %s\n", one);
			free(one);
			free(line);
		}
	}
	if (nr)
		strbuf_addch(sb, '\n');
}

void perf_section(struct strbuf *sb, const struct branch_result *b,
		  const struct comparisons *cs, int markdown, int color)
{
	const char *indent = markdown ? "    " : "";
	const struct branch_comparison **cols = xcalloc(cs->nr ? cs->nr : 1, sizeof(*cols));
	struct strbuf head = STRBUF_INIT, names = STRBUF_INIT;
	char *name = report_clean(b->name);
	size_t i, nr = 0, per_table;

	for (i = 0; i < cs->nr; i++)
		if (has_pairs(&cs->v[i]))
			cols[nr++] = &cs->v[i];
	/* With one side only, there is nothing to lay out side by side: say why. */
	for (i = 0; i < cs->nr; i++) {
		const struct branch_comparison *bc = &cs->v[i];
		struct strbuf line = STRBUF_INIT;

		/* Only worth a line when both ran: a missing side shows in the matrix already. */
		if (has_pairs(bc) || !bc->nr || !bc->note || !bc->base || !bc->kit ||
		    bc->base->boot.status != CHECK_OK || bc->kit->boot.status != CHECK_OK)
			continue;
		if (!strcmp(bc->kit->variant, "kit"))
			strbuf_addf(&line, "%s: performance not compared: %s", name, bc->note);
		else
			strbuf_addf(&line, "%s %s: performance not compared: %s", name, bc->kit->variant,
				    bc->note);
		if (markdown)
			add_wrapped(sb, line.buf, REPORT_MARKDOWN_WIDTH, "", "");
		else
			strbuf_addf(sb, "%s\n", line.buf);
		strbuf_addch(sb, '\n');
		strbuf_release(&line);
	}
	if (!nr)
		goto skips;
	for (i = 0; i < nr; i++) {
		char *v = report_clean(cols[i]->kit->variant);

		strbuf_addf(&names, "%s%s", i ? ", " : "", v);
		free(v);
	}
	if (markdown)
		strbuf_addf(&head, "### %s: %s against base\n\n", name, names.buf);
	else
		strbuf_addf(&head, "%s%s: %s against base%s, ", color ? C_BOLD : "", name, names.buf,
			    color ? C_RESET : "");
	if (markdown) {
		struct strbuf what = STRBUF_INIT;

		describe_run(&what, cols[0]);
		describe_boots(&what, b);
		strbuf_addstr(sb, head.buf);
		add_wrapped(sb, what.buf, REPORT_MARKDOWN_WIDTH, "", "");
		strbuf_addch(sb, '\n');
		strbuf_release(&what);
	} else {
		describe_run(&head, cols[0]);
		describe_boots(&head, b);
		strbuf_addf(sb, "%s\n", head.buf);
	}
	for (i = 0; i < nr; i++) {
		if (!cols[i]->note)
			continue;
		if (markdown)
			add_wrapped(sb, cols[i]->note, REPORT_MARKDOWN_WIDTH, "", "");
		else
			strbuf_addf(sb, "%s\n", cols[i]->note);
		strbuf_addch(sb, '\n');
	}
	/* A terminal takes every column side by side; 72 columns take two a table. */
	per_table = markdown && nr > 1 ? 2 : nr;
	for (i = 0; i < nr; i += per_table) {
		struct lkp t = { cols + i, nr - i < per_table ? nr - i : per_table, indent,
				 markdown && nr > 1, 0, color };

		lkp_table(sb, &t);
	}
skips:
	metric_skips_section(sb, b, markdown);
	free(cols);
	free(name);
	strbuf_release(&head);
	strbuf_release(&names);
}


const struct claim *cell_claim_next(const struct branch_result *b, const struct cell_result *c,
				    size_t *i, struct claim_verdict *v)
{
	while (*i < b->nr_claims) {
		const struct claim *cl = &b->claims[(*i)++];

		if (claim_applies(b, c, cl)) {
			claim_judge(v, b, c, cl);
			return cl;
		}
	}
	return NULL;
}

int run_claim_next(const struct run_results *r, struct claim_walk *w)
{
	while (w->branch < r->nr_branches) {
		const struct branch_result *b = &r->branches[w->branch];

		if (w->cell < b->nr_cells) {
			const struct cell_result *c = &b->cells[w->cell];
			const struct claim *cl = cell_claim_next(b, c, &w->k, &w->v);

			if (cl) {
				w->b = b;
				w->c = c;
				w->cl = cl;
				return 1;
			}
			w->cell++;
			w->k = 0;
		} else {
			w->branch++;
			w->cell = 0;
		}
	}
	return 0;
}

/* The most notable called change of a branch, for the matrix; NULL when none. */
void perf_notable(struct strbuf *sb, const struct branch_comparison *bc)
{
	const struct metric_row *best = NULL;
	size_t i, worse = 0, better = 0;

	if (!bc->comparable) {
		strbuf_addstr(sb, bc->kit && bc->kit->nr_metrics && bc->nr ? "not compared" : "-");
		return;
	}
	if (bc->same_tree) {
		strbuf_addstr(sb, "same tree as base");
		return;
	}
	for (i = 0; i < bc->nr; i++) {
		const struct metric_row *r = &bc->rows[i];

		if (r->v.call != PERF_REGRESSION && r->v.call != PERF_IMPROVEMENT)
			continue;
		if (r->v.call == PERF_REGRESSION)
			worse++;
		else
			better++;
		/* Regressions first, then the largest change. */
		if (!best || (r->v.call == PERF_REGRESSION && best->v.call != PERF_REGRESSION) ||
		    (r->v.call == best->v.call && fabs(r->v.change_pct) > fabs(best->v.change_pct)))
			best = r;
	}
	if (!best) {
		strbuf_addstr(sb, bc->nr ? "no change" : "-");
		return;
	}
	strbuf_addf(sb, "%+.1f%% %s (%s)", best->v.change_pct, metric_label(best->kit),
		    best->v.call == PERF_REGRESSION ? "worse" : "better");
	/* the others, each kind named: "+1 more" after a regression could be either */
	if (best->v.call == PERF_REGRESSION)
		worse--;
	else
		better--;
	if (worse)
		strbuf_addf(sb, " +%zu worse", worse);
	if (better)
		strbuf_addf(sb, " +%zu better", better);
}

enum perf_charts perf_branch_charts(const struct branch_result *b)
{
	size_t i, base = 0, other = 0;

	for (i = 0; i < b->nr_cells; i++) {
		if (!b->cells[i].nr_metrics)
			continue;
		if (!strcmp(b->cells[i].variant, "base"))
			base++;
		else
			other++;
	}
	if (other)
		return PERF_CHARTS;
	if (!base)
		return PERF_NO_CHARTS;
	if (b->apply.status == CHECK_CONFLICT || b->apply.status == CHECK_FAILED)
		return PERF_NOTHING_TO_COMPARE;
	return PERF_CHARTS;
}
