/* run/teststep.h: the test step of one cell, as `mkseries run` and `mkseries test` both take it. */
#ifndef MKSERIES_TESTSTEP_H
#define MKSERIES_TESTSTEP_H

#include "kit/model.h"
#include "record/record.h"
#include "lib/util.h"
#include "vm/vm.h"

/* Samples a metric when nothing says otherwise (`run --repeat`). */
#define TEST_DEFAULT_REPEAT 5

/* What a test is told: `run`'s options or `test`'s. */
struct test_step_opts {
	const char *accel;	/* --accel; NULL: the branch's boot.accel, else auto */
	int full;
	int force;		/* boot even when the record is current */
	unsigned repeat;	/* samples a metric */
	unsigned boots;		/* --boots; 0: the branch's boot.boots */
	unsigned probe_timeout;	/* MKSERIES_KVM_PROBE_TIMEOUT, else 0 (vm's default) */
	const char *label;	/* "6.12 kit", for the progress line */
	/* Before it boots: why again ("" the first time); may be NULL (build_opts' twin). */
	void (*starting)(const char *why, void *data);
	void *data;
};

/* How one test step went. */
struct test_step {
	int uptodate;		/* the record was current: nothing booted, rec says how it went */
	int ran;		/* booted: res says how it went, and vm/ recorded it with its key */
	struct step_record rec;
	struct vm_result res;
	struct strbuf why;	/* ran: why again (empty the first time); else why it could not run */
};

#define TEST_STEP_INIT { 0, 0, STEP_RECORD_INIT, { 0 }, STRBUF_INIT }

/*
 * The test step of cell (b, variant) whose image is bzimage, in workdir:
 * the one place that decides whether the recorded test is current (its
 * key: the image, mm-regress, QEMU and its command line, the boot
 * settings, repeat, boots) and, when it is not or opts->force, boots it
 * and records the result under that key. Returns 0 (up to date, or
 * booted, however the guest did), -1 when the boot could not run (why,
 * also recorded) or MKS_ECONFIG when the kit's boot settings are invalid.
 */
int test_step_run(struct test_step *t, const struct kernel_branch *b, const char *variant,
		  const char *bzimage, const char *workdir, const struct test_step_opts *opts);
void test_step_release(struct test_step *t);

/*
 * The lines of a step that booted (t->ran), one renderer for every
 * command: "LABEL: STEPbooted (HOW) N ok, ..." or "LABEL: STEPFAILED
 * (HOW) ..." with the console's path, then XFAIL when a declared
 * variant failed as expected. STEP is "test: " for run, "" for test.
 */
void test_step_say(struct strbuf *out, const char *label, const char *step,
		   const struct test_step *t, const struct kernel_variant *declared);

/* The line of a step whose record was current (t->uptodate). */
void test_step_say_uptodate(struct strbuf *out, const char *label, const struct test_step *t,
			    const struct kernel_variant *declared);

#endif
