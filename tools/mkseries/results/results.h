/* results/results.h: the recorded results of a run, per branch and per branch x variant cell. */
#ifndef MKSERIES_RESULTS_H
#define MKSERIES_RESULTS_H

#include <stddef.h>

#include "apply/applyplan.h"
#include "console/ktap.h"
#include "apply/plan.h"
#include "lib/util.h"

/* The version of the JSON report this mkseries writes and reads (docs/report-json.md). */
#define RESULTS_SCHEMA 1

/*
 * The outcome of one check of a cell (apply, build, boot, tests, splats)
 * or of a branch (import, apply). NOT_RUN: nothing recorded (never tried,
 * or interrupted before the result was written); SKIPPED: not tried
 * because an earlier check failed; NA: does not apply (apply on base).
 */
enum check_status {
	CHECK_NOT_RUN = 0,
	CHECK_OK,
	CHECK_FAILED,
	CHECK_SKIPPED,
	CHECK_CONFLICT,		/* apply only: a patch did not apply */
	CHECK_NA,
};

const char *check_status_name(enum check_status s);
/* The status named `name` ("ok", "not-run" ...); -1 when unknown. */
int check_status_parse(const char *name);

struct check {
	enum check_status status;
	char *evidence;		/* the line that proves a failure, or a note; owned, may be NULL */
};

void check_set(struct check *c, enum check_status status, const char *evidence);

/* One mm-regress case as the console showed it. */
struct case_result {
	char *name;
	enum ktap_status status;
	char *evidence;		/* failed: its last diagnostic; skipped: the reason; else NULL */
	int expected_fail;	/* the cell's variant expects it to fail */
};

/*
 * One metric: n, mean and stddev as the log printed them; the samples
 * when the log listed them (verdicts prefer the samples).
 */
struct metric_result {
	char *case_name;
	char *name;
	char *unit;
	enum ktap_direction direction;
	unsigned n;
	double mean;
	double stddev;
	double *samples;
	size_t nr_samples;
};

/* A metric's value as reports show it: "1234", "12.50", "0.0123", "1.235e+07", "-" for NAN. */
void metric_value_format(char *buf, size_t len, double v);

/* The "case.name" label of a metric, in one of four static buffers used in turn. */
const char *metric_label(const struct metric_result *m);

/* A metric mm-regress would not report as a number (its clock could not resolve it). */
struct metric_skip {
	char *case_name;
	char *name;
	char *reason;		/* never NULL */
};

/*
 * What kind of time a cell's numbers are in. HARDWARE: KVM, the host's
 * CPU. INSTRUCTIONS: TCG with QEMU's icount, the guest clock following
 * the instructions it executes (a 1 GHz virtual clock): repeatable, but
 * blind to cache and TLB misses. EMULATED: TCG on host time, where the
 * emulator's own speed is the noise. UNKNOWN: nothing booted.
 */
enum timing_kind {
	TIMING_UNKNOWN = 0,
	TIMING_HARDWARE,
	TIMING_INSTRUCTIONS,
	TIMING_EMULATED,
	TIMING_MODELLED,	/* INSTRUCTIONS, and the tcg-cache plugin's modelled cycles and misses */
};

/* "hardware", "instructions", "emulated", "modelled" (as state files and JSON have them); "unknown". */
const char *timing_name(enum timing_kind t);
/* The kind named `name`; -1 when unknown. */
int timing_parse(const char *name);
/* What a recorded accelerator meant before `timing` was recorded: kvm hardware, tcg emulated. */
enum timing_kind timing_from_accel(const char *accel);
/*
 * A reader's words for it: "hardware time (KVM)", "instruction-paced
 * time (TCG icount: instructions at a 1 GHz virtual clock, not
 * hardware time: no cache or TLB-miss costs)", "emulated time (TCG on
 * host time: the emulator's speed, noise; never fails a run)". `terse`:
 * without the parenthesis.
 */
