/* case-bigheap.c: stress-ng bigheap's realloc calls per second, the calls alone timed and counted, in N workers. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mm-regress.h"

/*
 * stress-ng's bigheap stressor grows one block with realloc() by 64 KiB a
 * call; after each call it writes a word in every page of what is new,
 * or of the whole block when the call moved it; past its limit it frees
 * the block, calls malloc_trim(0) and starts again with malloc(). Its
 * "realloc calls per sec" is the number of calls over the time summed
 * around each call alone (the fresh block's malloc() included), per
 * instance; over its instances it prints their harmonic mean.
 *
 * This case does the same and times the same: the writes stay, since
 * they decide what the caches hold when the next call comes, but only
 * the calls are timed, and a tcg-cache region counts only the calls
 * (resumed before each, paused after it).
 *
 * No mallopt(): glibc's defaults decide where the block lives and when
 * it moves, as they do for stress-ng. A block starts in the brk heap;
 * once it is past the mmap threshold (128 KiB) and the top of the heap
 * cannot take it, glibc copies it into a mapping of its own and from
 * then on grows it with mremap(MREMAP_MAYMOVE), the path of the
 * folio-lookup hotfix, which moves the mapping when the next one is in
 * the way. free() of a mapped block of up to 32 MiB raises the
 * threshold to that block's size, so with a limit of 32 MiB or less
 * every heap after the first would stay in the brk heap, grown by brk()
 * and never mremap()ed. The default limit, 64 MiB, stays above that and
 * every heap takes the mremap() path, as stress-ng's do (it grows until
 * memory runs low); --heap sets another, and the diagnostics count the
 * calls on mapped blocks (one mremap() each) against those in the brk
 * heap, so a run says which path it measured.
 *
 * --instances N forks N workers, each with its own heap, as stress-ng
 * forks N instances. On one CPU they take turns: a token goes round a
 * ring of pipes, and its holder makes one call and its writes, then
 * hands it on; the instances share the caches call by call as parallel
 * ones sharing an LLC would, and no call is ever cut by another
 * worker's, so pausing the region after each call is exact for all.
 * Whoever holds the token past the sample's end sends a stop round
 * instead; a worker that dies closes its pipe ends, and its neighbours
 * read EOF or EPIPE and stop too, so the ring never waits for the dead.
 * One instance runs in the case's own process (under qemu-user a forked
 * worker has a plugin of its own that the case's region never sees).
 * Its heap lives on from sample to sample, as one stress-ng instance's
 * does through its run, and is given back after the last: freeing it at
 * each sample's end, at whatever size it had reached, would raise
 * glibc's mmap threshold to that size (when 32 MiB or less) and send
 * every later heap of the process into the brk heap. Forked workers
 * start each sample afresh from the case's process, whose threshold
 * their heaps never moved.
 *
 * Workers forked alike would move their blocks at the same calls, all
 * together, and a sample's cycles would swing with whether it held
 * those calls. Instances of a long stress-ng run are at every stage of
 * their growth, so worker i starts each sample on a block of i x 256
 * KiB (wrapping at half the limit), allocated and written before its
 * first turn, outside the region and the timing: the ring's moves then
 * fall at different calls, and every sample holds a like mix of them.
 *
 * MM_REGRESS_BIGHEAP_UNPAUSED=1 (a diagnostic aid) leaves out the pause
 * and resume around the calls: the region then counts the writes and
 * the turns too, as realloc_rate's does. MM_REGRESS_BIGHEAP_KILL=I (for
 * mkseries's own tests) has worker I (from 1) kill itself after its
 * first call.
 */

#define BIGHEAP_GROWTH (64 * KiB)
/* Worker i of a ring starts each sample on a block of i x this (within half the limit). */
#define BIGHEAP_STAGGER (4 * BIGHEAP_GROWTH)
#define BIGHEAP_LIMIT (64 * MiB)
/* glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: the dynamic threshold's ceiling. */
#define GLIBC_THRESHOLD_MAX (32 * MiB)

#define TOKEN_GO 'g'
#define TOKEN_STOP 's'

