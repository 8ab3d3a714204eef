/* console/ktap.h: read mm-regress's KTAP out of a console log, and find kernel splats in the same log. */
#ifndef MKSERIES_KTAP_H
#define MKSERIES_KTAP_H

#include <stddef.h>

#include "lib/stats.h"
#include "lib/util.h"

/* The diagnostic mm-regress prints last ("# mm-regress: done"), without "# ". */
#define KTAP_DONE_MARKER "mm-regress: done"

enum ktap_status {
	KTAP_PASS,	/* "ok" */
	KTAP_FAIL,	/* "not ok" */
	KTAP_SKIP,	/* "# SKIP" directive, with "ok" or "not ok" */
	KTAP_TODO,	/* "# TODO" directive: an expected failure */
};

/* "pass", "fail", "skip", "todo": a case's status in reports; -1 / "?" when unknown. */
const char *ktap_status_name(enum ktap_status s);
int ktap_status_parse(const char *name);

/* One result line and the diagnostics printed since the previous one. */
struct ktap_case {
	unsigned number;
	char *name;		/* may be empty, never NULL */
	enum ktap_status status;
	char *reason;		/* text after SKIP/TODO (or an unknown directive), or NULL */
	struct strvec diag;	/* "# " lines before the result, without the "# " */
	size_t line;		/* 1-based line of the result in the log */
};

enum ktap_direction {
	KTAP_LOWER_IS_BETTER,
	KTAP_HIGHER_IS_BETTER,
};

/*
 * A metric, from
 *   # metric: CASE NAME VALUE UNIT higher_is_better|lower_is_better [n=N stddev=S]
 * with the values of the "# sample: CASE NAME I/N VALUE UNIT" lines that
 * came before it for the same case and name.
 */
struct ktap_metric {
	char *case_name;
	char *name;
	double value;		/* the mean when there are several samples */
	char *unit;
	enum ktap_direction direction;
	unsigned n;		/* number of samples: n=, else 1 */
	double stddev;		/* stddev=, else 0 */
	double *samples;	/* nr_samples values, or NULL */
	size_t nr_samples;
	size_t line;
};

/*
 * A metric mm-regress measured but would not report as a number, from
 *   # metric-skip: CASE NAME REASON...
 * (its shortest timed interval was under 100 times the clock's
 * resolution, for instance).
 */
struct ktap_metric_skip {
	char *case_name;
	char *name;
	char *reason;		/* never NULL */
	size_t line;
};

/*
 * What a log held. Invariants: cases[] are in log order; nr_pass +
 * nr_fail + nr_skip + nr_todo == nr_cases; every string is owned here.
 */
struct ktap_result {
	int version;		/* N of "KTAP version N" ("TAP version N" too); 0 when none */
	size_t header_line;
	int has_plan;
	unsigned plan;		/* N of "1..N" */
	struct ktap_case *cases;
	size_t nr_cases, alloc_cases;
	struct ktap_metric *metrics;
	size_t nr_metrics, alloc_metrics;
	/*
	 * Diagnostics after the last result: when results are missing, they
	 * tell what the case that never finished was doing.
	 */
	struct strvec pending;
	int has_seed;
	unsigned long long seed;	/* from "# seed: N" */
	/*
	 * The guest's clock, from the header: "# clocksource: NAME" and
	 * "# clock: resolution_ns=R getres_ns=G step_ns=S"; NULL and 0 when
	 * the log does not say (an older mm-regress).
	 */
	char *clocksource;
	double clock_resolution_ns;
	struct ktap_metric_skip *metric_skips;
	size_t nr_metric_skips, alloc_metric_skips;
	int done;		/* KTAP_DONE_MARKER seen */
	int bail_out;
	char *bail_reason;	/* text after "Bail out!", or NULL */
	unsigned missing;	/* planned results that never came */
	unsigned extra;		/* results beyond the plan */
	int misnumbered;	/* a result number was not the next one */
	int second_header;	/* a later "KTAP version" (a second run) was ignored */
	size_t nr_pass, nr_fail, nr_skip, nr_todo;
	/*
	 * The tcg-cache plugin's regions ("mkseries-cycles: region=N ...")
	 * and mm-regress's ("# region: CASE ITERATIONS PER"), joined in
	 * order into the metrics modelled_cycles, instructions, l1d_misses,
	 * l2_misses, llc_misses, dtlb_misses and page_walks per PER of each
	 * CASE. modelled_mismatch: the plugin's regions were not numbered
	 * 1..N, or their count differs from mm-regress's (then none is
	 * joined): the line of the first one out of step.
	 */
	size_t nr_modelled_regions;
	size_t modelled_mismatch;
	/* Metric or sample lines that did not parse (their count; the first's line). */
	size_t bad_metrics;
	size_t bad_metric_line;
};

