/* console/console.h: judge what a cell's consoles show, in one order for the test step and the report. */
#ifndef MKSERIES_CONSOLE_H
#define MKSERIES_CONSOLE_H

#include <stddef.h>

#include "console/ktap.h"
#include "lib/util.h"

/*
 * How the cases of a run meet a variant's `expect-fail` list. A listed
 * case that failed is an expected failure (XFAIL): it does not fail the
 * cell. One that passed, or that a complete run never reached, means the
 * variant did not show what it was declared to show: that fails the
 * cell. A listed case that was skipped is neither: mm-regress said why
 * it could not run, and the reason is kept.
 */
struct expectations {
	struct strvec xfail;		/* listed, and failed */
	struct strvec unexpected_pass;	/* listed, and passed */
	struct strvec not_run;		/* listed, and not in the output */
	struct strvec skipped;		/* listed and skipped: "name: reason" */
	size_t nr_fail;			/* failed cases that were not listed */
	const struct ktap_case *first_fail;	/* the first of those, or NULL */
};

void expectations_judge(struct expectations *e, const struct ktap_result *k,
			char *const *expect_fail, size_t nr);
void expectations_release(struct expectations *e);
/*
 * Sentences for the expected failures, joined with "; ":
 * "steady failed as expected: shows F1 matters", and "steady was
 * expected to fail, but was skipped: <reason>". `without` is what the
 * variant leaves out ("F1", "A, B"), or NULL.
 */
void expectations_describe(struct strbuf *sb, const struct expectations *e, const char *without);
/*
 * Sentences for the demonstrations that did not work, joined with "; ":
 * "unexpected pass: steady was expected to fail without F1 (the
 * demonstration did not work)", "steady was expected to fail without F1
 * but did not run". Returns how many.
 */
size_t expectations_missed(struct strbuf *sb, const struct expectations *e, const char *without);

/*
 * The rules a console can break, in the order they are judged: the
 * first one broken is the verdict (see console_judge()).
 */
enum console_rule {
	CONSOLE_OK = 0,
	CONSOLE_SPLAT,		/* a warning, BUG, oops or panic on the console */
	CONSOLE_NOT_STARTED,	/* no 'KTAP version' line: mm-regress never started */
	CONSOLE_WRONG_MACHINE,	/* mm-regress ran on another machine than the branch's */
	CONSOLE_CASE_FAILED,	/* a case failed that was not expected to */
	CONSOLE_CUT_SHORT,	/* the run has a ktap_problems(): did not finish cleanly */
	CONSOLE_MISSED,		/* an expected failure passed, or a complete run missed it */
};

/* What a console is judged against. */
struct console_rules {
	const char *machine;		/* what '# machine:' must say, or NULL: not checked */
	char *const *expect_fail;	/* the declared variant's expected failures */
	size_t nr_expect_fail;
	const char *without;		/* what the variant leaves out ("F1"), or NULL */
};

/*
 * The verdict over every boot of a cell. Boot numbers are 1-based; 0
 * means no boot broke that rule. Release with console_verdict_release().
 */
struct console_verdict {
	enum console_rule rule;		/* the first rule broken, CONSOLE_OK if none */
	enum console_rule tests_rule;	/* the first broken after CONSOLE_NOT_STARTED */
	struct ktap_result k;		/* every boot's run folded into one */
	unsigned *boot_of;		/* boot_of[i]: the boot case i of k shows */
	struct expectations e;		/* k against the expected failures */
	struct console_splat splat;	/* the first splat */
	unsigned splat_boot;
	unsigned not_started;		/* the first boot with no KTAP header */
	unsigned wrong_machine;		/* the first boot on another machine */
	char *machine;			/* what that boot said, NULL when it said none */
	unsigned cut_short;		/* the first boot whose run has a problem */
	struct strvec problems;		/* that boot's ktap_problems() */
};

/*
 * Judge the consoles of a cell's boots (consoles[i], lens[i] bytes, from
 * boot i + 1; nr may be 0: nothing booted). The test step (vm.c, one
 * boot at a time) and the report (results.c, every boot) both call it,
 * so a console is judged the same way when it is recorded and when it
 * is read back. *out is filled whatever the consoles hold.
 */
void console_judge(struct console_verdict *out, const char *const *consoles, const size_t *lens,
		   size_t nr, const struct console_rules *rules);
void console_verdict_release(struct console_verdict *v);

#endif
