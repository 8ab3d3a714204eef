/* patches/commitgraph.h: read git's commit-graph files: parents and dates of commits without reading them. */
#ifndef MKSERIES_COMMITGRAPH_H
#define MKSERIES_COMMITGRAPH_H

#include <stdint.h>
#include <git2.h>

#include "lib/util.h"

/*
 * One commit-graph: objects/info/commit-graph, or else the layers named by
 * objects/info/commit-graphs/commit-graph-chain (as git looks them up).
 * Commits are numbered by position, 0 .. commit_graph_count() - 1, over
 * all layers (the base layer first), as the files themselves number them.
 *
 * The files are mapped read-only and checked when opened (header, chunk
 * table, chunk sizes, fan-out, sorted ids, the chain's base hashes); the
 * parent positions of a commit are checked when it is asked for. The
 * trailing checksum is not verified: callers that need certainty compare
 * what the graph says with the commits they read.
 */
struct commit_graph;

/*
 * Open the commit-graph of an objects directory. Returns 0 with *out set,
 * 0 with *out NULL when there is no commit-graph, or -1 when there is one
 * that cannot be used: then `why` (when not NULL) says which file and why,
 * and nothing is printed.
 */
int commit_graph_open(struct commit_graph **out, const char *objects_dir, struct strbuf *why);
void commit_graph_free(struct commit_graph *g);

/* How many commits the graph holds, and in how many files. */
uint32_t commit_graph_count(const struct commit_graph *g);
size_t commit_graph_layers(const struct commit_graph *g);

/* 1 and *pos set when oid is in the graph, else 0. */
int commit_graph_find(const struct commit_graph *g, const git_oid *oid, uint32_t *pos);

/* The id of the commit at pos (< commit_graph_count()). */
void commit_graph_oid(const struct commit_graph *g, uint32_t pos, git_oid *out);

/* The committer date of the commit at pos, in seconds since the epoch. */
int64_t commit_graph_time(const struct commit_graph *g, uint32_t pos);

/*
 * The parents of the commit at pos, in order, as positions: the first
 * `max` go to out[]. Returns how many parents there are (possibly more
 * than max), or -1 when the entry points outside the graph.
 */
int commit_graph_parents(const struct commit_graph *g, uint32_t pos, uint32_t *out, size_t max);

#endif
