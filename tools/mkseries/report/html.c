/* report/html.c: the results as one self-contained HTML page: the text report's matrices, problems and claims, and a chart per metric. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "report/html.h"
#include "report/perf.h"
#include "report/render.h"
#include "report/report.h"
#include "report/sections.h"
#include "report/table.h"
#include "report/words.h"
#include "results/metricindex.h"
#include "results/verdict.h"

static void esc(struct strbuf *sb, const char *s)
{
	report_add_markup(sb, s, 0);
}

/*
 * Nothing leaves the page: no script, no request (a CDN, a font, an
 * image) even if some text got through unescaped.
 */
#define HTML_CSP "default-src 'none'; style-src 'unsafe-inline'"

static const char html_style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#1d232a;max-width:1150px}\n"
	"h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ccd}\n"
	"h3{font-size:1.05em}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #bbc;padding:.2em .6em;text-align:left;font-size:.92em}\n"
	"thead th{background:#eef0f4}\n"
	".ok{background:#dff3e2}.bad{background:#f8d7d7;font-weight:bold}\n"
	".warn{background:#fbefcc}.note{background:#e0eef8}\n"
	"ul.lines li{font-family:monospace;margin:.2em 0;white-space:pre-wrap;word-break:break-word}\n"
	".word{font-family:sans-serif;font-weight:bold;padding:0 .3em;margin-right:.4em}\n"
	"pre{background:#f6f7f9;padding:.6em;overflow-x:auto;font-size:.85em}\n"
	".charts{display:flex;flex-wrap:wrap;gap:.8em}\n"
	"figure.chart{margin:0;border:1px solid #dde;padding:.4em;background:#fff;width:540px}\n"
	"figure.chart figcaption{font-size:.9em;font-weight:bold}\n"
	"figure.chart .time{font-weight:normal;color:#555}\n"
	"svg text{font-family:sans-serif;font-size:11px;fill:#1d232a}svg text.time{font-size:9px;fill:#555}\n"
	"svg .mean{fill:#6b7785}svg .kit .mean{fill:#1f6fbf}svg .variant .mean{fill:#d18a1f}\n"
	"svg .worse .mean{stroke:#c0262d;stroke-width:2}svg .better .mean{stroke:#1f8a3b;stroke-width:2}\n"
	"svg .grid{stroke:#e4e6ea;stroke-width:1}svg .worse text{fill:#c0262d}svg .better text{fill:#1f8a3b}\n"
	"svg .sd{stroke:#1d232a;stroke-width:2}svg .range{stroke:#555;stroke-width:1;stroke-dasharray:3 2}\n"
	"svg .sample{fill:#1d232a;fill-opacity:.55}svg .axis{stroke:#888;stroke-width:1}\n"
	"p.rule,p.meta{color:#555;font-size:.9em}\n"
	"p.claimnote{margin:.2em 0 0;font-size:.85em}\n";

/* The CSS class of a report colour; NULL for none. */
static const char *color_class(const char *color)
{
	if (!color)
		return NULL;
	if (!strcmp(color, C_GREEN))
		return "ok";
	if (!strcmp(color, C_RED))
		return "bad";
	if (!strcmp(color, C_YELLOW))
		return "warn";
	if (!strcmp(color, C_CYAN))
		return "note";
	return NULL;
}

/* A report table as an HTML table: row 0 the header, column 0 each row's name. */
static void html_table(struct strbuf *sb, const struct table *t, const char *id)
{
	size_t r, c;

	strbuf_addf(sb, "<table id=\"%s\">\n<thead><tr>", id);
	for (c = 0; c < t->cols; c++) {
		strbuf_addstr(sb, "<th>");
		esc(sb, t->cell[c]);
		strbuf_addstr(sb, "</th>");
	}
	strbuf_addstr(sb, "</tr></thead>\n<tbody>\n");
	for (r = 1; r < t->rows; r++) {
		strbuf_addstr(sb, "<tr>");
		for (c = 0; c < t->cols; c++) {
			const char *cls = color_class(t->color[r * t->cols + c]);

			strbuf_addstr(sb, c ? "<td" : "<th scope=\"row\"");
			if (cls)
				strbuf_addf(sb, " class=\"%s\"", cls);
			strbuf_addch(sb, '>');
			esc(sb, t->cell[r * t->cols + c]);
			strbuf_addstr(sb, c ? "</td>" : "</th>");
		}
		strbuf_addstr(sb, "</tr>\n");
	}
	strbuf_addstr(sb, "</tbody>\n</table>\n");
}

