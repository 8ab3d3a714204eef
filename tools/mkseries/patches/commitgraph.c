/* patches/commitgraph.c: read git's commit-graph files: parents and dates of commits without reading them. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "patches/commitgraph.h"

/* The layout gitformat-commit-graph(5) describes; only SHA-1 graphs are read. */
#define CG_HASH 20
#define CG_HEADER 8
#define CG_CHUNK_ENTRY 12
#define CG_DATA_WIDTH (CG_HASH + 16)
#define CG_NO_PARENT 0x70000000u
#define CG_EXTRA_EDGES 0x80000000u	/* in the second parent: an index into EDGE */
#define CG_LAST_EDGE 0x80000000u	/* in EDGE: the last parent of the commit */
#define CG_MAX_COMMITS 0x70000000u	/* positions at or above collide with the markers */

#define CHUNK_ID(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/* One file of the graph. */
struct layer {
	unsigned char *map;
	size_t size;
	const unsigned char *fanout;	/* 256 counts: ids whose first byte is at most i */
	const unsigned char *oids;	/* nr ids, ascending */
	const unsigned char *data;	/* nr entries: tree, 2 parents, generation and date */
	const unsigned char *edges;	/* the 2nd..nth parents of octopus merges */
	uint32_t nr_edges;
	const unsigned char *bases;	/* ids of the files below, in a chain */
	uint32_t nr;
	uint32_t base;			/* commits in the layers below */
};

struct commit_graph {
	struct layer *layers;		/* the base first */
	size_t nr_layers;
	uint32_t nr;
};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void layer_release(struct layer *l)
{
	if (l->map)
		munmap(l->map, l->size);
	memset(l, 0, sizeof(*l));
}

/* Where a chunk of the table is, and how long; 0 when the id is absent. */
struct chunk {
	const unsigned char *p;
	uint64_t len;
	int found;
};

static int parse_chunks(struct layer *l, unsigned nr_chunks, struct chunk *oidf, struct chunk *oidl,
			struct chunk *cdat, struct chunk *edge, struct chunk *base, struct strbuf *why)
{
	const unsigned char *table = l->map + CG_HEADER;
	uint64_t table_end = CG_HEADER + (uint64_t)(nr_chunks + 1) * CG_CHUNK_ENTRY;
	uint64_t data_end = l->size - CG_HASH;
	unsigned i;

	if (table_end > data_end) {
		strbuf_addstr(why, "the chunk table runs past the end");
		return -1;
	}
	if (be32(table + (size_t)nr_chunks * CG_CHUNK_ENTRY)) {
		strbuf_addstr(why, "the chunk table is not terminated");
		return -1;
	}
	for (i = 0; i < nr_chunks; i++) {
		const unsigned char *e = table + (size_t)i * CG_CHUNK_ENTRY;
		uint32_t id = be32(e);
		uint64_t off = be64(e + 4), next = be64(e + 4 + CG_CHUNK_ENTRY);
		struct chunk *c = NULL;

		if (off < table_end || next < off || next > data_end) {
			strbuf_addf(why, "chunk %u is outside the file", i);
			return -1;
		}
		switch (id) {
		case CHUNK_ID('O', 'I', 'D', 'F'):
			c = oidf;
			break;
		case CHUNK_ID('O', 'I', 'D', 'L'):
			c = oidl;
			break;
		case CHUNK_ID('C', 'D', 'A', 'T'):
			c = cdat;
			break;
		case CHUNK_ID('E', 'D', 'G', 'E'):
			c = edge;
			break;
		case CHUNK_ID('B', 'A', 'S', 'E'):
			c = base;
			break;
		case 0:
			strbuf_addf(why, "chunk %u has id 0", i);
			return -1;
		default:
			continue;	/* generation data, Bloom filters: not needed here */
		}
		if (c->found) {
			strbuf_addf(why, "chunk %u repeats an id", i);
			return -1;
		}
		c->p = l->map + off;
		c->len = next - off;
		c->found = 1;
	}
	return 0;
}

