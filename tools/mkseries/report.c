/* report.c: render recorded results for a terminal, for CI (JSON, JUnit XML) and for a mailing list. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "applyplan.h"
#include "json.h"
#include "report.h"
#include "variant.h"
#include "verdict.h"

int report_format_parse(enum report_format *out, const char *name)
{
	static const struct {
		const char *name;
		enum report_format fmt;
	} formats[] = {
		{ "text", REPORT_TEXT },
		{ "json", REPORT_JSON },
		{ "junit", REPORT_JUNIT },
		{ "markdown", REPORT_MARKDOWN },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(name, formats[i].name)) {
			*out = formats[i].fmt;
			return 0;
		}
	return error_code(MKS_ECONFIG, "unknown report format '%s' (text, json, junit or markdown)",
			  name);
}

/* ------------------------------------------------------------------ */
/* Making hostile text printable */

/*
 * Append s escaped as strbuf_add_shown() does; `lines` keeps newlines.
 * In a table cell a tab would break the columns: it becomes a space.
 */
static void add_clean(struct strbuf *sb, const char *s, int lines)
{
	size_t from = sb->len, i;

	if (!s)
		return;
	strbuf_add_shown(sb, s, strlen(s), lines ? SHOWN_LINES : 0);
	for (i = from; !lines && i < sb->len; i++)
		if (sb->buf[i] == '\t')
			sb->buf[i] = ' ';
}

static char *clean(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	add_clean(&sb, s, 0);
	return strbuf_detach(&sb, NULL);
}

