/* tools/tcg-cache/tcg-cache.c: a QEMU TCG plugin that models caches and TLBs and counts modelled cycles per marked region. */
/*
 * Loaded with -plugin tcg-cache.so[,key=value...]. Every data access
 * the guest makes goes through a model of one CPU's L1 data cache, L2,
 * last-level cache, first-level data TLB and second-level TLB; each
 * instruction costs one cycle and each miss the latency of the level
 * that served it (cachegrind's "estimated cycles" in spirit). Regions
 * are opened and closed by marker instructions (marker.h); at the end
 * of each, one line goes out:
 *
 *   mkseries-cycles: region=N insns=I l1d_misses=A ... tlb_page_flushes=P cycles=F
 *
 * with the counters contract.h lists, in its order.
 *
 * Nothing here reads the host's clock or depends on the order threads
 * run in, so one guest run under icount gives the same counts every time.
 * It needs one vCPU: the counters are one CPU's, and a cache or TLB
 * shared by two vCPUs would be no CPU's. System mode is refused more
 * than one at install; under qemu-user a guest thread is a second vCPU,
 * and the run stops when one starts (a forked child is another process,
 * with its own copy of the plugin, and is welcome).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"
#include "contract.h"
#include "marker.h"
#include "size.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* One set-associative level with LRU replacement, indexed by line (or page) number. */
struct level {
	const char *name;	/* its key in contract.h, set by qemu_plugin_install() */
	uint64_t size;		/* bytes (entries for a TLB) */
	unsigned assoc;
	int tlb;		/* entries of pages, not bytes of lines */
	uint64_t sets;
	uint64_t *tags;		/* sets * assoc; tag + 1, 0 for an empty way */
	uint64_t *stamp;	/* last use, for LRU */
	uint64_t misses;
};

/*
 * The defaults: one P-core of an Intel Core i9-13900K (Raptor Lake, the
 * machine the folio-lookup hotfix was measured on): 48 KiB 12-way L1d,
 * 2 MiB 16-way L2, 36 MiB 12-way L3, 64-byte lines; a 96-entry 6-way
 * first-level DTLB and a 2048-entry 16-way STLB. The latencies are our
 * round figures within published measurements of that core, not
 * Intel's: L2 16 cycles, L3 70, DRAM 350, an STLB hit 7 and a page walk
 * 30 (its page-table reads are not modelled as cache accesses).
 */
static struct level l1d = { .size = 48 << 10, .assoc = 12 };
static struct level l2 = { .size = 2 << 20, .assoc = 16 };
static struct level llc = { .size = 36 << 20, .assoc = 12 };
static struct level dtlb = { .size = 96, .assoc = 6, .tlb = 1 };
static struct level stlb = { .size = 2048, .assoc = 16, .tlb = 1 };
/* Cycles added when an access misses the level above and is served by this one. */
static unsigned l2_latency = 16, llc_latency = 70, mem_latency = 350;
static unsigned stlb_latency = 7, walk_latency = 30;
static unsigned line_shift = 6;
/*
 * Kernel addresses (the upper half) as 2 MiB pages: the direct map and
 * vmemmap are mapped so. User pages as 4 KiB, or with user_page=2M as
 * 2 MiB (a workload on transparent huge pages).
 */
static unsigned user_page_shift = 12, kernel_page_shift = 21;
/* The smallest page the MMU maps: an access may cross into another frame at this size. */
#define MIN_PAGE_SHIFT 12

/* The switches (contract.h's TCG_CACHE_WORD): 0 the default value, 1 the other. */
static unsigned stores_word;	/* 1: stores=stall, a store miss costs what a load miss does */
static unsigned rep_word;	/* 1: rep=element, each element of a rep string instruction costs a cycle */
static unsigned user_page_word;	/* 1: user_page=2M */

static uint64_t clock_stamp;	/* a use counter, never the host's time */

