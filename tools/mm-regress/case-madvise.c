/* case-madvise.c: MADV_DONTNEED or MADV_COLD range by range, madvise() against process_madvise(). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mm-regress.h"

#define MAX_BATCH 1024

/* An advice the sweep applies, as printed and as it starts metric names. */
struct advice {
	int advice;
	const char *name;
	const char *metric;
};

static const struct advice adv_dontneed = { MADV_DONTNEED, "MADV_DONTNEED", "dontneed" };
/*
 * process_madvise() took only COLD and PAGEOUT at first (v5.10), then also
 * WILLNEED and COLLAPSE; a kernel that refuses DONTNEED (6.12 and older)
 * still takes and drops mmap_lock once per range for COLD, in read mode,
 * which is the cost the process_madvise() mmap_lock series removes.
 */
static const struct advice adv_cold = { MADV_COLD, "MADV_COLD", "cold" };

struct sweep {
	unsigned char *p;
	size_t len;		/* scale times the usual region */
	size_t range;		/* bytes per advised range: 4 KiB, or the page size if larger */
	unsigned scale;		/* >= 1; a sweep's time is divided by it */
	int pidfd;
	const struct advice *adv;
};

/* The usual region; metrics are in ns per sweep of this much. */
static size_t usual_len(struct mr_ctx *ctx)
{
	return ctx->quick ? 8 * MiB : 256 * MiB;
}

/* Advising one populated range takes 50 ns at the very least, batched or not. */
#define RANGE_NS 50.0

/* The word populate() puts in range i: never zero, at an offset that moves from range to range. */
static uint64_t populated_word(const struct sweep *s, uint64_t seed, size_t i, size_t *at)
{
	*at = i * s->range + (i * 64) % s->range;
	return mr_word(seed, i) | 1;
}

/* Touch every page with its word. */
static void populate(struct sweep *s, uint64_t seed)
{
	size_t i, at, n = s->len / s->range;

	for (i = 0; i < n; i++) {
		uint64_t w = populated_word(s, seed, i, &at);

		*(uint64_t *)(s->p + at) = w;
	}
}

/* After MADV_DONTNEED a private anonymous page must read as zero, all of it. */
static size_t nonzero_words(const struct sweep *s)
{
	const uint64_t *w = (const uint64_t *)s->p;
	size_t i, n = s->len / 8, bad = 0;

	for (i = 0; i < n; i++)
		if (w[i] && !bad++)
			mr_diag("offset %#zx still holds %#llx after MADV_DONTNEED", i * 8,
				(unsigned long long)w[i]);
	return bad;
}

/*
 * MADV_COLD only moves pages to the inactive list: every range must still
 * hold its populated word and zeroes around it. Returns the wrong words.
 */
static size_t changed_words(const struct sweep *s, uint64_t seed)
{
	const uint64_t *w = (const uint64_t *)s->p;
	size_t i, j, at, n = s->len / s->range, per = s->range / 8, bad = 0;

	for (i = 0; i < n; i++) {
		uint64_t want = populated_word(s, seed, i, &at);

		for (j = i * per; j < (i + 1) * per; j++) {
			uint64_t expect = j * 8 == at ? want : 0;

			if (w[j] != expect && !bad++)
				mr_diag("offset %#zx reads 0x%016llx after %s, expected 0x%016llx", j * 8,
					(unsigned long long)w[j], s->adv->name,
					(unsigned long long)expect);
		}
	}
	return bad;
}

/*
 * MM_REGRESS_COLD_INJECT=1 (for mkseries's own tests): drop one range in
 * the middle of the region after the sweep, as a broken MADV_COLD would,
 * so the check has something to find.
 */
static void inject_loss(const struct sweep *s)
{
	if (getenv("MM_REGRESS_COLD_INJECT"))
		madvise(s->p + (s->len / s->range / 2) * s->range, s->range, MADV_DONTNEED);
}

/*
 * Apply the advice range by range, timed as one interval; batch 0 means
 * madvise(), else process_madvise().
 */
static int sweep_once(struct sweep *s, unsigned batch, uint64_t *ns)
{
	struct iovec iov[MAX_BATCH];
	size_t off = 0;
	uint64_t t = mr_clock_ns();

	while (off < s->len) {
		size_t n, k, done;
		long r;

		if (!batch) {
			if (madvise(s->p + off, s->range, s->adv->advice) < 0)
				return -1;
			off += s->range;
			continue;
		}
		n = (s->len - off) / s->range;
		if (n > batch)
			n = batch;
		for (k = 0; k < n; k++) {
			iov[k].iov_base = s->p + off + k * s->range;
			iov[k].iov_len = s->range;
		}
		r = mr_process_madvise(s->pidfd, iov, n, s->adv->advice);
		if (r <= 0) {
			if (!r)
				errno = EIO;
			return -1;
		}
		/* A short count means the kernel stopped early: go on from there. */
		done = (size_t)r;
		off += done - done % s->range;
		if (done % s->range)
			off += s->range;
	}
	*ns = mr_clock_ns() - t;
	return 0;
}

