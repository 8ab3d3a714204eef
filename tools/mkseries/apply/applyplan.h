/* apply/applyplan.h: carry out a branch's plan: one stable-style commit per patch, in memory. */
#ifndef MKSERIES_APPLYPLAN_H
#define MKSERIES_APPLYPLAN_H

#include <git2.h>
#include "patches/mail.h"
#include "apply/plan.h"
#include "lib/util.h"

enum applied_state {
	APPLIED_NONE = 0,	/* not applied: the plan says present or skip */
	APPLIED_COMMIT,		/* a commit of its own */
	APPLIED_SQUASHED,	/* folded into an earlier item's commit */
	APPLIED_FOUND,		/* its change is already in the tree: not applied twice */
};

struct apply_outcome {
	enum applied_state *state;	/* one per plan item */
	git_oid *commit;		/* one per plan item: the commit that carries it */
	git_oid tip;			/* the last commit (the base when nothing applied) */
	size_t nr_commits, nr_squashed, nr_found, nr_reused;
	size_t nr_shared;		/* of nr_reused: commits of the `reuse` branch (the kit's) */
	size_t failed;			/* index of the item that did not apply, when failing */
	/*
	 * One per plan item: NULL, or for a branch backport that no longer
	 * applies as it is but merged three-way onto the tree
	 * (backport_replay()), the files merged. Owned.
	 */
	char **replayed;
	size_t nr_items, nr_replayed;
	int have_old;			/* branch_apply(): the branch existed, at old_tip */
	git_oid old_tip;
	int moved;			/* branch_apply(): the ref was moved */
	/*
	 * Set by the caller: branch_apply() leaves the ref to
	 * branch_refs_move(), which moves several in one transaction.
	 */
	int defer;
	int pending;			/* deferred: the ref is to move to tip */
	char *refname;			/* deferred: the ref to move; owned */
	char *logmsg;			/* deferred: its reflog message; owned */
	struct strbuf report;		/* what went wrong, for the user */
};

void apply_outcome_init(struct apply_outcome *o);
void apply_outcome_release(struct apply_outcome *o);

/*
 * Apply every APPLY and SQUASH item of `plan` on top of `base` (a commit),
 * writing commits (objects only: no ref, HEAD, index or working tree is
 * touched). When `reuse` (another branch's tip: a variant reuses the
 * kit's) or `old_tip` (the branch's current tip) carry commits identical
 * to the ones about to be written (same parent, tree, author and message)
 * they are reused, `reuse`'s first, so applying twice gives the same
 * branch and a variant shares its first commits with the kit. Either may
 * be NULL. Returns 0, MKS_EAPPLYFAIL or MKS_EUNSAFE with o->report and
 * o->failed set, or -1 (printed).
 *
 * Each patch's apply is bounded (watchdog.h): past MKSERIES_APPLY_TIMEOUT
 * seconds (300 when unset) the process prints which patch hung and that
 * no ref moved, and exits with status 1. Only objects are written here,
 * so the repository keeps every ref as it was.
 */
int plan_apply(struct apply_outcome *o, git_repository *repo, const struct plan *plan,
	       const git_oid *base, const git_oid *old_tip, const git_oid *reuse,
	       const git_signature *backporter);

/*
 * The branch ref of a plan, as kit_refname() names it: refs/heads/mkseries/<kit id>/<branch>
 * for the kit, refs/heads/mkseries-variants/<kit id>/<branch>/<variant> for a variant. Caller
 * frees.
 */
char *branch_refname(const struct plan *plan);

/*
 * Apply `plan` onto `base` and move its branch ref (branch_refname()) to
 * the result, atomically and only when something changed, with
 * "<log_prefix>: N commits onto <base>" in the reflog; `reuse` as for
 * plan_apply(). A branch that a working tree has checked out is refused.
 * On MKS_EAPPLYFAIL or MKS_EUNSAFE the ref is not touched and o->report
 * says why; -1 for other failures (printed).
 */
/*
 * Move the refs of every outcome in `o` (n of them) that branch_apply()
 * left pending (o->defer), in one ref transaction: all of them or none,
 * so a kit and its variants never end on different versions. Each ref
 * must still be where branch_apply() found it. Sets o->moved on each.
 * Returns 0, or -1 with none moved (printed, naming the ref).
 */
int branch_refs_move(git_repository *repo, struct apply_outcome *const *o, size_t n);

int branch_apply(struct apply_outcome *o, git_repository *repo, const struct plan *plan,
		 const git_oid *base, const git_oid *reuse, const git_signature *backporter,
		 const char *log_prefix);

/*
 * The stable-style commit message for mail `m` standing for kit entry `p`:
 * subject, "commit <id> upstream." (the full id when the mail's
 * format-patch "From <id>" line gives it), the message, notes for
 * squashed fixups, the trailer block as written (notes in it kept), and
 * the backporter's Signed-off-by once at the end. A patch with no
 * upstream id (the user's own) keeps its message as written, byte for
 * byte (only trailing blank lines go). The one writer of
 * that form: apply's commits and export's mails both come from it.
 * Returns a new string.
 */
char *stable_message(const struct mail_patch *m, const struct kit_patch *p,
		     const struct mail_patch *const *squashed, const struct kit_patch *const *sq_patches,
		     size_t nr_squashed, const git_signature *backporter);

/*
 * Append "Signed-off-by: <who>" to commit message `msg` unless its last
 * Signed-off-by is who's (by address): the rule stable_message() follows
 * for the backporter, for anyone who passes the patch on.
 */
void stable_add_signoff(struct strbuf *msg, const git_signature *who);

#endif
