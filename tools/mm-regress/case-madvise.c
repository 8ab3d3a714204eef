/* case-madvise.c: MADV_DONTNEED one page at a time, with madvise() and with batched process_madvise(). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "mm-regress.h"

#define MAX_BATCH 1024

struct sweep {
	unsigned char *p;
	size_t len;
	size_t range;		/* bytes per advised range: 4 KiB, or the page size if larger */
	int pidfd;
};

static size_t region_len(struct mr_ctx *ctx)
{
	return ctx->quick ? 8 * MiB : 256 * MiB;
}

/* Touch every page with a word that is never zero, at an offset that moves from page to page. */
static void populate(struct sweep *s, uint64_t seed)
{
	size_t i, n = s->len / s->range;

	for (i = 0; i < n; i++)
		*(uint64_t *)(s->p + i * s->range + (i * 64) % s->range) = mr_word(seed, i) | 1;
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

/* Apply MADV_DONTNEED range by range; batch 0 means madvise(), else process_madvise(). */
static int sweep_once(struct sweep *s, unsigned batch, double *ns)
{
	struct iovec iov[MAX_BATCH];
	size_t off = 0;
	double t = mr_now();

	while (off < s->len) {
		size_t n, k, done;
		long r;

		if (!batch) {
			if (madvise(s->p + off, s->range, MADV_DONTNEED) < 0)
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
		r = mr_process_madvise(s->pidfd, iov, n, MADV_DONTNEED);
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
	*ns = (mr_now() - t) * 1e9;
	return 0;
}

static enum mr_status map_region(struct mr_ctx *ctx, struct sweep *s)
{
	s->len = region_len(ctx);
	s->range = ctx->page > 4 * KiB ? ctx->page : 4 * KiB;
	if (!mr_need_memory(ctx, s->len))
		return MR_SKIP;
	s->p = mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->p == MAP_FAILED) {
		s->p = NULL;
		return mr_fail(ctx, "mmap of %zu MiB: %s", s->len / MiB, strerror(errno));
	}
	/* 4 KiB zaps of a THP would split it: measure the page-table work alone. */
	madvise(s->p, s->len, MADV_NOHUGEPAGE);
	return MR_PASS;
}

/* Populate, sweep, check zeroes; `repeat` times for one batch size. */
static enum mr_status measure(struct mr_ctx *ctx, struct sweep *s, unsigned batch, double *samples)
{
	unsigned i;

	for (i = 0; i < ctx->repeat; i++) {
		populate(s, mr_mix(ctx->case_seed + batch * 1000 + i));
		if (sweep_once(s, batch, &samples[i]))
			return mr_fail(ctx, "%s with batches of %u: %s",
				       batch ? "process_madvise" : "madvise", batch, strerror(errno));
		if (nonzero_words(s))
			return mr_fail(ctx, "memory still holds data after MADV_DONTNEED (batch %u)",
				       batch);
	}
	return MR_PASS;
}

enum mr_status case_madvise_dontneed(struct mr_ctx *ctx)
{
	struct sweep s = { NULL, 0, 0, -1 };
	double *samples = NULL;
	enum mr_status st;

	st = map_region(ctx, &s);
	if (st != MR_PASS)
		goto cleanup;
	samples = calloc(ctx->repeat, sizeof(*samples));
	if (!samples) {
		st = mr_fail(ctx, "out of memory");
		goto cleanup;
	}
	st = measure(ctx, &s, 0, samples);
	if (st != MR_PASS)
		goto cleanup;
	mr_diag("MADV_DONTNEED over %zu MiB, %zu KiB per madvise() call; memory reads zero after",
		s.len / MiB, s.range / KiB);
	mr_metric(ctx, "dontneed_madvise", samples, ctx->repeat, "ns", 0);
cleanup:
	if (s.p)
		munmap(s.p, s.len);
	free(samples);
	return st;
}

enum mr_status case_process_madvise_dontneed(struct mr_ctx *ctx)
{
	struct sweep s = { NULL, 0, 0, -1 };
	double *samples = NULL;
	struct iovec one;
	enum mr_status st;
	unsigned batch;
	char name[32];

	st = map_region(ctx, &s);
	if (st != MR_PASS)
		goto cleanup;
	samples = calloc(ctx->repeat, sizeof(*samples));
	if (!samples) {
		st = mr_fail(ctx, "out of memory");
		goto cleanup;
	}
	s.pidfd = (int)mr_pidfd_open(getpid());
	if (s.pidfd < 0) {
		st = mr_skip(ctx, "pidfd_open: %s", strerror(errno));
		goto cleanup;
	}
	/* Older kernels accept only a few advices here: ask once before measuring. */
	s.p[0] = 1;
	one.iov_base = s.p;
	one.iov_len = s.range;
	if (mr_process_madvise(s.pidfd, &one, 1, MADV_DONTNEED) < 0) {
		st = mr_skip(ctx, "process_madvise(MADV_DONTNEED) refused: %s (errno %d)",
			     strerror(errno), errno);
		goto cleanup;
	}
	for (batch = 1; batch <= MAX_BATCH; batch *= 2) {
		st = measure(ctx, &s, batch, samples);
		if (st != MR_PASS)
			goto cleanup;
		snprintf(name, sizeof(name), "dontneed_batch_%u", batch);
		mr_metric(ctx, name, samples, ctx->repeat, "ns", 0);
	}
	mr_diag("MADV_DONTNEED over %zu MiB in %zu KiB ranges, batches of 1 to %d ranges per call; memory reads zero after each",
		s.len / MiB, s.range / KiB, MAX_BATCH);
cleanup:
	if (s.pidfd >= 0)
		close(s.pidfd);
	if (s.p)
		munmap(s.p, s.len);
	free(samples);
	return st;
}