/* The lines of a text section ("  line\n" each) as a list. */
static void html_lines(struct strbuf *sb, const char *text, const char *id)
{
	const char *l = text;

	strbuf_addf(sb, "<ul class=\"lines\" id=\"%s\">\n", id);
	while (*l) {
		const char *end = strchr(l, '\n');
		char *one;

		if (!end)
			end = l + strlen(l);
		l += strspn(l, " ");
		if (l < end) {
			one = xstrndup(l, end - l);
			strbuf_addstr(sb, "<li>");
			esc(sb, one);
			strbuf_addstr(sb, "</li>\n");
			free(one);
		}
		l = *end ? end + 1 : end;
	}
	strbuf_addstr(sb, "</ul>\n");
}

/* A claim's outcome, word, in the colour of its verdict v: held, failed, or neither. */
static void claim_word(struct strbuf *sb, const struct claim_verdict *v, const char *word)
{
	strbuf_addf(sb, "<span class=\"word %s\">",
		    v->outcome == CLAIM_HELD ? "ok" : v->outcome == CLAIM_FAILED ? "bad" : "warn");
	esc(sb, word);
	strbuf_addstr(sb, "</span>");
}

/* Every claim checked on a cell, with its outcome and evidence, in the text report's words. */
static size_t html_claims(struct strbuf *sb, const struct run_results *r)
{
	struct claim_walk w = CLAIM_WALK_INIT;
	size_t nr = 0;

	while (run_claim_next(r, &w)) {
		struct strbuf line = STRBUF_INIT;
		const char *word = report_claim_line(&line, w.b, w.c, w.cl, &w.v, 0);

		if (!nr++)
			strbuf_addstr(sb, "<h2>Claims</h2>\n<ul class=\"lines\" id=\"claims\">\n");
		strbuf_addstr(sb, "<li class=\"claim\">");
		claim_word(sb, &w.v, word);
		esc(sb, line.buf);
		strbuf_addstr(sb, "</li>\n");
		strbuf_release(&line);
		claim_verdict_release(&w.v);
	}
	if (nr)
		strbuf_addstr(sb, "</ul>\n");
	return nr;
}

/*
 * The call on metric m of cell c against base, or NULL when not compared.
 * A comparison's rows follow its kit cell's metrics, one each, so m's
 * row is found by m's place in c, not by a search.
 */
static const struct metric_row *cell_row(const struct comparisons *cs,
					 const struct cell_result *c,
					 const struct metric_result *m)
{
	const struct branch_comparison *bc = comparison_of(cs, c->variant);
	size_t i = m - c->metrics;

	if (!bc || bc->kit != c || i >= bc->nr || bc->rows[i].kit != m)
		return NULL;
	return &bc->rows[i];
}

/*
 * A chart: the entries of one metric in the branch's sorted index
 * (v[start] to v[end - 1], cell by cell), the order it first appears in,
 * and the claim notes under it.
 */
struct chart_group {
	size_t start, end, first;
	struct strbuf notes;
};

/* One bar of a chart: a cell's numbers for the metric. */
struct bar {
	const struct cell_result *cell;
	const struct metric_result *m;
	struct sample_stats s;
	double min, max;
	const struct metric_row *row;
};

/* Chart geometry, in SVG pixels. */
enum {
	CH_WIDTH = 540, CH_LABEL = 78, CH_PLOT = 250, CH_TEXT = 340,
	CH_ROW = 30, CH_TOP = 6, CH_AXIS = 24,
};

struct scale {
	double lo, hi;
};

static double xpos(const struct scale *sc, double v)
{
	return CH_LABEL + 6 + (v - sc->lo) / (sc->hi - sc->lo) * CH_PLOT;
}

static void svg_hline(struct strbuf *sb, const char *cls, double x1, double x2, double y)
{
	strbuf_addf(sb, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", cls,
		    x1, x2, y, y);
}

