/* case-folio.c: mremap() of THP (large folio) regions with mixed permissions or write bits, COW. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>
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

/*
 * A forked child and a pipe each way between it and its parent. On
 * either side, `in` reads what the other side writes and `out` writes to
 * it; pid is the child's in the parent, 0 in the child, -1 while none.
 */
struct child {
	pid_t pid;
	int in, out;
};
#define CHILD_INIT { -1, -1, -1 }

static void close_pipe(int fd[2])
{
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
}

/*
 * Fork a child joined to this process by two pipes. Like fork(), it
 * returns into both: ch->pid tells which side this is, and each side
 * keeps only its own ends. The child ends with child_exit(). Returns
 * MR_PASS, or MR_FAIL (from mr_fail()) with nothing forked or left open.
 */
static enum mr_status child_fork(struct mr_ctx *ctx, struct child *ch)
{
	int down[2] = { -1, -1 }, up[2] = { -1, -1 };
	enum mr_status st;

	if (pipe(down) || pipe(up)) {
		st = mr_fail(ctx, "pipe: %s", strerror(errno));
		goto fail;
	}
	fflush(stdout);
	ch->pid = fork();
	if (ch->pid < 0) {
		st = mr_fail(ctx, "fork: %s", strerror(errno));
		goto fail;
	}
	/* Only the other side may hold the ends it writes to, so its death reads as EOF. */
	close(ch->pid ? down[0] : down[1]);
	close(ch->pid ? up[1] : up[0]);
	ch->in = ch->pid ? up[0] : down[0];
	ch->out = ch->pid ? down[1] : up[1];
	return MR_PASS;
fail:
	close_pipe(down);
	close_pipe(up);
	return st;
}

/* The child's end, with its diagnostics out before the parent's. */
static void __attribute__((noreturn)) child_exit(int status)
{
	fflush(stdout);
	_exit(status);
}

/*
 * In the parent: close the pipe to the child (one still waiting reads
 * EOF), wait for it and close the other pipe. Returns 1 with *wstatus
 * set, or 0 when no child was forked.
 */
static int child_reap(struct child *ch, int *wstatus)
{
	int reaped = ch->pid > 0;

	if (ch->out >= 0)
		close(ch->out);
	if (reaped)
		while (waitpid(ch->pid, wstatus, 0) < 0 && errno == EINTR)
			;
	if (ch->in >= 0)
		close(ch->in);
	ch->in = ch->out = -1;
	ch->pid = -1;
	return reaped;
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
	struct child ch = CHILD_INIT;
	unsigned char *src = NULL, *dst;
	enum mr_status st;
	int wstatus;

	st = thp_region(ctx, &rs, hp, len, s0, &src);
	if (st != MR_PASS)
		goto cleanup;
	/* Map the first THP with PTEs (the folio stays large); the second keeps its PMD. */
	if (mprotect(src + pg, pg, PROT_READ) || mprotect(src + pg, pg, PROT_READ | PROT_WRITE)) {
		st = mr_fail(ctx, "mprotect: %s", strerror(errno));
		goto cleanup;
	}
	st = child_fork(ctx, &ch);
	if (st != MR_PASS)
		goto cleanup;
	if (!ch.pid)
		child_exit(cow_child(ctx, src, len, hp, ch.in, ch.out, s0, s2));
	dst = mr_reserve(&rd, len, hp, 16 * pg);
	if (!dst || mr_move(src, len, dst)) {
		st = mr_fail(ctx, "mremap of the shared region: %s", strerror(errno));
		goto cleanup;
	}
	/* Every other page: the moved PTEs mix private copies and pages still shared. */
	mr_fill(dst, len, 2 * pg, pg, s1);
	if (send_byte(ch.out, 'M') || recv_byte(ch.in) != 'W') {
		st = mr_fail(ctx, "lost the child before it wrote its copy");
		goto cleanup;
	}
	bad += mr_check(dst, len, 2 * pg, pg, s1, "parent's written pages after the child wrote");
	bad += mr_check(dst + pg, len - pg, 2 * pg, pg, mr_seed_at(s0, pg),
			"parent's untouched pages after the child wrote");
	st = MR_PASS;
cleanup:
	if (child_reap(&ch, &wstatus) && st == MR_PASS &&
	    (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)))
		st = mr_fail(ctx, "the child's checks failed (wait status %#x)", wstatus);
	if (st == MR_PASS && bad)
		st = mr_fail(ctx, "the parent's copy changed: %zu wrong words", bad);
	if (st == MR_PASS)
		mr_diag("parent and child each moved and wrote the COW-shared THP region; neither saw the other's writes");
	mr_unreserve(&rd);
	mr_unreserve(&rs);
	return st;
}

