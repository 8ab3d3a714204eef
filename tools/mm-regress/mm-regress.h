/* mm-regress.h: what the mm-regress cases share: KTAP output, the run context, memory helpers. */
#ifndef MM_REGRESS_H
#define MM_REGRESS_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MR_VERSION "0.1"
/* The last line of a run; the console parser looks for it. */
#define MR_DONE_MARKER "# mm-regress: done"

/* --instances: at most this many bigheap workers (each holds a heap and two pipe ends). */
#define MR_MAX_INSTANCES 256

#define KiB (1UL << 10)
#define MiB (1UL << 20)
#define GiB (1UL << 30)

enum mr_status {
	MR_PASS,
	MR_FAIL,
	MR_SKIP,
};

/*
 * The clock every timing reads: CLOCK_MONOTONIC, probed once before the
 * first case. An interval shorter than MR_MIN_TICKS times its resolution
 * is mostly quantisation: no metric is ever printed from one.
 */
#define MR_MIN_TICKS 100

struct mr_clock {
	char source[64];	/* the kernel's current clocksource, or "unknown" */
	uint64_t getres_ns;	/* clock_getres(CLOCK_MONOTONIC); 0 when it failed */
	uint64_t step_ns;	/* smallest change seen between two reads; 0 none seen */
	uint64_t resolution_ns;	/* max(step, --clock-resolution); never 0 */
};

/* Everything a case may read about the run, and where it leaves its verdict. */
struct mr_ctx {
	const char *name;	/* the case being run */
	uint64_t seed;		/* the run's seed, as printed */
	uint64_t case_seed;	/* seed mixed with the case name */
	int quick;		/* small sizes, few iterations */
	unsigned repeat;	/* measurement samples, >= 1 */
	size_t heap;		/* --heap: realloc_rate's and bigheap's heap limit in bytes; 0 their default */
	unsigned instances;	/* --instances: bigheap's worker processes, >= 1 */
	size_t page;		/* the page size */
	const struct mr_clock *clock;	/* never NULL while a case runs */
	char reason[256];	/* SKIP reason, or why it failed */
	/* Written by mr_metric(): what the case reported, and what it withheld. */
	unsigned nr_metrics;
	unsigned nr_metric_skips;
	char metric_skip[256];	/* the first withheld metric's reason */
};

enum mr_case_flags {
	/*
	 * The case is there for its metrics; what it checks only keeps the
	 * measurement honest. When the clock resolves none of them, the case
	 * is skipped with the first one's reason instead of passing.
	 */
	MR_MEASURES_ONLY = 1 << 0,
	/*
	 * Not part of a run that names no case: it runs only when --case
	 * names it, so adding it changes neither what a branch runs by
	 * default nor how long that takes.
	 */
	MR_OPT_IN = 1 << 1,
};

struct mr_case {
	const char *name;
	const char *help;
	enum mr_status (*run)(struct mr_ctx *ctx);
	unsigned flags;		/* enum mr_case_flags */
};

/* The cases, in run order (each file exports its own). */
enum mr_status case_mremap_pte(struct mr_ctx *ctx);
enum mr_status case_mremap_pmd(struct mr_ctx *ctx);
enum mr_status case_mremap_pud(struct mr_ctx *ctx);
enum mr_status case_mremap_unaligned(struct mr_ctx *ctx);
enum mr_status case_mremap_pud_time(struct mr_ctx *ctx);
enum mr_status case_mremap_pte_loop(struct mr_ctx *ctx);
enum mr_status case_realloc_rate(struct mr_ctx *ctx);
enum mr_status case_bigheap(struct mr_ctx *ctx);
enum mr_status case_pte_batch_mprotect(struct mr_ctx *ctx);
enum mr_status case_pte_batch_cow(struct mr_ctx *ctx);
enum mr_status case_pte_batch_wrbit(struct mr_ctx *ctx);
enum mr_status case_madvise_dontneed(struct mr_ctx *ctx);
enum mr_status case_process_madvise_dontneed(struct mr_ctx *ctx);
enum mr_status case_cache_colour(struct mr_ctx *ctx);

