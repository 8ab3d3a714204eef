/* run/estimate.h: how long a run will take, said up front and counted down on its progress lines. */
#ifndef MKSERIES_ESTIMATE_H
#define MKSERIES_ESTIMATE_H

#include "kit/model.h"
#include "record/record.h"
#include "run/steps.h"

/*
 * First-run figures, from README's "What it costs" (2 cores, no KVM,
 * cold ccache): 12 to 18 minutes a base build, 2 to 5 a kit or variant
 * build, 10 minutes of boots for the 16 cells at 2 boots each. A step
 * with no time recorded is counted at the middle of its range.
 */
#define ESTIMATE_BASE_BUILD (15 * 60.0)
#define ESTIMATE_CELL_BUILD (3.5 * 60)
#define ESTIMATE_BOOT 19.0

/* One step of the run, in the order the run does them. */
struct estimate_step {
	const char *branch;	/* the kit's */
	char *variant;		/* NULL: the branch's own step (apply) */
	enum run_step step;
	int todo;		/* expected to work: forced, never done, failed to run, or its inputs changed */
	int recorded;		/* seconds is what its record says the last run took */
	double seconds;		/* what it is expected to take when it works */
};

/*
 * What a run will do, counted before it starts: apply (when a cell but
 * base is run) and each cell's build and test. Import is done every
 * time and quickly, and is not counted.
 */
struct run_estimate {
	size_t branches, cells;
	size_t todo, uptodate;		/* steps */
	size_t by_record, by_readme;	/* steps to do timed by their records, by README's figures */
	double left;			/* seconds of the steps to do */
	struct estimate_step *steps;
	size_t nr, alloc;
	size_t at;			/* the step after the one at work */
	double start;			/* mono_seconds() when the run started */
};
#define RUN_ESTIMATE_INIT { 0 }

/*
 * Count the steps of the nr branches of sel (of kit) that args will
 * do, by each step's record (record_read(): its status, its key against
 * the kit of now as run/stale.c compares them, run_step_forced()), and time
 * them by what each took the last time or README's figures. Prints
 * nothing; a branch whose work directory cannot be named counts as all
 * to do.
 */
void run_estimate_make(struct run_estimate *e, const struct kit *kit,
		       struct kernel_branch *const *sel, size_t nr, const struct run_opts *args);
/*
 * "run: 2 branches, 8 cells (12 steps to do, 5 up to date); about 41m
 * left by the last run's times" (or "(first run: README's figures)",
 * or how many steps were timed each way), with a newline.
 */
void run_estimate_say(struct strbuf *out, const struct run_estimate *e);
/*
 * The run is at `step` of `variant` (NULL: the branch's own) of
 * `branch`: set the progress lines' clock (progress_clock()) to it. At
 * STEP_IMPORT, the start of a branch. e may be NULL: nothing is done.
 */
void run_estimate_at(struct run_estimate *e, const char *branch, const char *variant,
		     enum run_step step);
/* Stop the clock and free e's steps. */
void run_estimate_release(struct run_estimate *e);

#endif