/* The fan-out must agree with the sorted ids, or lookups would miss. */
static int check_ids(const struct layer *l, struct strbuf *why)
{
	uint32_t prev = 0, i;
	int b;

	for (b = 0; b < 256; b++) {
		if (be32(l->fanout + 4 * b) < prev) {
			strbuf_addstr(why, "the fan-out goes down");
			return -1;
		}
		prev = be32(l->fanout + 4 * b);
	}
	for (b = 0, prev = 0; b < 256; b++) {
		uint32_t end = be32(l->fanout + 4 * b);

		if (end > prev && (l->oids[(size_t)prev * CG_HASH] != b ||
				   l->oids[(size_t)(end - 1) * CG_HASH] != b)) {
			strbuf_addstr(why, "the fan-out does not match the ids");
			return -1;
		}
		prev = end;
	}
	for (i = 1; i < l->nr; i++) {
		if (memcmp(l->oids + (size_t)(i - 1) * CG_HASH, l->oids + (size_t)i * CG_HASH,
			   CG_HASH) >= 0) {
			strbuf_addstr(why, "the ids are not sorted");
			return -1;
		}
	}
	return 0;
}

/*
 * Map one file and find its chunks. `nr_bases` is how many files the
 * chain has below it (0 for a lone commit-graph). Returns 0, 1 when the
 * file does not exist, or -1 with the reason in why.
 */
