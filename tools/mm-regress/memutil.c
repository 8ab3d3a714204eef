/* memutil.c: helpers for the cases: patterns, reservations, /proc readers, fault probes. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mm-regress.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif

/* splitmix64's finaliser: every input bit reaches every output bit. */
uint64_t mr_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

void mr_fill(void *p, size_t len, size_t stride, size_t chunk, uint64_t seed)
{
	uint64_t *w = p;
	size_t off, i;

	for (off = 0; off < len; off += stride) {
		size_t end = off + chunk > len ? len : off + chunk;

		for (i = off / 8; i < end / 8; i++)
			w[i] = mr_word(seed, i);
	}
}

size_t mr_check(const void *p, size_t len, size_t stride, size_t chunk, uint64_t seed,
		const char *what)
{
	const uint64_t *w = p;
	size_t off, i, bad = 0;

	for (off = 0; off < len; off += stride) {
		size_t end = off + chunk > len ? len : off + chunk;

		for (i = off / 8; i < end / 8; i++) {
			uint64_t want = mr_word(seed, i);

			if (w[i] == want)
				continue;
			if (!bad++)
				mr_diag("%s: first wrong word at offset %#zx: %#llx, expected %#llx",
					what, i * 8, (unsigned long long)w[i],
					(unsigned long long)want);
		}
	}
	if (bad)
		mr_diag("%s: %zu wrong words", what, bad);
	return bad;
}

void *mr_reserve(struct mr_resv *r, size_t len, size_t align, size_t offset)
{
	size_t total = len + align + offset;
	uintptr_t start;
	void *p;

	r->base = NULL;
	r->len = 0;
	p = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	r->base = p;
	r->len = total;
	start = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	return (void *)(start + offset);
}

void mr_unreserve(struct mr_resv *r)
{
	if (r->base)
		munmap(r->base, r->len);
	r->base = NULL;
	r->len = 0;
}

void mr_rereserve(void *p, size_t len)
{
	mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

void *mr_map_at(void *p, size_t len, int flags)
{
	void *q = mmap(p, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | flags, -1, 0);

	return q == MAP_FAILED ? NULL : q;
}

int mr_move(void *from, size_t len, void *to)
{
	void *q = mremap(from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);

	if (q == MAP_FAILED)
		return -1;
	if (q != to) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

int mr_unmapped(void *p, size_t len)
{
	unsigned char vec[64];
	size_t page = sysconf(_SC_PAGESIZE);

	if (len > page * sizeof(vec))
		len = page * sizeof(vec);
	return mincore(p, len, vec) < 0 && errno == ENOMEM;
}

long mr_meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	size_t klen = strlen(key);
	char line[256];
	long val = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			val = strtol(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

int mr_need_memory(struct mr_ctx *ctx, size_t bytes)
{
	long avail = mr_meminfo_kb("MemAvailable");
	/* Leave room for the page tables and the rest of the system. */
	size_t want_kb = bytes / 1024 + bytes / 1024 / 8 + 32 * 1024;

	if (avail < 0)
		avail = mr_meminfo_kb("MemFree");
	if (avail < 0) {
		mr_diag("%s: cannot read MemAvailable from /proc/meminfo; trying anyway", ctx->name);
		return 1;
	}
	if ((size_t)avail >= want_kb)
		return 1;
	snprintf(ctx->reason, sizeof(ctx->reason),
		 "needs %zu MiB available, MemAvailable is %ld MiB", want_kb / 1024, avail / 1024);
	return 0;
}

int mr_thp_usable(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	char line[128];

	if (!f) {
		snprintf(buf, len, "no THP: /sys/kernel/mm/transparent_hugepage/enabled: %s",
			 strerror(errno));
		return 0;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	if (strstr(line, "[never]")) {
		snprintf(buf, len, "THP is disabled (enabled: %s)", line);
		return 0;
	}
	return 1;
}

void mr_mthp_enable(const char *size, const char *mode)
{
	char path[128], was[128];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/hugepages-%s/enabled",
		 size);
	f = fopen(path, "r");
	if (!f) {
		mr_diag("mTHP %s: not in this kernel (%s: %s)", size, path, strerror(errno));
		return;
	}
	if (!fgets(was, sizeof(was), f))
		was[0] = '\0';
	fclose(f);
	was[strcspn(was, "\n")] = '\0';
	f = fopen(path, "w");
	ok = f && fputs(mode, f) >= 0;
	if (f && fclose(f))
		ok = 0;
	if (!ok) {
		mr_diag("mTHP %s: cannot write '%s' to %s: %s (it stays '%s')", size, mode, path,
			strerror(errno), was);
		return;
	}
	mr_diag("mTHP %s: on (%s: %s; it was: %s)", size, path, mode, was);
}

long mr_smaps_kb(const void *addr, const char *field)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	uintptr_t a = (uintptr_t)addr;
	size_t flen = strlen(field);
	int inside = 0;
	char line[512];
	long val = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char dash;

		/* A VMA header is "lo-hi perms ..."; field lines start with a capital. */
		if (sscanf(line, "%lx%c%lx", &lo, &dash, &hi) == 3 && dash == '-') {
			if (inside)
				break;
			inside = a >= lo && a < hi;
			continue;
		}
		if (inside && !strncmp(line, field, flen) && line[flen] == ':') {
			val = strtol(line + flen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

static sigjmp_buf probe_env;

static void probe_handler(int sig)
{
	siglongjmp(probe_env, 1);
}

static int probe(volatile unsigned char *p, int write, unsigned char val)
{
	struct sigaction sa, old_segv, old_bus;
	volatile int faulted = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv) < 0)
		return -1;
	if (sigaction(SIGBUS, &sa, &old_bus) < 0) {
		sigaction(SIGSEGV, &old_segv, NULL);
		return -1;
	}
	if (sigsetjmp(probe_env, 1) == 0) {
		if (write)
			*p = val;
		else
			(void)*p;
	} else {
		faulted = 1;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return faulted;
}

int mr_write_faults(volatile unsigned char *p, unsigned char val)
{
	return probe(p, 1, val);
}

int mr_read_faults(const volatile unsigned char *p)
{
	return probe((volatile unsigned char *)p, 0, 0);
}

long mr_pidfd_open(int pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

long mr_process_madvise(int pidfd, const void *iov, size_t n, int advice)
{
	return syscall(SYS_process_madvise, pidfd, iov, n, advice, 0);
}