/* One worker's counts, in memory the case shares with its workers. */
struct bigheap_tally {
	unsigned long calls;		/* timed calls: malloc() of a fresh block and realloc() */
	unsigned long mallocs;		/* of which malloc() */
	unsigned long on_mapping;	/* realloc() of a block glibc had mmap()ed: one mremap() each */
	unsigned long moves;		/* realloc() that returned another address */
	unsigned long mremap_moves;	/* of which mremap() moved the mapping (no copy) */
	unsigned long restarts;		/* heaps freed at the limit */
	unsigned long bad;		/* pages that lost their word */
	long first_bad;			/* the first such page, or -1 */
	uint64_t ns;			/* summed time inside the calls */
	int finished;			/* the worker left its loop the normal way */
	char why[160];			/* why it failed, "" if it did not */
};

struct bigheap {
	unsigned char *p;
	size_t size;
	uintptr_t brk_lo;		/* where the brk heap starts */
};

/* Where the brk heap starts: [heap] in /proc/self/maps, or the break itself before there is one. */
static uintptr_t brk_start(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	uintptr_t lo = (uintptr_t)sbrk(0);
	char line[512];

	if (!f)
		return lo;
	while (fgets(line, sizeof(line), f)) {
		unsigned long a;

		if (strstr(line, "[heap]") && sscanf(line, "%lx-", &a) == 1) {
			lo = a;
			break;
		}
	}
	fclose(f);
	return lo;
}

static int in_brk_heap(const struct bigheap *h, const void *p)
{
	return (uintptr_t)p >= h->brk_lo && (uintptr_t)p < (uintptr_t)sbrk(0);
}

/* Check the word of pages [0, n) of the block; counts and remembers what was lost. */
static void check_pages(struct mr_ctx *ctx, const struct bigheap *h, size_t n,
			struct bigheap_tally *t)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (*(const uint64_t *)(h->p + i * ctx->page) == mr_word(ctx->case_seed, i))
			continue;
		if (!t->bad++)
			t->first_bad = (long)i;
	}
}

static void write_pages(struct mr_ctx *ctx, struct bigheap *h, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		*(uint64_t *)(h->p + i * ctx->page) = mr_word(ctx->case_seed, i);
}

/* Check the heap and give it back, as stress-ng does at its limit. */
static void drop_heap(struct mr_ctx *ctx, struct bigheap *h, struct bigheap_tally *t, int trim)
{
	if (h->p)
		check_pages(ctx, h, h->size / ctx->page, t);
	free(h->p);
	if (trim)
		malloc_trim(0);
	h->p = NULL;
	h->size = 0;
}

/*
 * One call and its writes: the call alone timed, and alone counted by
 * the region unless unpaused. Returns 0, or -1 with t->why set.
 */
static int bigheap_step(struct mr_ctx *ctx, struct bigheap *h, struct bigheap_tally *t,
			size_t limit, int unpaused)
{
	size_t pg = ctx->page, old = h->size;
	int mapped = h->p && !in_brk_heap(h, h->p);
	unsigned char *p;
	uint64_t t0, t1;

	if (old + BIGHEAP_GROWTH > limit) {
		drop_heap(ctx, h, t, 1);
		t->restarts++;
		old = 0;
		mapped = 0;
	}
	t0 = mr_clock_ns();
	if (!unpaused)
		mr_region_resume();
	p = h->p ? realloc(h->p, old + BIGHEAP_GROWTH) : malloc(BIGHEAP_GROWTH);
	if (!unpaused)
		mr_region_pause();
	t1 = mr_clock_ns();
	if (!p) {
		snprintf(t->why, sizeof(t->why), "%s to %zu bytes failed: %s",
			 h->p ? "realloc" : "malloc", old + BIGHEAP_GROWTH, strerror(errno));
		return -1;
	}
	t->ns += t1 - t0;
	t->calls++;
	if (!h->p) {
		t->mallocs++;
	} else {
		t->on_mapping += mapped;
		if (p != h->p) {
			t->moves++;
			t->mremap_moves += mapped;
		}
	}
	if (h->p && p != h->p) {
		/* Moved: what was there must have come along; then all of it is written, as stress-ng does. */
		h->p = p;
		check_pages(ctx, h, old / pg, t);
		old = 0;
	}
	h->p = p;
	h->size += BIGHEAP_GROWTH;
	write_pages(ctx, h, old / pg, h->size / pg);
	return 0;
}

