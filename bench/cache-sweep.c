/* bench/cache-sweep.c: a pointer chase and a strided walk over working sets of 16 KiB to 256 MiB, timed natively and marked for tcg-cache. */
/*
 * Built and run by bench/cache-sweep.sh, natively and under qemu-user
 * with the tcg-cache plugin, to hold modelled cycles against this
 * machine's time. By hand, x86-64 only (the markers are x86-64 no-ops):
 *
 *   cc -O2 -static -Itools/tcg-cache -o build/cache-sweep bench/cache-sweep.c
 *   build/cache-sweep [--huge] [--accesses N] [--min BYTES] [--max BYTES]
 *   build/cache-sweep --check [--min BYTES] [--max BYTES]
 *   build/cache-sweep --clock
 *
 * For each working set (powers of two from --min to --max), two kernels,
 * each over one buffer of 64-byte lines:
 *
 *   chase: each line holds the address of the next in one random cycle
 *          through all the set's lines (Sattolo's shuffle, from a fixed
 *          seed: the native and the emulated run walk the same order), so
 *          every load depends on the last and no prefetcher can guess it;
 *   walk:  a load from every line in address order, the loads independent
 *          of each other, as a streaming loop is.
 *
 * Each kernel goes once through the whole set (the warm-up), then makes
 * N more accesses (default 2^21, a multiple of 65,536; the chase goes on
 * round its cycle, the walk round the set) between a start and an end
 * marker, timed in chunks with clock_gettime(CLOCK_MONOTONIC) (see
 * region()). One line goes out per kernel and size, in the order of the
 * plugin's regions (line k is region k): the median chunk's ns an
 * access, the fastest chunk's, and the whole region's:
 *
 *   chase 16384 accesses=2097152 ns_per_access=1.3500 min=1.3360 whole=1.4198
 *
 * --check builds each chase and follows it, checking that it visits
 * every line of its set once and comes back to the first; it prints
 * "ok chase BYTES lines=L" per size or says what is wrong and exits 1.
 * --clock times a chain of dependent adds (one cycle each on any x86-64
 * core of the last twenty years) and prints the core's clock in GHz, for
 * machines that give no cycle counter (a VM without perf's cycles).
 *
 * Pages are kept at 4 KiB (MADV_NOHUGEPAGE), as the plugin models user
 * pages, so that the native TLB sees what the model's does; --huge asks
 * for transparent huge pages instead (MADV_HUGEPAGE), to tell on the
 * machine what the caches cost from what address translation does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "marker.h"
#include "size.h"

#define LINE 64
#define SEED 0x6d6b7365726965ull	/* "mkserie": the same permutation every run */

struct line {
	struct line *next;
	char pad[LINE - sizeof(struct line *)];
};

static uint64_t rng_state;

/* splitmix64: small, and the same sequence on every machine and emulator. */
static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * Links buf's first `lines` lines into one random cycle (Sattolo's
 * algorithm makes a cyclic permutation: every line is on it). Reseeded
 * per size, so a size's order does not depend on which sizes ran before.
 * Returns 0, or -1 when the index array cannot be had.
 */
static int chase_init(struct line *buf, size_t lines)
{
	uint32_t *order = malloc(lines * sizeof(*order));
	size_t i;

	if (!order)
		return -1;
	for (i = 0; i < lines; i++)
		order[i] = i;
	rng_state = SEED ^ lines;
	for (i = lines - 1; i > 0; i--) {
		size_t j = rng_next() % i;
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < lines; i++)
		buf[order[i]].next = &buf[order[(i + 1) % lines]];
	free(order);
	return 0;
}

/* n dependent loads from p on; n is a multiple of 8. Not inlined, so the region holds just this loop. */
static __attribute__((noinline)) struct line *chase(struct line *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 8) {
		p = p->next; p = p->next; p = p->next; p = p->next;
		p = p->next; p = p->next; p = p->next; p = p->next;
	}
	return p;
}

