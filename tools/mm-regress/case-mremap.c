/* case-mremap.c: mremap() moves at PTE, PMD and PUD level, unaligned moves, PUD timing, cache colours. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mm-regress.h"

#define PMD_SZ (2 * MiB)
#define PUD_SZ GiB

/* One move: where the source and destination sit relative to an alignment, and what to fill. */
struct move_spec {
	const char *what;
	size_t len;
	size_t align;		/* both ends are aligned to this ... */
	size_t src_off;		/* ... plus these offsets */
	size_t dst_off;
	size_t stride;		/* fill `chunk` bytes every `stride`; 0 fills everything */
	size_t chunk;
	int map_flags;		/* extra mmap flags for the source */
	int nohuge;		/* keep THP out, so page tables are moved */
};

/*
 * Map, fill, move with MREMAP_FIXED, then check that the data came along
 * and the source is gone. Returns 0, or -1 after printing why.
 */
static int move_and_check(struct mr_ctx *ctx, const struct move_spec *s, uint64_t seed)
{
	struct mr_resv rs = { 0 }, rd = { 0 };
	size_t stride = s->stride ? s->stride : s->len;
	size_t chunk = s->stride ? s->chunk : s->len;
	unsigned char *src, *dst;
	uint64_t t;
	int ret = -1;

	src = mr_reserve(&rs, s->len, s->align, s->src_off);
	dst = mr_reserve(&rd, s->len, s->align, s->dst_off);
	if (!src || !dst) {
		mr_diag("%s: cannot reserve %zu bytes: %s", s->what, s->len, strerror(errno));
		goto cleanup;
	}
	if (!mr_map_at(src, s->len, s->map_flags)) {
		mr_diag("%s: mmap of %zu bytes: %s", s->what, s->len, strerror(errno));
		goto cleanup;
	}
	if (s->nohuge)
		madvise(src, s->len, MADV_NOHUGEPAGE);
	mr_fill(src, s->len, stride, chunk, seed);
	t = mr_clock_ns();
	if (mr_move(src, s->len, dst)) {
		mr_diag("%s: mremap %p -> %p (%zu bytes): %s", s->what, (void *)src, (void *)dst,
			s->len, strerror(errno));
		goto cleanup;
	}
	t = mr_clock_ns() - t;
	if (!mr_unmapped(src, s->len)) {
		mr_diag("%s: the source %p is still mapped after the move", s->what, (void *)src);
		goto cleanup;
	}
	if (mr_check(dst, s->len, stride, chunk, seed, s->what))
		goto cleanup;
	/* One move is often below what the clock can tell apart from nothing. */
	if (mr_resolved(ctx, t))
		mr_diag("%s: %zu bytes %p -> %p in %.1f us, data intact", s->what, s->len,
			(void *)src, (void *)dst, t / 1e3);
	else
		mr_diag("%s: %zu bytes %p -> %p, data intact (too quick for the clock to time)",
			s->what, s->len, (void *)src, (void *)dst);
	ret = 0;
cleanup:
	mr_unreserve(&rd);
	mr_unreserve(&rs);
	return ret;
}

static enum mr_status run_specs(struct mr_ctx *ctx, const struct move_spec *specs, size_t nr)
{
	size_t i, failed = 0;

	for (i = 0; i < nr; i++)
		failed += move_and_check(ctx, &specs[i], mr_mix(ctx->case_seed + i)) != 0;
	if (failed)
		return mr_fail(ctx, "%zu of %zu moves failed", failed, nr);
	return MR_PASS;
}

enum mr_status case_mremap_pte(struct mr_ctx *ctx)
{
	size_t pg = ctx->page;
	const struct move_spec specs[] = {
		{ "1 page", pg, PMD_SZ, 0, 0, 0, 0, 0, 1 },
		{ "2 pages", 2 * pg, PMD_SZ, 0, 0, 0, 0, 0, 1 },
		{ "16 pages", 16 * pg, PMD_SZ, 0, 0, 0, 0, 0, 1 },
		{ "511 pages", 511 * pg, PMD_SZ, 0, 0, 0, 0, 0, 1 },
		{ "16 pages, other offsets", 16 * pg, PMD_SZ, 5 * pg, 100 * pg, 0, 0, 0, 1 },
	};

