/* kit/policy.c: which rule a branch's kind applies to an entry the plan takes (patches/NOTES.md, "Policy"). */
#include <string.h>

#include "kit/model.h"

const char *branch_kind_name(enum branch_kind k)
{
	switch (k) {
	case BRANCH_STABLE:
		return "stable";
	case BRANCH_DISTRO:
		return "distro";
	case BRANCH_KIND_UNSET:
		break;
	}
	return "unset";
}

/*
 * Whether a kernel file that follows b's decisions (b's own included)
 * claims a gain on its kit cell: better than base, or above or below a
 * bound. A `worse:` claim bounds a cost; it shows no gain.
 */
static int branch_claims_gain(const struct kit *kit, const struct kernel_branch *b)
{
	size_t i, j;

	for (i = 0; i < kit->nr_branches; i++) {
		const struct kernel_branch *o = &kit->branches[i];

		if (strcmp(branch_decisions(o), branch_decisions(b)))
			continue;
		for (j = 0; j < o->nr_claims; j++)
			if (o->claims[j].kind != CLAIM_WORSE)
				return 1;
	}
	return 0;
}

int kit_policy_takes(const struct kit *kit, const struct kernel_branch *b,
		     const struct kit_patch *p, unsigned flags, const char **rule)
{
	int stable = b->kind == BRANCH_STABLE;

	if (p->is_fixup)
		*rule = stable ? "stable: a fix (the kit's fixes:), which stable takes" :
			"a fix (the kit's fixes:), which every kind of branch takes";
	else if (flags & POLICY_FIXES_TRAILER)
		*rule = stable ? "stable: a fix (its Fixes: trailer), which stable takes" :
			"a fix (its Fixes: trailer), which every kind of branch takes";
	else if (flags & POLICY_CC_STABLE)
		*rule = stable ? "stable: marked for stable (its Cc: stable trailer)" :
			"marked for stable (its Cc: stable trailer), which every kind of branch takes";
	else if (flags & POLICY_STABLE_DEP)
		*rule = stable ? "stable: the prerequisite of a fix (its Stable-dep-of: trailer)" :
			"the prerequisite of a fix (its Stable-dep-of: trailer), which every kind of branch takes";
	else if (p->stable)
		*rule = stable ? "stable: a stated reason (its stable: key)" :
			"a stated reason for stable (its stable: key), which every kind of branch takes";
	if (p->is_fixup || p->stable ||
	    (flags & (POLICY_FIXES_TRAILER | POLICY_CC_STABLE | POLICY_STABLE_DEP)))
		return b->kind == BRANCH_KIND_UNSET ? -1 : 1;
	switch (b->kind) {
	case BRANCH_KIND_UNSET:
		*rule = "no rule: the kernel file states no kind (stable or distro)";
		return -1;
	case BRANCH_STABLE:
		*rule = "stable takes fixes only (a Fixes:, a Cc: stable, the kit's fixes:, a Stable-dep-of: or a stated stable: reason): this entry is none, stable review would bounce it";
		return 0;
	case BRANCH_DISTRO:
		break;
	}
	if (!p->upstream) {
		*rule = "distro: the kit's own work under review, on the newest branch to be built and compared, not shipped";
		return 1;
	}
	if (p->series->nr_claims) {
		*rule = "distro: performance work whose gain the series' claims check on this branch";
		return 1;
	}
	if (branch_claims_gain(kit, b)) {
		*rule = "distro: performance work whose gain a kernel file's claims check on this branch's decisions";
		return 1;
	}
	*rule = "distro takes performance work only where a claim shows the gain: none does here";
	return 0;
}