/* One load from each of buf's first n lines (n a multiple of 8), independent of each other. */
static __attribute__((noinline)) uintptr_t walk_lines(const struct line *buf, size_t n)
{
	uintptr_t s0 = 0, s1 = 0;
	size_t i;

	for (i = 0; i < n; i += 8) {
		s0 += (uintptr_t)buf[i].next + (uintptr_t)buf[i + 1].next;
		s1 += (uintptr_t)buf[i + 2].next + (uintptr_t)buf[i + 3].next;
		s0 += (uintptr_t)buf[i + 4].next + (uintptr_t)buf[i + 5].next;
		s1 += (uintptr_t)buf[i + 6].next + (uintptr_t)buf[i + 7].next;
	}
	return s0 + s1;
}

/* n loads over a set of `lines` lines in address order, from line *pos on, round to its start as often as n needs. */
static __attribute__((noinline)) uintptr_t walk(const struct line *buf, size_t lines, size_t *pos, size_t n)
{
	uintptr_t sum = 0;

	while (n) {
		size_t k = lines - *pos < n ? lines - *pos : n;

		sum += walk_lines(buf + *pos, k);
		*pos = (*pos + k) % lines;
		n -= k;
	}
	return sum;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile uintptr_t sink;	/* what the kernels computed, so the compiler keeps them */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * One kernel's region: n accesses in chunks, each chunk timed on its own.
 * The clock is read while the region is paused, so the plugin counts the
 * kernel's instructions and accesses and nothing else. On a shared
 * machine a chunk the scheduler interrupted takes far longer than the
 * others: the median chunk is what the kernel costs, the minimum tells
 * how low the noise goes, the whole region what a plain timing of it
 * would have said.
 */
#define CHUNK 65536	/* n is a multiple of it */
#define MAX_CHUNKS 8192

/*
 * Accesses a chunk: a millisecond at most, shorter than the slice a busy
 * scheduler gives, at least a quarter of one, so that reading the clock
 * (some 30 ns) is lost in it. From the kernel and size, never from a
 * timing, so that the emulated run makes the same calls as the native.
 */
static size_t chunk_of(int is_chase, size_t bytes)
{
	if (!is_chase || bytes <= 128 << 10)
		return CHUNK;
	return bytes <= 2 << 20 ? 8192 : 1024;
}

static void region(const char *kernel, struct line *buf, size_t bytes, size_t n)
{
	static double ns[MAX_CHUNKS];
	int is_chase = !strcmp(kernel, "chase");
	size_t lines = bytes / LINE, chunk = chunk_of(is_chase, bytes), chunks = n / chunk, c, pos = 0;
	struct line *p = &buf[0];
	uintptr_t s = 0;
	double total = 0;

	/* The warm-up: once round the set, which leaves the chase at line 0 and the walk at its start. */
	if (is_chase)
		p = chase(p, lines);
	else
		s = walk(buf, lines, &pos, lines);
	TCG_CACHE_MARK(TCG_CACHE_MARK_START);
	for (c = 0; c < chunks; c++) {
		double t0, t1;

		TCG_CACHE_MARK(TCG_CACHE_MARK_PAUSE);
		t0 = now_ns();
		TCG_CACHE_MARK(TCG_CACHE_MARK_RESUME);
		if (is_chase)
			p = chase(p, chunk);
		else
			s += walk(buf, lines, &pos, chunk);
		TCG_CACHE_MARK(TCG_CACHE_MARK_PAUSE);
		t1 = now_ns();
		ns[c] = (t1 - t0) / chunk;
		total += t1 - t0;
		TCG_CACHE_MARK(TCG_CACHE_MARK_RESUME);
	}
	TCG_CACHE_MARK(TCG_CACHE_MARK_END);
	sink = s + (uintptr_t)p;
	qsort(ns, chunks, sizeof(*ns), cmp_double);
	printf("%s %zu accesses=%zu ns_per_access=%.4f min=%.4f whole=%.4f\n", kernel, bytes, n,
	       ns[chunks / 2], ns[0], total / n);
	fflush(stdout);
}

/* Follows the chase of a set of `lines` lines from line 0: every line once, then line 0 again. */
static int check_one(struct line *buf, size_t lines)
{
	unsigned char *seen = calloc(lines, 1);
	struct line *p = &buf[0];
	size_t i;
	int ret = -1;

	if (!seen)
		return -1;
	for (i = 0; i < lines; i++) {
		size_t k = p - buf;

		if (p < buf || k >= lines) {
			fprintf(stderr, "cache-sweep: chase of %zu lines: step %zu leaves the set\n", lines, i);
			goto cleanup;
		}
		if (seen[k]) {
			fprintf(stderr, "cache-sweep: chase of %zu lines: line %zu again at step %zu\n",
				lines, k, i);
			goto cleanup;
		}
		seen[k] = 1;
		p = p->next;
	}
	if (p != &buf[0]) {
		fprintf(stderr, "cache-sweep: chase of %zu lines: not back at line 0 after %zu steps\n",
			lines, lines);
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(seen);
	return ret;
}

/*
 * The core's clock from a chain of dependent adds, each waiting one cycle
 * for the last: the fastest of many short runs (64,000 adds, some 25 us),
 * most of which no other job interrupts.
 */
static double clock_ghz(void)
{
	double best = 0;
	int r;

	for (r = 0; r < 20000; r++) {
		uint64_t x = 0, i = 1000;
		double t0 = now_ns(), t1;

		__asm__ __volatile__(
			"1:\n\t"
			".rept 64\n\tadd $1, %0\n\t.endr\n\t"
			"dec %1\n\t"
			"jnz 1b"
			: "+r"(x), "+r"(i));
		t1 = now_ns();
		sink = x;
		if (1000 * 64.0 / (t1 - t0) > best)
			best = 1000 * 64.0 / (t1 - t0);
	}
	return best;
}

static int usage(void)
{
	fprintf(stderr, "usage: cache-sweep [--huge] [--accesses N] [--min BYTES] [--max BYTES]\n"
			"   or: cache-sweep --check [--min BYTES] [--max BYTES]\n"
			"   or: cache-sweep --clock\n");
	return 2;
}

int main(int argc, char **argv)
{
	size_t n = 1 << 21, min = 16 << 10, max = 256 << 20, bytes;
	int check = 0, huge = 0, i;
	struct line *buf;

	for (i = 1; i < argc; i++) {
		size_t *v = NULL;

		if (!strcmp(argv[i], "--check"))
			check = 1;
		else if (!strcmp(argv[i], "--huge"))
			huge = 1;
		else if (!strcmp(argv[i], "--clock"))
			return printf("clock_ghz=%.4f\n", clock_ghz()) < 0;
		else if (!strcmp(argv[i], "--accesses"))
			v = &n;
		else if (!strcmp(argv[i], "--min"))
			v = &min;
		else if (!strcmp(argv[i], "--max"))
			v = &max;
		else
			return usage();
		if (v && (++i == argc || tcg_cache_parse_size(v, argv[i])))
			return usage();
	}
	/* Powers of two of at least 8 lines, and whole loops of 8 accesses. */
	if (min & (min - 1) || max & (max - 1) || min < 8 * LINE || min > max || !n || n % CHUNK ||
	    n / 1024 > MAX_CHUNKS) {
		fprintf(stderr, "cache-sweep: sizes must be powers of two from %d, accesses a multiple of %d up to %d\n",
			8 * LINE, CHUNK, 1024 * MAX_CHUNKS);
		return 2;
	}
	buf = mmap(NULL, max, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "cache-sweep: cannot map %zu bytes: %s\n", max, strerror(errno));
		return 1;
	}
	/* Advice only: a kernel without THP, or qemu-user, may ignore it. */
	madvise(buf, max, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	for (bytes = min; bytes && bytes <= max; bytes <<= 1) {
		if (chase_init(buf, bytes / LINE)) {
			fprintf(stderr, "cache-sweep: out of memory for a chase of %zu bytes\n", bytes);
			return 1;
		}
		if (!check) {
			region("chase", buf, bytes, n);
			region("walk", buf, bytes, n);
		} else if (check_one(buf, bytes / LINE)) {
			return 1;
		} else {
			printf("ok chase %zu lines=%zu\n", bytes, bytes / LINE);
		}
	}
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "cache-sweep: cannot write the results\n");
		return 1;
	}
	return 0;
}