	return run_specs(ctx, specs, sizeof(specs) / sizeof(specs[0]));
}

enum mr_status case_mremap_pmd(struct mr_ctx *ctx)
{
	const struct move_spec specs[] = {
		{ "2 MiB, PMD-aligned", PMD_SZ, PMD_SZ, 0, 0, 0, 0, 0, 1 },
		{ "8 MiB, PMD-aligned", 4 * PMD_SZ, PMD_SZ, 0, 0, 0, 0, 0, 1 },
		{ "128 MiB, PMD-aligned", 64 * PMD_SZ, PMD_SZ, 0, 0, 0, 0, 0, 1 },
	};
	size_t nr = sizeof(specs) / sizeof(specs[0]);

	if (ctx->quick)
		nr--;
	if (!ctx->quick && !mr_need_memory(ctx, 64 * PMD_SZ))
		return MR_SKIP;
	return run_specs(ctx, specs, nr);
}

enum mr_status case_mremap_pud(struct mr_ctx *ctx)
{
	struct move_spec spec = { "1 GiB, PUD-aligned", PUD_SZ, PUD_SZ, 0, 0, 0, 0, 0, 1 };

	if (sizeof(void *) < 8)
		return mr_skip(ctx, "needs a 64-bit address space");
	if (ctx->quick) {
		/* One page in every 2 MiB still gives the move 512 page tables to carry. */
		spec.what = "1 GiB, PUD-aligned, one page per 2 MiB";
		spec.stride = PMD_SZ;
		spec.chunk = ctx->page;
		spec.map_flags = MAP_NORESERVE;
	} else if (!mr_need_memory(ctx, PUD_SZ)) {
		return MR_SKIP;
	}
	return run_specs(ctx, &spec, 1);
}

enum mr_status case_mremap_unaligned(struct mr_ctx *ctx)
{
	size_t pg = ctx->page;
	/* THP is left as the system has it: a huge PMD may have to be split here. */
	const struct move_spec specs[] = {
		{ "2 MiB, source 1 page past a PMD", PMD_SZ, PMD_SZ, pg, 0, 0, 0, 0, 0 },
		{ "2 MiB, destination 1 page past a PMD", PMD_SZ, PMD_SZ, 0, pg, 0, 0, 0, 0 },
		{ "4 MiB + 5 pages, source +3 and destination +7 pages", 2 * PMD_SZ + 5 * pg,
		  PMD_SZ, 3 * pg, 7 * pg, 0, 0, 0, 0 },
		{ "2 MiB + 1 page, both PMD-aligned", PMD_SZ + pg, PMD_SZ, 0, 0, 0, 0, 0, 0 },
		{ "2 pages across a PMD boundary", 2 * pg, PMD_SZ, PMD_SZ - pg, pg, 0, 0, 0, 0 },
		{ "1 MiB, PMD-aligned source, destination half a PMD in", PMD_SZ / 2, PMD_SZ, 0,
		  PMD_SZ / 2, 0, 0, 0, 0 },
	};

	return run_specs(ctx, specs, sizeof(specs) / sizeof(specs[0]));
}

/*
 * Move a 1 GiB region back and forth between two slots, in blocks of
 * `iters` moves, until the interval spans `span_ns`; one interval per
 * sample (in us per move). With one page in every 2 MiB, a PUD-level
 * move carries one entry where a PMD-level one carries 512: the series'
 * claimed speed-up. The span keeps a timer tick (4 ms at HZ=250) from
 * weighing on a sample: a few dozen microseconds of moves would take
 * the tick's whole cost or none of it, and move by percents from run to
 * run even under instruction-paced time.
 */
static int time_moves(struct mr_ctx *ctx, const char *what, size_t offset,
		      struct mr_samples *out, unsigned iters, uint64_t span_ns)
{
	struct mr_resv r = { 0 };
	unsigned char *a, *b, *cur;
	uint64_t seed = mr_mix(ctx->case_seed + offset);
	unsigned s, i, moves;
	int ret = -1;

