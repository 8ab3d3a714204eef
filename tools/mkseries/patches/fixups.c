/* patches/fixups.c: find the upstream commits that fix what the kit carries, in a mainline repository. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "patches/commitgraph.h"
#include "patches/fixups.h"
#include "lib/progress.h"
#include "lib/gitutil.h"
#include "lib/util.h"

/* --- reading commits -------------------------------------------------- */

/* The parts of a raw commit object that discovery needs. */
struct raw_commit {
	git_oid parents[16];
	size_t nr_parents;		/* may exceed 16: only the first 16 are kept */
	int64_t time;			/* committer time */
	const char *msg;		/* points into the object data */
	size_t msg_len;
};

static int parse_raw_commit(struct raw_commit *c, const char *data, size_t len)
{
	const char *p = data, *end = data + len;

	c->nr_parents = 0;
	c->time = 0;
	c->msg = end;
	c->msg_len = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);

		if (!eol)
			eol = end;
		if (eol == p) {
			c->msg = p + 1 < end ? p + 1 : end;
			c->msg_len = end - c->msg;
			return 0;
		}
		if (eol - p >= 7 + GIT_OID_HEXSZ && !memcmp(p, "parent ", 7)) {
			if (c->nr_parents < ARRAY_SIZE(c->parents) &&
			    git_oid_fromstrn(&c->parents[c->nr_parents], p + 7, GIT_OID_HEXSZ))
				return -1;
			c->nr_parents++;
		} else if (eol - p > 10 && !memcmp(p, "committer ", 10)) {
			const char *gt = eol;

			while (gt > p && *gt != '>')
				gt--;
			if (gt > p)
				c->time = strtoll(gt + 1, NULL, 10);
		}
		p = eol + 1;
	}
	return 0;
}

/* The subject as git's %s shows it: the first paragraph, lines joined by spaces. */
static char *subject_of(const char *msg, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = msg, *end = msg + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		size_t n;

		if (!eol)
			eol = end;
		n = eol - p;
		while (n && isspace((unsigned char)p[n - 1]))
			n--;
		if (!n)
			break;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_add(&sb, p, n);
		p = eol + 1;
	}
	return strbuf_detach(&sb, NULL);
}

/* --- the kit's ids and the candidates ---------------------------------- */

/* A kit entry with an upstream id, full when the mainline knows it. */
struct known {
	char hex[GIT_OID_HEXSZ + 1];
	const struct kit_patch *patch;
};

/* A commit of the walk that refers to some other commit. */
struct candidate {
	git_oid oid;
	int64_t time;
	size_t first_ref, nr_refs;
	int reached;			/* found by the resolution below */
	uint32_t node;			/* in the walk's graph */
};

/* The first 8 hex digits of an id as a number: the key the refs are sorted by. */
static uint32_t key8(const char *hex)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		int c = hex[i];

		v = v << 4 | (uint32_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return v;
}

#define NO_OWNER UINT32_MAX

struct refkey {
	uint32_t key;
	uint32_t ref;			/* index into the refs array */
};

