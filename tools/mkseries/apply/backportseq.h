/* apply/backportseq.h: the backport loop itself (start, --continue, --skip, --abort), which `mkseries backport` drives as git's rebase drives sequencer.c. */
#ifndef MKSERIES_BACKPORTSEQ_H
#define MKSERIES_BACKPORTSEQ_H

#include <git2.h>

#include "apply/applyplan.h"
#include "apply/backport.h"
#include "apply/backportloop.h"
#include "apply/plan.h"
#include "kit/model.h"
#include "lib/state.h"
#include "lib/util.h"
#include "tree/tree.h"

/* What the backporter asked for. */
struct backport_loop_opts {
	const char *repo;	/* --repo, or NULL */
	const char *series;	/* start: the series whose patch the loop stops at, or NULL */
	int edit;		/* --continue -e: edit the message first */
	struct strvec accept;	/* --accept-markers: files whose markers are meant */
};

struct backport_loop;

/*
 * What the loop says as it goes, printed by the caller (each may be
 * NULL: not said). Errors are printed where they happen (error()).
 */
struct backport_loop_ops {
	/* progress: whole lines, each ending in '\n' (or nothing at all) */
	void (*say)(const struct backport_loop *l, const char *text);
	/* why a patch does not apply, for stderr, when the merge left work to do: whole lines */
	void (*report)(const struct backport_loop *l, const char *text);
	/*
	 * patch `it` does not apply: checked out in l->paths.tree on
	 * before->tip (the base and the commits before it), each file as r says
	 */
	void (*checked_out)(const struct backport_loop *l, const struct plan_item *it,
			    const struct apply_outcome *before, const struct backport_result *r);
	/* the loop stops at that patch for the backporter to resolve */
	void (*stopped)(const struct backport_loop *l);
};

/* What one run of the loop works with. */
struct backport_loop {
	struct kit *kit;
	/*
	 * b points into the kit and is found again by `name` whenever
	 * a decision reloads it; name is owned, so it outlives the kit
	 * it was found in (a branch name taken from the kit would not).
	 */
	const struct kernel_branch *b;
	char *name;
	/* the patch finished last in this run (owned), for the journal of the loop's end */
	char *last_label;
	const struct backport_loop_opts *opts;
	const struct backport_loop_ops *ops;
	struct backport_paths paths;
	git_repository *repo;	/* owned by repos */
	git_signature *me;
	struct kernel_repos repos;
	/* the work tree's tree, once read in this run (reading stats every file) */
	git_oid wt_tree;
	int have_wt_tree;
	/*
	 * wt_index: the work tree's index from that read (owned). wt_synced:
	 * it is the work tree, nothing written since: the next checkout
	 * takes it and need not scan nor read the index again.
	 */
	git_index *wt_index;
	int wt_synced;
	/* from that read: the new files .gitignore hides, named one a line, and their number */
	struct strbuf wt_ignored;
	int wt_nr_ignored;
};
#define BACKPORT_LOOP_INIT { .wt_ignored = STRBUF_INIT }

/*
 * The loop of branch `branch` of `kit` (may point into it: copied),
 * with options `lo` and `ops` (both kept, not copied), its paths.
 * 0, or MKS_ECONFIG (kept). backport_loop_release() in any case.
 */
int backport_loop_setup(struct backport_loop *l, struct kit *kit,
			const struct backport_loop_opts *lo, const struct backport_loop_ops *ops,
			const char *branch, const char *workdir);
/* The kernel repository, opened and locked for the loop's steps (KERNEL_REPO_*: `flags`). */
int backport_loop_open(struct backport_loop *l, unsigned flags);
void backport_loop_release(struct backport_loop *l);

/*
 * The branch whose loop is in progress when no --branch is given, as
 * git am and git rebase find theirs. Returns 1 with *out set when the
 * kit has one loop in progress, 0 when none, MKS_ECONFIG when several (kept).
 */
int backport_loop_find_branch(const char **out, const struct kit *kit, const char *workdir);

/* The loop's state belongs to the kit it started in: not to another with a branch of that name. */
int backport_loop_check_kit(const struct backport_loop *l);
/* Finish or roll back the step a killed run left half done (the journal's), saying what it did. */
int backport_loop_recover(struct backport_loop *l, int aborting);

/*
 * The loop's commands, the repository open and locked, the journal
 * recovered. Each returns 0 when the kit applies (or, for --abort, is as
 * it was), -1 when it stopped at a patch to resolve or failed, and
 * MKS_ECONFIG when there is nothing to do it on (kept: the caller prints,
 * mks_exit_status() makes them 0, 1 and 2).
 */
int backport_loop_start(struct backport_loop *l);
/* --continue, or --skip when skip_reason is set. */
int backport_loop_resume(struct backport_loop *l, const char *skip_reason);
/*
 * Drop the loop: series.yaml without its decisions, the files it wrote
 * removed, those it replaced put back, its refs as they were.
 */
int backport_loop_abort(struct backport_loop *l);

/*
 * What is left to resolve in the work tree of the patch in state `st`
 * (how each file went: r), one line each in `left`: .rej files, conflict
 * markers on lines the tree the loop checked out did not have
 * (backport_new_markers(); not in the files accepted with
 * --accept-markers), and new files .gitignore hides (the user says
 * whether they are the backport's: git add -A would drop them silently,
 * and the tree goes once recorded). Returns their number, or -1 (printed).
 */
int backport_loop_leftovers(struct strbuf *left, struct backport_loop *l, const struct state *st,
			    const struct backport_result *r);
/* Whether the loop's work tree is there to read (a killed removal may have taken it). */
int backport_loop_tree_there(const struct backport_loop *l);

#endif
