/* case-perf.c: the mremap loop of the PTE batching series and stress-ng bigheap's realloc rate. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm-regress.h"

/* An iteration faults in and clears 1 MiB (256 faults): never under 20 us. */
#define PTE_LOOP_NS 20000.0

/*
 * The cover letter's loop: map 1 MiB, memset it, move it right behind
 * itself with MREMAP_FIXED, unmap it. A reservation keeps the two slots
 * ours between iterations instead of a hard-coded address. A sample times
 * all its iterations as one interval.
 */
enum mr_status case_mremap_pte_loop(struct mr_ctx *ctx)
{
	const size_t size = MiB;
	unsigned iters, i, s;
	struct mr_resv res = { 0 };
	struct mr_samples samples = { 0 };
	unsigned char *a, *b;
	enum mr_status st;

	iters = mr_iterations(ctx, PTE_LOOP_NS, ctx->quick ? 100 : 10000,
			      ctx->quick ? 400 : 10000);
	a = mr_reserve(&res, 2 * size, 2 * MiB, 0);
	if (mr_samples_init(&samples, ctx->repeat) || !a) {
		st = mr_fail(ctx, "cannot reserve %zu bytes: %s", 2 * size, strerror(errno));
		goto cleanup;
	}
	b = a + size;
	for (s = 0; s < ctx->repeat; s++) {
		uint64_t t = mr_clock_ns();

		mr_region_start();
		for (i = 0; i < iters; i++) {
			if (!mr_map_at(a, size, 0)) {
				st = mr_fail(ctx, "iteration %u: mmap: %s", i, strerror(errno));
				goto cleanup;
			}
			memset(a, 0xaa, size);
			if (mr_move(a, size, b)) {
				st = mr_fail(ctx, "iteration %u: mremap: %s", i, strerror(errno));
				goto cleanup;
			}
			if (b[0] != 0xaa || b[size / 2] != 0xaa || b[size - 1] != 0xaa) {
				st = mr_fail(ctx, "iteration %u: moved data lost", i);
				goto cleanup;
			}
			munmap(b, size);
		}
		mr_region_end(ctx, iters, "iteration");
		t = mr_clock_ns() - t;
		mr_sample_timed(&samples, t / 1e3 / iters, t);
	}
	mr_diag("%u iterations of mmap, memset, mremap and munmap of %zu KiB per sample", iters,
		size / KiB);
	mr_metric(ctx, "us_per_iteration", &samples, "us", 0);
	st = MR_PASS;
cleanup:
	mr_unreserve(&res);
	mr_samples_release(&samples);
	return st;
}

/*
 * Grow a heap with realloc() in 64 KiB steps, touching each new page, as
 * stress-ng's bigheap stressor does; start over at the limit. A fixed
 * mmap threshold keeps every block mmap()ed, so glibc grows it with
 * mremap(MREMAP_MAYMOVE): the path the folio-lookup hotfix sped back up.
 * Each page carries a word that must survive every move.
 */
struct heap_run {
	unsigned long calls;
	unsigned long moves;
	unsigned long restarts;
	size_t bad;
};

static int grow_heap(struct mr_ctx *ctx, struct heap_run *h, size_t limit, size_t growth,
		     uint64_t end)
{
	size_t pg = ctx->page, size = 0, i;
	unsigned char *heap = NULL;

	for (;;) {
		size_t old = size;
		unsigned char *p;

		if (size + growth > limit || mr_clock_ns() >= end) {
			for (i = 0; i < size / pg; i++)
				if (*(uint64_t *)(heap + i * pg) != mr_word(ctx->case_seed, i) && !h->bad++)
					mr_diag("page %zu of the heap lost its word", i);
			free(heap);
			heap = NULL;
			size = 0;
			h->restarts++;
			if (mr_clock_ns() >= end)
				break;
			continue;
		}
		size += growth;
		p = realloc(heap, size);
		h->calls++;
		if (!p) {
			mr_diag("realloc to %zu bytes failed", size);
			free(heap);
			return -1;
		}
		h->moves += heap && p != heap;
		heap = p;
		for (i = old / pg; i < size / pg; i++)
			*(uint64_t *)(heap + i * pg) = mr_word(ctx->case_seed, i);
	}
	return 0;
}

/*
 * A sample runs for 0.2 s (quick) or 2 s, longer when the clock needs it
 * to span MR_MIN_TICKS resolutions, up to 1 s or 5 s.
 */
enum mr_status case_realloc_rate(struct mr_ctx *ctx)
{
	const uint64_t ms = 1000000;
	size_t limit = ctx->heap ? ctx->heap : ctx->quick ? 8 * MiB : 64 * MiB, growth = 64 * KiB;
	uint64_t span = mr_timed_span_ns(ctx, ctx->quick ? 200 * ms : 2000 * ms,
					 ctx->quick ? 1000 * ms : 5000 * ms);
	struct mr_samples samples = { 0 };
	struct heap_run h;
	enum mr_status st;
	unsigned s;

	if (!mr_need_memory(ctx, limit))
		return MR_SKIP;
	if (!mallopt(M_MMAP_THRESHOLD, (int)growth))
		return mr_fail(ctx, "mallopt(M_MMAP_THRESHOLD) refused");
	if (mr_samples_init(&samples, ctx->repeat))
		return mr_fail(ctx, "out of memory");
	for (s = 0; s < ctx->repeat; s++) {
		uint64_t t = mr_clock_ns();

		memset(&h, 0, sizeof(h));
		mr_region_start();
		if (grow_heap(ctx, &h, limit, growth, t + span)) {
			st = mr_fail(ctx, "realloc failed");
			goto cleanup;
		}
		mr_region_end(ctx, h.calls, "call");
		if (h.bad) {
			st = mr_fail(ctx, "%zu pages lost their data across realloc()", h.bad);
			goto cleanup;
		}
		t = mr_clock_ns() - t;
		mr_sample_timed(&samples, t ? h.calls / (t / 1e9) : 0, t);
		mr_diag("sample %u: %lu realloc calls in %.3f s, %lu moved the block, %lu heaps of up to %zu MiB",
			s + 1, h.calls, t / 1e9, h.moves, h.restarts, limit / MiB);
	}
	mr_metric(ctx, "calls_per_sec", &samples, "calls/s", 1);
	st = MR_PASS;
cleanup:
	mr_samples_release(&samples);
	return st;
}
