/* record/record.h: the state record of each step of a run: its fields, read, written and judged fresh in one place. */
#ifndef MKSERIES_RECORD_H
#define MKSERIES_RECORD_H

#include "lib/state.h"
#include "lib/util.h"

struct step_key;

/*
 * A run is import, apply (the kit and its declared variants, one step),
 * then build and test per variant.
 */
enum run_step {
	STEP_IMPORT,
	STEP_APPLY,
	STEP_BUILD,
	STEP_TEST,
	STEP_NONE,	/* past the last step: nothing forced */
};

const char *run_step_name(enum run_step s);
/*
 * Whether --force=`force` forces `step` of cell `variant` (NULL: a step
 * of the branch): that step and the later ones (STEP_NONE: none), but
 * not base's build and test for apply: base does not depend on it.
 */
int run_step_forced(enum run_step force, enum run_step step, const char *variant);
/* "import", "apply", "build" or "test"; MKS_ECONFIG with a message otherwise. */
int run_step_parse(enum run_step *out, const char *name);

/*
 * One record per step, written by the module that does its work:
 * state/run.import and state/run.apply by the run (run/steps.c), which
 * imports and applies; state/<variant>.build by build/ and
 * state/<variant>.test by vm/, the same file whether `mkseries run`,
 * `mkseries build` or `mkseries test` did the work. A record holds the
 * key the step ran under, how it ended and the details of the work; it
 * is written in one piece (RF_AT stamped), and rewritten when the work
 * starts ("running") and ends, so that an interrupted step is done again.
 * Everyone else (the run deciding what is fresh, results/, `mkseries
 * test` looking for an image) reads it through record_read().
 *
 * Earlier versions kept two files of a build or test, the module's and
 * the run's (state/run.<variant>.<step>); record_read() still joins them
 * when they describe the same work, and record_write() removes the
 * run's, so such a work directory is not rebuilt.
 *
 * Why one generic record of named fields rather than a C struct per
 * step: most fields are common to all steps (key, key parts, status,
 * failure, at) and are handled by one code path (record_fresh(),
 * record_module_error(), record_copy_from_base(), collect's checks);
 * some are open-ended lists (series.N.*, variant.V.*, console.N); a
 * record is copied and joined with an earlier version's file as
 * name=value lines, fields it does not know included. A struct per step
 * would list each field twice (the struct and the table of names and
 * offsets) and still need this map underneath for the lists. The names
 * are spelt once, in record.c's table; callers name fields by enum.
 */

/*
 * The format of the records this mkseries writes, in each as RF_FORMAT.
 * A record without one is format 1: written before records carried it,
 * as two files of a build or test (above) or as one. record_read()
 * joins format 1's two files, reads format 2 as it is, and ignores a
 * record of a later format (a newer mkseries wrote it), saying so once:
 * its step counts as not done, so a run does it again and writes it in
 * this format. Bump it when a field changes its meaning, not when one
 * is added (readers skip fields they do not know).
 */
#define RECORD_FORMAT 2

/*
 * Every field a record can have. Their names on disk are in one table
 * (record.c); no other file spells one. The files are "name=value"
 * lines, so state written by earlier versions reads as it did.
 */
enum record_field {
	/* the run's record of any step */
	RF_KEY,		/* the SHA-1 of the step's key (key.h) */
	RF_KEY_PARTS,	/* "name:hash" of each part of that key, to say which changed */
	RF_STATUS,	/* see enum record_status */
	RF_EVIDENCE,	/* why it failed, in the words the user saw */
	RF_AT,		/* when it was written, seconds since the epoch */
	RF_FORMAT,	/* the record's format (RECORD_FORMAT); none: format 1 */
	RF_REUSED,	/* "base": a cell with base's tree took base's records */
	/* import */
	RF_BASE, RF_WHAT,
	/* apply */
	RF_TIP, RF_VARIANTS, RF_SERIES,
	/* build */
	RF_VARIANT, RF_BRANCH, RF_COMMIT, RF_INPUTS,
	RF_INPUT_PARTS,	/* "name:hash" of each part of RF_INPUTS (build_inputs_hash()) */
	RF_LOG, RF_SEEDED, RF_MATERIALISE,
	RF_SECONDS,	/* what the work took (build, test and apply): the next run's estimate */
	RF_BZIMAGE, RF_BZIMAGE_MTIME, RF_CONFIG_HASH, RF_NOTES, RF_DETAILS,
	RF_FAILURE,
	RF_OBJECTS,	/* objects kbuild compiled (its CC and AS lines) */
	RF_OBJECTS_FULL,	/* those of a build from nothing: the progress line's denominator */
	RF_CONFIG_SECONDS, RF_MAKE_SECONDS,	/* the config steps' and make's share of RF_SECONDS */
	/* test */
	RF_REPEAT, RF_BZIMAGE_HASH, RF_STARTED, RF_ACCEL, RF_ACCEL_NOTE, RF_TIMING, RF_BOOTS,
	RF_MODE, RF_PASS, RF_FAIL, RF_SKIP, RF_XFAIL, RF_EXPECT_FAIL, RF_WITHOUT, RF_EXPECTED,
	RF_CONSOLE,
	RF__NR
};