struct counts {
	uint64_t insns;
	uint64_t l1d_misses, l2_misses, llc_misses, dtlb_misses, page_walks;
	/* Of the misses above, those of stores (charged only with stores=stall). */
	uint64_t l1d_store_misses, l2_store_misses, llc_store_misses;
	/*
	 * Executions of rep-prefixed string instructions (QEMU runs one
	 * element each time, and each counts as an instruction), and the
	 * lines those elements touched, a new line each time one moves on.
	 */
	uint64_t rep_elements, rep_lines;
	/*
	 * TLB flushes the guest asked for: CR3 writes and invpcid, and
	 * invlpg. They cost nothing themselves; the misses after them do.
	 */
	uint64_t tlb_flushes, tlb_page_flushes;
};

static struct counts now;	/* since the start */
static struct counts opened;	/* at the open region's start marker, moved on by its pauses */
static struct counts paused_at;	/* at the pause marker, while paused */
static int in_region, paused;
static unsigned long regions, markers, unmatched_ends, pauses;
static int system_mode;
static int is_x86;	/* the target has rep-prefixed string instructions and our TLB flushes */
static FILE *out;
static int refused;	/* a second vCPU stopped the run: its counts mean nothing */

static int level_init(struct level *l)
{
	unsigned unit_shift = l->tlb ? 0 : line_shift;
	uint64_t units = l->size >> unit_shift;

	if (!l->assoc || units < l->assoc || units % l->assoc) {
		fprintf(stderr, "tcg-cache: %s: %" PRIu64 " %s is not a whole number of %u-way sets\n",
			l->name, l->size, unit_shift ? "bytes" : "entries", l->assoc);
		return -1;
	}
	l->sets = units / l->assoc;
	l->tags = calloc(units, sizeof(*l->tags));
	l->stamp = calloc(units, sizeof(*l->stamp));
	if (!l->tags || !l->stamp) {
		fprintf(stderr, "tcg-cache: %s: out of memory for %" PRIu64 " ways\n", l->name, units);
		return -1;
	}
	return 0;
}

/* Look `n` (a line or page number) up in l; on a miss, the least recently used way takes it. Returns 1 on a hit. */
static int level_access(struct level *l, uint64_t n)
{
	uint64_t set = n % l->sets, *tags = l->tags + set * l->assoc;
	uint64_t *stamp = l->stamp + set * l->assoc;
	unsigned i, victim = 0;

	clock_stamp++;
	for (i = 0; i < l->assoc; i++) {
		if (tags[i] == n + 1) {
			stamp[i] = clock_stamp;
			return 1;
		}
		if (stamp[i] < stamp[victim])
			victim = i;
	}
	l->misses++;
	tags[victim] = n + 1;
	stamp[victim] = clock_stamp;
	return 0;
}

/*
 * The line and page of the last access: touched again, each is its set's
 * most recently used way already, so a hit changes no LRU order and the
 * lookup can be skipped. The counts are the same; sequential code runs faster.
 */
static uint64_t last_line = UINT64_MAX, last_page = UINT64_MAX;

static void cache_access(uint64_t addr, int store)
{
	uint64_t line = addr >> line_shift;

	if (line == last_line)
		return;
	last_line = line;
	if (level_access(&l1d, line))
		return;
	now.l1d_misses++;
	now.l1d_store_misses += store;
	if (level_access(&l2, line))
		return;
	now.l2_misses++;
	now.l2_store_misses += store;
	if (level_access(&llc, line))
		return;
	now.llc_misses++;
	now.llc_store_misses += store;
}

/*
 * A TLB entry's number: the virtual page, with the page size in the
 * top bits, so a 4 KiB and a 2 MiB page never share an entry.
 */
static uint64_t tlb_page(uint64_t vaddr)
{
	unsigned shift = vaddr >> 63 ? kernel_page_shift : user_page_shift;

	return vaddr >> shift | (uint64_t)shift << 56;
}

/* Whether the entry numbered page maps the user (lower) half: its address's top bit is 0. */
static int tlb_page_is_user(uint64_t page)
{
	unsigned shift = page >> 56;

	return !(page >> (63 - shift) & 1);
}

