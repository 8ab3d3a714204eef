/*
 * apply/backportsteps.h: what the files of the backport loop share
 * (backportrun.c at the bottom, backportrecord.c and backportabort.c on
 * it, backportseq.c on top; calls go only downwards); the rest of the
 * tool goes through backportseq.h.
 */
#ifndef MKSERIES_BACKPORTSTEPS_H
#define MKSERIES_BACKPORTSTEPS_H

#include "apply/backportseq.h"

/* backportrun.c */

/* Progress, formatted, to the caller's ops->say. */
void backport_loop_say(const struct backport_loop *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * The tree the loop's work tree holds now, read once per run: the files
 * the loop wrote (`r`) whatever .gitignore says, the backporter's new
 * files unless it hides them (those are counted in l->wt_nr_ignored).
 */
int backport_loop_worktree_tree(git_oid *out, struct backport_loop *l,
				const struct backport_result *r);
/* After a decision, written or not: the branch of the kit it loaded again. */
int backport_loop_reloaded(struct backport_loop *l);

/* backportrecord.c */

/*
 * Add the decision `"<branch>": <flow>` to entry p of series.yaml. The
 * kit is loaded again: p and every pointer into the kit are stale after
 * (backport_loop_reloaded() finds l->b again). `branch` may point into
 * the kit: it is copied first. The same decision goes into the loop's
 * own copy (series.yaml.loop: the kit's series.yaml as it was, with the
 * loop's decisions only), so that --abort takes out the loop's edits
 * and keeps the user's.
 */
int backport_loop_decide(struct backport_loop *l, const struct kit_patch *p, const char *branch,
			 const char *flow, const char *what);
/*
 * Turn the work tree into the branch's backport of the patch in `st`:
 * the patch file, then the decision in series.yaml. Each step is marked
 * done in the state file, so an interrupted --continue does the rest.
 */
int backport_loop_record(struct backport_loop *l, struct state *st, const struct kit_patch *p,
			 const struct backport_result *r);
/*
 * --accept-markers: the files whose conflict markers the backporter
 * means, kept in the patch's state `st` (written) so that a later
 * --continue needs them no more. Each must be a file of the work tree.
 */
int backport_loop_accept_markers(struct backport_loop *l, struct state *st);

#endif