static void svg_vline(struct strbuf *sb, const char *cls, double x, double y1, double y2)
{
	strbuf_addf(sb, "<line class=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", cls,
		    x, x, y1, y2);
}

/* A whisker from a to b at height y, with end ticks. */
static void svg_whisker(struct strbuf *sb, const char *cls, double a, double b, double y)
{
	svg_hline(sb, cls, a, b, y);
	svg_vline(sb, cls, a, y - 4, y + 4);
	svg_vline(sb, cls, b, y - 4, y + 4);
}

/* "1234 ±2%" */
static void add_mean_sd(struct strbuf *sb, const struct sample_stats *s)
{
	char num[32];

	metric_value_format(num, sizeof(num), s->mean);
	strbuf_addstr(sb, num);
	if (s->n > 1 && s->mean != 0)
		strbuf_addf(sb, " \xc2\xb1%.0f%%", fmin(999, s->stddev / fabs(s->mean) * 100));
}

static void chart_bar(struct strbuf *sb, const struct bar *bar, const struct scale *sc,
		      size_t i, int mixed_time)
{
	const char *variant = bar->cell->variant;
	const char *cls = !strcmp(variant, "base") ? "base" : !strcmp(variant, "kit") ? "kit" :
			  "variant";
	const char *call = !bar->row ? "" : bar->row->v.call == PERF_REGRESSION ? " worse" :
			   bar->row->v.call == PERF_IMPROVEMENT ? " better" : "";
	double y = CH_TOP + i * CH_ROW, mid = y + CH_ROW / 2.0;
	double x = xpos(sc, bar->s.mean);
	struct strbuf text = STRBUF_INIT;
	char a[32], b[32];
	size_t k;

	strbuf_addf(sb, "<g class=\"%s%s\"><title>", cls, call);
	esc(sb, variant);
	metric_value_format(a, sizeof(a), bar->s.mean);
	strbuf_addf(sb, ": mean %s", a);
	metric_value_format(a, sizeof(a), bar->s.stddev);
	strbuf_addf(sb, ", stddev %s, %u sample%s", a, bar->s.n, bar->s.n == 1 ? "" : "s");
	if (bar->m->nr_samples > 1) {
		metric_value_format(a, sizeof(a), bar->min);
		metric_value_format(b, sizeof(b), bar->max);
		strbuf_addf(sb, ", min %s, max %s", a, b);
	}
	strbuf_addstr(sb, "</title>\n");
	strbuf_addf(sb, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", CH_LABEL, mid + 4);
	esc(sb, variant);
	strbuf_addstr(sb, "</text>");
	svg_hline(sb, "grid", CH_LABEL + 6, CH_LABEL + 6 + CH_PLOT, mid);
	if (bar->m->nr_samples > 1 && bar->max > bar->min)
		svg_whisker(sb, "range", xpos(sc, bar->min), xpos(sc, bar->max), mid);
	if (bar->s.n > 1 && bar->s.stddev > 0)
		svg_whisker(sb, "sd", xpos(sc, bar->s.mean - bar->s.stddev),
			    xpos(sc, bar->s.mean + bar->s.stddev), mid);
	for (k = 0; k < bar->m->nr_samples && k < 100; k++)
		if (isfinite(bar->m->samples[k]))
			strbuf_addf(sb, "<circle class=\"sample\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>",
				    xpos(sc, bar->m->samples[k]), mid);
	strbuf_addf(sb, "<rect class=\"mean\" x=\"%.1f\" y=\"%.1f\" width=\"5\" height=\"%d\"/>",
		    x - 2.5, y + 5, CH_ROW - 10);
	add_mean_sd(&text, &bar->s);
	strbuf_addf(&text, " n=%u", bar->s.n);
	if (bar->row && bar->row->base && !isnan(bar->row->v.change_pct))
		strbuf_addf(&text, " %+.1f%%%s", bar->row->v.change_pct, call);
	/* The kind of time, when the rows differ in it, goes under the numbers: both would not fit. */
	strbuf_addf(sb, "<text x=\"%d\" y=\"%.1f\">", CH_TEXT, mixed_time ? mid - 2 : mid + 4);
	esc(sb, text.buf);
	strbuf_addstr(sb, "</text>");
	if (mixed_time)
		strbuf_addf(sb, "<text class=\"time\" x=\"%d\" y=\"%.1f\">%s</text>", CH_TEXT, mid + 10,
			    timing_words(cell_timing(bar->cell), 1));
	strbuf_addstr(sb, "</g>\n");
	strbuf_release(&text);
}

static int group_start_cmp(const void *key, const void *elem)
{
	size_t start = *(const size_t *)key;
	const struct chart_group *g = elem;

	return start < g->start ? -1 : start > g->start;
}

/*
 * Under each chart, the claims on its metric: each cell's outcome, as the
 * claims section words it. Every claim is judged once, and its note goes
 * to its metric's chart, found in the index.
 */
static void claim_notes(struct chart_group *groups, size_t nr, const struct branch_result *b,
			struct metric_index *ix)
{
	size_t i, k;

	for (i = 0; i < b->nr_cells; i++) {
		const struct cell_result *c = &b->cells[i];
		const struct claim *cl;
		struct claim_verdict v;

		k = 0;
		while ((cl = cell_claim_next(b, c, &k, &v))) {
			size_t p = metric_index_lookup(ix, cl->c.case_name, cl->c.metric);
			struct chart_group *g = p < ix->nr ?
				bsearch(&p, groups, nr, sizeof(*groups), group_start_cmp) : NULL;

			if (g) {
				struct strbuf line = STRBUF_INIT;
				const char *word = report_claim_line(&line, b, c, cl, &v, 0);
				char *text = kit_claim_text(&cl->c);

				strbuf_addstr(&g->notes, "<p class=\"claimnote\">");
				claim_word(&g->notes, &v, word);
				esc(&g->notes, c->variant);
				strbuf_addstr(&g->notes, ": ");
				esc(&g->notes, claim_owner_label(cl));
				strbuf_addstr(&g->notes, ": ");
				esc(&g->notes, text);
				strbuf_addstr(&g->notes, "</p>\n");
				free(text);
				strbuf_release(&line);
			}
			claim_verdict_release(&v);
		}
	}
}

/*
 * A chart of a metric over the cells of b that measured it: a bar each
 * (the cell's first entry of it), with its spread.
 */
static void chart(struct strbuf *sb, const struct branch_result *b, const struct comparisons *cs,
		  const struct metric_index *ix, const struct chart_group *g, int mixed_time)
{
	const struct metric_result *m = ix->v[g->start].m;
	struct bar *bars = xcalloc(b->nr_cells, sizeof(*bars));
	struct scale sc = { 0, 0 };
	char num[32];
	size_t i, k, nr = 0, cell = SIZE_MAX;
	double h, lo, hi, pad;

	for (i = g->start; i < g->end; i++) {
		const struct metric_result *cm = ix->v[i].m;
		struct bar *bar = &bars[nr];

		if (ix->v[i].tag == cell)
			continue;
		cell = ix->v[i].tag;
		metric_stats(&bar->s, cm);
		if (!isfinite(bar->s.mean))
			continue;
		bar->cell = &b->cells[cell];
		bar->m = cm;
		bar->min = bar->max = bar->s.mean;
		for (k = 0; k < cm->nr_samples; k++)
			if (isfinite(cm->samples[k])) {
				bar->min = fmin(bar->min, cm->samples[k]);
				bar->max = fmax(bar->max, cm->samples[k]);
			}
		bar->row = cell_row(cs, bar->cell, cm);
		lo = fmin(bar->min, bar->s.mean - bar->s.stddev);
		hi = fmax(bar->max, bar->s.mean + bar->s.stddev);
		sc.lo = nr ? fmin(sc.lo, lo) : lo;
		sc.hi = nr ? fmax(sc.hi, hi) : hi;
		nr++;
	}
	if (!nr)
		goto done;
	/* The axis spans the values, not from 0: a spread of 1% must show. */
	pad = (sc.hi - sc.lo) * 0.08;
	if (pad <= 0)
		pad = fabs(sc.hi) > 0 ? fabs(sc.hi) * 0.01 : 1;
	/* No negative axis for numbers that are never negative. */
	sc.lo = sc.lo >= 0 ? fmax(0, sc.lo - pad) : sc.lo - pad;
	sc.hi += pad;
	h = CH_TOP + nr * CH_ROW + CH_AXIS;

	strbuf_addstr(sb, "<figure class=\"chart\"><figcaption>");
	esc(sb, metric_label(m));
	if (m->unit && *m->unit) {
		strbuf_addstr(sb, " (");
		esc(sb, m->unit);
		strbuf_addch(sb, ')');
	}
	strbuf_addf(sb, " <span class=\"time\">%s is better",
		    m->direction == KTAP_HIGHER_IS_BETTER ? "higher" : "lower");
	if (!mixed_time)
		strbuf_addf(sb, "; %s", timing_words(cell_timing(bars[0].cell), 1));
	strbuf_addstr(sb, "</span></figcaption>\n");
	strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
		    "viewBox=\"0 0 %d %.0f\" role=\"img\" aria-label=\"", CH_WIDTH, h, CH_WIDTH, h);
	esc(sb, metric_label(m));
	strbuf_addstr(sb, "\">\n");
	for (i = 0; i < nr; i++)
		chart_bar(sb, &bars[i], &sc, i, mixed_time);
	/* The axis, with its ends and middle marked. */
	h -= CH_AXIS - 4;
	svg_hline(sb, "axis", xpos(&sc, sc.lo), xpos(&sc, sc.hi), h);
	for (k = 0; k < 3; k++) {
		double v = sc.lo + (sc.hi - sc.lo) * k / 2;
		static const char *const anchor[] = { "start", "middle", "end" };

		svg_vline(sb, "axis", xpos(&sc, v), h, h + 4);
		metric_value_format(num, sizeof(num), v);
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>",
			    xpos(&sc, v), h + 15, anchor[k], num);
	}
	strbuf_addch(sb, '\n');
	strbuf_addstr(sb, "</svg>\n");
	strbuf_add(sb, g->notes.buf, g->notes.len);
	strbuf_addstr(sb, "</figure>\n");
