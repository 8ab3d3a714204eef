/* tools/tcg-cache/size.h: "48K", "2M", "96": the sizes the plugin and bench/cache-sweep take. */
#ifndef TCG_CACHE_SIZE_H
#define TCG_CACHE_SIZE_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* A decimal size with an optional binary suffix (K, M, G); 0 on success, -1 for anything else or 0. */
static inline int tcg_cache_parse_size(uint64_t *v, const char *s)
{
	char *end;
	unsigned long long n;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (*end == 'K')
		n <<= 10, end++;
	else if (*end == 'M')
		n <<= 20, end++;
	else if (*end == 'G')
		n <<= 30, end++;
	if (*end || !n)
		return -1;
	*v = n;
	return 0;
}

#endif