/*
 * pte_batch_wrbit: the layout that found the bug fixed by 04d1c9d60c6e
 * ("mm/mremap: honour writable bit in mremap pte batching"). Batching
 * in move_ptes() (f822a9a81a31) compares PTEs with the write bit masked
 * and then writes the first PTE's bits over the whole batch, so a batch
 * that starts at a writable PTE makes the write-protected PTEs after it
 * writable. The two cases above cannot show that: mprotect() puts the
 * read-only pages in a VMA of their own and fork() write-protects every
 * PTE, so each batch has one write bit. Here one VMA holds one
 * PTE-mapped THP whose PTEs differ in the write bit: the writable pages
 * are MADV_DONTFORK at fork(), so the parent keeps them writable and
 * private, while the rest are write-protected and shared with the
 * child; MADV_DOFORK then merges the VMAs again. Each move starts at a
 * writable PTE and covers write-protected ones of the same folio. The
 * parent then writes through all the moved pages: a write-protected
 * page must take a COW fault, and the child must still read what was
 * there at fork(). If the write went through, the child sees it.
 *
 * Where it can fail: only where move_ptes() batches. With 0b5be138ce00
 * a batch needs pte_batch_hint() > 1 at its first PTE, which only arm64
 * gives (contpte blocks, 16 PTEs with 4 KiB pages); the 16-page writable
 * block below is for that. On x86 pte_batch_hint() is always 1, so the
 * bug is reachable only in a kernel with f822a9a81a31 but without
 * 0b5be138ce00 (how its reporter found it). Elsewhere a pass shows the
 * moves and COW are right, not that batching was exercised.
 */
#define KPF_COMPOUND_HEAD 15
#define KPF_COMPOUND_TAIL 16
#define KPF_THP 22

struct wr_move {
	size_t first;	/* first page moved, from the start of the THP */
	size_t wr;	/* pages kept writable (MADV_DONTFORK at fork()) */
	size_t nr;	/* pages moved: wr writable, then write-protected ones; 0: to the folio's end */
};

static const struct wr_move wr_moves[] = {
	{ 0, 1, 2 },	/* the reporter's: one writable PTE, one write-protected */
	{ 8, 1, 8 },
	{ 16, 16, 48 },	/* a writable 64 KiB block: one arm64 contpte block with 4 KiB pages */
	{ 64, 1, 0 },
};
#define NR_WR_MOVES (sizeof(wr_moves) / sizeof(wr_moves[0]))
#define WR_MIN_PAGES 128

/* What the child found in its copy, sent to the parent through the pipe. */
struct wr_report {
	uint64_t words;		/* wrong words */
	uint64_t pages;		/* pages holding them */
	uint64_t leaked;	/* wrong words that hold the parent's new data */
	uint64_t off;		/* the first wrong word: offset from the THP start */
	uint64_t seen;
	uint64_t want;
	uint64_t last;		/* offset of the last wrong word */
};

static size_t wr_nr(const struct wr_move *m, size_t n)
{
	return m->nr ? m->nr : n - m->first;
}

/* The move that page i belongs to, or NR_WR_MOVES when it stays put. */
static size_t wr_move_of(size_t i, size_t n)
{
	size_t j;

	for (j = 0; j < NR_WR_MOVES; j++)
		if (i >= wr_moves[j].first && i < wr_moves[j].first + wr_nr(&wr_moves[j], n))
			return j;
	return NR_WR_MOVES;
}

static int wr_writable(size_t i, size_t n)
{
	size_t j = wr_move_of(i, n);

	return j < NR_WR_MOVES && i < wr_moves[j].first + wr_moves[j].wr;
}

