/* run/steps.h: the resumable steps of `mkseries run` on one branch: import, apply, build, test. */
#ifndef MKSERIES_RUNSTEPS_H
#define MKSERIES_RUNSTEPS_H

#include <stdio.h>

#include "kit/model.h"
#include "results/results.h"
#include "record/key.h"
#include "lib/util.h"

struct run_estimate;

/* How a run goes: what `mkseries run` was told. */
struct run_opts {
	const char *workdir, *repo, *accel;
	enum run_step force;	/* the first step to redo regardless; STEP_NONE: none */
	int full;
	unsigned repeat, jobs;
	unsigned boots;		/* --boots; 0: each branch's boot.boots */
	unsigned probe_timeout;	/* MKSERIES_KVM_PROBE_TIMEOUT, else 0 (vm's default) */
	struct strvec given;	/* --variant: the cells to run; none: every one */
	FILE *log;		/* where the step lines go */
	struct run_estimate *estimate;	/* the run's, for its clock; NULL: no clock */
};

/*
 * Run the nr branches of sel (of kit) through the cell loop (cells.h),
 * each as record.h describes: import, apply (when a cell but base is
 * wanted), then build and test each cell of args->given (every one when
 * empty), each step redone only when its key changed or it is forced,
 * one line per step on args->log. Then add what each branch's work
 * directory records to res. Returns an exit status: 0, 1 when a step
 * failed or a branch could not start, 2 when the kit does not do.
 */
int run_branches(struct run_results *res, const struct kit *kit,
		 struct kernel_branch *const *sel, size_t nr, struct run_opts *args);

#endif