const char *timing_words(enum timing_kind t, int terse);
/* Whether numbers in this kind of time may fail a run (hardware, instruction-paced, modelled). */
int timing_counts(enum timing_kind t);
/*
 * Whether t is a clock that runs the same boot after boot (instructions,
 * modelled cycles): its samples differ by no chance, so a p-value over
 * them means nothing and is not shown.
 */
int timing_repeatable(enum timing_kind t);

/* Where a claim comes from: it decides the cells it is checked on (docs/verdicts.md, "Verdicts"). */
enum claim_origin {
	CLAIM_OF_SERIES,	/* series.yaml: the kit where it is applied; above/below also where present */
	CLAIM_OF_BRANCH,	/* kernels/<branch>.yaml: its kit cell */
	CLAIM_OF_VARIANT,	/* a declared variant: its cell */
};

const char *claim_origin_name(enum claim_origin o);	/* "series", "branch", "variant" */
/* The origin named `name`; -1 when unknown. */
int claim_origin_parse(const char *name);

/* A claim as a branch carries it: the kit's definition (its `line` unused) and whose it is. */
struct claim {
	enum claim_origin origin;
	char *owner;		/* the series id, the branch name or the variant name */
	struct kit_claim c;
};

/* "series alpha", "branch 6.12", "variant no-hotfix", in one of four static buffers used in turn. */
const char *claim_owner_label(const struct claim *cl);

/* One branch x variant cell. */
struct cell_result {
	char *variant;		/* "base", "kit" or a declared variant */
	char *commit;		/* what was built, or NULL */
	/* A declared variant: what it leaves out, the cases it expects to fail. */
	char *without;		/* "0b5be138ce00, 04d1c9d60c6e", or NULL */
	char **expect_fail;
	size_t nr_expect_fail;
	size_t nr_xfail;	/* of expect_fail: the cases that failed, as expected */
	char *expected;		/* what they showed ("x failed as expected: shows y matters"), or NULL */
	struct check apply, build, boot, tests, splats;
	char *accel;		/* "kvm" or "tcg" when it booted, else NULL */
	char *accel_note;	/* why not KVM, or NULL */
	enum timing_kind timing;	/* what kind of time its numbers are; UNKNOWN when it did not boot */
	unsigned boots;		/* times it was booted, its metrics' samples merged over them; 0 unknown */
	struct strvec console_logs;	/* every boot's console, the first one's first */
	char *reused;		/* "base" when its tree is base's and base's build and test stand for it */
	/*
	 * What of the kit, its kernels file, QEMU or mkseries changed since
	 * the run recorded this cell ("patches/a/0002-x.patch changed since
	 * the run of 2026-12-06 05:00"), or NULL: the result is still
	 * what the kit would give (results_mark_stale(), stale.h).
	 */
	char *stale;
	long long tested_at;	/* when its test was recorded, seconds since the epoch; 0 unknown */
	char *clocksource;	/* the guest's, as mm-regress saw it; NULL when it did not say */
	double clock_resolution_ns;	/* 0 when unknown */
	struct metric_skip *metric_skips;	/* metrics mm-regress did not report, with why */
	size_t nr_metric_skips, alloc_metric_skips;
	char *mode;		/* "quick" or "full", or NULL */
	unsigned repeat;	/* samples per metric asked of mm-regress; 0 unknown */
	double build_seconds, test_seconds;
	char *build_log, *console_log;
	size_t nr_pass, nr_fail, nr_skip;
	struct case_result *cases;
	size_t nr_cases, alloc_cases;
	struct metric_result *metrics;
	size_t nr_metrics, alloc_metrics;
};

/* Where a series stands on a branch: from the plan, then the apply outcome. */
enum series_state {
	SERIES_PLANNED = 0,	/* to be applied; apply has not run */
	SERIES_APPLIED,		/* its patches are commits on the branch */
	SERIES_PRESENT,		/* declared present, or every patch found in the tree already */
	SERIES_SKIPPED,		/* declared skipped */
	SERIES_CONFLICT,	/* one of its patches did not apply */
	SERIES_BLOCKED,		/* not applied because an earlier series conflicted */
	/*
	 * Nothing to apply, some patches present and the rest skipped: the
	 * branch has part of the series, not the series.
	 */
	SERIES_PARTIAL,
};

