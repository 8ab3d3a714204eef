/* report/table.h: aligned tables for the terminal and Markdown; internal to the report files. */
#ifndef MKSERIES_REPORTTABLE_H
#define MKSERIES_REPORTTABLE_H

#include "lib/util.h"

struct table {
	size_t cols, rows;
	char **cell;		/* rows x cols, row 0 is the header */
	const char **color;	/* rows x cols, NULL for none */
	size_t alloc;
};

void table_init(struct table *t, size_t cols);
void table_release(struct table *t);

/* Start a new row; its cells are empty until set. */
void table_row(struct table *t);

/* Set column `col` of the last row; text is cleaned of control characters. */
void table_set(struct table *t, size_t col, const char *color, const char *text);
__attribute__((format(printf, 4, 5)))
void table_setf(struct table *t, size_t col, const char *color, const char *fmt, ...);

/*
 * Print the table; when `max` (columns, 0 for none) is too narrow for
 * all of it, print several tables, each with the first column and as
 * many of the others as fit.
 */
void table_print(struct strbuf *sb, const struct table *t, int markdown, size_t max,
		 int color);

#endif
