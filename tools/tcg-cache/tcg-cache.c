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
 *   mkseries-cycles: region=N insns=I l1d_misses=A ... rep_lines=R cycles=F
 *
 * with the counters contract.h lists, in its order.
 *
 * Nothing here reads the host's clock or depends on the order threads
 * run in, so one guest run under icount gives the same counts every time.
 * It needs one vCPU: the counters are not shared safely between vCPUs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin-api.h"
#include "contract.h"
#include "marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* One set-associative level with LRU replacement, indexed by line (or page) number. */
struct level {
	const char *name;
	uint64_t size;		/* bytes (entries for a TLB) */
	unsigned assoc;
	unsigned latency;	/* cycles added when an access misses the level above and hits here */
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
static struct level l1d = { .name = "l1d", .size = 48 << 10, .assoc = 12 };
static struct level l2 = { .name = "l2", .size = 2 << 20, .assoc = 16, .latency = 16 };
static struct level llc = { .name = "llc", .size = 36 << 20, .assoc = 12, .latency = 70 };
static struct level dtlb = { .name = "dtlb", .size = 96, .assoc = 6 };
static struct level stlb = { .name = "stlb", .size = 2048, .assoc = 16, .latency = 7 };
static unsigned mem_latency = 350, walk_latency = 30;
static unsigned line_shift = 6;
/* Kernel addresses (the upper half) as 2 MiB pages: the direct map and vmemmap are mapped so. */
static unsigned user_page_shift = 12, kernel_page_shift = 21;

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
};

static struct counts now;	/* since the start */
static struct counts opened;	/* at the open region's start marker, moved on by its pauses */
static struct counts paused_at;	/* at the pause marker, while paused */
static int in_region, paused;
static unsigned long regions, markers, unmatched_ends, pauses;
static int system_mode;
static int is_x86;	/* the target has rep-prefixed string instructions */
static FILE *out;

static int level_init(struct level *l, unsigned unit_shift)
{
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

static void tlb_access(uint64_t vaddr)
{
	unsigned shift = vaddr >> 63 ? kernel_page_shift : user_page_shift;
	/* The page size goes into the number's top bits, so a 4 KiB and a 2 MiB page never share an entry. */
	uint64_t page = vaddr >> shift | (uint64_t)shift << 56;

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

/* The last line a rep string instruction loaded from and stored to. */
static uint64_t last_rep_line[2] = { UINT64_MAX, UINT64_MAX };

static void vcpu_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	uint64_t size = 1ull << qemu_plugin_mem_size_shift(info), addr = vaddr, first, last;
	int store = qemu_plugin_mem_is_store(info);

	if (system_mode) {
		struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

		/* Device registers are not memory: no cache or TLB of ours sees them. */
		if (!hw || qemu_plugin_hwaddr_is_io(hw))
			return;
		addr = qemu_plugin_hwaddr_phys_addr(hw);
	}
	tlb_access(vaddr);
	/* An access that straddles lines touches both. */
	first = addr >> line_shift;
	last = (addr + size - 1) >> line_shift;
	if (udata && last_rep_line[store] != last) {
		now.rep_lines += 1 + (last != first && last_rep_line[store] != first);
		last_rep_line[store] = last;
	}
	cache_access(addr, store);
	if (last != first)
		cache_access(last << line_shift, store);
}

static int stores_stall;	/* stores=stall: a store miss costs what a load miss does */
static int rep_per_element;	/* rep=element: each element of a rep string instruction costs a cycle */

static uint64_t cycles_of(const struct counts *c)
{
	uint64_t insns = c->insns, l1d = c->l1d_misses, l2m = c->l2_misses, llcm = c->llc_misses;

	if (!rep_per_element)
		insns = insns - c->rep_elements + c->rep_lines;

	if (!stores_stall) {
		l1d -= c->l1d_store_misses;
		l2m -= c->l2_store_misses;
		llcm -= c->llc_store_misses;
	}
	return insns + l1d * l2.latency + l2m * llc.latency + llcm * mem_latency +
	       c->dtlb_misses * stlb.latency + c->page_walks * walk_latency;
}

static void print_counts(const char *what, const struct counts *c)
{
	fprintf(out, TCG_CACHE_LINE " %s", what);
#define PRINT_COUNTER(name) fprintf(out, " " #name "=%" PRIu64, c->name);
	TCG_CACHE_COUNTERS(PRINT_COUNTER)
#undef PRINT_COUNTER
	fprintf(out, " " TCG_CACHE_CYCLES "=%" PRIu64 "\n", cycles_of(c));
	fflush(out);
}

static void diff(struct counts *d, const struct counts *a, const struct counts *b)
{
	d->insns = a->insns - b->insns;
	d->l1d_misses = a->l1d_misses - b->l1d_misses;
	d->l2_misses = a->l2_misses - b->l2_misses;
	d->llc_misses = a->llc_misses - b->llc_misses;
	d->dtlb_misses = a->dtlb_misses - b->dtlb_misses;
	d->page_walks = a->page_walks - b->page_walks;
	d->l1d_store_misses = a->l1d_store_misses - b->l1d_store_misses;
	d->l2_store_misses = a->l2_store_misses - b->l2_store_misses;
	d->llc_store_misses = a->llc_store_misses - b->llc_store_misses;
	d->rep_elements = a->rep_elements - b->rep_elements;
	d->rep_lines = a->rep_lines - b->rep_lines;
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

/*
 * Whether insn is a rep-prefixed string instruction (rep stos, rep movs,
 * repe cmps, ...): legacy prefixes and a REX byte, then a string opcode,
 * with a rep prefix among the prefixes. Only x86 has them.
 */
static int is_rep_string(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i;
	int rep = 0;

	if (!is_x86)
		return 0;
	for (i = 0; i < n; i++) {
		unsigned char c = b[i];

		if (c == 0xf3 || c == 0xf2)
			rep = 1;
		else if (c == 0x66 || c == 0x67 || c == 0x2e || c == 0x3e || c == 0x26 ||
			 c == 0x64 || c == 0x65 || c == 0x36 || (c & 0xf0) == 0x40)
			continue;
		else
			return rep && (c == 0xa4 || c == 0xa5 || c == 0xa6 || c == 0xa7 ||
				       c == 0xaa || c == 0xab || c == 0xac || c == 0xad ||
				       c == 0xae || c == 0xaf || c == 0x6c || c == 0x6d ||
				       c == 0x6e || c == 0x6f);
	}
	return 0;
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	/* Counted as the block starts: a block cut short by an exception still counts whole, every time alike. */
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &now.insns, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uintptr_t kind;

		int rep = is_rep_string(insn);

		if (rep)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &now.rep_elements, 1);
		if (is_marker(insn, &kind))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, vcpu_marker, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)kind);
		/* udata tells a rep string instruction's accesses from the others. */
		qemu_plugin_register_vcpu_mem_cb(insn, vcpu_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)rep);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char what[96];

	snprintf(what, sizeof(what), "total regions=%lu markers=%lu unmatched_ends=%lu pauses=%lu",
		 regions, markers, unmatched_ends, pauses);
	print_counts(what, &now);
	if (out != stderr)
		fclose(out);
}

