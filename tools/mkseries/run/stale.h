/* run/stale.h: whether a recorded result is still what the kit, its kernels file, QEMU and mkseries would give. */
#ifndef MKSERIES_STALE_H
#define MKSERIES_STALE_H

#include "kit/model.h"
#include "results/results.h"

/*
 * Compare what each cell of b (collected from workdir, the work
 * directory of kit branch kb) ran under with what the kit says now, by
 * the keys its records kept (record_changed(): the one comparison the
 * steps' own freshness uses too):
 *   apply  the patch files and series.yaml entries that make the branch
 *          and its variants, the base, the mkseries binary (every cell
 *          but base; not the backporter, who is no input of the tree);
 *   build  the kernels file's config and the build tools;
 *   test   the kernels file's boot settings and variant, QEMU's
 *          version, mm-regress.
 * A cell whose inputs changed gets c->stale: "patches/a/0002-x.patch
 * changed since the run of 2026-12-06 05:00" (UTC), each step's changes
 * joined by "; ". Nothing is printed.
 */
void results_mark_stale(struct branch_result *b, const struct kit *kit,
			const struct kernel_branch *kb, const char *workdir);

/*
 * The same comparison for the cells `variants` of kit branch kb, whose
 * work directory is workdir, as the steps a run would do again because
 * their inputs changed: cells[i] (one per variant) gets 1 << STEP_BUILD
 * and 1 << STEP_TEST; returns 1 << STEP_APPLY when the kit's or a
 * variant's apply inputs changed, else 0. A step without a record is
 * not counted here: it is done anyway. Nothing is printed.
 */
unsigned branch_stale_steps(unsigned *cells, const struct kit *kit, const struct kernel_branch *kb,
			    const char *workdir, const struct strvec *variants);

/* The first stale cell of b ("kit" first when it is), or NULL. */
const struct cell_result *branch_first_stale(const struct branch_result *b, const char *variant);

#endif