/* Columns taken on a terminal: code points, ignoring ANSI colour sequences. */
static size_t display_width(const char *s)
{
	size_t w = 0;

	while (*s) {
		if (*s == '\033') {
			while (*s && *s != 'm')
				s++;
			if (*s)
				s++;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
		s++;
	}
	return w;
}

/*
 * Append `text` word-wrapped to `width` columns: the first line starts
 * with `first`, the others with `rest`; a word longer than a line is cut.
 */
static void add_wrapped(struct strbuf *sb, const char *text, size_t width, const char *first,
			const char *rest)
{
	const char *p = text;
	size_t col = display_width(first), indent = display_width(rest);
	int at_start = 1;

	strbuf_addstr(sb, first);
	while (*p) {
		const char *w = p;
		size_t len, wcols;

		while (*p == ' ')
			p++;
		w = p;
		while (*p && *p != ' ')
			p++;
		len = p - w;
		if (!len)
			break;
		{
			char *word = xstrndup(w, len);

			wcols = display_width(word);
			free(word);
		}
		if (!at_start && col + 1 + wcols > width) {
			strbuf_addch(sb, '\n');
			strbuf_addstr(sb, rest);
			col = indent;
			at_start = 1;
		}
		if (!at_start) {
			strbuf_addch(sb, ' ');
			col++;
		}
		/* Cut a word that cannot fit on a line of its own. */
		while (col + wcols > width && width > indent + 1) {
			size_t room = width - col, taken = 0, i = 0;

			while (i < len && taken < room) {
				i++;
				while (i < len && ((unsigned char)w[i] & 0xc0) == 0x80)
					i++;
				taken++;
			}
			strbuf_add(sb, w, i);
			strbuf_addch(sb, '\n');
			strbuf_addstr(sb, rest);
			col = indent;
			w += i;
			len -= i;
			wcols -= taken;
		}
		strbuf_add(sb, w, len);
		col += wcols;
		at_start = 0;
	}
	strbuf_addch(sb, '\n');
}

/* ------------------------------------------------------------------ */
/* Colours */

#define C_GREEN "\033[32m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define C_BOLD "\033[1m"
#define C_RESET "\033[m"

static const char *check_color(enum check_status s)
{
	switch (s) {
	case CHECK_OK:
		return C_GREEN;
	case CHECK_FAILED:
	case CHECK_CONFLICT:
		return C_RED;
	case CHECK_SKIPPED:
	case CHECK_NOT_RUN:
		return C_YELLOW;
	case CHECK_NA:
		break;
	}
	return NULL;
}

static const char *series_color(enum series_state s)
{
	switch (s) {
	case SERIES_APPLIED:
		return C_GREEN;
	case SERIES_PRESENT:
		return C_CYAN;
	case SERIES_SKIPPED:
	case SERIES_PARTIAL:
	case SERIES_PLANNED:
		return C_YELLOW;
	case SERIES_CONFLICT:
	case SERIES_BLOCKED:
		return C_RED;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Tables */

struct table {
	size_t cols, rows;
	char **cell;		/* rows x cols, row 0 is the header */
	const char **color;	/* rows x cols, NULL for none */
	size_t alloc;
};

static void table_init(struct table *t, size_t cols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
}

static void table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->rows * t->cols; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->color);
	memset(t, 0, sizeof(*t));
}

static void table_row(struct table *t)
{
	size_t need = (t->rows + 1) * t->cols, old = t->alloc;

	if (need > t->alloc) {
		ALLOC_GROW(t->cell, need, t->alloc);
		t->color = xrealloc(t->color, t->alloc * sizeof(*t->color));
		memset(t->cell + old, 0, (t->alloc - old) * sizeof(*t->cell));
		memset(t->color + old, 0, (t->alloc - old) * sizeof(*t->color));
	}
	t->rows++;
}

/* Set column `col` of the last row; text is cleaned of control characters. */
static void table_set(struct table *t, size_t col, const char *color, const char *text)
{
	size_t i = (t->rows - 1) * t->cols + col;

	free(t->cell[i]);
	t->cell[i] = clean(text);
	t->color[i] = color;
}

__attribute__((format(printf, 4, 5)))
static void table_setf(struct table *t, size_t col, const char *color, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	table_set(t, col, color, sb.buf);
	strbuf_release(&sb);
}

static const char *table_text(const struct table *t, size_t row, size_t col)
{
	const char *s = t->cell[row * t->cols + col];

	return s ? s : "";
}

/*
 * Print columns first..last-1 plus column 0. Markdown: a pipe table
 * whose columns are padded so it reads as well in plain text.
 */
static void table_print_part(struct strbuf *sb, const struct table *t, const size_t *width,
			     const size_t *cols, size_t nr, int markdown, int color)
{
	size_t r, i;

	for (r = 0; r < t->rows; r++) {
		for (i = 0; i < nr; i++) {
			size_t c = cols[i];
			const char *text = table_text(t, r, c);
			const char *col = color ? t->color[r * t->cols + c] : NULL;
			size_t pad = width[c] - display_width(text);

			if (markdown) {
				strbuf_addstr(sb, i ? " " : "| ");
				for (; *text; text++) {
					if (*text == '|')
						strbuf_addch(sb, '\\');
					strbuf_addch(sb, *text);
				}
				strbuf_addchars(sb, ' ', pad);
				strbuf_addstr(sb, " |");
				continue;
			}
			if (i)
				strbuf_addstr(sb, "  ");
			if (col)
				strbuf_addstr(sb, col);
			strbuf_addstr(sb, text);
			if (col)
				strbuf_addstr(sb, C_RESET);
			if (i + 1 < nr)
				strbuf_addchars(sb, ' ', pad);
		}
		strbuf_rtrim(sb);
		strbuf_addch(sb, '\n');
		if (markdown && !r) {
			for (i = 0; i < nr; i++) {
				size_t k;

				strbuf_addstr(sb, i ? "-" : "|-");
				for (k = 0; k < width[cols[i]]; k++)
					strbuf_addch(sb, '-');
				strbuf_addstr(sb, "-|");
			}
			strbuf_addch(sb, '\n');
		}
	}
}

/*
 * Print the table; when `max` (columns, 0 for none) is too narrow for
 * all of it, print several tables, each with the first column and as
 * many of the others as fit.
 */
static void table_print(struct strbuf *sb, const struct table *t, int markdown, size_t max,
			int color)
{
	size_t *width = xcalloc(t->cols, sizeof(*width)), *cols = xcalloc(t->cols, sizeof(*cols));
	size_t r, c, next = 1;
	/* What a column costs besides its text: " | " in Markdown, two spaces in text. */
	size_t sep = markdown ? 3 : 2;

	for (r = 0; r < t->rows; r++)
		for (c = 0; c < t->cols; c++) {
			const char *text = table_text(t, r, c);
			size_t w = display_width(text);

			/* Markdown escapes '|' in cells, which takes a column more. */
			for (; *text; text++)
				w += markdown && *text == '|';
			if (w > width[c])
				width[c] = w;
		}
	for (c = 0; c < t->cols; c++)
		if (markdown && width[c] < 3)
			width[c] = 3;
	do {
		size_t nr = 0, used = (markdown ? 4 : 0) + width[0];

		cols[nr++] = 0;
		while (next < t->cols && (!max || nr == 1 || used + sep + width[next] <= max)) {
			used += sep + width[next];
			cols[nr++] = next++;
		}
		table_print_part(sb, t, width, cols, nr, markdown, color);
		if (next < t->cols)
			strbuf_addch(sb, '\n');
	} while (next < t->cols);
	free(width);
	free(cols);
}

/* ------------------------------------------------------------------ */
/* Words for checks and cells */

static const char *check_word(const struct check *c)
{
	switch (c->status) {
	case CHECK_OK:
		return "ok";
	case CHECK_FAILED:
		return "FAILED";
	case CHECK_CONFLICT:
		return "conflict";
	case CHECK_SKIPPED:
		return "-";
	case CHECK_NOT_RUN:
		return "not run";
	case CHECK_NA:
		return "n/a";
	}
	return "?";
}

static void tests_word(struct strbuf *sb, const struct cell_result *c)
{
	if (c->tests.status == CHECK_OK || (c->tests.status == CHECK_FAILED && c->nr_fail)) {
		if (c->nr_fail)
			strbuf_addf(sb, "%zu FAILED, ", c->nr_fail);
		strbuf_addf(sb, "%zu ok", c->nr_pass);
		if (c->nr_xfail)
			strbuf_addf(sb, ", %zu xfail", c->nr_xfail);
		if (c->nr_skip)
			strbuf_addf(sb, ", %zu skip", c->nr_skip);
		return;
	}
	strbuf_addstr(sb, check_word(&c->tests));
}

static const char *splat_word(const struct check *c)
{
	switch (c->status) {
	case CHECK_OK:
		return "none";
	case CHECK_FAILED:
		return "SPLAT";
	default:
		return check_word(c);
	}
}

/* "6.12 kit" */
static char *cell_name(const struct branch_result *b, const struct cell_result *c)
{
	return xstrfmt("%s %s", b->name, c->variant);
}

/* The most notable called change of a branch, for the matrix; NULL when none. */
static void notable(struct strbuf *sb, const struct branch_comparison *bc)
{
	const struct metric_row *best = NULL;
	size_t i, called = 0;

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
		called++;
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
	if (called > 1)
		strbuf_addf(sb, " +%zu more", called - 1);
}

/* ------------------------------------------------------------------ */
/* The kernel test robot's layout for base against kit */

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

static void comparisons_init(struct comparisons *cs, const struct branch_result *b)
{
	size_t i;

	cs->v = xcalloc(b->nr_cells ? b->nr_cells : 1, sizeof(*cs->v));
	cs->nr = 0;
	for (i = 0; i < b->nr_cells; i++)
		if (strcmp(b->cells[i].variant, "base"))
			branch_compare_cell(&cs->v[cs->nr++], b, &b->cells[i]);
}

static void comparisons_release(struct comparisons *cs)
{
	size_t i;

	for (i = 0; i < cs->nr; i++)
		branch_comparison_release(&cs->v[i]);
	free(cs->v);
	cs->v = NULL;
	cs->nr = 0;
}

/* The comparison of cell `variant`, or NULL. */
static const struct branch_comparison *comparison_of(const struct comparisons *cs,
						     const char *variant)
{
	size_t i;

	for (i = 0; i < cs->nr; i++)
		if (cs->v[i].kit && !strcmp(cs->v[i].kit->variant, variant))
			return &cs->v[i];
	return NULL;
}

static int same_metric(const struct metric_result *a, const struct metric_result *b)
{
	return !strcmp(a->case_name, b->case_name) && !strcmp(a->name, b->name);
}

static const struct metric_result *row_metric(const struct metric_row *r)
{
	return r->kit ? r->kit : r->base;
}

/* The row of bc for metric m, or NULL. */
static const struct metric_row *find_row(const struct branch_comparison *bc,
					 const struct metric_result *m)
{
	size_t i;

	for (i = 0; i < bc->nr; i++)
		if (same_metric(row_metric(&bc->rows[i]), m))
			return &bc->rows[i];
	return NULL;
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
		char *name = clean(t->cols[i]->kit->variant);

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

static void lkp_header(struct strbuf *sb, const char *indent)
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
	char *label = clean(metric_label(m)), *unit = clean(m->unit), *ret;
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

		if (!r || (r->v.call != PERF_REGRESSION && r->v.call != PERF_IMPROVEMENT))
			continue;
		word = r->v.call == PERF_REGRESSION ? "worse" : "better";
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
static void lkp_row(struct strbuf *sb, const struct metric_row *r, const char *indent,
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
		char *cs = clean(c->clocksource);

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
		char *v = clean(b->cells[i].variant);

		if (b->cells[i].boots)
			strbuf_addf(sb, "%s %s %u", i ? "," : "", v, b->cells[i].boots);
		free(v);
	}
}

/* One table: the metrics of `cols`, in the order they first appear, each against base. */
static void lkp_table(struct strbuf *sb, const struct lkp *t0)
{
	const struct metric_result **metrics = NULL;
	const struct metric_row **rows = xcalloc(t0->nr, sizeof(*rows));
	struct lkp t = *t0;
	size_t nr = 0, alloc = 0, i, j, k;

	for (i = 0; i < t.nr; i++)
		for (j = 0; j < t.cols[i]->nr; j++) {
			const struct metric_result *m = row_metric(&t.cols[i]->rows[j]);

			for (k = 0; k < nr && !same_metric(metrics[k], m); k++)
				;
			if (k == nr) {
				ALLOC_GROW(metrics, nr + 1, alloc);
				metrics[nr++] = m;
			}
		}
	/* In 72 columns, when one name does not fit after its numbers, none goes there. */
	for (i = 0; *t.indent && i < nr && !t.name_above; i++) {
		for (j = 0; j < t.nr; j++)
			rows[j] = find_row(t.cols[j], metrics[i]);
		t.name_above = lkp_row_width(metrics[i], rows, &t) > REPORT_MARKDOWN_WIDTH;
	}
	if (t.nr == 1 && !t.compact && !strcmp(t.cols[0]->kit->variant, "kit"))
		lkp_header(sb, t.indent);
	else
		lkp_header_cols(sb, &t);
	for (i = 0; i < nr; i++) {
		for (j = 0; j < t.nr; j++)
			rows[j] = find_row(t.cols[j], metrics[i]);
		lkp_row_cols(sb, metrics[i], rows, &t);
	}
	strbuf_addch(sb, '\n');
	free(rows);
	free(metrics);
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
			char *one = clean(line);

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

static void perf_section(struct strbuf *sb, const struct branch_result *b,
			 const struct comparisons *cs, int markdown, int color)
{
	const char *indent = markdown ? "    " : "";
	const struct branch_comparison **cols = xcalloc(cs->nr ? cs->nr : 1, sizeof(*cols));
	struct strbuf head = STRBUF_INIT, names = STRBUF_INIT;
	char *name = clean(b->name);
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
		char *v = clean(cols[i]->kit->variant);

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

/* ------------------------------------------------------------------ */
/* Text and Markdown */

static int have_series(const struct run_results *r)
{
	size_t i;

	for (i = 0; i < r->nr_branches; i++)
		if (r->branches[i].nr_series)
			return 1;
	return 0;
}

static void series_table(struct table *t, const struct run_results *r)
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
static void cells_table(struct table *t, const struct run_results *r, int compact)
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
				notable(&sb, bc);
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
static size_t expected_failures(struct strbuf *sb, const struct run_results *r, int markdown)
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
				char *one = clean(line);

				add_wrapped(sb, one, REPORT_MARKDOWN_WIDTH, "    ", "      ");
				free(one);
			} else {
				char *one = clean(line);

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
	size_t i;

	for (i = 0; i < b->nr_claims; i++) {
		const struct claim *cl = &b->claims[i];
		struct claim_verdict v;
		char *text;

		if (!claim_applies(b, c, cl))
			continue;
		claim_judge(&v, b, c, cl);
		if (v.outcome == CLAIM_FAILED) {
			text = kit_claim_text(&cl->c);
			strvec_pushf(lines, "%s %s: claim did not hold: %s: %s", b->name, c->variant,
				     claim_owner_label(cl), text);
			free(text);
		}
		claim_verdict_release(&v);
	}
}

/*
 * Every claim checked on a cell, with its outcome and evidence:
 * "6.12 kit: series x: m better by 20% than base ("why"): held: ...".
 * Returns how many.
 */
static size_t claims_section(struct strbuf *sb, const struct run_results *r, int markdown,
			     int color)
{
	size_t i, j, k, nr = 0;

	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];

		for (j = 0; j < b->nr_cells; j++) {
			const struct cell_result *c = &b->cells[j];

			for (k = 0; k < b->nr_claims; k++) {
				const struct claim *cl = &b->claims[k];
				struct claim_verdict v;
				struct strbuf line = STRBUF_INIT;
				const char *word, *col;
				char *text, *one;

				if (!claim_applies(b, c, cl))
					continue;
				claim_judge(&v, b, c, cl);
				word = v.outcome == CLAIM_HELD ? "held" :
				       v.outcome == CLAIM_FAILED ? "DID NOT HOLD" : "not checked";
				col = v.outcome == CLAIM_HELD ? C_GREEN :
				      v.outcome == CLAIM_FAILED ? C_RED : C_YELLOW;
				text = kit_claim_text(&cl->c);
				strbuf_addf(&line, "%s %s: %s: %s", b->name, c->variant,
					    claim_owner_label(cl), text);
				if (cl->c.why)
					strbuf_addf(&line, " (\"%s\")", cl->c.why);
				one = clean(line.buf);
				strbuf_reset(&line);
				strbuf_addf(&line, "%s: %s%s%s: ", one, color ? col : "", word,
					    color ? C_RESET : "");
				free(one);
				one = clean(v.evidence);
				strbuf_addstr(&line, one);
				free(one);
				if (markdown)
					add_wrapped(sb, line.buf, REPORT_MARKDOWN_WIDTH, "    ", "      ");
				else
					strbuf_addf(sb, "  %s\n", line.buf);
				strbuf_release(&line);
				free(text);
				claim_verdict_release(&v);
				nr++;
			}
		}
	}
	return nr;
}