static int cmp_refkey(const void *a, const void *b)
{
	const struct refkey *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* Candidates and their references, as one thread finds them. */
struct found {
	struct candidate *cands;
	size_t nr_cands, alloc_cands;
	struct fixref *refs;
	size_t nr_refs, alloc_refs;
};

struct discovery {
	const struct kit *kit;
	git_repository *repo;
	git_odb *odb;
	struct fixref_scanner *sc;
	struct known *known;
	size_t nr_known, alloc_known;
	struct found found;		/* in walk order */
	uint32_t *ref_owner;		/* candidate index of each ref */
	size_t alloc_owner;
};

static void add_known(struct discovery *d, const struct kit_patch *p)
{
	git_object *obj = NULL;
	struct known *k;
	git_oid oid;
	size_t len = p->upstream ? hex_len(p->upstream) : 0;

	if (len < 8 || len > GIT_OID_HEXSZ)
		return;
	ALLOC_GROW(d->known, d->nr_known + 1, d->alloc_known);
	k = &d->known[d->nr_known++];
	k->patch = p;
	if (!git_oid_fromstrn(&oid, p->upstream, len) &&
	    !git_object_lookup_prefix(&obj, d->repo, &oid, len, GIT_OBJECT_COMMIT)) {
		git_oid_tostr(k->hex, sizeof(k->hex), git_object_id(obj));
		git_object_free(obj);
	} else {
		size_t i;

		for (i = 0; i < len; i++)
			k->hex[i] = tolower((unsigned char)p->upstream[i]);
		k->hex[len] = '\0';
	}
}

static const struct kit_patch *kit_entry_of(const struct discovery *d, const char *hex)
{
	size_t i;

	for (i = 0; i < d->nr_known; i++)
		if (hexid_match(d->known[i].hex, hex))
			return d->known[i].patch;
	return NULL;
}

/*
 * The walk keeps its own graph rather than using git_revwalk: libgit2's
 * walker reads and caches every commit it passes, and reading each
 * commit a second time for its message doubles the cost of the whole
 * command (see bench/README.md).
 *
 * Without a commit-graph every commit is read exactly once: when it is
 * first queued (its date orders the queue), and the object is kept until
 * it is taken from the queue and scanned. With one, the parents and
 * dates come from the graph, so the walk reads nothing; it lists the
 * commits in the order it takes them, and then threads read and scan
 * them in parallel, each checking that the commit says what the graph
 * said. Commits the graph lacks (newer than it) are read as without a
 * graph; their parents usually lead back into it.
 */
enum {
	NODE_UNINTERESTING = 1 << 0,	/* reachable from --since */
	NODE_QUEUED = 1 << 1,
	NODE_DONE = 1 << 2,
};

#define NO_POS UINT32_MAX

struct node {
	git_oid oid;
	int64_t time;
	git_odb_object *obj;		/* while queued, for commits the graph lacks */
	uint32_t first_parent;		/* into graph.parents, once done */
	uint32_t nr_parents;
	uint32_t flags;
	uint32_t seq;			/* order of queueing: ties in time keep it */
	uint32_t pos;			/* in the commit-graph, or NO_POS */
};

struct graph {
	struct node *nodes;
	size_t nr, alloc;
	uint32_t *table;		/* open addressing: node index + 1, 0 when free */
	size_t table_size;		/* a power of two */
	size_t nr_hashed;		/* nodes in the table: those the commit-graph lacks */
	const struct commit_graph *cg;	/* or NULL */
	uint32_t *at_pos;		/* node index + 1 of each commit-graph position, 0 when none */
	uint32_t *parents;
	size_t nr_parents, alloc_parents;
	uint32_t *heap;			/* node indexes, newest first */
	size_t heap_nr, heap_alloc;
	size_t interesting_queued;
	uint32_t *taken;		/* with a commit-graph: nodes in the order they were taken */
	size_t nr_taken, alloc_taken;
};

static size_t oid_hash(const git_oid *oid)
{
	size_t h;

	memcpy(&h, oid->id, sizeof(h));
	return h;
}

static void graph_rehash(struct graph *g)
{
	size_t i;

	free(g->table);
	g->table_size = g->table_size ? g->table_size * 2 : 1 << 16;
	g->table = xcalloc(g->table_size, sizeof(*g->table));
	for (i = 0; i < g->nr; i++) {
		size_t h;

		if (g->nodes[i].pos != NO_POS)
			continue;
		h = oid_hash(&g->nodes[i].oid) & (g->table_size - 1);
		while (g->table[h])
			h = (h + 1) & (g->table_size - 1);
		g->table[h] = (uint32_t)i + 1;
	}
}

static uint32_t new_node(struct graph *g, const git_oid *oid, uint32_t pos)
{
	struct node *node;

	ALLOC_GROW(g->nodes, g->nr + 1, g->alloc);
	node = &g->nodes[g->nr];
	memset(node, 0, sizeof(*node));
	git_oid_cpy(&node->oid, oid);
	node->pos = pos;
	return (uint32_t)g->nr++;
}

/* The node of commit-graph position pos, added when new (*added set). */
static uint32_t graph_node_at(struct graph *g, uint32_t pos, int *added)
{
	git_oid oid;
	uint32_t n;

	if (g->at_pos[pos]) {
		*added = 0;
		return g->at_pos[pos] - 1;
	}
	commit_graph_oid(g->cg, pos, &oid);
	n = new_node(g, &oid, pos);
	g->at_pos[pos] = n + 1;
	*added = 1;
	return n;
}

/*
 * The node of oid, added when new (*added set). Returns its index. A
 * commit the commit-graph has is always found by its position.
 */
static uint32_t graph_node(struct graph *g, const git_oid *oid, int *added)
{
	uint32_t pos, n;
	size_t h;

	if (g->cg && commit_graph_find(g->cg, oid, &pos))
		return graph_node_at(g, pos, added);
	if ((g->nr_hashed + 1) * 2 > g->table_size)
		graph_rehash(g);
	h = oid_hash(oid) & (g->table_size - 1);
	while (g->table[h]) {
		uint32_t i = g->table[h] - 1;

		if (git_oid_equal(&g->nodes[i].oid, oid)) {
			*added = 0;
			return i;
		}
		h = (h + 1) & (g->table_size - 1);
	}
	n = new_node(g, oid, NO_POS);
	g->table[h] = n + 1;
	g->nr_hashed++;
	*added = 1;
	return n;
}

static int heap_before(const struct graph *g, uint32_t a, uint32_t b)
{
	const struct node *x = &g->nodes[a], *y = &g->nodes[b];

	return x->time != y->time ? x->time > y->time : x->seq < y->seq;
}

static void heap_push(struct graph *g, uint32_t n)
{
	size_t i;

	ALLOC_GROW(g->heap, g->heap_nr + 1, g->heap_alloc);
	i = g->heap_nr++;
	while (i && heap_before(g, n, g->heap[(i - 1) / 2])) {
		g->heap[i] = g->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	g->heap[i] = n;
}

static uint32_t heap_pop(struct graph *g)
{
	uint32_t top = g->heap[0], last = g->heap[--g->heap_nr];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= g->heap_nr)
			break;
		if (c + 1 < g->heap_nr && heap_before(g, g->heap[c + 1], g->heap[c]))
			c++;
		if (!heap_before(g, g->heap[c], last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (g->heap_nr)
		g->heap[i] = last;
	return top;
}

static void graph_release(struct graph *g)
{
	size_t i;

	for (i = 0; i < g->nr; i++)
		git_odb_object_free(g->nodes[i].obj);
	free(g->nodes);
	free(g->table);
	free(g->at_pos);
	free(g->parents);
	free(g->heap);
	free(g->taken);
	memset(g, 0, sizeof(*g));
}

/*
 * Queue a commit. Its date orders the queue: the commit-graph has it, or
 * the commit is read now (and kept until it is taken).
 */
static int queue_commit(struct discovery *d, struct graph *g, uint32_t n)
{
	struct node *node = &g->nodes[n];
	struct raw_commit c;
	int err;

	if (node->pos != NO_POS) {
		node->time = commit_graph_time(g->cg, node->pos);
	} else {
		err = git_odb_read(&node->obj, d->odb, &node->oid);
		if (err < 0)
			return gitutil_error(err, "cannot read commit %s", git_oid_tostr_s(&node->oid));
		if (git_odb_object_type(node->obj) != GIT_OBJECT_COMMIT ||
		    parse_raw_commit(&c, git_odb_object_data(node->obj), git_odb_object_size(node->obj)))
			return error("%s is not a valid commit", git_oid_tostr_s(&node->oid));
		node->time = c.time;
	}
	node->seq = (uint32_t)g->nr;
	node->flags |= NODE_QUEUED;
	if (!(node->flags & NODE_UNINTERESTING))
		g->interesting_queued++;
	heap_push(g, n);
	return 0;
}

/* A commit found to be reachable from --since after it was taken: so are its ancestors. */
static void mark_uninteresting(struct graph *g, uint32_t n)
{
	uint32_t *stack = NULL;
	size_t nr = 0, alloc = 0;

	ALLOC_GROW(stack, nr + 1, alloc);
	stack[nr++] = n;
	while (nr) {
		struct node *node = &g->nodes[stack[--nr]];
		uint32_t i;

		if (node->flags & NODE_UNINTERESTING)
			continue;
		node->flags |= NODE_UNINTERESTING;
		if (node->flags & NODE_QUEUED)
			g->interesting_queued--;
		if (!(node->flags & NODE_DONE))
			continue;
		for (i = 0; i < node->nr_parents; i++) {
			ALLOC_GROW(stack, nr + 1, alloc);
			stack[nr++] = g->parents[node->first_parent + i];
		}
	}
	free(stack);
}

/* Record a scanned commit when its message refers to any other; 1 when it does. */
static int found_add(struct found *f, struct fixref_scanner *sc, const struct node *node,
		     const struct raw_commit *c, uint32_t index)
{
	size_t before = f->nr_refs, n;
	struct candidate *cand;

	n = fixref_scan(sc, c->msg, c->msg_len, &f->refs, &f->nr_refs, &f->alloc_refs);
	if (!n)
		return 0;
	ALLOC_GROW(f->cands, f->nr_cands + 1, f->alloc_cands);
	cand = &f->cands[f->nr_cands++];
	git_oid_cpy(&cand->oid, &node->oid);
	cand->time = c->time;
	cand->first_ref = before;
	cand->nr_refs = n;
	cand->reached = 0;
	cand->node = index;
	return 1;
}

/* Append what a thread found to the discovery's lists, in order. */
static void found_merge(struct discovery *d, struct found *f)
{
	size_t i, r;

	ALLOC_GROW(d->found.refs, d->found.nr_refs + f->nr_refs, d->found.alloc_refs);
	ALLOC_GROW(d->ref_owner, d->found.nr_refs + f->nr_refs, d->alloc_owner);
	for (i = 0; i < f->nr_cands; i++) {
		struct candidate *c = &f->cands[i];

		ALLOC_GROW(d->found.cands, d->found.nr_cands + 1, d->found.alloc_cands);
		d->found.cands[d->found.nr_cands] = *c;
		d->found.cands[d->found.nr_cands].first_ref = d->found.nr_refs;
		for (r = 0; r < c->nr_refs; r++) {
			d->found.refs[d->found.nr_refs] = f->refs[c->first_ref + r];
			d->ref_owner[d->found.nr_refs++] = (uint32_t)d->found.nr_cands;
		}
		d->found.nr_cands++;
	}
}

static void found_release(struct found *f)
{
	free(f->cands);
	free(f->refs);
	memset(f, 0, sizeof(*f));
}

/* --- reading commits in parallel ---------------------------------------- */

enum scan_problem {
	SCAN_OK,
	SCAN_UNREADABLE,	/* the walk without the graph says what is wrong */
	SCAN_MISMATCH,		/* the commit-graph does not say what the commit says */
};

/* What the threads share: the list to read, in chunks taken in order. */
struct scan {
	struct discovery *d;
	const struct graph *g;
	const uint32_t *list;		/* node indexes */
	size_t nr, nr_taken;		/* the first nr_taken were taken by the walk */
	size_t chunk;			/* list entries per chunk */
	struct found *found;		/* one per chunk */
	size_t nr_chunks;
	struct progress line;		/* drawn by the thread that prints only */
	size_t next;			/* atomic: the next chunk to take */
	size_t done;			/* atomic: entries read, for the progress line */
	int stop;			/* atomic: a problem was found */
	pthread_mutex_t lock;		/* guards the problem */
	enum scan_problem problem;
	size_t problem_at;		/* the smallest list index with a problem of that kind */
	char *problem_msg;
};

struct scan_thread {
	struct scan *s;
	git_odb *odb;
	struct fixref_scanner *sc;
	pthread_t tid;
	int started;
	int prints;			/* the calling thread shows the progress */
};

static void scan_fail(struct scan *s, size_t at, enum scan_problem problem, char *msg)
{
	pthread_mutex_lock(&s->lock);
	if (problem > s->problem || (problem == s->problem && at < s->problem_at)) {
		free(s->problem_msg);
		s->problem = problem;
		s->problem_at = at;
		s->problem_msg = msg;
		msg = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	free(msg);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELAXED);
}

/* Whether the parents and date the walk took from the commit-graph are the commit's. */
static int graph_agrees(const struct graph *g, const struct node *node, const struct raw_commit *c,
			int taken)
{
	uint32_t i;

	if (c->time != node->time)
		return 0;
	/* the parents of a commit left in the queue were never used */
	if (!taken)
		return 1;
	if (c->nr_parents != node->nr_parents)
		return 0;
	for (i = 0; i < node->nr_parents && i < ARRAY_SIZE(c->parents); i++)
		if (!git_oid_equal(&c->parents[i], &g->nodes[g->parents[node->first_parent + i]].oid))
			return 0;
	return 1;
}

static void scan_chunk(struct scan_thread *t, size_t k)
{
	struct scan *s = t->s;
	const struct graph *g = s->g;
	size_t i, end = (k + 1) * s->chunk < s->nr ? (k + 1) * s->chunk : s->nr;

	for (i = k * s->chunk; i < end; i++) {
		uint32_t n = s->list[i];
		const struct node *node = &g->nodes[n];
		git_odb_object *obj = NULL;
		struct raw_commit c;
		char hex[GIT_OID_HEXSZ + 1];

		if (git_odb_read(&obj, t->odb, &node->oid) < 0 ||
		    git_odb_object_type(obj) != GIT_OBJECT_COMMIT ||
		    parse_raw_commit(&c, git_odb_object_data(obj), git_odb_object_size(obj))) {
			git_odb_object_free(obj);
			scan_fail(s, i, SCAN_UNREADABLE, NULL);
			return;
		}
		if (node->pos != NO_POS && !graph_agrees(g, node, &c, i < s->nr_taken)) {
			git_odb_object_free(obj);
			git_oid_tostr(hex, sizeof(hex), &node->oid);
			scan_fail(s, i, SCAN_MISMATCH, xstrdup(hex));
			return;
		}
		if (i < s->nr_taken && !(node->flags & NODE_UNINTERESTING))
			found_add(&s->found[k], t->sc, node, &c, n);
		git_odb_object_free(obj);
	}
	__atomic_add_fetch(&s->done, end - k * s->chunk, __ATOMIC_RELAXED);
}

static void *scan_run(void *arg)
{
	struct scan_thread *t = arg;
	struct scan *s = t->s;

	while (!__atomic_load_n(&s->stop, __ATOMIC_RELAXED)) {
		size_t k = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED);

		if (k >= s->nr_chunks)
			break;
		scan_chunk(t, k);
		if (t->prints)
			progress_show(&s->line, 0, "reading commits: %zu",
				      __atomic_load_n(&s->done, __ATOMIC_RELAXED));
	}
	return NULL;
}

/*
 * How many threads read: the CPUs this process may use, up to 4 (they
 * share libgit2's locks on the pack: measured on 2 CPUs only).
 */
static size_t scan_threads(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 4 ? 4 : (size_t)n;
}

/*
 * Read the commits of the list with as many threads as there are CPUs,
 * scanning those the walk took as interesting. Returns 0, or a scan_problem.
 */
static int scan_parallel(struct discovery *d, const struct graph *g, const uint32_t *list,
			 size_t nr, size_t nr_taken, char **mismatch)
{
	struct scan s = { 0 };
	struct scan_thread *threads = NULL;
	git_buf objects = { 0 };
	size_t nr_threads = scan_threads(), i;
	int ret;

	*mismatch = NULL;
	if (!nr)
		return 0;
	if (git_repository_item_path(&objects, d->repo, GIT_REPOSITORY_ITEM_OBJECTS) < 0)
		nr_threads = 1;
	s.d = d;
	s.g = g;
	s.list = list;
	s.nr = nr;
	s.nr_taken = nr_taken;
	/* small chunks for small walks, so that every thread gets some */
	s.chunk = nr / (nr_threads * 32);
	s.chunk = s.chunk < 1 ? 1 : s.chunk > 4096 ? 4096 : s.chunk;
	s.nr_chunks = (nr + s.chunk - 1) / s.chunk;
	s.found = xcalloc(s.nr_chunks, sizeof(*s.found));
	progress_init(&s.line, 1, 0.1);
	s.problem_at = SIZE_MAX;
	pthread_mutex_init(&s.lock, NULL);

	threads = xcalloc(nr_threads, sizeof(*threads));
	threads[0].s = &s;
	threads[0].odb = d->odb;
	threads[0].sc = d->sc;
	threads[0].prints = 1;
	for (i = 1; i < nr_threads; i++) {
		struct scan_thread *t = &threads[i];

		t->s = &s;
		/* each thread its own object database: libgit2 objects are not shared */
		if (git_odb_open(&t->odb, objects.ptr) < 0)
			break;
		fixref_scanner_new(&t->sc);
		if (pthread_create(&t->tid, NULL, scan_run, t))
			break;
		t->started = 1;
	}
	scan_run(&threads[0]);
	for (i = 1; i < nr_threads; i++) {
		if (threads[i].started)
			pthread_join(threads[i].tid, NULL);
		fixref_scanner_free(threads[i].sc);
		git_odb_free(threads[i].odb);
	}
	progress_done(&s.line, "reading commits: %zu, done.", __atomic_load_n(&s.done, __ATOMIC_RELAXED));

	ret = s.problem;
	if (!ret)
		for (i = 0; i < s.nr_chunks; i++)
			found_merge(d, &s.found[i]);
	*mismatch = s.problem == SCAN_MISMATCH ? s.problem_msg : NULL;
	if (s.problem != SCAN_MISMATCH)
		free(s.problem_msg);
	for (i = 0; i < s.nr_chunks; i++)
		found_release(&s.found[i]);
	free(s.found);
	free(threads);
	pthread_mutex_destroy(&s.lock);
	git_buf_dispose(&objects);
	return ret;
}

/* --- the walk ------------------------------------------------------------ */

static int resolve_commit(git_oid *out, git_repository *repo, const char *spec)
{
	git_object *obj = NULL, *peeled = NULL;
	int err;

	err = git_revparse_single(&obj, repo, spec);
	if (err == GIT_ENOTFOUND || err == GIT_EAMBIGUOUS || err == GIT_EINVALIDSPEC)
		return error_code(MKS_ENOTFOUND, "unknown revision '%s' in '%s'", spec,
				  git_repository_path(repo));
	if (err < 0)
		return gitutil_error(err, "cannot resolve '%s'", spec);
	err = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (err < 0)
		return gitutil_error(err, "'%s' does not name a commit", spec);
	git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	return 0;
}

static int start_at(struct discovery *d, struct graph *g, const char *spec, int uninteresting)
{
	git_oid oid;
	uint32_t n;
	int added, ret;

	if ((ret = resolve_commit(&oid, d->repo, spec)))
		return ret;
	n = graph_node(g, &oid, &added);
	if (uninteresting)
		mark_uninteresting(g, n);
	return added ? queue_commit(d, g, n) : 0;
}

/* Link node n to a parent, queueing the parent when it is new. */
static int add_parent(struct discovery *d, struct graph *g, uint32_t n, uint32_t pn, int added)
{
	/* graph_node may move the nodes: look them up by index */
	ALLOC_GROW(g->parents, g->nr_parents + 1, g->alloc_parents);
	g->parents[g->nr_parents++] = pn;
	if (g->nodes[n].flags & NODE_UNINTERESTING)
		mark_uninteresting(g, pn);
	return added ? queue_commit(d, g, pn) : 0;
}

/* The parents of a commit the commit-graph has. Returns 0, -1, or SCAN_MISMATCH. */
static int graph_parents(struct discovery *d, struct graph *g, uint32_t n)
{
	uint32_t buf[16], *pos = buf;
	int nr = commit_graph_parents(g->cg, g->nodes[n].pos, buf, ARRAY_SIZE(buf)), i, ret = 0;

	if (nr < 0)
		return SCAN_MISMATCH;
	if ((size_t)nr > ARRAY_SIZE(buf)) {
		pos = xcalloc(nr, sizeof(*pos));
		commit_graph_parents(g->cg, g->nodes[n].pos, pos, nr);
	}
	g->nodes[n].first_parent = (uint32_t)g->nr_parents;
	g->nodes[n].nr_parents = (uint32_t)nr;
	for (i = 0; i < nr && !ret; i++) {
		int added;
		uint32_t pn = graph_node_at(g, pos[i], &added);

		ret = add_parent(d, g, n, pn, added);
	}
	if (pos != buf)
		free(pos);
	return ret;
}

/* The parents of a commit read from the object database. */
static int raw_parents(struct discovery *d, struct graph *g, uint32_t n, struct raw_commit *c)
{
	uint32_t p;
	int ret = 0;

	if (c->nr_parents > ARRAY_SIZE(c->parents)) {
		/* an octopus beyond what parse_raw_commit keeps: read it whole */
		git_commit *commit = NULL;

		c->nr_parents = 0;
		if (git_commit_lookup(&commit, d->repo, &g->nodes[n].oid) >= 0) {
			for (p = 0; p < git_commit_parentcount(commit) && p < ARRAY_SIZE(c->parents); p++)
				git_oid_cpy(&c->parents[c->nr_parents++], git_commit_parent_id(commit, p));
			git_commit_free(commit);
		}
	}
	g->nodes[n].first_parent = (uint32_t)g->nr_parents;
	g->nodes[n].nr_parents = (uint32_t)c->nr_parents;
	for (p = 0; p < c->nr_parents && !ret; p++) {
		int added;
		uint32_t pn = graph_node(g, &c->parents[p], &added);

		ret = add_parent(d, g, n, pn, added);
	}
	return ret;
}

/*
 * Read every commit of ref ^since once, keeping those that refer to
 * others. With a commit-graph `cg`, returns SCAN_MISMATCH (*mismatch
 * set: the commit, caller frees) or SCAN_UNREADABLE when the walk has to
 * be done again without it.
 */
static int walk(struct discovery *d, struct fixups_report *rep, const char *ref, const char *since,
		const struct commit_graph *cg, char **mismatch)
{
	struct graph g = { 0 };
	struct progress line = PROGRESS_INIT;
	size_t i, kept, nr_taken;
	int ret;

	*mismatch = NULL;
	progress_init(&line, !cg, 0);
	g.cg = cg;
	if (cg)
		g.at_pos = xcalloc(commit_graph_count(cg) ? commit_graph_count(cg) : 1, sizeof(*g.at_pos));
	if ((ret = start_at(d, &g, ref ? ref : "HEAD", 0)))
		goto cleanup;
	if (since && (ret = start_at(d, &g, since, 1)))
		goto cleanup;
	/* once no interesting commit is queued, none can be found any more */
	while (g.heap_nr && g.interesting_queued) {
		uint32_t n = heap_pop(&g);
		struct node *node = &g.nodes[n];
		git_odb_object *obj = node->obj;
		struct raw_commit c;

		node->obj = NULL;
		node->flags = (node->flags & ~NODE_QUEUED) | NODE_DONE;
		if (!(node->flags & NODE_UNINTERESTING)) {
			g.interesting_queued--;
			rep->walked++;
			if (!(rep->walked & 0xffff))
				progress_show(&line, 1, "reading commits: %zu", rep->walked);
		}
		if (cg) {
			/* read and scanned later, in parallel */
			ALLOC_GROW(g.taken, g.nr_taken + 1, g.alloc_taken);
			g.taken[g.nr_taken++] = n;
		}
		if (node->pos != NO_POS) {
			ret = graph_parents(d, &g, n);
		} else {
			parse_raw_commit(&c, git_odb_object_data(obj), git_odb_object_size(obj));
			if (!cg && !(node->flags & NODE_UNINTERESTING)) {
				size_t before = d->found.nr_refs;

				found_add(&d->found, d->sc, node, &c, n);
				ALLOC_GROW(d->ref_owner, d->found.nr_refs, d->alloc_owner);
				for (i = before; i < d->found.nr_refs; i++)
					d->ref_owner[i] = (uint32_t)(d->found.nr_cands - 1);
			}
			ret = raw_parents(d, &g, n, &c);
		}
		git_odb_object_free(obj);
		if (ret == SCAN_MISMATCH) {
			*mismatch = xstrdup(git_oid_tostr_s(&g.nodes[n].oid));
			goto cleanup;
		}
		if (ret)
			goto cleanup;
	}
	if (rep->walked >= 0x10000)
		progress_done(&line, "reading commits: %zu, done.", rep->walked);
	if (cg) {
		/* what is left in the queue was dated by the graph: check those dates too */
		nr_taken = g.nr_taken;
		for (i = 0; i < g.heap_nr; i++) {
			if (g.nodes[g.heap[i]].pos == NO_POS)
				continue;
			ALLOC_GROW(g.taken, g.nr_taken + 1, g.alloc_taken);
			g.taken[g.nr_taken++] = g.heap[i];
		}
		ret = scan_parallel(d, &g, g.taken, g.nr_taken, nr_taken, mismatch);
		if (ret)
			goto cleanup;
	}
	/* with skewed dates, --since may reach a commit after it was scanned */
	for (i = kept = 0; i < d->found.nr_cands; i++) {
		struct candidate *c = &d->found.cands[i];
		size_t r;

		for (r = c->first_ref; r < c->first_ref + c->nr_refs; r++)
			d->ref_owner[r] = g.nodes[c->node].flags & NODE_UNINTERESTING ?
					  NO_OWNER : (uint32_t)kept;
		if (g.nodes[c->node].flags & NODE_UNINTERESTING)
			continue;
		d->found.cands[kept++] = *c;
	}
	d->found.nr_cands = kept;
cleanup:
	graph_release(&g);
	return ret;
}

/*
 * The repository's commit-graph, when it has a usable one. As git, none
 * in a shallow repository: the graph may name parents that were cut off.
 */
static struct commit_graph *open_commit_graph(git_repository *repo)
{
	struct strbuf why = STRBUF_INIT;
	struct commit_graph *cg = NULL;
	git_buf objects = { 0 };

	if (git_repository_is_shallow(repo) == 1 ||
	    git_repository_item_path(&objects, repo, GIT_REPOSITORY_ITEM_OBJECTS) < 0)
		goto cleanup;
	if (commit_graph_open(&cg, objects.ptr, &why))
		warning("ignoring the commit-graph: %s", why.buf);
cleanup:
	git_buf_dispose(&objects);
	strbuf_release(&why);
	return cg;
}

/* Walk ref ^since and keep the commits that refer to others (d->found). */
static int find_candidates(struct discovery *d, struct fixups_report *rep, const char *ref,
			   const char *since)
{
	struct commit_graph *cg = open_commit_graph(d->repo);
	char *mismatch = NULL;
	int ret, caching, strict;

	/*
	 * Each commit is read once: libgit2's object cache would only cost
	 * hashing and memory here (a third of the time on a 1M-commit walk),
	 * and checking that each object's contents hash to its id (as git
	 * log does not either) another sixth.
	 */
	caching = gitutil_set_opt(GITUTIL_CACHING, 0);
	strict = gitutil_set_opt(GITUTIL_STRICT_HASH, 0);
	ret = walk(d, rep, ref, since, cg, &mismatch);
	if (ret == SCAN_MISMATCH || ret == SCAN_UNREADABLE) {
		/* the walk without the graph reports an unreadable commit itself */
		if (mismatch)
			warning("the commit-graph of '%s' does not match commit %s; reading the commits instead",
				git_repository_path(d->repo), mismatch);
		found_release(&d->found);
		rep->walked = 0;
		ret = walk(d, rep, ref, since, NULL, &mismatch);
	} else if (!ret && !cg && rep->walked >= 100000 && mks_isatty_stderr()) {
		fprintf(stderr, "hint: 'git -C %s commit-graph write --reachable' makes this faster\n",
			git_repository_path(d->repo));
	}
	gitutil_set_opt(GITUTIL_STRICT_HASH, strict);
	gitutil_set_opt(GITUTIL_CACHING, caching);
	free(mismatch);
	commit_graph_free(cg);
	return ret;
}

/* --- resolution --------------------------------------------------------- */

/* One id whose fixes are looked for: a kit entry, or a missing commit. */
struct pending {
	char hex[GIT_OID_HEXSZ + 1];
	const struct kit_patch *patch;	/* kit entry, or NULL */
	size_t missing;			/* else the index in rep->missing */
	const struct kit_patch *root;
	int depth;
};

static void add_missing(struct discovery *d, struct fixups_report *rep, const struct candidate *c,
			enum fixref_kind kind, const struct pending *from)
{
	struct fixup_missing *m;

	ALLOC_GROW(rep->missing, rep->nr + 1, rep->alloc);
	m = &rep->missing[rep->nr++];
	memset(m, 0, sizeof(*m));
	git_oid_cpy(&m->oid, &c->oid);
	m->kind = kind;
	m->target = from->patch;
	m->target_missing = from->missing;
	m->root = from->root;
	m->depth = from->depth + 1;
	m->time = c->time;
	m->walk_order = (size_t)(c - d->found.cands);
}

/*
 * Breadth first from the kit's ids: every candidate whose reference
 * matches an id reached so far is reached in turn. Each candidate is
 * reached at most once, so this ends after one pass over them.
 */
static void resolve(struct discovery *d, struct fixups_report *rep)
{
	struct refkey *keys = xcalloc(d->found.nr_refs ? d->found.nr_refs : 1, sizeof(*keys));
	struct pending *queue = NULL;
	size_t nr = 0, alloc = 0, nr_keys = 0, head, i;

	for (i = 0; i < d->found.nr_refs; i++) {
		if (d->ref_owner[i] == NO_OWNER)
			continue;
		keys[nr_keys].key = key8(d->found.refs[i].hex);
		keys[nr_keys].ref = (uint32_t)i;
		nr_keys++;
	}
	qsort(keys, nr_keys, sizeof(*keys), cmp_refkey);

	for (i = 0; i < d->nr_known; i++) {
		ALLOC_GROW(queue, nr + 1, alloc);
		memcpy(queue[nr].hex, d->known[i].hex, sizeof(queue[nr].hex));
		queue[nr].patch = d->known[i].patch;
		queue[nr].missing = 0;
		queue[nr].root = d->known[i].patch;
		queue[nr].depth = 0;
		nr++;
	}
	/* a kit entry found in the walk is not missing, and is searched from already */
	for (i = 0; i < d->found.nr_cands; i++) {
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &d->found.cands[i].oid);
		if (kit_entry_of(d, hex))
			d->found.cands[i].reached = 1;
	}
	for (head = 0; head < nr; head++) {
		struct refkey probe = { key8(queue[head].hex), 0 }, *k;
		size_t lo = 0, hi = nr_keys;

		/* the first key >= probe */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (keys[mid].key < probe.key)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (k = keys + lo; k < keys + nr_keys && k->key == probe.key; k++) {
			const struct fixref *r = &d->found.refs[k->ref];
			struct candidate *c = &d->found.cands[d->ref_owner[k->ref]];
			struct pending *p;

			if (c->reached || !hexid_match(r->hex, queue[head].hex))
				continue;
			c->reached = 1;
			add_missing(d, rep, c, r->kind, &queue[head]);
			ALLOC_GROW(queue, nr + 1, alloc);
			p = &queue[nr++];
			git_oid_tostr(p->hex, sizeof(p->hex), &c->oid);
			p->patch = NULL;
			p->missing = rep->nr - 1;
			p->root = queue[head].root;
			p->depth = queue[head].depth + 1;
		}
	}
	free(queue);
	free(keys);
}

/* --- describing what was found ----------------------------------------- */

struct tag_info {
	char *name;
	git_oid commit;
	int64_t time;
};

static int cmp_tag(const void *a, const void *b)
{
	const struct tag_info *x = a, *y = b;

	return tag_version_cmp(x->name, y->name);
}

static int load_tags(struct tag_info **out, size_t *nr, git_repository *repo)
{
	git_strarray names = { NULL, 0 };
	size_t i, alloc = 0;
	int err;

	*out = NULL;
	*nr = 0;
	err = git_tag_list(&names, repo);
	if (err < 0)
		return gitutil_error(err, "cannot list the tags of '%s'", git_repository_path(repo));
	for (i = 0; i < names.count; i++) {
		git_object *obj = NULL, *peeled = NULL;
		char *spec = xstrfmt("refs/tags/%s", names.strings[i]);

		if (!git_revparse_single(&obj, repo, spec) &&
		    !git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT)) {
			struct tag_info *t;

			ALLOC_GROW(*out, *nr + 1, alloc);
			t = &(*out)[(*nr)++];
			t->name = xstrdup(names.strings[i]);
			git_oid_cpy(&t->commit, git_object_id(peeled));
			t->time = git_commit_time((git_commit *)peeled);
		}
		git_object_free(peeled);
		git_object_free(obj);
		free(spec);
	}
	git_strarray_dispose(&names);
	qsort(*out, *nr, sizeof(**out), cmp_tag);
	return 0;
}

