/* report/table.c: aligned tables for the terminal and for Markdown, cut to a width. */
#include <stdarg.h>
#include <string.h>

#include "report/table.h"
#include "report/words.h"

void table_init(struct table *t, size_t cols)
{
	memset(t, 0, sizeof(*t));
	t->cols = cols;
}

void table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->rows * t->cols; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->color);
	memset(t, 0, sizeof(*t));
}

void table_row(struct table *t)
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
void table_set(struct table *t, size_t col, const char *color, const char *text)
{
	size_t i = (t->rows - 1) * t->cols + col;

	free(t->cell[i]);
	t->cell[i] = report_clean(text);
	t->color[i] = color;
}

__attribute__((format(printf, 4, 5)))
void table_setf(struct table *t, size_t col, const char *color, const char *fmt, ...)
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
void table_print(struct strbuf *sb, const struct table *t, int markdown, size_t max,
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