/* One line per problem: "6.12 kit: build: mm/mremap.c:12:3: error: ..." */
static size_t problems(struct strbuf *sb, const struct run_results *r, int markdown)
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
		char *one = clean(lines.v[i]);

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

static void summary_line(struct strbuf *sb, const struct run_results *r)
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

static void render_text(struct strbuf *sb, const struct run_results *r, int color)
{
	struct table t;
	struct strbuf sum = STRBUF_INIT, probs = STRBUF_INIT;
	size_t i;

	if (!r->nr_branches) {
		strbuf_addstr(sb, "no results\n");
		return;
	}
	if (have_series(r)) {
		series_table(&t, r);
		table_print(sb, &t, 0, 0, color);
		table_release(&t);
		strbuf_addch(sb, '\n');
	}
	cells_table(&t, r, 0);
	table_print(sb, &t, 0, 0, color);
	table_release(&t);
	strbuf_addch(sb, '\n');
	if (problems(&probs, r, 0)) {
		strbuf_addf(sb, "%sproblems:%s\n%s\n", color ? C_BOLD : "", color ? C_RESET : "",
			    probs.buf);
	}
	strbuf_reset(&probs);
	if (expected_failures(&probs, r, 0)) {
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
	summary_line(&sum, r);
	strbuf_addf(sb, "%s\n", sum.buf);
	strbuf_release(&sum);
	strbuf_release(&probs);
}

/* Branches whose every cell is ok, with no regression: what a Tested-by can vouch for. */
static void passed_branches(struct strvec *out, const struct run_results *r)
{
	size_t i, j;

	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct branch_comparison bc;
		int ok = b->nr_cells > 0 && b->import.status != CHECK_FAILED;

		for (j = 0; ok && j < b->nr_cells; j++)
			ok = cell_status(b, &b->cells[j]) == CELL_OK;
		branch_compare(&bc, b);
		if (ok && (!bc.nr_regressions || bc.emulated))
			strvec_push(out, b->name);
		branch_comparison_release(&bc);
	}
}

