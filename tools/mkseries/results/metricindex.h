/* results/metricindex.h: metrics sorted by case and name, to find one or group them without comparing every pair. */
#ifndef MKSERIES_METRICINDEX_H
#define MKSERIES_METRICINDEX_H

#include "results/results.h"

/*
 * A report can hold hundreds of thousands of metrics (a crafted artifact
 * or a long run): whoever pairs a metric of one cell with the same one
 * of another, or lists each metric once, sorts them here once and looks
 * each up in O(log n), never by a walk over the others.
 *
 * Entries are added with a tag (a cell's or a column's number, never
 * smaller than the one before) and a pointer of the caller's (a row);
 * each gets the next sequence number,
 * so the order of addition is kept among equal names. After
 * metric_index_sort(), v[] is ordered by case, name, then sequence: the
 * entries of one metric are adjacent, the first added first.
 */
struct metric_index_entry {
	const struct metric_result *m;
	size_t seq;
	size_t tag;
	const void *data;
};

struct metric_index {
	struct metric_index_entry *v;
	size_t nr, alloc;
	/* how many times two entries were compared: a test checks it grows as n log n */
	unsigned long long compared;
};
#define METRIC_INDEX_INIT { NULL, 0, 0, 0 }

void metric_index_add(struct metric_index *ix, const struct metric_result *m, size_t tag,
		      const void *data);
/* Every metric of c, in its order, with `tag`. */
void metric_index_add_cell(struct metric_index *ix, const struct cell_result *c, size_t tag);
void metric_index_sort(struct metric_index *ix);
/*
 * The position in v[] of the first entry for case_name.name (the first
 * added among equal ones), or ix->nr when there is none. Sorted first.
 */
size_t metric_index_lookup(struct metric_index *ix, const char *case_name, const char *name);
/* The same, limited to the entries tagged `tag`. */
size_t metric_index_lookup_tag(struct metric_index *ix, const char *case_name, const char *name,
			       size_t tag);
/* Whether v[i] and v[j] are the same metric (case and name). */
int metric_index_same(const struct metric_index *ix, size_t i, size_t j);
void metric_index_release(struct metric_index *ix);

#endif