/* Worker index's first block, before its first turn (the region is paused): see BIGHEAP_STAGGER. */
static int stagger_heap(struct mr_ctx *ctx, struct bigheap *h, struct bigheap_tally *t,
			unsigned index, size_t limit)
{
	size_t span = limit / 2 / BIGHEAP_STAGGER * BIGHEAP_STAGGER;
	size_t size = span ? index * BIGHEAP_STAGGER % span : 0;

	if (!size)
		return 0;
	h->p = malloc(size);
	if (!h->p) {
		snprintf(t->why, sizeof(t->why), "malloc of a first block of %zu bytes failed: %s", size,
			 strerror(errno));
		return -1;
	}
	h->size = size;
	write_pages(ctx, h, 0, size / ctx->page);
	return 0;
}

/* Read the token; EOF or an error is a stop. */
static char take_token(int fd)
{
	char tok;
	ssize_t n;

	while ((n = read(fd, &tok, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? tok : TOKEN_STOP;
}

static void pass_token(int fd, char tok)
{
	/* EPIPE: the next worker is gone, and with it the ring; ours ends with this turn. */
	while (write(fd, &tok, 1) < 0 && errno == EINTR)
		;
}

/*
 * A worker's loop until the deadline or a stop: with in and out of -1 it
 * runs alone, else one call per turn of the token. Returns 0, or -1 with
 * t->why set.
 */
static int bigheap_worker(struct mr_ctx *ctx, struct bigheap_tally *t, struct bigheap *h,
			  unsigned index, int in, int out, size_t limit, uint64_t end, int unpaused)
{
	const char *kill_at = getenv("MM_REGRESS_BIGHEAP_KILL");
	unsigned victim = kill_at ? (unsigned)strtoul(kill_at, NULL, 10) : 0;
	int ret = 0;

	t->first_bad = -1;
	for (;;) {
		char tok = in < 0 ? TOKEN_GO : take_token(in);

		if (tok == TOKEN_GO && mr_clock_ns() >= end)
			tok = TOKEN_STOP;
		if (tok == TOKEN_GO && bigheap_step(ctx, h, t, limit, unpaused)) {
			tok = TOKEN_STOP;
			ret = -1;
		}
		if (victim == index + 1 && t->calls == 1)
			raise(SIGKILL);
		if (out >= 0)
			pass_token(out, tok);
		if (tok != TOKEN_GO)
			break;
	}
	/* A worker of the ring gives its heap back; the case's own keeps it for the next sample. */
	if (in < 0 && h->p)
		check_pages(ctx, h, h->size / ctx->page, t);
	else
		drop_heap(ctx, h, t, 0);
	t->finished = 1;
	return ret;
}

/* Kill and reap every started worker; pids[i] <= 0 were never started. */
static void reap_all(pid_t *pids, unsigned n, int kill_them, int *status)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		if (kill_them)
			kill(pids[i], SIGKILL);
		while (waitpid(pids[i], &status[i], 0) < 0 && errno == EINTR)
			;
	}
}

/*
 * Fork n workers in a ring of pipes and wait for all of them. Returns 0,
 * or -1 with why set: a worker that failed, died, or could not start.
 */
static int run_ring(struct mr_ctx *ctx, struct bigheap_tally *t, unsigned n, size_t limit,
		    uint64_t end, int unpaused, char *why, size_t len)
{
	int (*fds)[2] = calloc(n, sizeof(*fds));
	pid_t *pids = calloc(n, sizeof(*pids)), parent = getpid();
	int *status = calloc(n, sizeof(*status)), ret = 0, ready[2] = { -1, -1 };
	char tok = TOKEN_GO;
	unsigned i, k, nready = 0;

	if (!fds || !pids || !status) {
		snprintf(why, len, "out of memory");
		ret = -1;
		goto cleanup;
	}
	for (i = 0; i < n; i++)
		fds[i][0] = fds[i][1] = -1;
	for (i = 0; i < n; i++) {
		if (pipe(fds[i]) < 0) {
			snprintf(why, len, "cannot make the ring's pipe %u of %u: %s", i + 1, n,
				 strerror(errno));
			ret = -1;
			goto cleanup;
		}
	}
	/* Each worker says here that its first block is made; the token goes round only then. */
	if (pipe(ready) < 0) {
		snprintf(why, len, "cannot make the ring's start pipe: %s", strerror(errno));
		ret = -1;
		goto cleanup;
	}
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			snprintf(why, len, "cannot fork worker %u of %u: %s", i + 1, n, strerror(errno));
			ret = -1;
			break;
		}
		if (!pids[i]) {
			int in = fds[i][0], out = fds[(i + 1) % n][1];

			/* A case killed by its --timeout takes its workers with it. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(1);
			signal(SIGPIPE, SIG_IGN);
			close(ready[0]);
			for (k = 0; k < n; k++) {
				if (fds[k][0] != in)
					close(fds[k][0]);
				if (fds[k][1] != out)
					close(fds[k][1]);
			}
			/* Never a line of output: the case alone prints, from the tallies. */
			struct bigheap h = { NULL, 0, brk_start() };

			if (stagger_heap(ctx, &h, &t[i], i, limit) || write(ready[1], &tok, 1) != 1)
				_exit(1);
			close(ready[1]);
			_exit(bigheap_worker(ctx, &t[i], &h, i, in, out, limit, end, unpaused) ? 1 : 0);
		}
	}
	/*
	 * The ring is the workers' alone: when one dies, its neighbours see
	 * EOF or EPIPE. The parent keeps only the way in to worker 0, to
	 * hand it the token once every worker is ready (all forked, each
	 * first block made), so that nothing but the turns runs after the
	 * first call; a worker that failed before then stops the ring unstarted.
	 */
	for (k = 0; k < n; k++) {
		close(fds[k][0]);
		if (k || ret < 0)
			close(fds[k][1]);
		fds[k][0] = -1;
		if (k || ret < 0)
			fds[k][1] = -1;
	}
	close(ready[1]);
	ready[1] = -1;
	while (ret == 0 && nready < n) {
		char c;
		ssize_t got = read(ready[0], &c, 1);

		if (got == 1)
			nready++;
		else if (got == 0 || errno != EINTR)
			break;
	}
	if (fds[0][1] >= 0) {
		if (nready == n && write(fds[0][1], &tok, 1) != 1) {
			snprintf(why, len, "cannot start the ring: %s", strerror(errno));
			ret = -1;
		}
		close(fds[0][1]);
		fds[0][1] = -1;
	}
	reap_all(pids, n, ret < 0, status);
	for (i = 0; i < n && !ret; i++) {
		if (pids[i] <= 0)
			continue;
		if (WIFSIGNALED(status[i])) {
			snprintf(why, len, "worker %u of %u was killed by signal %d (%s)", i + 1, n,
				 WTERMSIG(status[i]), strsignal(WTERMSIG(status[i])));
			ret = -1;
		} else if (WEXITSTATUS(status[i]) || !t[i].finished) {
			snprintf(why, len, "worker %u of %u failed: %s", i + 1, n,
				 t[i].why[0] ? t[i].why : "it ended without finishing its loop");
			ret = -1;
		}
	}
	memset(pids, 0, n * sizeof(*pids));