static void render_markdown(struct strbuf *sb, const struct run_results *r)
{
	struct table t;
	struct strbuf line = STRBUF_INIT, probs = STRBUF_INIT;
	struct strvec passed = STRVEC_INIT;
	size_t i;

	strbuf_addstr(sb, "## mkseries results\n\n");
	summary_line(&line, r);
	add_wrapped(sb, line.buf, REPORT_MARKDOWN_WIDTH, "", "");
	strbuf_addch(sb, '\n');
	if (have_series(r)) {
		strbuf_addstr(sb, "### Series\n\n");
		series_table(&t, r);
		table_print(sb, &t, 1, REPORT_MARKDOWN_WIDTH, 0);
		table_release(&t);
		strbuf_addch(sb, '\n');
	}
	if (r->nr_branches) {
		strbuf_addstr(sb, "### Builds, boots and tests\n\n");
		cells_table(&t, r, 1);
		table_print(sb, &t, 1, REPORT_MARKDOWN_WIDTH, 0);
		table_release(&t);
		strbuf_addch(sb, '\n');
	}
	if (problems(&probs, r, 1))
		strbuf_addf(sb, "Problems:\n\n%s\n", probs.buf);
	strbuf_reset(&probs);
	if (expected_failures(&probs, r, 1))
		strbuf_addf(sb, "Expected failures:\n\n%s\n", probs.buf);
	for (i = 0; i < r->nr_branches; i++) {
		struct comparisons cs;

		comparisons_init(&cs, &r->branches[i]);
		perf_section(sb, &r->branches[i], &cs, 1, 0);
		comparisons_release(&cs);
	}
	strbuf_reset(&probs);
	if (claims_section(&probs, r, 1, 0))
		strbuf_addf(sb, "Claims:\n\n%s\n", probs.buf);
	add_wrapped(sb, "Performance: " RULE_TEXT ".", REPORT_MARKDOWN_WIDTH, "", "");
	strbuf_addch(sb, '\n');

	passed_branches(&passed, r);
	strbuf_reset(&line);
	if (passed.nr && r->tester) {
		char *tester = clean(r->tester);
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

/* ------------------------------------------------------------------ */
/* JSON */

static void json_check(struct jw *w, const char *key, const struct check *c)
{
	jw_open(w, key, '{');
	jw_string(w, "status", check_status_name(c->status));
	jw_string(w, "evidence", c->evidence);
	jw_close(w, '}');
}

static const char *case_status_word(enum ktap_status s)
{
	switch (s) {
	case KTAP_PASS:
		return "pass";
	case KTAP_FAIL:
		return "fail";
	case KTAP_SKIP:
		return "skip";
	case KTAP_TODO:
		return "todo";
	}
	return "?";
}

static const char *direction_word(enum ktap_direction d)
{
	return d == KTAP_HIGHER_IS_BETTER ? "higher_is_better" : "lower_is_better";
}

static const char *claim_kind_word(enum claim_kind k)
{
	switch (k) {
	case CLAIM_BETTER:
		return "better";
	case CLAIM_WORSE:
		return "worse";
	case CLAIM_ABOVE:
		return "above";
	case CLAIM_BELOW:
		return "below";
	}
	return "?";
}

/* What a claim says and whose it is: the members a report reads back. */
static void json_claim_members(struct jw *w, const struct claim *cl)
{
	char *metric = xstrfmt("%s.%s", cl->c.case_name, cl->c.metric);

	jw_string(w, "origin", claim_origin_name(cl->origin));
	jw_string(w, "owner", cl->owner);
	jw_string(w, "metric", metric);
	jw_string(w, "kind", claim_kind_word(cl->c.kind));
	jw_number(w, "value", cl->c.value);
	jw_string(w, "than", cl->c.than);
	jw_string(w, "why", cl->c.why);
	free(metric);
}

/* The claims checked on c, each with its outcome (derived). */
static void json_cell_claims(struct jw *w, const struct branch_result *b,
			     const struct cell_result *c)
{
	size_t i;

	jw_open(w, "claims", '[');
	for (i = 0; i < b->nr_claims; i++) {
		const struct claim *cl = &b->claims[i];
		struct claim_verdict v;
		char *text;

		if (!claim_applies(b, c, cl))
			continue;
		claim_judge(&v, b, c, cl);
		text = kit_claim_text(&cl->c);
		jw_open(w, NULL, '{');
		json_claim_members(w, cl);
		jw_string(w, "claim", text);
		jw_string(w, "outcome", claim_outcome_name(v.outcome));
		jw_string(w, "evidence", v.evidence);
		jw_number(w, "mean", v.mean);
		jw_number(w, "other_mean", v.other_mean);
		jw_number(w, "change_pct", v.change_pct);
		jw_number(w, "spread_pct", v.spread_pct);
		jw_number(w, "p_value", v.p);
		jw_close(w, '}');
		free(text);
		claim_verdict_release(&v);
	}
	jw_close(w, ']');
}

static void json_cell(struct jw *w, const struct branch_result *b, const struct cell_result *c)
{
	size_t i, j;

	jw_open(w, NULL, '{');
	jw_string(w, "variant", c->variant);
	jw_string(w, "status", cell_health_name(cell_status(b, c)));
	jw_string(w, "commit", c->commit);
	jw_open(w, "checks", '{');
	json_check(w, "apply", &c->apply);
	json_check(w, "build", &c->build);
	json_check(w, "boot", &c->boot);
	json_check(w, "tests", &c->tests);
	json_check(w, "splats", &c->splats);
	jw_close(w, '}');
	jw_string(w, "accel", c->accel);
	jw_string(w, "timing", cell_timing(c) ? timing_name(cell_timing(c)) : NULL);
	jw_string(w, "timing_note", cell_timing(c) ? timing_words(cell_timing(c), 0) : NULL);
	jw_bool(w, "emulated", cell_timing(c) == TIMING_EMULATED);
	jw_string(w, "accel_note", c->accel_note);
	jw_string(w, "mode", c->mode);
	jw_count(w, "repeat", c->repeat);
	jw_count(w, "boots", c->boots);
	jw_string(w, "reused", c->reused);
	jw_open(w, "clock", '{');
	jw_string(w, "source", c->clocksource);
	jw_number(w, "resolution_ns", c->clock_resolution_ns > 0 ? c->clock_resolution_ns : NAN);
	jw_close(w, '}');
	jw_number(w, "build_seconds", c->build_seconds);
	jw_number(w, "test_seconds", c->test_seconds);
	jw_string(w, "build_log", c->build_log);
	jw_string(w, "console_log", c->console_log);
	jw_open(w, "console_logs", '[');
	for (i = 0; i < c->console_logs.nr; i++)
		jw_string(w, NULL, c->console_logs.v[i]);
	jw_close(w, ']');
	jw_count(w, "pass", c->nr_pass);
	jw_count(w, "fail", c->nr_fail);
	jw_count(w, "skip", c->nr_skip);
	jw_count(w, "xfail", c->nr_xfail);
	jw_string(w, "without", c->without);
	jw_open(w, "expect_fail", '[');
	for (i = 0; i < c->nr_expect_fail; i++)
		jw_string(w, NULL, c->expect_fail[i]);
	jw_close(w, ']');
	jw_string(w, "expected", c->expected);
	jw_open(w, "cases", '[');
	for (i = 0; i < c->nr_cases; i++) {
		jw_open(w, NULL, '{');
		jw_string(w, "name", c->cases[i].name);
		jw_string(w, "status", case_status_word(c->cases[i].status));
		jw_string(w, "evidence", c->cases[i].evidence);
		jw_bool(w, "expected_fail", c->cases[i].expected_fail);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "metrics", '[');
	for (i = 0; i < c->nr_metrics; i++) {
		const struct metric_result *m = &c->metrics[i];

		jw_open(w, NULL, '{');
		jw_string(w, "case", m->case_name);
		jw_string(w, "name", m->name);
		jw_string(w, "unit", m->unit);
		jw_string(w, "direction", direction_word(m->direction));
		jw_count(w, "n", m->n);
		jw_number(w, "mean", m->mean);
		jw_number(w, "stddev", m->stddev);
		jw_open(w, "samples", '[');
		for (j = 0; j < m->nr_samples; j++)
			jw_number(w, NULL, m->samples[j]);
		jw_close(w, ']');
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "metric_skips", '[');
	for (i = 0; i < c->nr_metric_skips; i++) {
		jw_open(w, NULL, '{');
		jw_string(w, "case", c->metric_skips[i].case_name);
		jw_string(w, "name", c->metric_skips[i].name);
		jw_string(w, "reason", c->metric_skips[i].reason);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	json_cell_claims(w, b, c);
	jw_close(w, '}');
}

static void json_comparison(struct jw *w, const char *key, const struct branch_comparison *bc,
			    int named)
{
	size_t i;

	jw_open(w, key, '{');
	if (named)
		jw_string(w, "variant", bc->kit ? bc->kit->variant : "kit");
	jw_bool(w, "comparable", bc->comparable);
	jw_string(w, "note", bc->note);
	jw_string(w, "timing", bc->timing ? timing_name(bc->timing) : NULL);
	jw_bool(w, "emulated", bc->emulated);
	jw_bool(w, "same_tree", bc->same_tree);
	jw_number(w, "threshold_pct", bc->threshold_pct);
	jw_count(w, "regressions", bc->nr_regressions);
	jw_count(w, "improvements", bc->nr_improvements);
	jw_open(w, "metrics", '[');
	for (i = 0; i < bc->nr; i++) {
		const struct metric_row *r = &bc->rows[i];
		const struct metric_result *m = r->kit ? r->kit : r->base;

		jw_open(w, NULL, '{');
		jw_string(w, "case", m->case_name);
		jw_string(w, "name", m->name);
		jw_string(w, "unit", m->unit);
		jw_string(w, "direction", direction_word(m->direction));
		if (r->base) {
			jw_number(w, "base_mean", r->b.mean);
			jw_number(w, "base_stddev", r->b.stddev);
			jw_count(w, "base_n", r->b.n);
		}
		if (r->kit) {
			jw_number(w, "kit_mean", r->k.mean);
			jw_number(w, "kit_stddev", r->k.stddev);
			jw_count(w, "kit_n", r->k.n);
		}
		jw_number(w, "change_pct", r->base && r->kit ? r->v.change_pct : NAN);
		jw_number(w, "p_value", r->v.p);
		jw_number(w, "threshold_pct", r->v.threshold_pct);
		jw_string(w, "verdict", perf_call_name(r->v.call));
		jw_string(w, "why", r->v.why);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

static void render_json(struct strbuf *sb, const struct run_results *r)
{
	struct jw w = { sb, 0, { 0 } };
	struct run_summary s;
	size_t i, j;

	results_summarise(&s, r);
	jw_open(&w, NULL, '{');
	jw_number(&w, "schema", RESULTS_SCHEMA);
	jw_string(&w, "generator", r->generator);
	jw_string(&w, "generated", r->generated);
	jw_string(&w, "tester", r->tester);
	jw_string(&w, "status", run_summary_failed(&s) ? "failed" : "ok");
	jw_open(&w, "summary", '{');
	jw_count(&w, "branches", s.branches);
	jw_count(&w, "cells", s.cells);
	jw_count(&w, "ok", s.ok);
	jw_count(&w, "failed", s.failed);
	jw_count(&w, "conflicts", s.conflicts);
	jw_count(&w, "incomplete", s.incomplete);
	jw_count(&w, "branch_failures", s.branch_failures);
	jw_count(&w, "regressions", s.regressions);
	jw_count(&w, "improvements", s.improvements);
	jw_count(&w, "emulated_regressions", s.emulated_regressions);
	jw_count(&w, "variant_regressions", s.variant_regressions);
	jw_count(&w, "variant_improvements", s.variant_improvements);
	jw_count(&w, "xfail", s.xfail);
	jw_count(&w, "claims_held", s.claims_held);
	jw_count(&w, "claims_failed", s.claims_failed);
	jw_count(&w, "claims_not_checked", s.claims_not_checked);
	jw_close(&w, '}');
	jw_open(&w, "branches", '[');
	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct branch_comparison bc;
		struct comparisons cs;

		jw_open(&w, NULL, '{');
		jw_string(&w, "name", b->name);
		jw_string(&w, "base", b->base);
		jw_string(&w, "tip", b->tip);
		json_check(&w, "import", &b->import);
		json_check(&w, "apply", &b->apply);
		jw_open(&w, "series", '[');
		for (j = 0; j < b->nr_series; j++) {
			jw_open(&w, NULL, '{');
			jw_string(&w, "id", b->series[j].id);
			jw_string(&w, "title", b->series[j].title);
			jw_string(&w, "state", series_state_name(b->series[j].state));
			jw_string(&w, "detail", b->series[j].detail);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		jw_number(&w, "threshold_pct", branch_threshold_pct(b));
		jw_open(&w, "claims", '[');
		for (j = 0; j < b->nr_claims; j++) {
			jw_open(&w, NULL, '{');
			json_claim_members(&w, &b->claims[j]);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		jw_open(&w, "cells", '[');
		for (j = 0; j < b->nr_cells; j++)
			json_cell(&w, b, &b->cells[j]);
		jw_close(&w, ']');
		branch_compare(&bc, b);
		json_comparison(&w, "comparison", &bc, 0);
		branch_comparison_release(&bc);
		/* Every cell but base against base: the kit's again, then the variants'. */
		comparisons_init(&cs, b);
		jw_open(&w, "comparisons", '[');
		for (j = 0; j < cs.nr; j++)
			json_comparison(&w, NULL, &cs.v[j], 1);
		jw_close(&w, ']');
		comparisons_release(&cs);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
}

/* ------------------------------------------------------------------ */
/* JUnit XML */

static void xml_text(struct strbuf *sb, const char *s, int attribute)
{
	struct strbuf c = STRBUF_INIT;
	const char *p;

	add_clean(&c, s, !attribute);
	for (p = c.buf; *p; p++) {
		switch (*p) {
		case '&':
			strbuf_addstr(sb, "&amp;");
			break;
		case '<':
			strbuf_addstr(sb, "&lt;");
			break;
		case '>':
			strbuf_addstr(sb, "&gt;");
			break;
		case '"':
			strbuf_addstr(sb, "&quot;");
			break;
		case '\'':
			strbuf_addstr(sb, "&apos;");
			break;
		default:
			strbuf_addch(sb, *p);
		}
	}
	strbuf_release(&c);
}

struct junit_suite {
	struct strbuf body;
	size_t tests, failures, skipped;
	double time;
};

/* A testcase: ok when `failure` and `skipped` are NULL. */
static void junit_case(struct junit_suite *js, const char *classname, const char *name,
		       double seconds, const char *failure, const char *type, const char *skipped,
		       const char *details)
{
	struct strbuf *sb = &js->body;

	js->tests++;
	strbuf_addstr(sb, "    <testcase classname=\"");
	xml_text(sb, classname, 1);
	strbuf_addstr(sb, "\" name=\"");
	xml_text(sb, name, 1);
	strbuf_addf(sb, "\" time=\"%.3f\"", seconds > 0 ? seconds : 0);
	if (!failure && !skipped) {
		strbuf_addstr(sb, "/>\n");
		return;
	}
	strbuf_addstr(sb, ">\n");
	if (failure) {
		js->failures++;
		strbuf_addstr(sb, "      <failure message=\"");
		xml_text(sb, failure, 1);
		strbuf_addf(sb, "\" type=\"%s\">", type ? type : "failure");
		xml_text(sb, details ? details : failure, 0);
		strbuf_addstr(sb, "</failure>\n");
	} else {
		js->skipped++;
		strbuf_addstr(sb, "      <skipped message=\"");
		xml_text(sb, skipped, 1);
		strbuf_addstr(sb, "\"/>\n");
	}
	strbuf_addstr(sb, "    </testcase>\n");
}

/* A check as a testcase: failed and conflict fail, skipped and not-run are skipped. */
static void junit_check(struct junit_suite *js, const char *classname, const char *name,
			const struct check *c, double seconds, const char *details)
{
	const char *ev = c->evidence;

	switch (c->status) {
	case CHECK_OK:
	case CHECK_NA:
		junit_case(js, classname, name, seconds, NULL, NULL, NULL, NULL);
		break;
	case CHECK_FAILED:
	case CHECK_CONFLICT:
		junit_case(js, classname, name, seconds, ev ? ev : check_word(c),
			   c->status == CHECK_CONFLICT ? "conflict" : name, NULL, details);
		break;
	case CHECK_SKIPPED:
	case CHECK_NOT_RUN:
		junit_case(js, classname, name, seconds, NULL, NULL,
			   ev ? ev : c->status == CHECK_SKIPPED ? "skipped" : "not run", NULL);
		break;
	}
}

/* One testcase per claim checked on c: a failure when it did not hold, skipped when not checked. */
static void junit_claims(struct junit_suite *js, const char *suite, const struct branch_result *b,
			 const struct cell_result *c)
{
	char *classname = xstrfmt("%s/claims", suite);
	size_t i;

	for (i = 0; i < b->nr_claims; i++) {
		const struct claim *cl = &b->claims[i];
		struct claim_verdict v;
		char *text, *name, *msg;

		if (!claim_applies(b, c, cl))
			continue;
		claim_judge(&v, b, c, cl);
		text = kit_claim_text(&cl->c);
		name = xstrfmt("%s: %s", claim_owner_label(cl), text);
		if (v.outcome == CLAIM_FAILED) {
			char *details;

			msg = xstrfmt("claim did not hold: %s: %s", text, v.evidence);
			details = xstrfmt("%s\n%s%s", msg, cl->c.why ? "why: " : "",
					  cl->c.why ? cl->c.why : "");
			junit_case(js, classname, name, 0, msg, "claim", NULL, details);
			free(details);
		} else if (v.outcome == CLAIM_NOT_CHECKED) {
			msg = xstrfmt("not checked: %s", v.evidence);
			junit_case(js, classname, name, 0, NULL, NULL, msg, NULL);
		} else {
			msg = NULL;
			junit_case(js, classname, name, 0, NULL, NULL, NULL, NULL);
		}
		free(msg);
		free(name);
		free(text);
		claim_verdict_release(&v);
	}
	free(classname);
}

static void junit_suite(struct strbuf *sb, struct junit_suite *total, const struct branch_result *b,
			const struct cell_result *c, const struct branch_comparison *bc)
{
	struct junit_suite js;
	char *suite = xstrfmt("%s/%s", b->name, c->variant);
	char *cases_class = xstrfmt("%s/mm-regress", suite), *perf_class = xstrfmt("%s/perf", suite);
	size_t i;

	memset(&js, 0, sizeof(js));
	strbuf_init(&js.body, 0);
	junit_check(&js, suite, "apply", &c->apply, 0, NULL);
	junit_check(&js, suite, "build", &c->build, c->build_seconds, NULL);
	junit_check(&js, suite, "boot", &c->boot, c->test_seconds, NULL);
	junit_check(&js, suite, "splats", &c->splats, 0, NULL);
	for (i = 0; i < c->nr_cases; i++) {
		const struct case_result *k = &c->cases[i];

		if (k->status == KTAP_FAIL && k->expected_fail) {
			/* A failure the variant expects is what it is there to show: a pass. */
			junit_case(&js, cases_class, k->name, 0, NULL, NULL, NULL, NULL);
		} else if (k->status == KTAP_FAIL) {
			char *msg = xstrfmt("not ok %s%s%s", k->name, k->evidence ? ": " : "",
					    k->evidence ? k->evidence : "");

			junit_case(&js, cases_class, k->name, 0, msg, "case", NULL, NULL);
			free(msg);
		} else if (k->status != KTAP_SKIP && k->expected_fail) {
			char *msg = xstrfmt("unexpected pass: %s was expected to fail%s%s",
					    k->name, c->without ? " without " : "",
					    c->without ? c->without : "");

			junit_case(&js, cases_class, k->name, 0, msg, "unexpected-pass", NULL, NULL);
			free(msg);
		} else if (k->status == KTAP_SKIP) {
			junit_case(&js, cases_class, k->name, 0, NULL, NULL,
				   k->evidence ? k->evidence : "skipped", NULL);
		} else {
			junit_case(&js, cases_class, k->name, 0, NULL, NULL, NULL, NULL);
		}
	}
	/* Without a case list, the tests check stands for them (it failed or never ran). */
	if (!c->nr_cases && c->tests.status != CHECK_OK)
		junit_check(&js, cases_class, "mm-regress", &c->tests, 0, NULL);
	for (i = 0; bc && !strcmp(c->variant, "kit") && i < bc->nr; i++) {
		const struct metric_row *r = &bc->rows[i];
		const struct metric_result *m = r->kit ? r->kit : r->base;
		struct strbuf msg = STRBUF_INIT, row = STRBUF_INIT;

		if (!r->kit)
			continue;
		lkp_header(&row, "");
		lkp_row(&row, r, "", 0, 0);
		if (r->v.call == PERF_REGRESSION && bc->emulated) {
			/* The run does not fail for it: neither does CI. */
			strbuf_addf(&msg, "regression in emulated time (TCG on host time), not a failure: %+.1f%% (p=%.2g, threshold %.1f%%)",
				    r->v.change_pct, r->v.p, r->v.threshold_pct);
			junit_case(&js, perf_class, metric_label(m), 0, NULL, NULL, msg.buf, NULL);
		} else if (r->v.call == PERF_REGRESSION) {
			strbuf_addf(&msg, "regression: %+.1f%% (p=%.2g, threshold %.1f%%), in %s",
				    r->v.change_pct, r->v.p, r->v.threshold_pct,
				    timing_words(bc->timing, 1));
			junit_case(&js, perf_class, metric_label(m), 0, msg.buf, "regression", NULL,
				   row.buf);
		} else if (r->v.call == PERF_NO_CALL) {
			junit_case(&js, perf_class, metric_label(m), 0, NULL, NULL,
				   r->v.why ? r->v.why : "no call", NULL);
		} else {
			junit_case(&js, perf_class, metric_label(m), 0, NULL, NULL, NULL, NULL);
		}
		strbuf_release(&msg);
		strbuf_release(&row);
	}
	for (i = 0; i < c->nr_metric_skips; i++) {
		const struct metric_skip *ms = &c->metric_skips[i];
		char *name = xstrfmt("%s.%s", ms->case_name, ms->name);
		char *why = xstrfmt("not measured: %s", ms->reason);

		junit_case(&js, perf_class, name, 0, NULL, NULL, why, NULL);
		free(name);
		free(why);
	}
	junit_claims(&js, suite, b, c);
	js.time = c->build_seconds + c->test_seconds;

	strbuf_addstr(sb, "  <testsuite name=\"");
	xml_text(sb, suite, 1);
	strbuf_addf(sb, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
		    js.tests, js.failures, js.skipped, js.time);
	strbuf_addstr(sb, "    <properties>\n");
	{
		char boots[16], resolution[32];
		const char *props[][2] = {
			{ "branch", b->name }, { "variant", c->variant }, { "commit", c->commit },
			{ "accel", c->accel },
			{ "timing", cell_timing(c) ? timing_name(cell_timing(c)) : NULL },
			{ "timing_note", cell_timing(c) ? timing_words(cell_timing(c), 0) : NULL },
			{ "emulated", cell_timing(c) == TIMING_EMULATED ? "true" : "false" },
			{ "mode", c->mode }, { "boots", c->boots ? boots : NULL },
			{ "reused", c->reused ? "base: the same tree as base, base's build and results, no change" :
				    NULL },
			{ "clocksource", c->clocksource },
			{ "clock_resolution_ns", c->clock_resolution_ns > 0 ? resolution : NULL },
			{ "status", cell_health_name(cell_status(b, c)) },
		};

		snprintf(boots, sizeof(boots), "%u", c->boots);
		snprintf(resolution, sizeof(resolution), "%g", c->clock_resolution_ns);

		for (i = 0; i < ARRAY_SIZE(props); i++) {
			if (!props[i][1])
				continue;
			strbuf_addstr(sb, "      <property name=\"");
			xml_text(sb, props[i][0], 1);
			strbuf_addstr(sb, "\" value=\"");
			xml_text(sb, props[i][1], 1);
			strbuf_addstr(sb, "\"/>\n");
		}
	}
	strbuf_addstr(sb, "    </properties>\n");
	strbuf_add(sb, js.body.buf, js.body.len);
	strbuf_addstr(sb, "  </testsuite>\n");
	total->tests += js.tests;
	total->failures += js.failures;
	total->skipped += js.skipped;
	total->time += js.time;
	strbuf_release(&js.body);
	free(suite);
	free(cases_class);
	free(perf_class);
}

static void render_junit(struct strbuf *sb, const struct run_results *r)
{
	struct junit_suite total;
	struct strbuf suites = STRBUF_INIT;
	size_t i, j;

	memset(&total, 0, sizeof(total));
	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct branch_comparison bc;

		branch_compare(&bc, b);
		for (j = 0; j < b->nr_cells; j++)
			junit_suite(&suites, &total, b, &b->cells[j], &bc);
		branch_comparison_release(&bc);
	}
	strbuf_addstr(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_addf(sb, "<testsuites name=\"mkseries\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		    "skipped=\"%zu\" time=\"%.3f\">\n", total.tests, total.failures, total.skipped,
		    total.time);
	strbuf_add(sb, suites.buf, suites.len);
	strbuf_addstr(sb, "</testsuites>\n");
	strbuf_release(&suites);
}

/* ------------------------------------------------------------------ */

void report_render(struct strbuf *out, const struct run_results *r, enum report_format fmt,
		   const struct report_opts *opts)
{
	switch (fmt) {
	case REPORT_TEXT:
		render_text(out, r, opts && opts->color);
		break;
	case REPORT_JSON:
		render_json(out, r);
		break;
	case REPORT_JUNIT:
		render_junit(out, r);
		break;
	case REPORT_MARKDOWN:
		render_markdown(out, r);
		break;
	}
}

int report_write(FILE *out, const struct run_results *r, enum report_format fmt,
		 const struct report_opts *opts)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	report_render(&sb, r, fmt, opts);
	if (fwrite(sb.buf, 1, sb.len, out) != sb.len || fflush(out))
		ret = error("cannot write the report: %s", strerror(errno));
	strbuf_release(&sb);
	return ret;
}

static char *config_string(git_config *cfg, const char *name)
{
	git_buf buf = { 0 };
	char *ret = NULL;

	if (git_config_get_string_buf(&buf, cfg, name) == 0 && buf.ptr && *buf.ptr)
		ret = xstrdup(buf.ptr);
	git_buf_dispose(&buf);
	return ret;
}

char *report_tester(git_repository *repo)
{
	git_config *cfg = NULL, *snap = NULL;
	char *name = NULL, *email = NULL, *ret = NULL;
	int err;

	err = repo ? git_repository_config(&cfg, repo) : git_config_open_default(&cfg);
	if (err < 0 || git_config_snapshot(&snap, cfg) < 0)
		goto cleanup;
	name = config_string(snap, "user.name");
	email = config_string(snap, "user.email");
	if (name && email)
		ret = xstrfmt("%s <%s>", name, email);
cleanup:
	git_config_free(snap);
	git_config_free(cfg);
	free(name);
	free(email);
	return ret;
}

char *report_timestamp(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

/* ------------------------------------------------------------------ */
/* The fan-out plan */

static void describe_source(struct strbuf *sb, const struct kernel_branch *b)
{
	const struct kernel_source *s = &b->source;

	switch (s->kind) {
	case SOURCE_DEBIAN:
		strbuf_addf(sb, "debian %s (%s)", s->package, s->suite);
		break;
	case SOURCE_GIT:
		strbuf_addf(sb, "git %s %s", s->repo, s->ref ? s->ref : "HEAD");
		break;
	case SOURCE_TARBALL:
		strbuf_addf(sb, "tarball %s", s->tarball);
		break;
	}
}

static void jw_argv(struct jw *w, const char *key, const struct strvec *argv)
{
	size_t i;

	jw_open(w, key, '[');
	for (i = 0; i < argv->nr; i++)
		jw_string(w, NULL, argv->v[i]);
	jw_close(w, ']');
}

static char *cell_report_name(const char *branch, const char *variant)
{
	return xstrfmt("mkseries-%s-%s.json", branch, variant);
}

static void json_plan_items(struct jw *w, const struct plan *p)
{
	size_t j;

	jw_open(w, "items", '[');
	for (j = 0; j < p->nr; j++) {
		const struct plan_item *it = &p->items[j];

		jw_open(w, NULL, '{');
		jw_string(w, "series", it->patch->series->id);
		jw_string(w, "patch", kit_patch_label(it->patch));
		jw_bool(w, "fixup", it->patch->is_fixup);
		jw_string(w, "upstream", it->patch->upstream);
		jw_string(w, "subject", it->subject);
		jw_string(w, "action", plan_action_name(it->action));
		jw_string(w, "reason", it->reason);
		jw_string(w, "source", it->action == PLAN_APPLY || it->action == PLAN_SQUASH ?
			  it->source : NULL);
		if (it->action == PLAN_SQUASH)
			jw_string(w, "squash_into", kit_patch_label(p->items[it->squash_into].patch));
		if (it->stable_commit)
			jw_string(w, "stable_commit", it->stable_commit);
		if (p->variant)
			jw_bool(w, "left_out", it->left_out);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* `key`: [ { patch, upstream }, ... ] for a variant's `without` or `with`. */
static void json_patch_list(struct jw *w, const char *key, struct kit_patch *const *patches,
			    size_t nr)
{
	size_t j;

	jw_open(w, key, '[');
	for (j = 0; j < nr; j++) {
		jw_open(w, NULL, '{');
		jw_string(w, "patch", kit_patch_label(patches[j]));
		jw_string(w, "upstream", patches[j]->upstream);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* A variant's plan: what it leaves out and adds, what it expects to fail, its branch, its items. */
static void json_plan_variant(struct jw *w, const struct plan *vp)
{
	const struct kernel_variant *v = vp->variant;
	char *ref = branch_refname(vp);
	size_t j;

	jw_open(w, NULL, '{');
	jw_string(w, "name", v->name);
	jw_string(w, "note", v->note);
	json_patch_list(w, "without", v->without_patch, v->nr_without);
	json_patch_list(w, "with", v->with_patch, v->nr_with);
	jw_open(w, "expect_fail", '[');
	for (j = 0; j < v->nr_expect_fail; j++)
		jw_string(w, NULL, v->expect_fail[j]);
	jw_close(w, ']');
	jw_string(w, "ref", ref);
	json_plan_items(w, vp);
	jw_close(w, '}');
	free(ref);
}

static void json_plan_cell(struct jw *w, struct strvec *merge, const struct kernel_branch *b,
			   const char *variant)
{
	const char *name = b->name;
	struct strvec run = STRVEC_INIT;
	char *report = cell_report_name(name, variant);
	char *id = xstrfmt("%s-%s", name, variant);

	strvec_pushl(&run, "mkseries", "run", "--branch", name, "--variant", variant, "--format",
		     "json", "--output", report, NULL);
	strvec_push(merge, report);
	jw_open(w, NULL, '{');
	jw_string(w, "id", id);
	jw_string(w, "branch", name);
	jw_string(w, "variant", variant);
	/* What a CI runner needs installed: the arch's cross compiler and QEMU. */
	jw_string(w, "arch", b->arch ? b->arch : "x86_64");
	jw_argv(w, "run", &run);
	jw_string(w, "report", report);
	jw_close(w, '}');
	strvec_clear(&run);
	free(report);
	free(id);
}

void plan_render_json(struct strbuf *out, const struct plan *const *plans, size_t nr)
{
	struct jw w = { out, 0, { 0 } };
	struct strvec merge = STRVEC_INIT;
	size_t i, j;

	strvec_pushl(&merge, "mkseries", "report", "--merge", NULL);
	jw_open(&w, NULL, '{');
	jw_number(&w, "schema", RESULTS_SCHEMA);
	jw_string(&w, "kind", "plan");
	jw_open(&w, "branches", '[');
	for (i = 0; i < nr; i++) {
		const struct plan *p = plans[i];
		struct branch_result br;
		struct strbuf src = STRBUF_INIT;

		if (p->variant)
			continue;
		memset(&br, 0, sizeof(br));
		branch_series_from_plan(&br, p, NULL, (size_t)-1);
		describe_source(&src, p->branch);
		jw_open(&w, NULL, '{');
		jw_string(&w, "name", p->branch->name);
		jw_string(&w, "source", src.buf);
		jw_bool(&w, "default", p->branch->is_default);
		jw_string(&w, "arch", p->branch->arch ? p->branch->arch : "x86_64");
		jw_string(&w, "decisions", branch_decisions(p->branch));
		jw_open(&w, "series", '[');
		for (j = 0; j < br.nr_series; j++) {
			jw_open(&w, NULL, '{');
			jw_string(&w, "id", br.series[j].id);
			jw_string(&w, "title", br.series[j].title);
			jw_string(&w, "state", series_state_name(br.series[j].state));
			jw_string(&w, "detail", br.series[j].detail);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		json_plan_items(&w, p);
		/* The variants' plans follow their branch's in `plans`. */
		jw_open(&w, "variants", '[');
		for (j = i + 1; j < nr && plans[j]->variant && plans[j]->branch == p->branch; j++)
			json_plan_variant(&w, plans[j]);
		jw_close(&w, ']');
		jw_close(&w, '}');
		strbuf_release(&src);
		branch_result_release(&br);
	}
	jw_close(&w, ']');
	jw_open(&w, "cells", '[');
	for (i = 0; i < nr; i++) {
		const struct kernel_branch *b = plans[i]->branch;

		if (plans[i]->variant) {
			json_plan_cell(&w, &merge, b, plans[i]->variant->name);
			continue;
		}
		for (j = 0; build_variants[j]; j++)
			json_plan_cell(&w, &merge, b, build_variants[j]);
	}
	jw_close(&w, ']');
	jw_argv(&w, "merge", &merge);
	jw_close(&w, '}');
	strvec_clear(&merge);
}

int plan_print_json(const struct plan *const *plans, size_t nr, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	plan_render_json(&sb, plans, nr);
	if (fwrite(sb.buf, 1, sb.len, out) != sb.len || fflush(out))
		ret = error("cannot write the plan: %s", strerror(errno));
	strbuf_release(&sb);
	return ret;
}
