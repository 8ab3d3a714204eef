/* results/metricindex.c: metrics sorted by case and name, looked up by binary search. */
#include <stdint.h>
#include <string.h>

#include "results/metricindex.h"

void metric_index_add(struct metric_index *ix, const struct metric_result *m, size_t tag,
		      const void *data)
{
	struct metric_index_entry *e;

	ALLOC_GROW(ix->v, ix->nr + 1, ix->alloc);
	e = &ix->v[ix->nr];
	e->m = m;
	e->seq = ix->nr++;
	e->tag = tag;
	e->data = data;
}

void metric_index_add_cell(struct metric_index *ix, const struct cell_result *c, size_t tag)
{
	size_t i;

	for (i = 0; c && i < c->nr_metrics; i++)
		metric_index_add(ix, &c->metrics[i], tag, NULL);
}

/* qsort() has no context argument: the index being sorted, to count. */
static struct metric_index *sorting;

static int key_cmp(const char *case_a, const char *name_a, const char *case_b, const char *name_b)
{
	int c = strcmp(case_a, case_b);

	return c ? c : strcmp(name_a, name_b);
}

static int entry_cmp(const void *pa, const void *pb)
{
	const struct metric_index_entry *a = pa, *b = pb;
	int c = key_cmp(a->m->case_name, a->m->name, b->m->case_name, b->m->name);

	sorting->compared++;
	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void metric_index_sort(struct metric_index *ix)
{
	sorting = ix;
	if (ix->nr > 1)
		qsort(ix->v, ix->nr, sizeof(*ix->v), entry_cmp);
	sorting = NULL;
}

/* The first position whose entry is not before (case_name, name, tag); tag SIZE_MAX: any. */
static size_t lower_bound(struct metric_index *ix, const char *case_name, const char *name,
			  size_t tag)
{
	size_t lo = 0, hi = ix->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct metric_index_entry *e = &ix->v[mid];
		int c = key_cmp(e->m->case_name, e->m->name, case_name, name);

		ix->compared++;
		if (c < 0 || (!c && tag != SIZE_MAX && e->tag < tag))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t metric_index_lookup(struct metric_index *ix, const char *case_name, const char *name)
{
	size_t i = lower_bound(ix, case_name, name, SIZE_MAX);

	if (i < ix->nr && !key_cmp(ix->v[i].m->case_name, ix->v[i].m->name, case_name, name))
		return i;
	return ix->nr;
}

size_t metric_index_lookup_tag(struct metric_index *ix, const char *case_name, const char *name,
			       size_t tag)
{
	size_t i = lower_bound(ix, case_name, name, tag);

	if (i < ix->nr && ix->v[i].tag == tag &&
	    !key_cmp(ix->v[i].m->case_name, ix->v[i].m->name, case_name, name))
		return i;
	return ix->nr;
}

int metric_index_same(const struct metric_index *ix, size_t i, size_t j)
{
	return !key_cmp(ix->v[i].m->case_name, ix->v[i].m->name,
			ix->v[j].m->case_name, ix->v[j].m->name);
}

void metric_index_release(struct metric_index *ix)
{
	free(ix->v);
	ix->v = NULL;
	ix->nr = ix->alloc = 0;
}