static int layer_load(struct layer *l, const char *path, unsigned nr_bases, struct strbuf *why)
{
	struct chunk oidf = { 0 }, oidl = { 0 }, cdat = { 0 }, edge = { 0 }, base = { 0 };
	struct stat st;
	void *map;
	int fd;

	memset(l, 0, sizeof(*l));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		strbuf_addstr(why, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		strbuf_addstr(why, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < CG_HEADER + CG_CHUNK_ENTRY + CG_HASH) {
		strbuf_addstr(why, S_ISREG(st.st_mode) ? "too short for a commit-graph" : "not a file");
		close(fd);
		return -1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		strbuf_addstr(why, strerror(errno));
		return -1;
	}
	l->map = map;
	l->size = (size_t)st.st_size;

	if (memcmp(l->map, "CGPH", 4)) {
		strbuf_addstr(why, "not a commit-graph");
		goto bad;
	}
	if (l->map[4] != 1) {
		strbuf_addf(why, "unknown version %u", l->map[4]);
		goto bad;
	}
	if (l->map[5] != 1) {
		strbuf_addf(why, "hash version %u is not SHA-1", l->map[5]);
		goto bad;
	}
	if (l->map[7] != nr_bases) {
		strbuf_addf(why, "has %u base files, expected %u", l->map[7], nr_bases);
		goto bad;
	}
	if (parse_chunks(l, l->map[6], &oidf, &oidl, &cdat, &edge, &base, why))
		goto bad;
	if (!oidf.found || !oidl.found || !cdat.found) {
		strbuf_addf(why, "no %s chunk", !oidf.found ? "OIDF" : !oidl.found ? "OIDL" : "CDAT");
		goto bad;
	}
	if (oidf.len != 256 * 4) {
		strbuf_addstr(why, "the OIDF chunk has the wrong size");
		goto bad;
	}
	l->fanout = oidf.p;
	l->nr = be32(l->fanout + 255 * 4);
	if (l->nr >= CG_MAX_COMMITS || oidl.len != (uint64_t)l->nr * CG_HASH ||
	    cdat.len != (uint64_t)l->nr * CG_DATA_WIDTH) {
		strbuf_addstr(why, "the OIDL or CDAT chunk has the wrong size");
		goto bad;
	}
	l->oids = oidl.p;
	l->data = cdat.p;
	if (edge.found) {
		if (edge.len % 4 || edge.len / 4 >= CG_EXTRA_EDGES) {
			strbuf_addstr(why, "the EDGE chunk has the wrong size");
			goto bad;
		}
		l->edges = edge.p;
		l->nr_edges = (uint32_t)(edge.len / 4);
	}
	if (nr_bases) {
		if (!base.found || base.len != (uint64_t)nr_bases * CG_HASH) {
			strbuf_addstr(why, "the BASE chunk is missing or has the wrong size");
			goto bad;
		}
		l->bases = base.p;
	}
	if (check_ids(l, why))
		goto bad;
	return 0;
bad:
	layer_release(l);
	return -1;
}

static int add_layer(struct commit_graph *g, size_t *alloc, const char *path, unsigned nr_bases,
		     struct strbuf *why)
{
	struct layer *l;
	size_t before = why->len;
	int ret;

	ALLOC_GROW(g->layers, g->nr_layers + 1, *alloc);
	l = &g->layers[g->nr_layers];
	ret = layer_load(l, path, nr_bases, why);
	if (ret) {
		/* the reason was appended: put the file first */
		struct strbuf msg = STRBUF_INIT;

		strbuf_addf(&msg, "%s: %s", path, why->buf + before);
		if (ret > 0)
			strbuf_addstr(&msg, "no such file");
		strbuf_setlen(why, before);
		strbuf_addstr(why, msg.buf);
		strbuf_release(&msg);
		return ret;
	}
	if ((uint64_t)g->nr + l->nr >= CG_MAX_COMMITS) {
		strbuf_addf(why, "%s: too many commits", path);
		layer_release(l);
		return -1;
	}
	l->base = g->nr;
	g->nr += l->nr;
	g->nr_layers++;
	return 0;
}

static int hex_value(int c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

/* The layers of objects/info/commit-graphs/commit-graph-chain: 1 when there is no chain. */
static int load_chain(struct commit_graph *g, const char *objects_dir, struct strbuf *why)
{
	struct strbuf chain = STRBUF_INIT;
	char *dir = path_join(objects_dir, "info/commit-graphs");
	char *chain_path = path_join(dir, "commit-graph-chain");
	unsigned char (*ids)[CG_HASH] = NULL;
	size_t alloc = 0, alloc_ids = 0, i;
	const char *p;
	int ret = 0;

	if (strbuf_read_file(&chain, chain_path) < 0) {
		if (errno != ENOENT) {
			strbuf_addf(why, "%s: %s", chain_path, strerror(errno));
			ret = -1;
		} else {
			ret = 1;
		}
		goto cleanup;
	}
	for (p = chain.buf; *p; ) {
		const char *eol = strchrnul(p, '\n');
		const struct layer *top;
		char *name = NULL, *path = NULL;
		size_t n = g->nr_layers;

		for (i = 0; i < 2 * CG_HASH && p + i < eol && isxdigit((unsigned char)p[i]); i++)
			;
		if (i != 2 * CG_HASH || p + i != eol) {
			strbuf_addf(why, "%s: line %zu is not a file id", chain_path, n + 1);
			ret = -1;
			goto cleanup;
		}
		ALLOC_GROW(ids, n + 1, alloc_ids);
		for (i = 0; i < CG_HASH; i++)
			ids[n][i] = (unsigned char)(hex_value(p[2 * i]) << 4 | hex_value(p[2 * i + 1]));
		name = xstrfmt("graph-%.*s.graph", 2 * CG_HASH, p);
		path = path_join(dir, name);
		ret = add_layer(g, &alloc, path, (unsigned)n, why);
		free(name);
		free(path);
		if (ret) {
			ret = -1;
			goto cleanup;
		}
		/* each file lists the ones below it: they must be the chain's */
		top = &g->layers[n];
		for (i = 0; i < n; i++) {
			if (memcmp(top->bases + i * CG_HASH, ids[i], CG_HASH)) {
				strbuf_addf(why, "%s: line %zu names other base files", chain_path, n + 1);
				ret = -1;
				goto cleanup;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	if (!g->nr_layers) {
		strbuf_addf(why, "%s: empty", chain_path);
		ret = -1;
	}
cleanup:
	free(ids);
	strbuf_release(&chain);
	free(chain_path);
	free(dir);
	return ret;
}

int commit_graph_open(struct commit_graph **out, const char *objects_dir, struct strbuf *why)
{
	struct strbuf scratch = STRBUF_INIT;
	struct commit_graph *g = xcalloc(1, sizeof(*g));
	char *single = path_join(objects_dir, "info/commit-graph");
	size_t alloc = 0;
	int ret;

	*out = NULL;
	if (!why)
		why = &scratch;
	/* as git: a lone commit-graph wins over a chain */
	ret = add_layer(g, &alloc, single, 0, why);
	if (ret > 0) {
		strbuf_setlen(why, 0);
		ret = load_chain(g, objects_dir, why);
	}
	if (ret) {
		commit_graph_free(g);
		g = NULL;
		ret = ret > 0 ? 0 : -1;
	}
	*out = g;
	strbuf_release(&scratch);
	free(single);
	return ret;
}

void commit_graph_free(struct commit_graph *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->nr_layers; i++)
		layer_release(&g->layers[i]);
	free(g->layers);
	free(g);
}

uint32_t commit_graph_count(const struct commit_graph *g)
{
	return g->nr;
}

size_t commit_graph_layers(const struct commit_graph *g)
{
	return g->nr_layers;
}

static const struct layer *layer_of(const struct commit_graph *g, uint32_t pos)
{
	size_t i = g->nr_layers;

	while (i > 1 && pos < g->layers[i - 1].base)
		i--;
	return &g->layers[i - 1];
}

int commit_graph_find(const struct commit_graph *g, const git_oid *oid, uint32_t *pos)
{
	size_t i;

	for (i = g->nr_layers; i > 0; i--) {
		const struct layer *l = &g->layers[i - 1];
		uint32_t lo = oid->id[0] ? be32(l->fanout + 4 * (oid->id[0] - 1)) : 0;
		uint32_t hi = be32(l->fanout + 4 * oid->id[0]);

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			int c = memcmp(l->oids + (size_t)mid * CG_HASH, oid->id, CG_HASH);

			if (!c) {
				*pos = l->base + mid;
				return 1;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return 0;
}

void commit_graph_oid(const struct commit_graph *g, uint32_t pos, git_oid *out)
{
	const struct layer *l = layer_of(g, pos);

	git_oid_fromraw(out, l->oids + (size_t)(pos - l->base) * CG_HASH);
}

int64_t commit_graph_time(const struct commit_graph *g, uint32_t pos)
{
	const struct layer *l = layer_of(g, pos);
	const unsigned char *e = l->data + (size_t)(pos - l->base) * CG_DATA_WIDTH + CG_HASH + 8;

	return (int64_t)((uint64_t)(be32(e) & 3) << 32 | be32(e + 4));
}

int commit_graph_parents(const struct commit_graph *g, uint32_t pos, uint32_t *out, size_t max)
{
	const struct layer *l = layer_of(g, pos);
	const unsigned char *e = l->data + (size_t)(pos - l->base) * CG_DATA_WIDTH + CG_HASH;
	uint32_t end = l->base + l->nr, v, i;
	int n = 0;

	/* a commit's parents are in its own file or below it */
	v = be32(e);
	if (v == CG_NO_PARENT)
		return 0;
	if (v >= end)
		return -1;
	if (max)
		out[0] = v;
	n = 1;
	v = be32(e + 4);
	if (v == CG_NO_PARENT)
		return n;
	if (!(v & CG_EXTRA_EDGES)) {
		if (v >= end)
			return -1;
		if (max > 1)
			out[1] = v;
		return 2;
	}
	for (i = v & ~CG_EXTRA_EDGES; ; i++) {
		uint32_t p;

		if (i >= l->nr_edges)
			return -1;
		v = be32(l->edges + 4 * (size_t)i);
		p = v & ~CG_LAST_EDGE;
		if (p >= end)
			return -1;
		if ((size_t)n < max)
			out[n] = p;
		n++;
		if (v & CG_LAST_EDGE)
			return n;
	}
}
