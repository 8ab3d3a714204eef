/* case-folio.c: mremap() of THP-backed (large folio) regions with mixed permissions and COW sharing. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mm-regress.h"

static size_t thp_size(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "r");
	unsigned long v = 0;

	if (f) {
		if (fscanf(f, "%lu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 2 * MiB;
}

/*
 * Map `len` bytes at a THP-aligned address, ask for huge pages, fill
 * them with the pattern of `seed`, and make sure THPs really back the
 * region: returns MR_PASS with *out set, or MR_SKIP with the reason.
 */
static enum mr_status thp_region(struct mr_ctx *ctx, struct mr_resv *r, size_t hp, size_t len,
				 uint64_t seed, unsigned char **out)
{
	char why[160];
	unsigned char *p;
	long huge;

	if (!mr_thp_usable(why, sizeof(why)))
		return mr_skip(ctx, "%s", why);
	/* 64 KiB pages make a PMD 512 MiB: more than a test guest should give. */
	if (hp > 32 * MiB)
		return mr_skip(ctx, "THPs of %zu MiB are too large for this case", hp / MiB);
	p = mr_reserve(r, len, hp, 0);
	if (!p || !mr_map_at(p, len, 0))
		return mr_fail(ctx, "cannot map %zu bytes: %s", len, strerror(errno));
	if (madvise(p, len, MADV_HUGEPAGE) < 0)
		return mr_skip(ctx, "madvise(MADV_HUGEPAGE): %s", strerror(errno));
	mr_fill(p, len, len, len, seed);
	huge = mr_smaps_kb(p, "AnonHugePages");
	if (huge < 0)
		return mr_skip(ctx, "cannot read AnonHugePages of the region from /proc/self/smaps");
	if (huge == 0)
		return mr_skip(ctx, "no THP backs the region (AnonHugePages: 0 kB)");
	mr_diag("%zu KiB at %p, %ld kB of it in THPs of %zu KiB", len / KiB, (void *)p, huge,
		hp / KiB);
	*out = p;
	return MR_PASS;
}

struct piece {
	size_t off;
	size_t len;
};

/*
 * Move the whole region in one call. Kernels before 6.17 refuse a move
 * across several VMAs (EFAULT); then move each VMA on its own, which
 * still batches the PTEs inside each.
 */