cleanup:
	if (pids)
		reap_all(pids, n, 1, status);
	for (i = 0; fds && i < n; i++) {
		if (fds[i][0] >= 0)
			close(fds[i][0]);
		if (fds[i][1] >= 0)
			close(fds[i][1]);
	}
	if (ready[0] >= 0)
		close(ready[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	free(status);
	free(pids);
	free(fds);
	return ret;
}

/*
 * A sample runs for 0.2 s (quick) or 2 s of the wall clock, longer when
 * the clock needs it, as realloc_rate's do. Its value is stress-ng's:
 * the harmonic mean over the workers of calls over summed in-call time;
 * the turns give every worker the same number of calls, give or take
 * one, so it is also all calls over all in-call time. The clock's
 * resolution is judged against the summed in-call time: each call's own
 * interval is quantised, but the sum of many is not biased by it.
 */
enum mr_status case_bigheap(struct mr_ctx *ctx)
{
	const uint64_t ms = 1000000;
	size_t limit = ctx->heap ? ctx->heap : BIGHEAP_LIMIT;
	unsigned n = ctx->instances ? ctx->instances : 1, s, i;
	uint64_t span = mr_timed_span_ns(ctx, ctx->quick ? 200 * ms : 2000 * ms,
					 ctx->quick ? 1000 * ms : 5000 * ms);
	const char *unpaused_env = getenv("MM_REGRESS_BIGHEAP_UNPAUSED");
	int unpaused = unpaused_env && *unpaused_env && strcmp(unpaused_env, "0");
	struct mr_samples samples = { 0 };
	struct bigheap_tally *t = MAP_FAILED, sum;
	struct bigheap own = { NULL, 0, brk_start() };
	enum mr_status st;

	if (n > MR_MAX_INSTANCES)
		return mr_fail(ctx, "%u instances: more than %u", n, MR_MAX_INSTANCES);
	if (!mr_need_memory(ctx, n * limit))
		return MR_SKIP;
	t = mmap(NULL, n * sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return mr_fail(ctx, "cannot map the workers' tallies: %s", strerror(errno));
	if (mr_samples_init(&samples, ctx->repeat)) {
		st = mr_fail(ctx, "out of memory");
		goto cleanup;
	}
	mr_diag("%u worker(s)%s, each growing a heap by %lu KiB a call up to %zu MiB; glibc's default malloc (no mallopt), malloc_trim(0) at each restart",
		n, n > 1 ? " taking turns, one call each" : " in the case's process",
		BIGHEAP_GROWTH / KiB, limit / MiB);
	if (n > 1)
		mr_diag("worker i (from 0) starts each sample on a block of i x %lu KiB, up to half the limit, made before the first call",
			BIGHEAP_STAGGER / KiB);
	if (limit <= GLIBC_THRESHOLD_MAX)
		mr_diag("a limit of %zu MiB is within glibc's dynamic mmap threshold (up to %lu MiB): heaps after the first grow by brk(), not mremap()",
			limit / MiB, GLIBC_THRESHOLD_MAX / MiB);
	if (unpaused)
		mr_diag("MM_REGRESS_BIGHEAP_UNPAUSED is set: the region counts the writes and the turns, not only the calls");
	for (s = 0; s < ctx->repeat; s++) {
		uint64_t wall = mr_clock_ns(), end = wall + span;
		double inverse = 0;
		char why[256] = "";
		unsigned timed = 0;
		int failed;

		memset(t, 0, n * sizeof(*t));
		/* Opened paused: each call resumes it, in whichever worker. */
		mr_region_start();
		if (!unpaused)
			mr_region_pause();
		if (n == 1)
			failed = bigheap_worker(ctx, &t[0], &own, 0, -1, -1, limit, end, unpaused);
		else
			failed = run_ring(ctx, t, n, limit, end, unpaused, why, sizeof(why));
		memset(&sum, 0, sizeof(sum));
		for (i = 0; i < n; i++) {
			sum.calls += t[i].calls;
			sum.mallocs += t[i].mallocs;
			sum.on_mapping += t[i].on_mapping;
			sum.moves += t[i].moves;
			sum.mremap_moves += t[i].mremap_moves;
			sum.restarts += t[i].restarts;
			sum.bad += t[i].bad;
			sum.ns += t[i].ns;
			if (t[i].calls && t[i].ns) {
				inverse += (t[i].ns / 1e9) / t[i].calls;
				timed++;
			}
		}
		mr_region_end(ctx, sum.calls, "call");
		wall = mr_clock_ns() - wall;
		if (failed) {
			st = mr_fail(ctx, "%s", n == 1 ? t[0].why : why);
			goto cleanup;
		}
		for (i = 0; i < n; i++) {
			if (!t[i].bad)
				continue;
			st = mr_fail(ctx, "worker %u of %u: %lu page(s) lost their data across realloc(), the first page %ld",
				     i + 1, n, t[i].bad, t[i].first_bad);
			goto cleanup;
		}
		mr_sample_timed(&samples, inverse > 0 ? timed / inverse : 0, sum.ns);
		mr_diag("sample %u: %lu calls by %u worker(s) in %.3f s of calls (%.3f s in all), %lu restarts at %zu MiB",
			s + 1, sum.calls, n, sum.ns / 1e9, wall / 1e9, sum.restarts, limit / MiB);
		mr_diag("sample %u: %lu malloc() of a fresh block, %lu realloc() of a mapped block (mremap), %lu in the brk heap; %lu moved the block, %lu of them by mremap()",
			s + 1, sum.mallocs, sum.on_mapping, sum.calls - sum.mallocs - sum.on_mapping,
			sum.moves, sum.mremap_moves);
		if (n > 1) {
			for (i = 0; i < n; i++)
				mr_diag("sample %u: worker %u: %lu calls in %.3f s, %lu moved the block",
					s + 1, i + 1, t[i].calls, t[i].ns / 1e9, t[i].moves);
		}
	}
	mr_metric(ctx, "calls_per_sec", &samples, "calls/s", 1);
	st = MR_PASS;
cleanup:
	free(own.p);
	munmap(t, n * sizeof(*t));
	mr_samples_release(&samples);
	return st;
}