/* Fields of which a record holds one per series (by index), variant (by name) or boot. */
enum record_item {
	RI_SERIES_ID, RI_SERIES_TITLE, RI_SERIES_STATE, RI_SERIES_DETAIL,
	RI_VARIANT_STATUS, RI_VARIANT_TIP, RI_VARIANT_EVIDENCE,
	RI_CONSOLE,	/* of boots 2 and on; boot 1's is RF_CONSOLE */
	RI__NR
};

enum record_status {
	RS_NONE,	/* nothing recorded */
	RS_OK,
	RS_FAILED,	/* the step ran and failed: an outcome, kept until its inputs change */
	RS_CONFLICT,	/* apply: the kit or a variant does not apply */
	RS_ERROR,	/* the step could not run: not an outcome, retried every time */
	RS_RUNNING,	/* work that started and did not finish */
	RS_UNKNOWN,	/* a word this mkseries does not know */
};

struct step_record {
	struct state kv;
};
#define STEP_RECORD_INIT { STATE_INIT }

/*
 * Read the record of `step` (of `variant` for build and test; NULL
 * otherwise) in workdir, joined with an earlier version's second file
 * (format 1, see above). A missing file reads as empty, and so does a
 * record of a format later than RECORD_FORMAT (a warning names it, once
 * a file). Returns 0, or -1 (printed) when it cannot be read.
 */
int record_read(struct step_record *r, const char *workdir, enum run_step step,
		const char *variant);
/*
 * Write it atomically, stamped with RF_AT and RF_FORMAT, the directory
 * made when missing; an earlier version's second file of it is removed. Returns 0
 * or -1 (printed).
 */
int record_write(struct step_record *r, const char *workdir, enum run_step step,
		 const char *variant);
void record_release(struct step_record *r);

/*
 * The field or item of name `name` as a record spells it on disk
 * ("status", "series.0.id", "console.2"): 0, with the item's `which`
 * (allocated, the caller's), or -1 when it is no field's name.
 */
int record_field_parse(enum record_field *out, const char *name);
int record_item_parse(enum record_item *out, char **which, const char *name);

/* The value of f, or NULL; points into r. */
const char *record_get(const struct step_record *r, enum record_field f);
/* As a number: 0 when missing. */
long long record_ll(const struct step_record *r, enum record_field f);
double record_double(const struct step_record *r, enum record_field f);
/* Set f (a NULL value is stored empty; newlines become spaces). */
void record_set(struct step_record *r, enum record_field f, const char *value);
void record_setf(struct step_record *r, enum record_field f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Record that a module's work on `variant` (of branch) could not run:
 * status error, `failure` (what it printed) and when. Returns 0, or -1
 * (printed) when it cannot be written.
 */
int record_module_error(const char *workdir, enum run_step step, const char *branch,
			const char *variant, const char *failure);

/* An item: `which` is the series' index, the variant's name or the boot (2 and on) in decimal. */
const char *record_item_get(const struct step_record *r, enum record_item f, const char *which);
void record_item_set(struct step_record *r, enum record_item f, const char *which,
		     const char *value);
const char *record_item_getn(const struct step_record *r, enum record_item f, size_t n);
void record_item_setn(struct step_record *r, enum record_item f, size_t n, const char *value);

enum record_status record_status(const struct step_record *r);
/* Of a declared variant in an apply record. */
enum record_status record_variant_status(const struct step_record *r, const char *variant);
/* "ok", "failed", ...; "" for RS_NONE. */
const char *record_status_name(enum record_status s);
void record_set_status(struct step_record *r, enum record_status s);

/*
 * Record that the step ran under key k: its hash and the hash of each of
 * its parts (all the lines of one name), for record_fresh() to name what
 * changed.
 */
void record_set_key(struct step_record *r, const struct step_key *k);

/*
 * The one freshness decision: whether run record r says its step is
 * done under key k (NULL: a key only the step itself can settle) and
 * need not run again. It is not when forced, when nothing or an error of
 * mkseries (RS_ERROR, always retried) was recorded, or when the key
 * differs. When it is not and something was recorded, why says why in a
 * few words ("forced", "console, argv changed", "no key was recorded"), for the step's line.
 */
int record_fresh(const struct step_record *r, const struct step_key *k, int forced,
		 struct strbuf *why);

/*
 * What a reader of a result (report, export) asks of record r: which
 * inputs differ now from those its step ran under. k is the key as the
 * kit and this machine make it now; `partial`: k holds only the parts a
 * reader can know without doing the step (say, not the QEMU command
 * line a boot settles), so only the names both have are compared.
 * Appends each name that differs ("patches/a/0002-x.patch", "item",
 * "console"; "its inputs" for a full key recorded before its parts
 * were) to names, and returns whether it added any; a record with no
 * key tells nothing (0). record_fresh() says why the same way.
 */
int record_changed(struct strvec *names, const struct step_record *r, const struct step_key *k,
		   int partial);

/*
 * Append to out the names of the parts that differ between two lists of
 * "name:hash" (as RF_KEY_PARTS and RF_INPUT_PARTS keep them): changed,
 * added or gone, each once, %-encoded characters decoded.
 */
void record_parts_changed(struct strvec *out, const char *old, const char *now);

/*
 * Append to out the variants with a record of build or test in
 * workdir that out does not have yet, each once, sorted by name; names
 * that are no variant's are left out.
 */
void record_variants(struct strvec *out, const char *workdir);

/* Copy base's record of step to variant's, marked reused from base. */
int record_copy_from_base(const char *workdir, enum run_step step, const char *variant);

#endif