static void tlb_access(uint64_t vaddr)
{
	uint64_t page = tlb_page(vaddr);

	if (page == last_page)
		return;
	last_page = page;
	if (level_access(&dtlb, page))
		return;
	now.dtlb_misses++;
	if (level_access(&stlb, page))
		return;
	now.page_walks++;
}

/* Empty every way of l that holds a user page; an empty way is the first a miss fills. */
static void level_flush_user(struct level *l)
{
	uint64_t i;

	for (i = 0; i < l->sets * l->assoc; i++) {
		if (l->tags[i] && tlb_page_is_user(l->tags[i] - 1)) {
			l->tags[i] = 0;
			l->stamp[i] = 0;
		}
	}
}

enum tlb_flush { FLUSH_NONE, FLUSH_ALL, FLUSH_PAGE };

/*
 * The guest flushed its TLB: a mov to CR3, an invpcid or an invlpg.
 * QEMU 7.2's plugin API cannot read registers, so neither the page an
 * invlpg names, nor the CR3 value or the invpcid type is known. Each of
 * them empties every user-half entry of the DTLB and STLB and keeps the
 * kernel half, which Linux maps global (CR3 writes leave it): for an
 * invlpg that is an upper bound, as it drops one page we cannot name.
 * Under TCG the guest CPU is QEMU's qemu64, without PCID, so Linux
 * writes CR3 at every switch to another process; that flush is also
 * what keeps one process's user pages from hitting on another's
 * entries in our TLB, which is not tagged by address space.
 */
static void vcpu_tlb_flush(unsigned int vcpu, void *udata)
{
	if ((uintptr_t)udata == FLUSH_PAGE)
		now.tlb_page_flushes++;
	else
		now.tlb_flushes++;
	level_flush_user(&dtlb);
	level_flush_user(&stlb);
	last_page = UINT64_MAX;
}

/* The last line a rep string instruction loaded from and stored to. */
static uint64_t last_rep_line[2] = { UINT64_MAX, UINT64_MAX };

static void vcpu_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	uint64_t size = 1ull << qemu_plugin_mem_size_shift(info), vend = vaddr + size - 1;
	/* The first and the last byte's addresses: physical in system mode, else virtual. */
	uint64_t addr = vaddr, end = vend, first, last;
	int store = qemu_plugin_mem_is_store(info), second_page = 1;

	if (system_mode) {
		struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

		/* Device registers are not memory: no cache or TLB of ours sees them. */
		if (!hw || qemu_plugin_hwaddr_is_io(hw))
			return;
		addr = qemu_plugin_hwaddr_phys_addr(hw);
		end = addr + size - 1;
		/*
		 * An access that straddles two pages: the second page's frame
		 * need not follow the first's, so ask where its last byte went
		 * (QEMU has both pages in its TLB, having just made the access).
		 */
		if ((vaddr ^ vend) >> MIN_PAGE_SHIFT) {
			hw = qemu_plugin_get_hwaddr(info, vend);
			if (hw && !qemu_plugin_hwaddr_is_io(hw)) {
				end = qemu_plugin_hwaddr_phys_addr(hw);
			} else {
				end = addr | ((1ull << MIN_PAGE_SHIFT) - 1);
				second_page = 0;
			}
		}
	}
	/* Both pages of an access that straddles two go through the TLB (no-op when they are one of its pages). */
	tlb_access(vaddr);
	if (second_page)
		tlb_access(vend);
	/* An access that straddles lines touches both. */
	first = addr >> line_shift;
	last = end >> line_shift;
	if (udata && last_rep_line[store] != last) {
		now.rep_lines += 1 + (last != first && last_rep_line[store] != first);
		last_rep_line[store] = last;
	}
	cache_access(addr, store);
	if (last != first)
		cache_access(end, store);
}

static uint64_t cycles_of(const struct counts *c)
{
	uint64_t insns = c->insns, l1d = c->l1d_misses, l2m = c->l2_misses, llcm = c->llc_misses;

	if (!rep_word)
		insns = insns - c->rep_elements + c->rep_lines;

	if (!stores_word) {
		l1d -= c->l1d_store_misses;
		l2m -= c->l2_store_misses;
		llcm -= c->llc_store_misses;
	}
	return insns + l1d * l2_latency + l2m * llc_latency + llcm * mem_latency +
	       c->dtlb_misses * stlb_latency + c->page_walks * walk_latency;
}