done:
	free(bars);
}

static int group_first_cmp(const void *pa, const void *pb)
{
	const struct chart_group *a = pa, *b = pb;

	return a->first < b->first ? -1 : a->first > b->first;
}

/*
 * A branch's charts: one per metric any cell measured, in the order they
 * first appear. The metrics are sorted once (the index), so that a
 * report of n metrics costs n log n, not a comparison of every pair.
 */
static void branch_charts(struct strbuf *sb, const struct branch_result *b,
			  const struct comparisons *cs)
{
	struct metric_index ix = METRIC_INDEX_INIT;
	struct chart_group *groups = NULL;
	size_t nr = 0, alloc = 0, i;
	enum timing_kind time = TIMING_UNKNOWN;
	int mixed = 0, any = 0;

	if (perf_branch_charts(b) == PERF_NOTHING_TO_COMPARE) {
		strbuf_addstr(sb, "<p class=\"time\">No chart: the kit did not apply on ");
		esc(sb, b->name);
		strbuf_addf(sb, " (%s), so only base has numbers and there is nothing to compare "
			    "them with.</p>\n", check_status_name(b->apply.status));
		return;
	}
	for (i = 0; i < b->nr_cells; i++) {
		const struct cell_result *c = &b->cells[i];

		if (!c->nr_metrics)
			continue;
		if (any && cell_timing(c) != time)
			mixed = 1;
		time = cell_timing(c);
		any = 1;
		metric_index_add_cell(&ix, c, i);
	}
	metric_index_sort(&ix);
	for (i = 0; i < ix.nr; i++) {
		if (i && metric_index_same(&ix, i - 1, i)) {
			groups[nr - 1].end = i + 1;
			continue;
		}
		ALLOC_GROW(groups, nr + 1, alloc);
		groups[nr].start = i;
		groups[nr].end = i + 1;
		groups[nr].first = ix.v[i].seq;
		strbuf_init(&groups[nr++].notes, 0);
	}
	if (!nr)
		goto cleanup;
	claim_notes(groups, nr, b, &ix);
	qsort(groups, nr, sizeof(*groups), group_first_cmp);
	strbuf_addstr(sb, "<h3>Every cell's numbers</h3>\n<p class=\"time\">");
	if (mixed)
		strbuf_addstr(sb, "The cells' numbers are in different kinds of time: each bar says which.");
	else
		strbuf_addf(sb, "The numbers are %s.", timing_words(time, 0));
	strbuf_addstr(sb, " The block is the mean, the solid whisker the mean \xc2\xb1 one standard "
		      "deviation, the dashed one the lowest to the highest sample, each dot a "
		      "sample; the axis spans the values, not from zero. The change is against "
		      "base, with the call the text report makes (worse in red, better in green).</p>\n"
		      "<div class=\"charts\">\n");
	for (i = 0; i < nr; i++)
		chart(sb, b, cs, &ix, &groups[i], mixed);
	strbuf_addstr(sb, "</div>\n");
cleanup:
	for (i = 0; i < nr; i++)
		strbuf_release(&groups[i].notes);
	free(groups);
	metric_index_release(&ix);
}