/* The VMA holding addr, from /proc/self/maps; 0 found, -1 not. */
static int vma_span(const void *addr, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	uintptr_t a = (uintptr_t)addr;
	char line[4096];
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long l, h;

		if (sscanf(line, "%lx-%lx", &l, &h) == 2 && a >= l && a < h) {
			*lo = l;
			*hi = h;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static int pread_all(const char *path, void *buf, size_t len, off_t off, char *why, size_t wlen)
{
	int fd = open(path, O_RDONLY);
	ssize_t got;

	if (fd < 0) {
		snprintf(why, wlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	got = pread(fd, buf, len, off);
	close(fd);
	if (got != (ssize_t)len) {
		snprintf(why, wlen, "%s: short read (%s)", path, got < 0 ? strerror(errno) : "EOF");
		return -1;
	}
	return 0;
}

/*
 * Whether the n pages at p are one large folio: their PFNs follow each
 * other and /proc/kpageflags marks the first a compound head, the rest
 * tails. 1 yes, 0 no, -1 cannot tell (PFNs and kpageflags need root);
 * the reason is left in why.
 */
static int one_folio(const unsigned char *p, size_t n, size_t pg, char *why, size_t wlen)
{
	uint64_t *map = calloc(n, sizeof(*map)), *flags = calloc(n, sizeof(*flags)), pfn0;
	int ret = -1;
	size_t i;

	if (!map || !flags) {
		snprintf(why, wlen, "out of memory");
		goto cleanup;
	}
	if (pread_all("/proc/self/pagemap", map, n * 8, (off_t)((uintptr_t)p / pg) * 8, why, wlen))
		goto cleanup;
	pfn0 = map[0] & ((1ULL << 55) - 1);
	if (!(map[0] >> 63) || !pfn0) {
		snprintf(why, wlen, "/proc/self/pagemap shows no PFNs (they need CAP_SYS_ADMIN)");
		goto cleanup;
	}
	ret = 0;
	for (i = 0; i < n; i++) {
		if (!(map[i] >> 63) || (map[i] & ((1ULL << 55) - 1)) != pfn0 + i) {
			snprintf(why, wlen, "page %zu is not the next page frame of the THP", i);
			goto cleanup;
		}
	}
	ret = -1;
	if (pread_all("/proc/kpageflags", flags, n * 8, (off_t)pfn0 * 8, why, wlen))
		goto cleanup;
	ret = 0;
	for (i = 0; i < n; i++) {
		int bit = i ? KPF_COMPOUND_TAIL : KPF_COMPOUND_HEAD;

		if (!(flags[i] & (1ULL << bit))) {
			snprintf(why, wlen, "page %zu (pfn %#llx) is no compound %s: the THP was split",
				 i, (unsigned long long)(pfn0 + i), i ? "tail" : "head");
			goto cleanup;
		}
	}
	snprintf(why, wlen, "pfns %#llx..%#llx, one compound page%s",
		 (unsigned long long)pfn0, (unsigned long long)(pfn0 + n - 1),
		 flags[0] & (1ULL << KPF_THP) ? " flagged THP" : "");
	ret = 1;
cleanup:
	free(map);
	free(flags);
	return ret;
}

/* Compare the child's copy of page i with what fork() gave it. */
static void wr_check_page(const unsigned char *src, size_t i, size_t pg, uint64_t s0, uint64_t s1,
			  struct wr_report *r)
{
	const uint64_t *w = (const uint64_t *)(src + i * pg);
	size_t k, base = i * pg / 8;
	int bad = 0;

	for (k = 0; k < pg / 8; k++) {
		uint64_t want = mr_word(s0, base + k);

		if (w[k] == want)
			continue;
		if (!r->words) {
			r->off = (base + k) * 8;
			r->seen = w[k];
			r->want = want;
		}
		r->last = (base + k) * 8;
		r->words++;
		r->leaked += w[k] == mr_word(s1, base + k);
		bad = 1;
	}
	r->pages += bad;
}

/*
 * The child: once the parent has moved and written, read its own copy
 * (every page it got at fork(), at the old addresses) and report.
 */
static int wr_child(const unsigned char *src, size_t n, size_t pg, uint64_t s0, uint64_t s1,
		    int in, int out)
{
	struct wr_report per[NR_WR_MOVES + 1], all;
	size_t i, j;

	if (recv_byte(in) != 'W')
		return 2;
	memset(per, 0, sizeof(per));
	memset(&all, 0, sizeof(all));
	for (i = 0; i < n; i++)
		if (!wr_writable(i, n))
			wr_check_page(src, i, pg, s0, s1, &per[wr_move_of(i, n)]);
	for (j = 0; j <= NR_WR_MOVES; j++) {
		const struct wr_report *r = &per[j];

		if (!r->words)
			continue;
		if (j < NR_WR_MOVES)
			mr_diag("child: move %zu (pages %zu..%zu): %llu page(s) changed, offsets %#llx..%#llx",
				j + 1, wr_moves[j].first,
				wr_moves[j].first + wr_nr(&wr_moves[j], n) - 1,
				(unsigned long long)r->pages, (unsigned long long)r->off,
				(unsigned long long)r->last + 7);
		else
			mr_diag("child: pages no move touched: %llu changed, offsets %#llx..%#llx",
				(unsigned long long)r->pages, (unsigned long long)r->off,
				(unsigned long long)r->last + 7);
		mr_diag("child:   at %#llx it read %#018llx, expected %#018llx; %llu of %llu wrong words hold the parent's new data",
			(unsigned long long)r->off, (unsigned long long)r->seen,
			(unsigned long long)r->want, (unsigned long long)r->leaked,
			(unsigned long long)r->words);
		if (!all.words) {
			all.off = r->off;
			all.seen = r->seen;
			all.want = r->want;
		}
		all.words += r->words;
		all.pages += r->pages;
		all.leaked += r->leaked;
		all.last = r->last;
	}
	fflush(stdout);
	if (write(out, &all, sizeof(all)) != sizeof(all))
		return 2;
	return all.words ? 1 : 0;
}

static int recv_report(int fd, struct wr_report *r)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(*r)) {
		n = read(fd, (char *)r + got, sizeof(*r) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += n;
	}
	return 0;
}

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_minflt;
}

/*
 * MM_REGRESS_WRBIT_INJECT=1 (for mkseries's own tests): copy the parent's
 * writes of the first move into the child's copy, as the bug would, so
 * the failure report can be seen on a fixed kernel.
 */
static void wr_inject(pid_t pid, unsigned char *src, unsigned char *dst, size_t pg)
{
	const struct wr_move *m = &wr_moves[0];
	size_t off = (m->first + m->wr) * pg, len = (m->nr - m->wr) * pg;
	struct iovec local = { dst + off, len }, remote = { src + off, len };

	mr_diag("MM_REGRESS_WRBIT_INJECT: copying the parent's writes into the child's copy");
	if (process_vm_writev(pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		mr_diag("process_vm_writev: %s", strerror(errno));
}

enum mr_status case_pte_batch_wrbit(struct mr_ctx *ctx)
{
	size_t hp = thp_size(), pg = ctx->page, n = hp / pg, i, j;
	uint64_t s0 = ctx->case_seed, s1 = mr_mix(s0 + 1);
	struct mr_resv rs = { 0 }, rd = { 0 };
	int wstatus = 0, told = 0, folio;
	struct child ch = CHILD_INIT;
	unsigned char *src = NULL, *dst;
	struct wr_report rep;
	enum mr_status st;
	uintptr_t lo, hi;
	size_t bad = 0;
	char why[200];
	long huge;

	st = thp_region(ctx, &rs, hp, hp, s0, &src);
	if (st != MR_PASS)
		goto cleanup;
	if (n < WR_MIN_PAGES) {
		st = mr_skip(ctx, "a THP of %zu pages is too small for this case's %d-page layout", n,
			     WR_MIN_PAGES);
		goto cleanup;
	}
	/* Splitting the VMA at the writable pages also splits the PMD: the folio stays whole. */
	for (j = 0; j < NR_WR_MOVES; j++) {
		if (madvise(src + wr_moves[j].first * pg, wr_moves[j].wr * pg, MADV_DONTFORK)) {
			st = mr_fail(ctx, "madvise(MADV_DONTFORK): %s", strerror(errno));
			goto cleanup;
		}
	}
	st = child_fork(ctx, &ch);
	if (st != MR_PASS)
		goto cleanup;
	if (!ch.pid)
		child_exit(wr_child(src, n, pg, s0, s1, ch.in, ch.out));

	for (j = 0; j < NR_WR_MOVES; j++) {
		if (madvise(src + wr_moves[j].first * pg, wr_moves[j].wr * pg, MADV_DOFORK)) {
			st = mr_fail(ctx, "madvise(MADV_DOFORK): %s", strerror(errno));
			goto cleanup;
		}
	}
	/* Batches form within one VMA: without the merge nothing mixes write bits. */
	if (vma_span(src, &lo, &hi) || lo > (uintptr_t)src || hi < (uintptr_t)src + hp) {
		st = mr_skip(ctx, "the VMAs split by MADV_DONTFORK did not merge again after MADV_DOFORK");
		goto cleanup;
	}
	huge = mr_smaps_kb(src, "AnonHugePages");
	if (huge != 0) {
		st = mr_skip(ctx, "the THP is still mapped by its PMD (AnonHugePages: %ld kB)", huge);
		goto cleanup;
	}
	folio = one_folio(src, n, pg, why, sizeof(why));
	if (!folio) {
		st = mr_skip(ctx, "no large folio left to batch: %s", why);
		goto cleanup;
	}
	mr_diag("one VMA, THP mapped by PTEs (AnonHugePages: 0 kB); %s%s",
		folio > 0 ? "" : "cannot confirm the folio is whole: ", why);
#if defined(__x86_64__) || defined(__i386__)
	mr_diag("%s: batching is only reachable on x86 without 0b5be138ce00", ctx->name);
#elif defined(__aarch64__)
	/*
	 * The PMD split mapped the folio with set_ptes(), which sets the
	 * contiguous bit on every aligned 16-PTE block; fork() write-protected
	 * whole blocks of the DOFORK VMAs and unfolded the ones a VMA edge
	 * cuts. So move 3 starts on a writable contpte block (pte_batch_hint()
	 * 16, past 0b5be138ce00's check) and its batch runs on over two
	 * write-protected contpte blocks of the same folio: 48 PTEs in one
	 * batch, the first one's write bit on all of them without 04d1c9d60c6e.
	 */
	if (pg == 4 * KiB)
		mr_diag("%s: arm64: move 3 starts on a writable contpte block (pages 16..31, 64 KiB aligned) and runs on across 32 write-protected PTEs of the same folio",
			ctx->name);
	else
		mr_diag("%s: arm64 with %zu KiB pages: the layout is drawn for 4 KiB pages (16-PTE contpte blocks)",
			ctx->name, pg / KiB);
#endif

	dst = mr_reserve(&rd, hp, hp, 0);
	if (!dst) {
		st = mr_fail(ctx, "cannot reserve %zu bytes: %s", hp, strerror(errno));
		goto cleanup;
	}
	for (j = 0; j < NR_WR_MOVES; j++) {
		const struct wr_move *m = &wr_moves[j];
		size_t off = m->first * pg, len = wr_nr(m, n) * pg;
		long f0, f1;

		/* Same offset in a THP-aligned destination: the move stays in one page table. */
		if (mr_move(src + off, len, dst + off)) {
			st = mr_fail(ctx, "mremap of pages %zu..%zu: %s", m->first,
				     m->first + len / pg - 1, strerror(errno));
			goto cleanup;
		}
		f0 = minor_faults();
		mr_fill(dst + off, len, len, len, mr_seed_at(s1, off));
		f1 = minor_faults();
		mr_diag("move %zu: pages %zu..%zu (%zu writable, then %zu write-protected) to %p; page faults writing them: %ld",
			j + 1, m->first, m->first + len / pg - 1, m->wr, len / pg - m->wr,
			(void *)(dst + off), f1 - f0);
	}
	if (getenv("MM_REGRESS_WRBIT_INJECT"))
		wr_inject(ch.pid, src, dst, pg);
	if (send_byte(ch.out, 'W') || recv_report(ch.in, &rep)) {
		st = mr_fail(ctx, "lost the child before it read its copy");
		goto cleanup;
	}
	told = 1;
	for (j = 0; j < NR_WR_MOVES; j++) {
		size_t off = wr_moves[j].first * pg, len = wr_nr(&wr_moves[j], n) * pg;

		bad += mr_check(dst + off, len, len, len, mr_seed_at(s1, off), "parent's moved pages");
	}
	for (i = 0; i < n; i++)
		if (wr_move_of(i, n) == NR_WR_MOVES)
			bad += mr_check(src + i * pg, pg, pg, pg, mr_seed_at(s0, i * pg),
					"parent's pages left in place");
	if (rep.words)
		st = mr_fail(ctx, "the parent's writes through moved write-protected PTEs reached the child: %llu page(s) changed; at %#llx it read %#018llx, expected %#018llx%s",
			     (unsigned long long)rep.pages, (unsigned long long)rep.off,
			     (unsigned long long)rep.seen, (unsigned long long)rep.want,
			     rep.seen == mr_word(s1, rep.off / 8) ? " (the parent's new data)" : "");
	else if (bad)
		st = mr_fail(ctx, "the parent's own pages are wrong: %zu wrong words", bad);
	else
		st = MR_PASS;
cleanup:
	if (child_reap(&ch, &wstatus) && told && st == MR_PASS &&
	    (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus)))
		st = mr_fail(ctx, "the child's check failed (wait status %#x)", wstatus);
	if (st == MR_PASS)
		mr_diag("the child kept its copy: the parent's writes to moved write-protected pages did not reach it");
	mr_unreserve(&rd);
	mr_unreserve(&rs);
	return st;
}