	a = mr_reserve(&r, 2 * PUD_SZ, PUD_SZ, offset);
	if (!a) {
		mr_diag("%s: cannot reserve 2 GiB: %s", what, strerror(errno));
		return -1;
	}
	b = a + PUD_SZ;
	if (!mr_map_at(a, PUD_SZ, MAP_NORESERVE)) {
		mr_diag("%s: mmap 1 GiB: %s", what, strerror(errno));
		goto cleanup;
	}
	madvise(a, PUD_SZ, MADV_NOHUGEPAGE);
	mr_fill(a, PUD_SZ, PMD_SZ, ctx->page, seed);
	cur = a;
	for (s = 0; s < ctx->repeat; s++) {
		uint64_t start = mr_clock_ns(), t = 0;

		for (moves = 0; !moves || t < span_ns; moves += iters) {
			for (i = 0; i < iters; i++) {
				unsigned char *to = cur == a ? b : a;

				if (mr_move(cur, PUD_SZ, to)) {
					mr_diag("%s: mremap %p -> %p: %s", what, (void *)cur,
						(void *)to, strerror(errno));
					goto cleanup;
				}
				cur = to;
			}
			t = mr_clock_ns() - start;
		}
		mr_sample_timed(out, t / 1e3 / moves, t);
	}
	if (mr_check(cur, PUD_SZ, PMD_SZ, ctx->page, seed, what))
		goto cleanup;
	ret = 0;
cleanup:
	mr_unreserve(&r);
	return ret;
}

/*
 * The least a move can take, to size the batches from the clock's
 * resolution: a PUD-level move is a syscall, one entry and a TLB flush,
 * a microsecond at the very least (a few under an instruction-paced
 * 1 GHz guest); a PMD-level one carries 512 entries, ten times that.
 */
#define PUD_MOVE_NS 1000.0
#define PMD_MOVE_NS 10000.0

enum mr_status case_mremap_pud_time(struct mr_ctx *ctx)
{
	unsigned min = ctx->quick ? 4 : 32, max = ctx->quick ? 256 : 2048;
	unsigned pud_iters = mr_iterations(ctx, PUD_MOVE_NS, min, max);
	unsigned pmd_iters = mr_iterations(ctx, PMD_MOVE_NS, min, max);
	/* At least five ticks at HZ=250 a sample; a coarse clock asks for more. */
	uint64_t span = mr_timed_span_ns(ctx, (ctx->quick ? 20 : 100) * 1000000ULL,
					 (ctx->quick ? 1000 : 5000) * 1000000ULL);
	struct mr_samples pud = { 0 }, pmd = { 0 }, ratio = { 0 };
	enum mr_status st;

	if (sizeof(void *) < 8)
		return mr_skip(ctx, "needs a 64-bit address space");
	/*
	 * The layouts are 2 MiB PMDs under 1 GiB PUDs, the geometry of 4 KiB
	 * pages (x86_64, arm64 4K); with other page sizes (sparc64's 8 KiB:
	 * 8 MiB PMDs, 8 GiB PUDs) neither move is at the level it names.
	 */
	if (ctx->page != 4096)
		return mr_skip(ctx, "times 2 MiB PMD and 1 GiB PUD moves, the page table geometry of 4 KiB pages; this kernel has %zu-byte pages",
			       ctx->page);
	/* Both layouts together touch 1024 pages and as many page tables. */
	if (!mr_need_memory(ctx, 8 * MiB))
		return MR_SKIP;
	if (mr_samples_init(&pud, ctx->repeat) || mr_samples_init(&pmd, ctx->repeat) ||
	    mr_samples_init(&ratio, ctx->repeat)) {
		st = mr_fail(ctx, "out of memory");
		goto cleanup;
	}
	if (time_moves(ctx, "1 GiB, PUD-aligned", 0, &pud, pud_iters, span) ||
	    time_moves(ctx, "1 GiB, PMD-aligned only", PMD_SZ, &pmd, pmd_iters, span)) {
		st = mr_fail(ctx, "a timed move failed");
		goto cleanup;
	}
	mr_samples_ratio(&ratio, &pmd, &pud);
	mr_diag("each sample is the mean of as many 1 GiB moves (one page per 2 MiB), in blocks of %u PUD-aligned or %u PMD-aligned, as fill %.0f ms",
		pud_iters, pmd_iters, span / 1e6);
	mr_metric(ctx, "move_1g_pud_aligned", &pud, "us", 0);
	mr_metric(ctx, "move_1g_pmd_aligned", &pmd, "us", 0);
	mr_metric(ctx, "pud_speedup", &ratio, "x", 1);
	st = MR_PASS;
cleanup:
	mr_samples_release(&ratio);
	mr_samples_release(&pmd);
	mr_samples_release(&pud);
	return st;
}