void ktap_result_init(struct ktap_result *res);
void ktap_release(struct ktap_result *res);

/*
 * Parse a console log, or a host run's output. Anything before the first
 * "KTAP version" line, and any line afterwards that is not KTAP (kernel
 * messages "[    1.234567] ...", firmware noise, indented subtests), is
 * skipped; "\r\n" line ends are accepted. A diagnostic belongs to the
 * result line that follows it, as the KTAP specification has it.
 * Returns 0, or MKS_ENOTFOUND (with no message) when the log holds no
 * KTAP header; res is filled either way and must be released.
 */
int ktap_parse(struct ktap_result *res, const char *log, size_t len);

/*
 * Whether the run is complete (header, plan, every planned result, done
 * marker, no bail-out) and nothing failed: 1 or 0.
 */
int ktap_all_good(const struct ktap_result *res);

/*
 * Append one sentence per problem to out ("no test plan", "plan says 7
 * results, got 5: the run stopped during case 6", ...); failed cases are
 * not problems of the output and are not listed. Returns how many.
 */
int ktap_problems(const struct ktap_result *res, struct strvec *out);

const struct ktap_case *ktap_find_case(const struct ktap_result *res, const char *name);
const struct ktap_metric *ktap_find_metric(const struct ktap_result *res, const char *case_name,
					   const char *name);

/* Kernel splats on a console. */
enum console_splat_kind {
	SPLAT_NONE = 0,
	SPLAT_BUG,		/* "BUG: ...", "kernel BUG at ..." */
	SPLAT_WARNING,		/* "WARNING: CPU: 0 PID: 1 at ...", lockdep's "WARNING: ..." */
	SPLAT_OOPS,		/* "Oops: ...", "Internal error: Oops: ..." */
	SPLAT_PANIC,		/* "Kernel panic - not syncing: ..." */
	SPLAT_KASAN,		/* "BUG: KASAN: ..." */
	SPLAT_SOFT_LOCKUP,	/* "watchdog: BUG: soft lockup - CPU#0 stuck for 22s!" */
	SPLAT_HUNG_TASK,	/* "INFO: task X:1 blocked for more than 122 seconds." */
	SPLAT_BAD_ACCESS,	/* "Unable to handle kernel ...", "BUG: unable to handle ..." */
	SPLAT_GPF,		/* "general protection fault, ..." */
	SPLAT_RCU_STALL,	/* "rcu: INFO: rcu_sched self-detected stall on CPU" */
};

struct console_splat {
	enum console_splat_kind kind;
	size_t line;		/* 1-based */
	char *text;		/* the log line without its line end (owned), or NULL */
};
#define CONSOLE_SPLAT_INIT { SPLAT_NONE, 0, NULL }

/*
 * Find the first kernel splat in a console log. Only kernel-shaped lines
 * count: the marker must open the message, either at the start of the
 * line or right after a printk prefix ("[   12.345678] ", with an
 * optional "[    T1] " caller id), also when that prefix appears in the
 * middle of a line another writer had started. So mm-regress's own
 * output ("# ...", "ok ...") and ordinary boot lines never match.
 * Returns 1 with *out filled (release it), or 0 when the log is clean.
 */
int console_find_splat(struct console_splat *out, const char *log, size_t len);
void console_splat_release(struct console_splat *splat);
const char *console_splat_kind_name(enum console_splat_kind kind);

/* Whether a run is complete (header, plan, every result, done marker), whatever its cases did. */
int ktap_complete(const struct ktap_result *k);


#endif