void render_html(struct strbuf *sb, const struct run_results *r)
{
	struct strbuf text = STRBUF_INIT, charts = STRBUF_INIT;
	struct table t;
	size_t i;

	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"" HTML_CSP "\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width\">\n"
		      "<title>mkseries results</title>\n<style>\n");
	strbuf_addstr(sb, html_style);
	strbuf_addstr(sb, "</style>\n</head>\n<body>\n<h1>mkseries results</h1>\n");
	if (r->generator || r->generated || r->tester) {
		strbuf_addstr(sb, "<p class=\"meta\">");
		esc(sb, r->generator);
		if (r->generated) {
			strbuf_addstr(sb, r->generator ? ", " : "");
			esc(sb, r->generated);
		}
		if (r->tester) {
			strbuf_addstr(sb, "; tested by ");
			esc(sb, r->tester);
		}
		strbuf_addstr(sb, "</p>\n");
	}
	if (!r->nr_branches) {
		strbuf_addstr(sb, "<p id=\"summary\">no results</p>\n</body>\n</html>\n");
		return;
	}
	report_summary_line(&text, r);
	strbuf_addstr(sb, "<p id=\"summary\">");
	esc(sb, text.buf);
	strbuf_addstr(sb, "</p>\n");
	if (report_have_series(r)) {
		strbuf_addstr(sb, "<h2>Series</h2>\n");
		report_series_table(&t, r);
		html_table(sb, &t, "series");
		table_release(&t);
	}
	strbuf_addstr(sb, "<h2>Builds, boots and tests</h2>\n");
	report_cells_table(&t, r, 0);
	html_table(sb, &t, "cells");
	table_release(&t);
	strbuf_reset(&text);
	if (report_problems(&text, r, 0)) {
		strbuf_addstr(sb, "<h2>Problems</h2>\n");
		html_lines(sb, text.buf, "problems");
	}
	strbuf_reset(&text);
	if (report_expected_failures(&text, r, 0)) {
		strbuf_addstr(sb, "<h2>Expected failures</h2>\n");
		html_lines(sb, text.buf, "expected");
	}
	html_claims(sb, r);
	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct comparisons cs;

		comparisons_init(&cs, b);
		strbuf_reset(&text);
		perf_section(&text, b, &cs, 0, 0);
		strbuf_reset(&charts);
		branch_charts(&charts, b, &cs);
		if (!text.len && !charts.len) {
			comparisons_release(&cs);
			continue;
		}
		strbuf_addstr(sb, "<section class=\"branch\" id=\"" HTML_BRANCH_ANCHOR);
		esc(sb, b->name);
		strbuf_addstr(sb, "\">\n<h2>");
		esc(sb, b->name);
		strbuf_addstr(sb, ": performance</h2>\n");
		strbuf_add(sb, charts.buf, charts.len);
		if (text.len) {
			strbuf_addstr(sb, "<h3>Against base</h3>\n<pre>");
			report_add_markup(sb, text.buf, 1);
			strbuf_addstr(sb, "</pre>\n");
		}
		strbuf_addstr(sb, "</section>\n");
		comparisons_release(&cs);
	}
	strbuf_addstr(sb, "<p class=\"rule\">Performance: ");
	esc(sb, RULE_TEXT);
	strbuf_addstr(sb, ".</p>\n</body>\n</html>\n");
	strbuf_release(&text);
	strbuf_release(&charts);
}