/*
 * Cache colours: on an aliasing, virtually indexed D-cache (sparc64's
 * Spitfire and Cheetah) a page moved to an address of another colour
 * must be flushed, or reads through the new address see stale lines.
 * Moves by every page offset inside a 16-page span change the colour on
 * any such cache; a fresh pattern is written before each move.
 */
#define COLOUR_SPAN 16
/* A fill, a move and a check of 32 pages or more: never under 10 us. */
#define COLOUR_MOVE_NS 10000.0

enum mr_status case_cache_colour(struct mr_ctx *ctx)
{
	size_t pg = ctx->page, npages = ctx->quick ? 32 : 256;
	size_t len = npages * pg, slot = len + 2 * COLOUR_SPAN * pg, stale = 0;
	unsigned rounds, r, moves = 0;
	struct mr_resv res = { 0 };
	struct mr_samples samples = { 0 };
	unsigned char *base, *cur;
	uint64_t t;
	enum mr_status st;
	size_t k, cur_colour = 0;
	int side = 0;

	/* A round is COLOUR_SPAN - 1 moves; a sample times whole rounds. */
	rounds = mr_iterations(ctx, (COLOUR_SPAN - 1) * COLOUR_MOVE_NS, ctx->quick ? 1 : 8,
			       ctx->quick ? 16 : 64);
	base = mr_reserve(&res, 2 * slot, COLOUR_SPAN * pg, 0);
	if (mr_samples_init(&samples, ctx->repeat) || !base) {
		st = mr_fail(ctx, "cannot reserve %zu bytes: %s", 2 * slot, strerror(errno));
		goto cleanup;
	}
	cur = mr_map_at(base, len, 0);
	if (!cur) {
		st = mr_fail(ctx, "mmap: %s", strerror(errno));
		goto cleanup;
	}
	for (unsigned s = 0; s < ctx->repeat; s++) {
		t = mr_clock_ns();
		for (r = 0; r < rounds; r++) {
			for (k = 1; k < COLOUR_SPAN; k++) {
				/* Shift the colour by k pages: every shift from 1 to 15 is done. */
				size_t colour = (cur_colour + k) % COLOUR_SPAN;
				unsigned char *to = base + (side ? 0 : slot) + colour * pg;
				uint64_t seed = mr_mix(ctx->case_seed + moves);

				mr_fill(cur, len, len, len, seed);
				if (mr_move(cur, len, to)) {
					st = mr_fail(ctx, "mremap %p -> %p: %s", (void *)cur,
						     (void *)to, strerror(errno));
					goto cleanup;
				}
				mr_rereserve(cur, len);
				cur = to;
				cur_colour = colour;
				side = !side;
				moves++;
				stale += mr_check(cur, len, len, len, seed, "after a colour change");
			}
		}
		t = mr_clock_ns() - t;
		mr_sample_timed(&samples, t / 1e3 / (rounds * (COLOUR_SPAN - 1)), t);
	}
	mr_diag("%u moves of %zu pages by 1..%d pages; %zu stale words", moves, npages,
		COLOUR_SPAN - 1, stale);
	mr_metric(ctx, "fill_move_check", &samples, "us", 0);
	if (stale)
		st = mr_fail(ctx, "%zu stale words after moves between cache colours", stale);
	else
		st = MR_PASS;
cleanup:
	mr_unreserve(&res);
	mr_samples_release(&samples);
	return st;
}