static int move_pieces(struct mr_ctx *ctx, unsigned char *from, unsigned char *to, size_t len,
		       const struct piece *pieces, size_t nr)
{
	size_t i;

	if (!mr_move(from, len, to))
		return 0;
	if (errno != EFAULT) {
		mr_diag("mremap %p -> %p: %s", (void *)from, (void *)to, strerror(errno));
		return -1;
	}
	mr_diag("this kernel does not move several VMAs at once; moving the %zu VMAs one by one", nr);
	for (i = 0; i < nr; i++) {
		if (mr_move(from + pieces[i].off, pieces[i].len, to + pieces[i].off)) {
			mr_diag("mremap of VMA %zu: %s", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Writes of the byte already there: the data stays, only the permission shows. */
static int probe_writes(struct mr_ctx *ctx, unsigned char *p, size_t off, int must_fault,
			const char *where)
{
	volatile unsigned char *b = p + off;
	int r = mr_write_faults(b, *b);

	if (r < 0) {
		mr_diag("cannot install a SIGSEGV handler");
		return -1;
	}
	if (r == must_fault)
		return 0;
	mr_diag("%s (offset %#zx): the write %s", where, off,
		must_fault ? "went through: the read-only part became writable" :
			     "faulted: the writable part lost its write permission");
	return -1;
}

enum mr_status case_pte_batch_mprotect(struct mr_ctx *ctx)
{
	size_t hp = thp_size(), pg = ctx->page, len = 2 * hp;
	size_t ro_off = 37 * pg, ro_len = 64 * pg;
	const struct piece pieces[] = {
		{ 0, ro_off },
		{ ro_off, ro_len },
		{ ro_off + ro_len, len - ro_off - ro_len },
	};
	/* Destinations off the PMD grid: one contpte block in, then one page in. */
	const size_t dst_offs[] = { 16 * pg, pg };
	struct mr_resv rs = { 0 }, rd[2] = { { 0 }, { 0 } };
	unsigned char *src = NULL, *cur;
	enum mr_status st;
	size_t i;
	int bad = 0;

	st = thp_region(ctx, &rs, hp, len, ctx->case_seed, &src);
	if (st != MR_PASS)
		goto cleanup;
	if (mprotect(src + ro_off, ro_len, PROT_READ)) {
		st = mr_fail(ctx, "mprotect: %s", strerror(errno));
		goto cleanup;
	}
	mr_diag("pages %zu..%zu read-only, the rest of the THPs writable", ro_off / pg,
		(ro_off + ro_len) / pg - 1);
	cur = src;
	for (i = 0; i < 2; i++) {
		unsigned char *to = mr_reserve(&rd[i], len, hp, dst_offs[i]);

		if (!to || move_pieces(ctx, cur, to, len, pieces, 3)) {
			st = mr_fail(ctx, "move %zu failed", i + 1);
			goto cleanup;
		}
		if (!mr_unmapped(cur, len))
			bad++, mr_diag("move %zu: the source is still mapped", i + 1);
		cur = to;
		bad += mr_check(cur, len, len, len, ctx->case_seed, "moved THP region") != 0;
		bad += probe_writes(ctx, cur, ro_off, 1, "first read-only page") != 0;
		bad += probe_writes(ctx, cur, ro_off + ro_len / 2 + 8, 1, "middle read-only page") != 0;
		bad += probe_writes(ctx, cur, ro_off + ro_len - 1, 1, "last read-only byte") != 0;
		bad += probe_writes(ctx, cur, 0, 0, "first page") != 0;
		bad += probe_writes(ctx, cur, ro_off - 1, 0, "byte before the read-only part") != 0;
		bad += probe_writes(ctx, cur, ro_off + ro_len, 0, "byte after the read-only part") != 0;
		bad += probe_writes(ctx, cur, len - 1, 0, "last byte") != 0;
		mr_diag("move %zu to %p (%zu pages past a THP boundary): %s", i + 1, (void *)cur,
			dst_offs[i] / pg, bad ? "wrong" : "permissions and data intact");
		if (bad)
			break;
	}
	st = bad ? mr_fail(ctx, "%d checks failed after moving a partly read-only THP region", bad)
		 : MR_PASS;
cleanup:
	mr_unreserve(&rd[1]);
	mr_unreserve(&rd[0]);
	mr_unreserve(&rs);
	return st;
}

static int send_byte(int fd, char c)
{
	return write(fd, &c, 1) == 1 ? 0 : -1;
}

static int recv_byte(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? c : -1;
}

/* The child: check its copy once the parent has moved and written, then move and write its own. */
static int cow_child(struct mr_ctx *ctx, unsigned char *src, size_t len, size_t hp, int in,
		     int out, uint64_t s0, uint64_t s2)
{
	struct mr_resv r = { 0 };
	unsigned char *dst;
	size_t bad;

	if (recv_byte(in) != 'M')
		return 2;
	bad = mr_check(src, len, len, len, s0, "child's copy after the parent moved and wrote");
	dst = mr_reserve(&r, len, hp, 3 * ctx->page);
	if (!dst || mr_move(src, len, dst)) {
		mr_diag("child: mremap: %s", strerror(errno));
		return 2;
	}
	mr_fill(dst, len, len, len, s2);
	if (send_byte(out, 'W'))
		return 2;
	bad += mr_check(dst, len, len, len, s2, "child's own writes after its move");
	mr_unreserve(&r);
	return bad ? 1 : 0;
}

enum mr_status case_pte_batch_cow(struct mr_ctx *ctx)
{
	size_t hp = thp_size(), pg = ctx->page, len = 2 * hp, bad = 0;
	uint64_t s0 = ctx->case_seed, s1 = mr_mix(s0 + 1), s2 = mr_mix(s0 + 2);
	struct mr_resv rs = { 0 }, rd = { 0 };
	int to_child[2] = { -1, -1 }, to_parent[2] = { -1, -1 }, wstatus;
	unsigned char *src = NULL, *dst;
	enum mr_status st;
	pid_t pid = -1;

	st = thp_region(ctx, &rs, hp, len, s0, &src);
	if (st != MR_PASS)
		goto cleanup;
	/* Map the first THP with PTEs (the folio stays large); the second keeps its PMD. */
	if (mprotect(src + pg, pg, PROT_READ) || mprotect(src + pg, pg, PROT_READ | PROT_WRITE)) {
		st = mr_fail(ctx, "mprotect: %s", strerror(errno));
		goto cleanup;
	}
	if (pipe(to_child) || pipe(to_parent)) {
		st = mr_fail(ctx, "pipe: %s", strerror(errno));
		goto cleanup;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		st = mr_fail(ctx, "fork: %s", strerror(errno));
		goto cleanup;
	}
	if (!pid) {
		int ret;

		close(to_child[1]);
		close(to_parent[0]);
		ret = cow_child(ctx, src, len, hp, to_child[0], to_parent[1], s0, s2);

		fflush(stdout);
		_exit(ret);
	}
	/* Only the child may hold these ends, so its death reads as EOF here. */
	close(to_child[0]);
	close(to_parent[1]);
	to_child[0] = to_parent[1] = -1;
	dst = mr_reserve(&rd, len, hp, 16 * pg);
	if (!dst || mr_move(src, len, dst)) {
		st = mr_fail(ctx, "mremap of the shared region: %s", strerror(errno));
		goto cleanup;
	}
	/* Every other page: the moved PTEs mix private copies and pages still shared. */
	mr_fill(dst, len, 2 * pg, pg, s1);
	if (send_byte(to_child[1], 'M') || recv_byte(to_parent[0]) != 'W') {
		st = mr_fail(ctx, "lost the child before it wrote its copy");
		goto cleanup;
	}
	bad += mr_check(dst, len, 2 * pg, pg, s1, "parent's written pages after the child wrote");
	bad += mr_check(dst + pg, len - pg, 2 * pg, pg, mr_seed_at(s0, pg),
			"parent's untouched pages after the child wrote");
	st = MR_PASS;
cleanup:
	if (to_child[1] >= 0)
		close(to_child[1]);
	if (pid > 0) {
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		if (st == MR_PASS && (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)))
			st = mr_fail(ctx, "the child's checks failed (wait status %#x)", wstatus);
	}
	if (st == MR_PASS && bad)
		st = mr_fail(ctx, "the parent's copy changed: %zu wrong words", bad);
	if (st == MR_PASS)
		mr_diag("parent and child each moved and wrote the COW-shared THP region; neither saw the other's writes");
	if (to_child[0] >= 0)
		close(to_child[0]);
	if (to_parent[0] >= 0)
		close(to_parent[0]);
	if (to_parent[1] >= 0)
		close(to_parent[1]);
	mr_unreserve(&rd);
	mr_unreserve(&rs);
	return st;
}