/*
 * A tag whose commit is more than this much older than a commit cannot
 * contain it unless the clocks lied badly; skipping those keeps each
 * ancestry check to about one release of history.
 */
#define TAG_CLOCK_SLACK (3 * 86400)

static const char *first_tag(git_repository *repo, const struct tag_info *tags, size_t nr,
			     const struct fixup_missing *m)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (tags[i].time + TAG_CLOCK_SLACK < m->time)
			continue;
		if (git_oid_equal(&tags[i].commit, &m->oid) ||
		    git_graph_descendant_of(repo, &tags[i].commit, &m->oid) == 1)
			return tags[i].name;
	}
	return NULL;
}

static int describe(struct discovery *d, struct fixups_report *rep)
{
	struct tag_info *tags = NULL;
	size_t nr_tags = 0, i;
	int ret;

	if ((ret = load_tags(&tags, &nr_tags, d->repo)))
		return ret;
	for (i = 0; i < rep->nr; i++) {
		struct fixup_missing *m = &rep->missing[i];
		git_odb_object *obj = NULL;
		struct raw_commit c;
		const char *tag;
		int err = git_odb_read(&obj, d->odb, &m->oid);

		if (err < 0) {
			ret = gitutil_error(err, "cannot read commit %s", oid_short(&m->oid));
			break;
		}
		parse_raw_commit(&c, git_odb_object_data(obj), git_odb_object_size(obj));
		m->subject = subject_of(c.msg, c.msg_len);
		m->stable = fixref_stable(d->sc, c.msg, c.msg_len, &m->stable_comment);
		git_odb_object_free(obj);
		tag = first_tag(d->repo, tags, nr_tags, m);
		m->tag = tag ? xstrdup(tag) : NULL;
	}
	for (i = 0; i < nr_tags; i++)
		free(tags[i].name);
	free(tags);
	return ret;
}