/*
 * The line is made whole, then written at once: under qemu-user a forked
 * guest process has its own copy of the plugin writing to the same file,
 * and lines written piece by piece would interleave.
 */
static void print_counts(const char *what, const struct counts *c)
{
	char line[1024];
	size_t n = 0;

#define LINE_ADD(...) \
	(n < sizeof(line) ? n += snprintf(line + n, sizeof(line) - n, __VA_ARGS__) : 0)
	LINE_ADD(TCG_CACHE_LINE " %s", what);
#define PRINT_COUNTER(name) LINE_ADD(" " #name "=%" PRIu64, c->name);
	TCG_CACHE_COUNTERS(PRINT_COUNTER)
#undef PRINT_COUNTER
	LINE_ADD(" " TCG_CACHE_CYCLES "=%" PRIu64 "\n", cycles_of(c));
#undef LINE_ADD
	fwrite(line, 1, n < sizeof(line) ? n : sizeof(line) - 1, out);
	fflush(out);
}

static void diff(struct counts *d, const struct counts *a, const struct counts *b)
{
#define DIFF_COUNTER(name) d->name = a->name - b->name;
	TCG_CACHE_COUNTERS(DIFF_COUNTER)
#undef DIFF_COUNTER
}

/* a += b - c: moves a region's opening counts on by what a pause left out. */
static void add_diff(struct counts *a, const struct counts *b, const struct counts *c)
{
	struct counts d, sum;

	diff(&d, b, c);
#define ADD_COUNTER(name) sum.name = a->name + d.name;
	TCG_CACHE_COUNTERS(ADD_COUNTER)
#undef ADD_COUNTER
	*a = sum;
}

static void vcpu_marker(unsigned int vcpu, void *udata)
{
	uintptr_t kind = (uintptr_t)udata;
	struct counts d;
	char what[32];

	markers++;
	switch (kind) {
	case TCG_CACHE_MARK_START:
		/* A second start without an end restarts the region under a new number. */
		regions++;
		in_region = 1;
		paused = 0;
		opened = now;
		return;
	case TCG_CACHE_MARK_PAUSE:
		if (in_region && !paused) {
			pauses++;
			paused = 1;
			paused_at = now;
		}
		return;
	case TCG_CACHE_MARK_RESUME:
		/* What ran while paused is left out by counting the region as opened that much later. */
		if (in_region && paused) {
			paused = 0;
			add_diff(&opened, &now, &paused_at);
		}
		return;
	}
	if (!in_region) {
		unmatched_ends++;
		return;
	}
	in_region = 0;
	diff(&d, paused ? &paused_at : &now, &opened);
	snprintf(what, sizeof(what), "region=%lu", regions);
	print_counts(what, &d);
}

static int is_marker(struct qemu_plugin_insn *insn, uintptr_t *kind)
{
	static const unsigned char start[] = { TCG_CACHE_MARK_BYTES(TCG_CACHE_MARK_START) };
	const unsigned char *data;

	if (qemu_plugin_insn_size(insn) != TCG_CACHE_MARK_LEN)
		return 0;
	data = qemu_plugin_insn_data(insn);
	/* The bytes but the kind are the same for every marker. */
	if (memcmp(data, start, 4) || memcmp(data + 5, start + 5, 3))
		return 0;
	switch (data[4]) {
	case TCG_CACHE_MARK_START:
	case TCG_CACHE_MARK_END:
	case TCG_CACHE_MARK_PAUSE:
	case TCG_CACHE_MARK_RESUME:
		*kind = data[4];
		return 1;
	}
	return 0;
}

/* The x86 prefixes an instruction's opcode follows. */
enum { PREFIX_REP = 1 << 0, PREFIX_OPSIZE = 1 << 1 };

