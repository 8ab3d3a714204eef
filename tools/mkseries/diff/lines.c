/* diff/lines.c: a file's text or a hunk as an array of lines that point into it. */
#include <stdlib.h>
#include <string.h>

#include "diff/diffscan.h"
#include "diff/lines.h"
#include "lib/util.h"

void lines_push(struct lines *l, const char *p, size_t n)
{
	ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr].p = p;
	l->v[l->nr].n = n;
	l->nr++;
}

void lines_split(struct lines *l, const char *buf, size_t len)
{
	struct line_iter it;

	line_iter_init(&it, buf, len);
	while (line_iter_next(&it))
		lines_push(l, it.line, it.len);
}

void lines_release(struct lines *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = l->alloc = 0;
}

int line_eq(const struct line *a, const struct line *b)
{
	return a->n == b->n && !memcmp(a->p, b->p, a->n);
}

int lines_match_at(const struct lines *l, size_t at, const struct line *run, size_t nr)
{
	size_t i;

	if (at > l->nr || nr > l->nr - at)
		return 0;
	for (i = 0; i < nr; i++)
		if (!line_eq(&l->v[at + i], &run[i]))
			return 0;
	return 1;
}

void lines_splice(struct lines *l, size_t at, size_t remove, const struct lines *with)
{
	ALLOC_GROW(l->v, l->nr + with->nr, l->alloc);
	memmove(l->v + at + with->nr, l->v + at + remove, (l->nr - at - remove) * sizeof(*l->v));
	if (with->nr)
		memcpy(l->v + at, with->v, with->nr * sizeof(*with->v));
	l->nr = l->nr + with->nr - remove;
}

int lines_common(char *matched, const struct line *a, size_t na, const struct line *b, size_t nb,
		 size_t max_cells)
{
	size_t w = nb + 1, i, j;
	unsigned *len;

	if (na && nb > max_cells / na)
		return -1;
	/* len[i * w + j]: the longest common subsequence of a[i..] and b[j..] */
	len = xcalloc((na + 1) * w, sizeof(*len));
	for (i = na; i-- > 0;)
		for (j = nb; j-- > 0;)
			len[i * w + j] = line_eq(&a[i], &b[j]) ? len[(i + 1) * w + j + 1] + 1 :
					 len[(i + 1) * w + j] > len[i * w + j + 1] ?
					 len[(i + 1) * w + j] : len[i * w + j + 1];
	memset(matched, 0, nb);
	for (i = j = 0; i < na && j < nb;) {
		if (line_eq(&a[i], &b[j])) {
			matched[j] = 1;
			i++;
			j++;
		} else if (len[(i + 1) * w + j] >= len[i * w + j + 1]) {
			i++;
		} else {
			j++;
		}
	}
	free(len);
	return 0;
}