/*
 * The region: the usual size, or twice that when a sweep of the usual
 * size would be too short for the clock and memory allows. A longer sweep
 * is the only way to a longer interval: several sweeps would need the
 * region populated again between them, outside the timing.
 */
static enum mr_status map_region(struct mr_ctx *ctx, struct sweep *s)
{
	size_t usual = usual_len(ctx);

	s->range = ctx->page > 4 * KiB ? ctx->page : 4 * KiB;
	s->scale = mr_iterations(ctx, RANGE_NS * (usual / s->range), 1, 2);
	s->len = usual * s->scale;
	if (s->scale > 1 && !mr_need_memory(ctx, s->len)) {
		mr_diag("%s: %s; sweeping the usual %zu MiB", ctx->name, ctx->reason, usual / MiB);
		ctx->reason[0] = '\0';
		s->scale = 1;
		s->len = usual;
	}
	if (!mr_need_memory(ctx, s->len))
		return MR_SKIP;
	if (s->scale > 1)
		mr_diag("%s: sweeping %u x %zu MiB for a sweep the clock can time; times are per %zu MiB",
			ctx->name, s->scale, usual / MiB, usual / MiB);
	s->p = mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->p == MAP_FAILED) {
		s->p = NULL;
		return mr_fail(ctx, "mmap of %zu MiB: %s", s->len / MiB, strerror(errno));
	}
	/* 4 KiB zaps of a THP would split it: measure the page-table work alone. */
	madvise(s->p, s->len, MADV_NOHUGEPAGE);
	return MR_PASS;
}

/* The region and room for the samples; sweep_release() undoes it, whatever this returned. */
static enum mr_status sweep_start(struct mr_ctx *ctx, struct sweep *s, struct mr_samples *samples)
{
	enum mr_status st = map_region(ctx, s);

	if (st == MR_PASS && mr_samples_init(samples, ctx->repeat))
		st = mr_fail(ctx, "out of memory");
	return st;
}

static void sweep_release(struct sweep *s, struct mr_samples *samples)
{
	if (s->pidfd >= 0)
		close(s->pidfd);
	if (s->p)
		munmap(s->p, s->len);
	mr_samples_release(samples);
}

/*
 * Populate, sweep, check; `repeat` times for one batch size, into samples
 * (emptied first). DONTNEED must leave zeroes, COLD the data as it was.
 */
static enum mr_status measure(struct mr_ctx *ctx, struct sweep *s, unsigned batch,
			      struct mr_samples *samples)
{
	unsigned i;
	size_t bad;

	mr_samples_reset(samples);
	for (i = 0; i < ctx->repeat; i++) {
		uint64_t seed = mr_mix(ctx->case_seed + batch * 1000 + i);
		uint64_t ns;

		populate(s, seed);
		if (sweep_once(s, batch, &ns))
			return mr_fail(ctx, "%s with batches of %u: %s",
				       batch ? "process_madvise" : "madvise", batch, strerror(errno));
		mr_sample_timed(samples, (double)ns / s->scale, ns);
		if (s->adv == &adv_dontneed) {
			if (nonzero_words(s))
				return mr_fail(ctx, "memory still holds data after MADV_DONTNEED (batch %u)",
					       batch);
			continue;
		}
		inject_loss(s);
		bad = changed_words(s, seed);
		if (bad && batch)
			return mr_fail(ctx, "%s lost data: %zu word(s) changed (process_madvise(), batches of %u)",
				       s->adv->name, bad, batch);
		if (bad)
			return mr_fail(ctx, "%s lost data: %zu word(s) changed (madvise(), one range per call)",
				       s->adv->name, bad);
	}
	return MR_PASS;
}

/* Whether process_madvise() takes the advice for one populated range; errno when not. */
static int accepted(struct sweep *s, const struct advice *adv)
{
	struct iovec one;

	s->p[0] = 1;
	one.iov_base = s->p;
	one.iov_len = s->range;
	return mr_process_madvise(s->pidfd, &one, 1, adv->advice) >= 0;
}

/*
 * DONTNEED when the kernel takes it; COLD when it refuses DONTNEED as an
 * unknown advice (EINVAL), or when MM_REGRESS_FORCE_COLD=1 asks for it.
 */