/*
 * The offset of insn's opcode in b, after its legacy prefixes and REX
 * bytes, or n if there is none; *prefixes says which of ours it had.
 * A lock prefix is not skipped: none of the instructions we look for
 * takes one (with it, 0f 22 is another instruction on AMD).
 */
static size_t x86_opcode(const unsigned char *b, size_t n, unsigned *prefixes)
{
	size_t i;

	*prefixes = 0;
	for (i = 0; i < n; i++) {
		unsigned char c = b[i];

		if (c == 0xf3 || c == 0xf2)
			*prefixes |= PREFIX_REP;
		else if (c == 0x66)
			*prefixes |= PREFIX_OPSIZE;
		else if (!(c == 0x67 || c == 0x2e || c == 0x3e || c == 0x26 || c == 0x64 ||
			   c == 0x65 || c == 0x36 || (c & 0xf0) == 0x40))
			break;
	}
	return i;
}

/*
 * Whether insn is a rep-prefixed string instruction (rep stos, rep movs,
 * repe cmps, ...): legacy prefixes and a REX byte, then a string opcode,
 * with a rep prefix among the prefixes. Only x86 has them.
 */
static int is_rep_string(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;
	unsigned prefixes;
	unsigned char c;

	if (!is_x86)
		return 0;
	i = x86_opcode(b, n, &prefixes);
	if (i == n || !(prefixes & PREFIX_REP))
		return 0;
	c = b[i];
	return c == 0xa4 || c == 0xa5 || c == 0xa6 || c == 0xa7 || c == 0xaa || c == 0xab ||
	       c == 0xac || c == 0xad || c == 0xae || c == 0xaf || c == 0x6c || c == 0x6d ||
	       c == 0x6e || c == 0x6f;
}

/*
 * Whether insn flushes TLB entries, and how (vcpu_tlb_flush() says what
 * we make of each): invlpg m (0f 01 /7, a memory operand), mov to CR3
 * (0f 22 /r with ModRM.reg 3, whatever the REX prefix) and invpcid
 * (66 0f 38 82 /r, a memory operand). Decoded from the bytes at
 * translation, x86 only. QEMU reads an instruction's bytes only as far
 * as it decodes them: a mov to CR3 at CPL 3 (qemu-user) ends at 0f 22,
 * which is no flush of ours, as it does none.
 */
static enum tlb_flush tlb_flush_of(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;
	unsigned prefixes, reg, mod;

	if (!is_x86)
		return FLUSH_NONE;
	i = x86_opcode(b, n, &prefixes);
	if (i + 2 >= n || b[i] != 0x0f)
		return FLUSH_NONE;
	reg = b[i + 2] >> 3 & 7;
	mod = b[i + 2] >> 6;
	if (b[i + 1] == 0x01 && reg == 7 && mod != 3)
		return FLUSH_PAGE;
	if (b[i + 1] == 0x22 && reg == 3)
		return FLUSH_ALL;
	/*
	 * invpcid by its opcode: QEMU reads on to the ModRM byte only for
	 * a CPU that has INVPCID (none of 7.2's under TCG has); on another,
	 * the instruction raises #UD as it starts, after our callback.
	 */
	if (b[i + 1] == 0x38 && b[i + 2] == 0x82 && (prefixes & PREFIX_OPSIZE) &&
	    (i + 3 == n || b[i + 3] >> 6 != 3))
		return FLUSH_ALL;
	return FLUSH_NONE;
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	/* Counted as the block starts: a block cut short by an exception still counts whole, every time alike. */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &now.insns, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int rep = is_rep_string(insn);
		enum tlb_flush flush = tlb_flush_of(insn);
		uintptr_t kind;

		if (rep)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &now.rep_elements, 1);
		if (is_marker(insn, &kind))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, vcpu_marker, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)kind);
		if (flush != FLUSH_NONE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, vcpu_tlb_flush, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)flush);
		/* udata tells a rep string instruction's accesses from the others. */
		qemu_plugin_register_vcpu_mem_cb(insn, vcpu_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)rep);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char what[96];

	if (refused)
		return;
	snprintf(what, sizeof(what), "total regions=%lu markers=%lu unmatched_ends=%lu pauses=%lu",
		 regions, markers, unmatched_ends, pauses);
	print_counts(what, &now);
	if (out != stderr)
		fclose(out);
}

