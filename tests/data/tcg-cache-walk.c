/* tests/data/tcg-cache-walk.c: a guest program for t0420: a strided walk whose cache and TLB misses are known. */
/*
 * walk BYTES STRIDE PASSES [REGIONS [load|store|rep|pause]]: touch every
 * STRIDE-th byte of a BYTES-long buffer once (outside any region, so the
 * walk starts warm), then, inside a marked region, PASSES more times,
 * REGIONS times over. The loop keeps its state in registers: the
 * buffer's loads (or stores) are the only data accesses a region sees.
 * "rep" stores every byte with one rep stosb a pass (STRIDE unused): on
 * x86-64 only. "pause" loads, but each region is opened paused (twice:
 * the second pause changes nothing), runs its PASSES uncounted, then
 * resumes for one more pass and pauses again before its end: it counts
 * that one pass alone. A resume outside any region comes first, and
 * changes nothing either.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "marker.h"

static unsigned char buf[64 << 20];

enum mode { LOAD, STORE, REP, PAUSE };

static unsigned long walk(size_t bytes, size_t stride, unsigned passes, enum mode mode)
{
	unsigned long sum = 0;
	size_t off;
	unsigned p;

	for (p = 0; p < passes; p++) {
#if defined(__x86_64__)
		if (mode == REP) {
			void *dst = buf;
			size_t n = bytes;

			__asm__ __volatile__("rep stosb" : "+D"(dst), "+c"(n) : "a"(p) : "memory");
			continue;
		}
#endif
		for (off = 0; off < bytes; off += stride)
			if (mode == STORE)
				((volatile unsigned char *)buf)[off] = (unsigned char)p;
			else
				sum += ((volatile unsigned char *)buf)[off];
	}
	return sum;
}

int main(int argc, char **argv)
{
	size_t bytes, stride;
	unsigned passes, regions = 1, r;
	unsigned long sum;
	static const char *const modes[] = { "load", "store", "rep", "pause" };
	enum mode mode = LOAD;

	if (argc == 6) {
		while (mode <= PAUSE && strcmp(argv[5], modes[mode]))
			mode++;
	}
	if (argc < 4 || argc > 6 || mode > PAUSE) {
		fprintf(stderr, "usage: walk BYTES STRIDE PASSES [REGIONS [load|store|rep|pause]]\n");
		return 2;
	}
	bytes = strtoul(argv[1], NULL, 0);
	stride = strtoul(argv[2], NULL, 0);
	passes = strtoul(argv[3], NULL, 0);
	if (argc >= 5)
		regions = strtoul(argv[4], NULL, 0);
	if (bytes > sizeof(buf) || !stride) {
		fprintf(stderr, "walk: at most %zu bytes, stride above 0\n", sizeof(buf));
		return 2;
	}
	sum = walk(bytes, stride, 1, LOAD);
	if (mode == PAUSE)
		TCG_CACHE_MARK(TCG_CACHE_MARK_RESUME);
	for (r = 0; r < regions; r++) {
		TCG_CACHE_MARK(TCG_CACHE_MARK_START);
		if (mode == PAUSE) {
			TCG_CACHE_MARK(TCG_CACHE_MARK_PAUSE);
			TCG_CACHE_MARK(TCG_CACHE_MARK_PAUSE);
			sum += walk(bytes, stride, passes, LOAD);
			TCG_CACHE_MARK(TCG_CACHE_MARK_RESUME);
			sum += walk(bytes, stride, 1, LOAD);
			TCG_CACHE_MARK(TCG_CACHE_MARK_PAUSE);
		} else {
			sum += walk(bytes, stride, passes, mode);
		}
		TCG_CACHE_MARK(TCG_CACHE_MARK_END);
	}
	printf("walked %zu bytes by %zu, %u passes, %u regions of %ss: sum %lu\n", bytes, stride,
	       passes, regions, modes[mode], sum);
	return 0;
}