static size_t series_index(const struct kit *kit, const struct kit_series *s)
{
	return (size_t)(s - kit->series);
}

/* Sorting would break target_missing indexes: remap them through `order`. */
static void sort_report(const struct kit *kit, struct fixups_report *rep)
{
	size_t *order = xcalloc(rep->nr ? rep->nr : 1, sizeof(*order));
	size_t *where = xcalloc(rep->nr ? rep->nr : 1, sizeof(*where));
	struct fixup_missing *sorted = xcalloc(rep->nr ? rep->nr : 1, sizeof(*sorted));
	size_t i, j;

	for (i = 0; i < rep->nr; i++)
		order[i] = i;
	/* insertion sort: the lists are short, and it is stable */
	for (i = 1; i < rep->nr; i++) {
		size_t v = order[i];
		const struct fixup_missing *a = &rep->missing[v];

		for (j = i; j > 0; j--) {
			const struct fixup_missing *b = &rep->missing[order[j - 1]];
			size_t sa = series_index(kit, a->root->series), sb = series_index(kit, b->root->series);

			if (sb < sa || (sb == sa && (b->depth < a->depth ||
				    (b->depth == a->depth && (b->time < a->time ||
				     (b->time == a->time && b->walk_order >= a->walk_order))))))
				break;
			order[j] = order[j - 1];
		}
		order[j] = v;
	}
	for (i = 0; i < rep->nr; i++)
		where[order[i]] = i;
	for (i = 0; i < rep->nr; i++) {
		sorted[i] = rep->missing[order[i]];
		if (!sorted[i].target)
			sorted[i].target_missing = where[sorted[i].target_missing];
	}
	free(rep->missing);
	rep->missing = sorted;
	rep->alloc = rep->nr ? rep->nr : 1;
	free(order);
	free(where);
}