/* The arguments, from contract.h: each key is spelled there and only there. */
#define SIZED_ENTRY(n) { #n, TCG_CACHE_SIZE_KEY(n), TCG_CACHE_ASSOC_KEY(n), &n },
static const struct {
	const char *name, *size_key, *assoc_key;
	struct level *level;
} sized_args[] = { TCG_CACHE_SIZED(SIZED_ENTRY) };
#undef SIZED_ENTRY
#define LATENCY_ENTRY(n) { #n, TCG_CACHE_LATENCY_KEY(n), &n##_latency },
static const struct {
	const char *name, *key;
	unsigned *latency;
} latency_args[] = { TCG_CACHE_LATENCY(LATENCY_ENTRY) };
#undef LATENCY_ENTRY
#define WORD_ENTRY(k, dflt, other) { #k, { #dflt, #other }, &k##_word },
static const struct {
	const char *key, *values[2];
	unsigned *word;
} word_args[] = { TCG_CACHE_WORD(WORD_ENTRY) };
#undef WORD_ENTRY
#define WORD_HELP(k, dflt, other) #k "=" #dflt "|" #other ", "
#define ARRAY_SIZE(a) (sizeof(a) / sizeof(*(a)))

/* Whether the key of arg, klen bytes long, is key. */
static int is_key(const char *arg, size_t klen, const char *key)
{
	return strlen(key) == klen && !strncmp(arg, key, klen);
}

/* What the plugin takes, for a refusal: "{l1d,l2,...}_size=N[K|M|G], ...". */
static void print_usage(FILE *f)
{
	size_t i;

	fputs("expected " TCG_CACHE_OUT_KEY "=FILE, " TCG_CACHE_WORD(WORD_HELP) "{", f);
	for (i = 0; i < ARRAY_SIZE(sized_args); i++)
		fprintf(f, "%s%s", i ? "," : "", sized_args[i].name);
	fputs("}" TCG_CACHE_SIZE_KEY() "=N[K|M|G], {", f);
	for (i = 0; i < ARRAY_SIZE(sized_args); i++)
		fprintf(f, "%s%s", i ? "," : "", sized_args[i].name);
	fputs("}" TCG_CACHE_ASSOC_KEY() "=N (at most 64), {", f);
	for (i = 0; i < ARRAY_SIZE(latency_args); i++)
		fprintf(f, "%s%s", i ? "," : "", latency_args[i].name);
	fputs("}" TCG_CACHE_LATENCY_KEY() "=CYCLES\n", f);
}

/* The latency argument of the level or cost named name, or NULL. */
static const unsigned *latency_of(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(latency_args); i++)
		if (!strcmp(latency_args[i].name, name))
			return latency_args[i].latency;
	return NULL;
}

/* " NAME=SIZE/ASSOC[+LATENCY]": a cache's size in KiB, a TLB's in entries. */
static void print_level(const struct level *l)
{
	const unsigned *latency = latency_of(l->name);

	fprintf(out, " %s=%" PRIu64 "%s/%u", l->name, l->tlb ? l->size : l->size >> 10,
		l->tlb ? "" : "K", l->assoc);
	if (latency)
		fprintf(out, "+%u", *latency);
}

/* " NAME+LATENCY": a cost of no level of ours (memory, the walk). */
static void print_cost(const unsigned *latency)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(latency_args); i++)
		if (latency_args[i].latency == latency)
			fprintf(out, " %s+%u", latency_args[i].name, *latency);
}

/*
 * The model line, every name from contract.h: the caches and memory,
 * the TLBs and the walk, the switches, the line size, and whether the
 * caches see physical or virtual addresses.
 */