/* Output: "# " diagnostics, and results that end a case. */
void mr_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Record why the case is skipped; returns MR_SKIP. */
enum mr_status mr_skip(struct mr_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print the failure as a diagnostic and record it; returns MR_FAIL. */
enum mr_status mr_fail(struct mr_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A metric's samples, and the shortest timed interval behind any of them,
 * which decides whether mr_metric() may print them. Invariant: n <= max;
 * adding beyond max is a bug and aborts the case.
 */
struct mr_samples {
	double *v;
	unsigned n, max;
	uint64_t shortest_ns;	/* UINT64_MAX while no value came from a timing */
};

/* Room for max values, none yet; returns 0, or -1 out of memory (s is then empty). */
int mr_samples_init(struct mr_samples *s, unsigned max);
/* Forget the values, keep the room. */
void mr_samples_reset(struct mr_samples *s);
/* Free the values; s may be all zeroes (never initialised). */
void mr_samples_release(struct mr_samples *s);
/* A value that does not come from a timing (a count, a size). */
void mr_sample(struct mr_samples *s, double v);
/* A value computed from one interval of interval_ns, read with mr_clock_ns(). */
void mr_sample_timed(struct mr_samples *s, double v, uint64_t interval_ns);
/*
 * out = num / den, value by value (0 where den is 0), over the values both
 * have. A ratio stands on its inputs' timings: out takes the shorter of
 * their shortest intervals, so it is withheld whenever either would be.
 */
void mr_samples_ratio(struct mr_samples *out, const struct mr_samples *num,
		      const struct mr_samples *den);

/*
 * One metric line:
 *   # metric: CASE NAME VALUE UNIT higher_is_better|lower_is_better [n=N stddev=S]
 * With more than one sample, each is printed first as
 *   # sample: CASE NAME I/N VALUE UNIT
 * and the metric carries their mean and sample standard deviation.
 * When the shortest timed interval behind the samples is under
 * MR_MIN_TICKS times the clock's resolution, no number is printed, only
 *   # metric-skip: CASE NAME shortest timed interval X ns is under 100 x
 *     the clock's resolution (R ns, clocksource S)
 * (one line). Nothing is printed for no samples.
 */
void mr_metric(struct mr_ctx *ctx, const char *name, const struct mr_samples *s,
	       const char *unit, int higher_is_better);

/*
 * A region the tcg-cache QEMU plugin counts (tools/tcg-cache/marker.h):
 * mr_region_start() runs its start marker, mr_region_end() its end
 * marker and then prints
 *   # region: CASE ITERATIONS PER
 * so that the console's reader divides the plugin's counts for that
 * region by ITERATIONS ("call", "iteration": what one is). The markers
 * are no-ops on a CPU and outside x86-64; the line is printed anyway.
 * Call them right inside the clock reads of a timed interval.
 */
void mr_region_start(void);
void mr_region_end(struct mr_ctx *ctx, double iterations, const char *per);
/*
 * Inside a region, mr_region_pause() stops the plugin's counting and
 * mr_region_resume() starts it again, so that a region counts only the
 * calls it is about and not the work between them. Compiled to no
 * marker where mr_region_start() has none. The plugin counts whatever
 * its vCPU runs, whichever process: in a guest, a pause in one process
 * holds for all of them.
 */
void mr_region_pause(void);
void mr_region_resume(void);

/* Time. */
double mr_now(void);		/* monotonic seconds, for the run's own bookkeeping */
uint64_t mr_clock_ns(void);	/* monotonic nanoseconds, for timed intervals */
/*
 * Probe the clock into c and print the header diagnostics
 *   # clocksource: NAME            (NAME "unknown" when sysfs does not say,
 *                                   and a diagnostic saying why)
 *   # clock: resolution_ns=R getres_ns=G step_ns=S
 * The probe reads the clock until it has changed 64 times or 50 ms have
 * passed (five jiffies at HZ=100), or after 5 million reads. floor_ns
 * (--clock-resolution; 0 none) makes R at least that; R is S otherwise
 * (getres is the timers' resolution, not the clock's). On "tsc-early" it
 * first waits, at most 5 s, for the switch to the calibrated clocksource.
 */
void mr_clock_init(struct mr_clock *c, uint64_t floor_ns);
/* Whether the clock resolves an interval: it spans MR_MIN_TICKS resolutions or more. */
int mr_resolved(const struct mr_ctx *ctx, uint64_t interval_ns);
/*
 * How many times to repeat an operation that takes at least op_ns so that
 * the repeats, timed as one interval, span MR_MIN_TICKS resolutions. It
 * depends on the resolution alone, so every kernel timed with the same
 * clock does the same work. Clamped to [min, max]: a coarse clock never
 * stretches a case beyond max, and then its metric is withheld.
 */
unsigned mr_iterations(const struct mr_ctx *ctx, double op_ns, unsigned min, unsigned max);
/* The same for a loop timed by the clock itself: MR_MIN_TICKS resolutions, within [min_ns, max_ns]. */
uint64_t mr_timed_span_ns(const struct mr_ctx *ctx, uint64_t min_ns, uint64_t max_ns);

/* The pattern: word i of a region filled with `seed` is mr_word(seed, i). */
uint64_t mr_mix(uint64_t x);
static inline uint64_t mr_word(uint64_t seed, uint64_t i)
{
	return mr_mix(seed + i * 0x9e3779b97f4a7c15ULL);
}
/* The seed that checks a filled region from `offset` bytes into it. */
static inline uint64_t mr_seed_at(uint64_t seed, size_t offset)
{
	return seed + (offset / 8) * 0x9e3779b97f4a7c15ULL;
}
/*
 * Fill (or check) `chunk` bytes at every `stride` bytes of [p, p + len);
 * chunk == stride == len covers everything. Word indexes are offsets
 * from p, so a moved region checks against the seed it was filled with.
 * mr_check() returns the number of wrong words and reports the first.
 */
void mr_fill(void *p, size_t len, size_t stride, size_t chunk, uint64_t seed);
size_t mr_check(const void *p, size_t len, size_t stride, size_t chunk, uint64_t seed,
		const char *what);

/*
 * Address space: a PROT_NONE reservation keeps other mappings away; an
 * aligned spot inside it takes our mappings (MAP_FIXED) and mremap()
 * destinations (MREMAP_FIXED).
 */
struct mr_resv {
	void *base;
	size_t len;
};
/* Reserve len bytes whose start is `align`-aligned plus `offset`; NULL on failure (errno). */
void *mr_reserve(struct mr_resv *r, size_t len, size_t align, size_t offset);
void mr_unreserve(struct mr_resv *r);
/* Put PROT_NONE back over a hole left by a move, so nothing else lands there. */
void mr_rereserve(void *p, size_t len);
/* An anonymous read/write mapping placed exactly at p; NULL on failure. */
void *mr_map_at(void *p, size_t len, int flags);
/* Move with MREMAP_MAYMOVE | MREMAP_FIXED; returns 0 or -1 (errno). */
int mr_move(void *from, size_t len, void *to);
/* Whether [p, p + len) has no mapping left (mincore() says ENOMEM). */
int mr_unmapped(void *p, size_t len);

/* /proc and /sys. */
long mr_meminfo_kb(const char *key);	/* -1 when unknown */
/* Returns 1 available, 0 not (reason in ctx->reason). */
int mr_need_memory(struct mr_ctx *ctx, size_t bytes);
/* THP: 1 usable, 0 not (reason written to buf). */
int mr_thp_usable(char *buf, size_t len);
/*
 * Set the mTHP size `size` ("64kB") to `mode` ("always") through sysfs,
 * where the kernel has it, and say what was done in a diagnostic line.
 */
void mr_mthp_enable(const char *size, const char *mode);
/* A field of the VMA holding addr in /proc/self/smaps, in kB; -1 when not found. */
long mr_smaps_kb(const void *addr, const char *field);

/*
 * Probe whether a write to p faults: 1 it faulted (SIGSEGV/SIGBUS), 0 the
 * write went through (it writes `val`), -1 the probe could not run.
 */
int mr_write_faults(volatile unsigned char *p, unsigned char val);
int mr_read_faults(const volatile unsigned char *p);

/* Syscalls the C library may not wrap. */
long mr_pidfd_open(int pid);
long mr_process_madvise(int pidfd, const void *iov, size_t n, int advice);

/*
 * Arguments from a kernel command line: the value of its mm_regress=
 * parameter, split on commas, appended to *out (a malloc'ed array of
 * malloc'ed strings). Returns the number added, or -1 out of memory.
 */
int mr_args_from_cmdline(const char *cmdline, char ***out, int *nr);

/*
 * PID 1: mount /proc, /sys and /dev when missing and make sure the
 * console is our stdout; then collect the arguments: those the kernel
 * passed to init that look like options, and mm_regress= from
 * /proc/cmdline (or from the environment, where the kernel also puts it).
 */
/* As init: execute itself again with ADDR_NO_RANDOMIZE, once; returns if it cannot. */
void mr_init_fixed_layout(char **argv);
/* Whether this process runs with ADDR_NO_RANDOMIZE. */
int mr_layout_fixed(void);
void mr_init_setup(void);
int mr_init_args(int argc, char **argv, char ***out, int *nr);
/* Sync and reboot (QEMU -no-reboot then exits); never returns. */
void mr_init_finish(void) __attribute__((noreturn));

#endif
