/* run/applystep.h: a branch's own steps, import and apply, as `mkseries run` and `mkseries apply` both take them. */
#ifndef MKSERIES_APPLYSTEP_H
#define MKSERIES_APPLYSTEP_H

#include <git2.h>

#include "apply/applyplan.h"
#include "apply/plan.h"
#include "kit/model.h"
#include "record/record.h"
#include "lib/util.h"

/*
 * The import step of branch b, recorded in workdir: the tree in repo
 * (which the caller has locked) from b's source, imported unless tree/
 * finds its tag current (flags: enum tree_import_flags). *base is the
 * tree's commit; out gets the step's words: tree_import_summary()'s, or
 * "FAILED cannot import ...". Returns 0 or -1.
 */
int import_step_run(git_oid *base, struct strbuf *out, git_repository *repo, const struct kit *kit,
		    const struct kernel_branch *b, const char *workdir, unsigned flags);

/* What an apply is told. */
struct apply_step_opts {
	int force;		/* apply even when the record is current */
	const char *cmd;	/* "mkseries run": the reflog's word */
	/* Before it applies: why again ("" the first time); may be NULL (build_opts' twin). */
	void (*starting)(const char *why, void *data);
	void *data;
};

/* One branch's apply: the kit, then each declared variant after it. */
struct apply_step {
	const struct kernel_branch *b;
	struct plan plan;		/* the kit's */
	struct plan *vplans;		/* one per declared variant of b, in order */
	size_t nr_vplans;		/* of them, built */
	/* apply_step_run(): */
	int uptodate;		/* the record was current, its refs where it says: nothing applied */
	int ran;		/* applied: rec is what was recorded */
	int kit_err;		/* ran: 0, MKS_EAPPLYFAIL or MKS_EUNSAFE */
	int *verr;		/* ran: the same per variant */
	int applied;		/* the kit applied (now or as recorded): its cells can be built */
	int *vapplied;		/* per declared variant: the same */
	struct apply_outcome kit;
	struct apply_outcome *vo;	/* per declared variant */
	char *refname;		/* the kit's */
	struct step_record rec;	/* as recorded now, or as it was when up to date */
	struct strbuf why;	/* ran: why again (empty the first time); else why it could not run */
	int loop_running;	/* a backport loop of b is in progress: a conflict's next step */
};

#define APPLY_STEP_INIT { NULL, PLAN_INIT, NULL, 0, 0, 0, 0, NULL, 0, NULL, { 0 }, NULL, NULL, \
			  STEP_RECORD_INIT, STRBUF_INIT, 0 }

/*
 * The plans of the kit and of each declared variant of b. Returns 0,
 * or MKS_ECONFIG with why (and the errors printed meanwhile) set.
 */
int apply_step_plan(struct apply_step *s, const struct kit *kit, const struct kernel_branch *b,
		    struct strbuf *why);

/*
 * The apply step of the planned branch onto `base` (its imported tree)
 * of `repo`, which the caller has locked, recorded in workdir: the one
 * place that decides whether the recorded apply is current (its key:
 * base, backporter, mkseries, every plan and the files it applies) and
 * its refs still where it says; when it is not, or opts->force, applies
 * the kit and its variants (each variant fails on its own; all refs
 * move together or none) and records how it went under that key.
 * Returns 0 (up to date, or applied however the patches did), -1 when
 * the apply could not run (why, also recorded as an error) or
 * MKS_ECONFIG when the kit's plan does not do at that tree.
 */
int apply_step_run(struct apply_step *s, git_repository *repo, const git_oid *base,
		   const char *workdir, const struct apply_step_opts *opts);
void apply_step_release(struct apply_step *s);

/*
 * The lines of the step, one renderer for every command: "B: STEPREF ->
 * TIP (...)" for the kit and "B V: STEP..." for each variant, a
 * conflict's "CONFLICT: nothing applied; ..." with apply's report of it
 * on `reports` (which may be `out`), or "up to date (...)" when nothing
 * ran. `patches` adds one line per patch the kit applied. STEP is
 * "apply: " for run, "" for apply.
 */
void apply_step_say(struct strbuf *out, struct strbuf *reports, const char *step,
		    const struct apply_step *s, int patches);

/* 0 when the kit and every variant applied (or are up to date), else 1. */
int apply_step_status(const struct apply_step *s);

#endif