/* "48K", "2M", "96": a size with an optional binary suffix. */
static int parse_size(uint64_t *v, const char *s)
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

static int parse_arg(const char *arg)
{
	static const struct {
		const char *key;
		struct level *level;	/* size and assoc of this level, or NULL */
		unsigned *latency;
	} keys[] = {
		{ "l1d", &l1d, NULL }, { "l2", &l2, &l2.latency }, { "llc", &llc, &llc.latency },
		{ "dtlb", &dtlb, NULL }, { "stlb", &stlb, &stlb.latency },
		{ "mem", NULL, &mem_latency }, { "walk", NULL, &walk_latency },
	};
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : 0, i;
	uint64_t v;

	if (!eq || parse_size(&v, eq + 1))
		goto bad;
	for (i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		size_t n = strlen(keys[i].key);

		if (klen <= n || strncmp(arg, keys[i].key, n) || arg[n] != '_')
			continue;
		if (keys[i].level && !strncmp(arg + n, "_size=", 6))
			keys[i].level->size = v;
		else if (keys[i].level && !strncmp(arg + n, "_assoc=", 7) && v <= 64)
			keys[i].level->assoc = v;
		else if (keys[i].latency && !strncmp(arg + n, "_latency=", 9) && v < 100000)
			*keys[i].latency = v;
		else
			goto bad;
		return 0;
	}
bad:
	fprintf(stderr,
		"tcg-cache: bad argument '%s': expected out=FILE, stores=buffered|stall, "
		"rep=line|element, {l1d,l2,llc,dtlb,stlb}_size=N[K|M|G], "
		"{l1d,l2,llc,dtlb,stlb}_assoc=N (at most 64), {l2,llc,stlb,mem,walk}_latency=CYCLES\n",
		arg);
	return -1;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	int i;

	out = stderr;
	/* out= is the only argument whose value is not a number. */
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "stores=stall")) {
			stores_stall = 1;
		} else if (!strcmp(argv[i], "stores=buffered")) {
			stores_stall = 0;
		} else if (!strcmp(argv[i], "rep=element")) {
			rep_per_element = 1;
		} else if (!strcmp(argv[i], "rep=line")) {
			rep_per_element = 0;
		} else if (!strncmp(argv[i], "out=", 4)) {
			out = fopen(argv[i] + 4, "w");
			if (!out) {
				fprintf(stderr, "tcg-cache: cannot write '%s': %s\n", argv[i] + 4,
					strerror(errno));
				return -1;
			}
		} else if (parse_arg(argv[i])) {
			return -1;
		}
	}
	if (info->system_emulation && info->system.max_vcpus > 1) {
		fprintf(stderr, "tcg-cache: the model is of one CPU: run with -smp 1, not %d vCPUs\n",
			info->system.max_vcpus);
		return -1;
	}
	if (level_init(&l1d, line_shift) || level_init(&l2, line_shift) ||
	    level_init(&llc, line_shift) || level_init(&dtlb, 0) || level_init(&stlb, 0))
		return -1;
	system_mode = info->system_emulation;
	is_x86 = !strcmp(info->target_name, "x86_64") || !strcmp(info->target_name, "i386");
	fprintf(out,
		"mkseries-cycles: model l1d=%" PRIu64 "K/%u l2=%" PRIu64 "K/%u+%u llc=%" PRIu64
		"K/%u+%u mem+%u dtlb=%" PRIu64 "/%u stlb=%" PRIu64 "/%u+%u walk+%u stores=%s rep=%s line=%u %s\n",
		l1d.size >> 10, l1d.assoc, l2.size >> 10, l2.assoc, l2.latency, llc.size >> 10,
		llc.assoc, llc.latency, mem_latency, dtlb.size, dtlb.assoc, stlb.size, stlb.assoc,
		stlb.latency, walk_latency, stores_stall ? "stall" : "buffered",
		rep_per_element ? "element" : "line", 1u << line_shift,
		system_mode ? "physical" : "virtual");
	fflush(out);
	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
