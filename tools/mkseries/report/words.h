/* report/words.h: the wording every report format shares; internal to the report files. */
#ifndef MKSERIES_REPORTWORDS_H
#define MKSERIES_REPORTWORDS_H

#include "results/results.h"
#include "lib/util.h"

#define C_GREEN "\033[32m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_CYAN "\033[36m"
#define C_BOLD "\033[1m"
#define C_RESET "\033[m"

/*
 * Append s escaped as strbuf_add_shown() does; `lines` keeps newlines.
 * In a table cell a tab would break the columns: it becomes a space.
 * NULL appends nothing.
 */
void report_add_clean(struct strbuf *sb, const char *s, int lines);

/* report_add_clean() of s on one line, as a new string. Caller frees. */
char *report_clean(const char *s);

/* Columns taken on a terminal: code points, ignoring ANSI colour sequences. */
size_t display_width(const char *s);

/*
 * Append `text` word-wrapped to `width` columns: the first line starts
 * with `first`, the others with `rest`; a word longer than a line is cut.
 */
void add_wrapped(struct strbuf *sb, const char *text, size_t width, const char *first,
		 const char *rest);

/* The ANSI colour of a check or a series state; NULL for none. */
const char *check_color(enum check_status s);
const char *series_color(enum series_state s);

/* "ok", "FAILED", "conflict", "-", "not run", "n/a". */
const char *check_word(const struct check *c);

/* The tests of a cell: "1 FAILED, 12 ok, 2 skip", or the check's word. */
void tests_word(struct strbuf *sb, const struct cell_result *c);

/* A splat check: "none", "SPLAT", or the check's word. */
const char *splat_word(const struct check *c);

/* "6.12 kit". Caller frees. */
char *cell_name(const struct branch_result *b, const struct cell_result *c);

/*
 * Append s for an HTML or XML text node or a quoted attribute value, the
 * one escaping of the HTML and JUnit reports: first made printable as
 * every report does (control characters become `\xNN`, invalid UTF-8
 * `\xNN`), then &, <, >, " and ' become entities. `lines` keeps
 * newlines (for a <pre>). NULL appends nothing.
 */
void report_add_markup(struct strbuf *sb, const char *s, int lines);

#endif
