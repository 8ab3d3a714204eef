/* diff/lines.h: a file's text or a hunk as an array of lines that point into it, for finding hunks in trees. */
#ifndef MKSERIES_LINES_H
#define MKSERIES_LINES_H

#include <stddef.h>

/* One line: n bytes at p, in a buffer someone else owns (a blob, a patch); nothing is copied. */
struct line {
	const char *p;
	size_t n;
};

struct lines {
	struct line *v;
	size_t nr, alloc;
};
#define LINES_INIT { NULL, 0, 0 }

void lines_push(struct lines *l, const char *p, size_t n);
/* Append every line of buf, each with its newline (the last one may have none). */
void lines_split(struct lines *l, const char *buf, size_t len);
/* Free the array; the text it points into stays. */
void lines_release(struct lines *l);

/* Whether two lines hold the same bytes. */
int line_eq(const struct line *a, const struct line *b);
/* Whether the nr lines of run stand in l from its line `at` (0-based) on. */
int lines_match_at(const struct lines *l, size_t at, const struct line *run, size_t nr);
/* Replace the `remove` lines of l at `at` by the lines of `with`. */
void lines_splice(struct lines *l, size_t at, size_t remove, const struct lines *with);
/*
 * Which of the nb lines at b a longest common subsequence with the na
 * lines at a keeps: matched[j] set to 1 for each such b[j], 0 for the
 * rest (a line the other side has not, or has elsewhere). Returns 0, or
 * -1 when na * nb is more than max_cells (matched untouched): the table
 * it takes grows as their product.
 */
int lines_common(char *matched, const struct line *a, size_t na, const struct line *b, size_t nb,
		 size_t max_cells);

#endif