int fixups_find(struct fixups_report *rep, const struct kit *kit, git_repository *repo,
		const char *ref, const char *since)
{
	struct discovery d = { 0 };
	size_t i, j;
	int err, ret;

	d.kit = kit;
	d.repo = repo;
	err = git_repository_odb(&d.odb, repo);
	if (err < 0)
		return gitutil_error(err, "cannot open the objects of '%s'",
					git_repository_path(repo));
	fixref_scanner_new(&d.sc);
	for (i = 0; i < kit->nr_series; i++) {
		const struct kit_series *s = &kit->series[i];

		for (j = 0; j < s->nr_patches; j++)
			add_known(&d, &s->patches[j]);
		for (j = 0; j < s->nr_fixups; j++)
			add_known(&d, &s->fixups[j]);
	}
	ret = find_candidates(&d, rep, ref, since);
	if (ret)
		goto cleanup;
	rep->candidates = d.found.nr_cands;
	resolve(&d, rep);
	if ((ret = describe(&d, rep)))
		goto cleanup;
	sort_report(kit, rep);
cleanup:
	free(d.known);
	found_release(&d.found);
	free(d.ref_owner);
	fixref_scanner_free(d.sc);
	git_odb_free(d.odb);
	return ret;
}

void fixups_report_release(struct fixups_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nr; i++) {
		free(rep->missing[i].subject);
		free(rep->missing[i].tag);
		free(rep->missing[i].stable_comment);
	}
	free(rep->missing);
	memset(rep, 0, sizeof(*rep));
}
