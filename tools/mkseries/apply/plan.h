/* apply/plan.h: what apply will do on one branch: the ordered patches and fixups, each with a reason. */
#ifndef MKSERIES_PLAN_H
#define MKSERIES_PLAN_H

#include <git2.h>
#include "kit/model.h"

struct stable_log;
struct presence;
struct plan_index;

enum plan_action {
	PLAN_APPLY = 1,	/* apply `source` as a commit of its own */
	PLAN_SQUASH,	/* apply `source` and fold it into the commit of item `squash_into` */
	PLAN_PRESENT,	/* declared present on the branch */
	PLAN_SKIP,	/* declared skipped, or a fixup whose target is not applied */
	/*
	 * a stable commit of the branch says it is this entry's upstream
	 * commit, and the tree has only part of its change: apply refuses
	 * until series.yaml decides (docs/apply.md, "Stable backports")
	 */
	PLAN_PARTIAL,
};

struct plan_item {
	const struct kit_patch *patch;
	enum plan_action action;
	char *reason;		/* why this action: always set, owned */
	char *source;		/* APPLY/SQUASH: the file to apply, relative to the kit; owned */
	int branch_backport;	/* the source is a branch-specific backport */
	size_t squash_into;	/* SQUASH: index of the item whose commit takes it */
	int left_out;		/* SKIP: named by the variant's `without` */
	/*
	 * The kit's `subject`, else the subject of the first mail in the file
	 * the item applies (or the entry's own file); NULL when neither says.
	 * Owned.
	 */
	char *subject;
	/*
	 * PRESENT because the branch's history carries its stable backport
	 * (kernels/<branch>.yaml names a `release`): that commit, in full
	 * hex; else NULL. Owned.
	 */
	char *stable_commit;
	/*
	 * What the branch's tree has of the change, hunk by hunk, when the
	 * plan could look (the tree is known: plan->tree_checked) and the
	 * entry would otherwise be applied; else NULL. Owned.
	 */
	struct presence *presence;
	int found_in_tree;	/* PRESENT because its whole change is in the tree */
	/*
	 * APPLY/SQUASH: whether the branch's kind takes the entry (1), would
	 * refuse it (0: a stable branch and work that is no fix), or states
	 * no kind (-1), and the rule that says so (kit_policy_takes(), static).
	 * PRESENT/SKIP: -1 and NULL.
	 */
	int policy;
	const char *policy_rule;
	/* what review should know of that rule's reading here (a Stable-dep-of: naming no fix, a bare stable: reason), or NULL; owned */
	char *policy_note;
};

/*
 * Items are in application order: series in `requires` order (file order
 * otherwise), each series' patches in order, each applied fixup right
 * after the patch it fixes (after fixups already placed there; squashed
 * fixups first), skipped and present entries where they would have gone.
 */
struct plan {
	const struct kit *kit;
	const struct kernel_branch *branch;
	const struct kernel_variant *variant;	/* NULL: the kit itself */
	struct plan_item *items;
	size_t nr, alloc;
	/* While plan_build() works: the branch's stable backports, or NULL. */
	const struct stable_log *stable;
	/* Finds an item by its kit entry; NULL in a plan made by hand. Owned. */
	struct plan_index *index;
	/*
	 * The tree the entries were checked against (tree_base_peek(), or
	 * the one given to plan_build_at()), when there was one.
	 */
	int tree_checked;
	git_oid base;
	/* While plan_build() works: the repository holding `base`, or NULL. */
	git_repository *repo;
};

#define PLAN_INIT { NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, { { 0 } }, NULL }

/*
 * Work out the plan of `b`. Reads branch backport directories to match
 * their files to the kit's patches. When b's kernel file names a
 * `release` (a git source), it also reads release..ref of b's
 * repository: an entry the plan would apply whose upstream id a commit
 * there names as its upstream ("commit <id> upstream." or "[ Upstream
 * commit <id> ]", not reverted later) is present instead, with that
 * commit as the evidence; every other entry it applies says that none
 * was found. A fixup of an entry found that way is applied (unless it
 * is found too): the kit meant it to travel with what it fixes.
 *
 * When the branch's tree is known without importing (tree_base_peek()),
 * each entry the plan would apply is checked against it in memory
 * (presence_check(), the check apply makes): one whose whole change is
 * there is present (found_in_tree; its fixups are still applied, each
 * checked the same way); one that a stable commit names but whose
 * change is only partly there is PLAN_PARTIAL, unless its own decision
 * for the branch is `apply` or `file`. A stable commit's word alone
 * makes an entry present only when there is no tree to look at.
 * Returns 0, or MKS_ECONFIG after printing every problem found
 * (FILE:LINE: or FILE: first).
 */
int plan_build(struct plan *plan, const struct kit *kit, const struct kernel_branch *b);

/* plan_build() checking entries against commit `base` of `repo` (what apply imported). */
int plan_build_at(struct plan *plan, const struct kit *kit, const struct kernel_branch *b,
		  git_repository *repo, const git_oid *base);

/*
 * The plan of variant v of b: the kit's plan, except that every entry v
 * leaves out is skipped ("left out of variant 'v'"), and so, by the
 * usual rule, is every fixup of it. Each entry left out must be applied
 * (or squashed) in the kit's plan of b, else leaving it out would change
 * nothing: that is an error (MKS_ECONFIG, printed as FILE:LINE:).
 */
int plan_build_variant(struct plan *plan, const struct kit *kit, const struct kernel_branch *b,
		       const struct kernel_variant *v);
void plan_release(struct plan *plan);

/*
 * The plans of the branches sel[0..nr_sel): each branch's plan followed
 * by the plans of its variants, in order, as `plan --format json` lists
 * them. A variant's plan starts from the kit's, so when a branch's plan
 * fails its variants' plans are left empty (their errors would be said
 * again). *plans (caller releases each with plan_release() and frees the
 * array) and *nr are set either way. Returns 0, or MKS_ECONFIG when any
 * plan failed (printed).
 */
int plan_build_selection(struct plan **plans, size_t *nr, const struct kit *kit,
			 struct kernel_branch *const *sel, size_t nr_sel);

/* The item of `plan` that stands for kit entry p, or NULL. */
const struct plan_item *plan_find(const struct plan *plan, const struct kit_patch *p);

const char *plan_action_name(enum plan_action a);
/* Number of items that will change the tree (APPLY and SQUASH). */
size_t plan_count(const struct plan *plan, enum plan_action a);
/* Of the items the plan applies or squashes, those the branch's kind would refuse (policy 0). */
size_t plan_count_refused(const struct plan *plan);

#endif
