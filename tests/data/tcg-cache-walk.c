/* tests/data/tcg-cache-walk.c: a guest program for t0420: a strided walk whose cache and TLB misses are known. */
/*
 * walk BYTES STRIDE PASSES [REGIONS]: touch every STRIDE-th byte of a
 * BYTES-long buffer once (outside any region, so the walk starts warm),
 * then, inside a marked region, PASSES more times, REGIONS times over.
 * The loop keeps its state in registers: the buffer's loads are the
 * only data accesses a region sees.
 */
#include <stdio.h>
#include <stdlib.h>

#include "marker.h"

static unsigned char buf[64 << 20];

static unsigned long walk(size_t bytes, size_t stride, unsigned passes)
{
	unsigned long sum = 0;
	size_t off;
	unsigned p;

	for (p = 0; p < passes; p++)
		for (off = 0; off < bytes; off += stride)
			sum += ((volatile unsigned char *)buf)[off];
	return sum;
}

int main(int argc, char **argv)
{
	size_t bytes, stride;
	unsigned passes, regions = 1, r;
	unsigned long sum;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: walk BYTES STRIDE PASSES [REGIONS]\n");
		return 2;
	}
	bytes = strtoul(argv[1], NULL, 0);
	stride = strtoul(argv[2], NULL, 0);
	passes = strtoul(argv[3], NULL, 0);
	if (argc == 5)
		regions = strtoul(argv[4], NULL, 0);
	if (bytes > sizeof(buf) || !stride) {
		fprintf(stderr, "walk: at most %zu bytes, stride above 0\n", sizeof(buf));
		return 2;
	}
	sum = walk(bytes, stride, 1);
	for (r = 0; r < regions; r++) {
		TCG_CACHE_MARK(TCG_CACHE_MARK_START);
		sum += walk(bytes, stride, passes);
		TCG_CACHE_MARK(TCG_CACHE_MARK_END);
	}
	printf("walked %zu bytes by %zu, %u passes, %u regions: sum %lu\n", bytes, stride, passes,
	       regions, sum);
	return 0;
}