static void print_model(void)
{
	size_t i;

	fputs(TCG_CACHE_LINE " model", out);
	print_level(&l1d);
	print_level(&l2);
	print_level(&llc);
	print_cost(&mem_latency);
	print_level(&dtlb);
	print_level(&stlb);
	print_cost(&walk_latency);
	for (i = 0; i < ARRAY_SIZE(word_args); i++)
		fprintf(out, " %s=%s", word_args[i].key, word_args[i].values[*word_args[i].word]);
	fprintf(out, " line=%u %s\n", 1u << line_shift, system_mode ? "physical" : "virtual");
	fflush(out);
}

/* One KEY=VALUE argument but out=. */
static int parse_arg(const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : 0, i, j;
	uint64_t v;

	if (!eq)
		goto bad;
	for (i = 0; i < ARRAY_SIZE(word_args); i++) {
		if (!is_key(arg, klen, word_args[i].key))
			continue;
		for (j = 0; j < 2; j++) {
			if (!strcmp(eq + 1, word_args[i].values[j])) {
				*word_args[i].word = j;
				return 0;
			}
		}
		goto bad;
	}
	if (tcg_cache_parse_size(&v, eq + 1))
		goto bad;
	for (i = 0; i < ARRAY_SIZE(sized_args); i++) {
		if (is_key(arg, klen, sized_args[i].size_key)) {
			sized_args[i].level->size = v;
			return 0;
		}
		if (is_key(arg, klen, sized_args[i].assoc_key) && v <= 64) {
			sized_args[i].level->assoc = v;
			return 0;
		}
	}
	for (i = 0; i < ARRAY_SIZE(latency_args); i++) {
		if (is_key(arg, klen, latency_args[i].key) && v < 100000) {
			*latency_args[i].latency = v;
			return 0;
		}
	}
bad:
	fprintf(stderr, "tcg-cache: bad argument '%s': ", arg);
	print_usage(stderr);
	return -1;
}

/* Say why the run stops, on stderr and in the out file, and stop it. */
static void refuse_vcpu(unsigned int vcpu, unsigned int first)
{
	static const char fmt[] =
		"tcg-cache: a second vCPU (%u, the first was %u) started, a guest thread under "
		"qemu-user: the model and its counters are one CPU's, so the run stops "
		"(a process that forks is fine: the child is another QEMU with its own plugin)\n";

	fprintf(stderr, fmt, vcpu, first);
	fflush(stderr);
	if (out != stderr) {
		fprintf(out, fmt, vcpu, first);
		fclose(out);
		out = stderr;
	}
	refused = 1;
	exit(EXIT_FAILURE);
}

/*
 * Each vCPU as QEMU creates it: the first is the one we model; any other
 * is refused. System mode never gets here with a second (install
 * refuses -smp above 1), user mode does when the guest starts a thread.
 */
static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	static int seen;
	static unsigned int first;

	if (!seen) {
		seen = 1;
		first = vcpu;
	} else if (vcpu != first) {
		refuse_vcpu(vcpu, first);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	size_t i;
	int a;

	out = stderr;
	for (a = 0; a < argc; a++) {
		/* out= is the only argument whose value is a path. */
		if (!strncmp(argv[a], TCG_CACHE_OUT_KEY "=", strlen(TCG_CACHE_OUT_KEY "="))) {
			const char *path = argv[a] + strlen(TCG_CACHE_OUT_KEY "=");

			if (out != stderr)
				fclose(out);
			out = fopen(path, "w");
			if (!out) {
				fprintf(stderr, "tcg-cache: cannot write '%s': %s\n", path, strerror(errno));
				return -1;
			}
		} else if (parse_arg(argv[a])) {
			return -1;
		}
	}
	if (info->system_emulation && info->system.max_vcpus > 1) {
		fprintf(stderr, "tcg-cache: the model is of one CPU: run with -smp 1, not %d vCPUs\n",
			info->system.max_vcpus);
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(sized_args); i++) {
		sized_args[i].level->name = sized_args[i].name;
		if (level_init(sized_args[i].level))
			return -1;
	}
	if (user_page_word)
		user_page_shift = 21;
	system_mode = info->system_emulation;
	is_x86 = !strcmp(info->target_name, "x86_64") || !strcmp(info->target_name, "i386");
	print_model();
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
