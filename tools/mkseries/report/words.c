/* report/words.c: how every report format says things: hostile text made printable, wrapping, colours, the words for checks and cells. */
#include <string.h>

#include "report/words.h"

/* ------------------------------------------------------------------ */
/* Making hostile text printable */

/*
 * Append s escaped as strbuf_add_shown() does; `lines` keeps newlines.
 * In a table cell a tab would break the columns: it becomes a space.
 */
void report_add_clean(struct strbuf *sb, const char *s, int lines)
{
	size_t from = sb->len, i;

	if (!s)
		return;
	strbuf_add_shown(sb, s, strlen(s), lines ? SHOWN_LINES : 0);
	for (i = from; !lines && i < sb->len; i++)
		if (sb->buf[i] == '\t')
			sb->buf[i] = ' ';
}

char *report_clean(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	report_add_clean(&sb, s, 0);
	return strbuf_detach(&sb, NULL);
}

/* Columns taken on a terminal: code points, ignoring ANSI colour sequences. */
size_t display_width(const char *s)
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
void add_wrapped(struct strbuf *sb, const char *text, size_t width, const char *first,
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

const char *check_color(enum check_status s)
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

const char *series_color(enum series_state s)
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
/* Words for checks and cells */

const char *check_word(const struct check *c)
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

void tests_word(struct strbuf *sb, const struct cell_result *c)
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

const char *splat_word(const struct check *c)
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
char *cell_name(const struct branch_result *b, const struct cell_result *c)
{
	return xstrfmt("%s %s", b->name, c->variant);
}

void report_add_markup(struct strbuf *sb, const char *s, int lines)
{
	struct strbuf clean = STRBUF_INIT;
	size_t i;

	if (!s)
		return;
	report_add_clean(&clean, s, lines);
	for (i = 0; i < clean.len; i++) {
		switch (clean.buf[i]) {
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
			strbuf_addstr(sb, "&#39;");
			break;
		default:
			strbuf_addch(sb, clean.buf[i]);
		}
	}
	strbuf_release(&clean);
}