const char *series_state_name(enum series_state s);
int series_state_parse(const char *name);

struct series_result {
	char *id;
	char *title;
	enum series_state state;
	char *detail;		/* "2 applied, 1 fixup squashed", the skip reason ... */
};

struct branch_result {
	char *name;
	char *base;		/* the imported commit, or NULL */
	char *tip;		/* the kit ref (kit_refname()) as applied, or NULL */
	struct check import, apply;
	struct series_result *series;
	size_t nr_series, alloc_series;
	struct cell_result *cells;
	size_t nr_cells, alloc_cells;
	double threshold_pct;	/* what a change must reach (the kit's verdicts.threshold); 0: the default */
	struct claim *claims;	/* every claim that may be checked on a cell of the branch */
	size_t nr_claims, alloc_claims;
	/* The costs its kernel file declares, checked on the kit cell (kit_cost's `line` unused). */
	struct kit_cost *costs;
	size_t nr_costs, alloc_costs;
};

struct run_results {
	char *generator;	/* "mkseries 0.1" */
	char *generated;	/* ISO 8601 UTC time the report was made */
	char *tester;		/* "Name <email>" for Tested-by:, or NULL */
	struct branch_result *branches;
	size_t nr_branches, alloc_branches;
};

void results_init(struct run_results *r);
void results_release(struct run_results *r);

/* Find branch `name`, adding an empty one at the end when missing. */
struct branch_result *results_branch(struct run_results *r, const char *name);
const struct branch_result *results_find_branch(const struct run_results *r, const char *name);
/*
 * Find cell `variant` of b, adding an empty one when missing: base, then
 * kit, then the others in the order they were added.
 */
struct cell_result *branch_cell(struct branch_result *b, const char *variant);
const struct cell_result *branch_find_cell(const struct branch_result *b, const char *variant);
struct series_result *branch_add_series(struct branch_result *b, const char *id, const char *title);

/* Free nr claims and the array that holds them. */
void claims_release(struct claim *cl, size_t nr);
void branch_result_release(struct branch_result *b);
void cell_result_release(struct cell_result *c);

/* Add a metric to c; `samples` (copied) may be NULL. */
struct metric_result *cell_add_metric(struct cell_result *c, const char *case_name,
				      const char *name, const char *unit,
				      enum ktap_direction dir, unsigned n, double mean,
				      double stddev, const double *samples, size_t nr_samples);
struct case_result *cell_add_case(struct cell_result *c, const char *name,
				  enum ktap_status status, const char *evidence);
void cell_add_metric_skip(struct cell_result *c, const char *case_name, const char *name,
			  const char *reason);
/* The skip of metric case_name.name, or NULL. */
const struct metric_skip *cell_find_metric_skip(const struct cell_result *c,
						const char *case_name, const char *name);
/* Whether c is base's tree standing for itself: `reused` base, or built from base's commit. */
int cell_is_base_tree(const struct branch_result *b, const struct cell_result *c);
/* Add a claim (copied) to b. */
struct claim *branch_add_claim(struct branch_result *b, enum claim_origin origin,
			       const char *owner, const struct kit_claim *c);
/* Add a declared cost (copied) to b. */
void branch_add_cost(struct branch_result *b, const struct kit_cost *c);
/* The kind of time c measured: its `timing`, else what its accelerator implies. */
enum timing_kind cell_timing(const struct cell_result *c);
/* Add `name` to the cases c's variant expects to fail (once). */
void cell_expect_fail(struct cell_result *c, const char *name);

/*
 * Fill b's series (in plan order) from branch `plan` and, when apply
 * ran, its outcome: `applied` has one state per plan item (NULL when
 * apply did not run) and `failed` is the item that did not apply, or
 * (size_t)-1. A series with nothing to apply is present or skipped with
 * the kit's reason; the series of the item that failed is a conflict,
 * every other series that had something to apply is blocked (apply is
 * all or nothing).
 */