static enum mr_status choose_advice(struct mr_ctx *ctx, struct sweep *s)
{
	const char *force = getenv("MM_REGRESS_FORCE_COLD");
	char why[96];
	int err;

	if (force && *force && strcmp(force, "0")) {
		snprintf(why, sizeof(why), "MM_REGRESS_FORCE_COLD is set");
	} else if (accepted(s, &adv_dontneed)) {
		s->adv = &adv_dontneed;
		mr_diag("%s: advice MADV_DONTNEED", ctx->name);
		return MR_PASS;
	} else if (errno != EINVAL) {
		return mr_skip(ctx, "process_madvise(MADV_DONTNEED) refused: %s (errno %d)",
			       strerror(errno), errno);
	} else {
		snprintf(why, sizeof(why), "process_madvise(MADV_DONTNEED) refused: %s",
			 strerror(errno));
	}
	if (!accepted(s, &adv_cold)) {
		err = errno;
		return mr_skip(ctx, "%s, and process_madvise(MADV_COLD) too: %s (errno %d)", why,
			       strerror(err), err);
	}
	s->adv = &adv_cold;
	mr_diag("%s: advice MADV_COLD (%s)", ctx->name, why);
	return MR_PASS;
}

/* One metric: the advice, then "madvise" for batch 0 or "batch_N". */
static void batch_metric(struct mr_ctx *ctx, const struct sweep *s, unsigned batch,
			 const struct mr_samples *samples)
{
	char name[32];

	if (batch)
		snprintf(name, sizeof(name), "%s_batch_%u", s->adv->metric, batch);
	else
		snprintf(name, sizeof(name), "%s_madvise", s->adv->metric);
	mr_metric(ctx, name, samples, "ns", 0);
}

enum mr_status case_madvise_dontneed(struct mr_ctx *ctx)
{
	struct sweep s = { NULL, 0, 0, 1, -1, &adv_dontneed };
	struct mr_samples samples = { 0 };
	enum mr_status st;

	st = sweep_start(ctx, &s, &samples);
	if (st != MR_PASS)
		goto cleanup;
	st = measure(ctx, &s, 0, &samples);
	if (st != MR_PASS)
		goto cleanup;
	mr_diag("MADV_DONTNEED over %zu MiB, %zu KiB per madvise() call; memory reads zero after",
		s.len / MiB, s.range / KiB);
	mr_metric(ctx, "dontneed_madvise", &samples, "ns", 0);
cleanup:
	sweep_release(&s, &samples);
	return st;
}

/*
 * The process_madvise() mmap_lock series' benchmark: the same region
 * advised range by range, with batches of 1 to MAX_BATCH ranges per call.
 * With MADV_DONTNEED the madvise() baseline is madvise_dontneed; with the
 * MADV_COLD fallback it is measured here too (cold_madvise).
 */
enum mr_status case_process_madvise_dontneed(struct mr_ctx *ctx)
{
	struct sweep s = { NULL, 0, 0, 1, -1, NULL };
	struct mr_samples samples = { 0 };
	enum mr_status st;
	unsigned batch;

	st = sweep_start(ctx, &s, &samples);
	if (st != MR_PASS)
		goto cleanup;
	s.pidfd = (int)mr_pidfd_open(getpid());
	if (s.pidfd < 0) {
		st = mr_skip(ctx, "pidfd_open: %s", strerror(errno));
		goto cleanup;
	}
	/* Older kernels accept only a few advices here: ask before measuring. */
	st = choose_advice(ctx, &s);
	if (st != MR_PASS)
		goto cleanup;
	if (s.adv == &adv_cold) {
		st = measure(ctx, &s, 0, &samples);
		if (st != MR_PASS)
			goto cleanup;
		batch_metric(ctx, &s, 0, &samples);
	}
	for (batch = 1; batch <= MAX_BATCH; batch *= 2) {
		st = measure(ctx, &s, batch, &samples);
		if (st != MR_PASS)
			goto cleanup;
		batch_metric(ctx, &s, batch, &samples);
	}
	if (s.adv == &adv_dontneed)
		mr_diag("MADV_DONTNEED over %zu MiB in %zu KiB ranges, batches of 1 to %d ranges per call; memory reads zero after each",
			s.len / MiB, s.range / KiB, MAX_BATCH);
	else
		mr_diag("%s over %zu MiB in %zu KiB ranges, one per madvise() call and batches of 1 to %d per process_madvise() call; the data reads back unchanged after each",
			s.adv->name, s.len / MiB, s.range / KiB, MAX_BATCH);
cleanup:
	sweep_release(&s, &samples);
	return st;
}