void branch_series_from_plan(struct branch_result *b, const struct plan *plan,
			     const enum applied_state *applied, size_t failed);

/*
 * Read what a cell's console shows: booted or not, the cases, the
 * metrics, the first splat. `failure` is what vm.c said went wrong (or
 * NULL): it is the evidence when the console itself does not explain.
 * The cases c->expect_fail lists are judged as struct expectations
 * says: failing, they leave the tests ok (c->expected says what they
 * showed); passing, or missing from a complete run, they fail them.
 */
void cell_read_console(struct cell_result *c, const char *console, size_t len,
		       const char *failure);
/*
 * The same for a cell booted several times, consoles[i] (lens[i] bytes)
 * from boot i + 1: a case's status is its worst over the boots, each
 * metric's samples are those of every boot (mean and stddev computed
 * again from them, so the spread covers boot-to-boot variation), a
 * metric that any boot skipped is not measured; the first splat, or the
 * first boot that never started mm-regress, is the evidence ("boot 2 of
 * 3: ..."). The clock is the first boot's.
 */
void cell_read_consoles(struct cell_result *c, const char *const *consoles, const size_t *lens,
			size_t nr, const char *failure);

/*
 * Take what the kit says about r's branches: each one's threshold and the
 * claims of its series, of its kernel file and of its declared variants
 * (replacing any r had). Branches the kit does not know are left alone.
 */
void results_use_kit(struct run_results *r, const struct kit *kit);

/*
 * Parse a JSON report (docs/report-json.md) and add its branches and
 * cells to r; a cell r holds already is refused (results_merge()).
 * `file` names the input in messages: "FILE:LINE: message". Unknown keys
 * are ignored; the verdicts and summaries a report carries are not read
 * (they are recomputed from the samples). Returns 0, or MKS_ECONFIG
 * after printing.
 */
int results_parse_json(struct run_results *r, const char *file, const char *buf, size_t len);
int results_load_json(struct run_results *r, const char *path);

/*
 * A cell in one word: "<branch><sep><variant>", each part with every
 * byte but letters, digits, '.', '_' and '-' written as %XX, so that
 * sep stands once, between the two, and no two cells share an id
 * ("a" + "b-c" is "a/b-c", "a-b" + "c" is "a-b/c"). With '/' it names
 * a cell for `report --merge --cells` (the plan's cell "id"); with '+'
 * it is the part of a CI report's file name that names its cell. sep
 * must not be a character of a name, nor '%'. Caller frees.
 */
char *cell_id(const char *branch, const char *variant, char sep);

/*
 * The JSON reports paths[0..nr) merged into r, as `report --merge`
 * reads them: each cell once. A report named twice, or a cell found in
 * two reports, is refused, naming the cell and both files; nothing is
 * kept in place of the other. When `cells` is not NULL it lists, split
 * on white space, the ids (cell_id() with '/') of the cells the reports
 * must hold: a cell it lists that no report holds, or a cell a report
 * holds that it does not list, is refused, naming the cell. Every
 * problem is printed; returns 0 or MKS_ECONFIG.
 */
int results_load_reports(struct run_results *r, const char *const *paths, size_t nr,
			 const char *cells);

/*
 * The most a file a report reads (a console log, a JSON report) may
 * hold: the state files that name them are data like any other, and a
 * name like /dev/zero must not make `report` read for ever.
 */
#define RESULTS_FILE_MAX ((size_t)256 << 20)

/*
 * Read `path` into `sb` if it is a regular file (a symbolic link followed
 * as the user named it) of at most `max` bytes. Returns 0, or -1 with
 * the reason in `why` (nothing read).
 */
int results_read_file(struct strbuf *sb, const char *path, size_t max, struct strbuf *why);

/*
 * Move everything in `from` into `into`: branches by name, cells by
 * variant. A cell present in both is a caller's bug (results_load_reports()
 * refuses it before merging); a branch's import, apply and series are
 * taken from whichever has them run. `from` is left empty.
 */
void results_merge(struct run_results *into, struct run_results *from);

#endif
