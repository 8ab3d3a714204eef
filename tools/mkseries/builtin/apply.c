/* builtin/apply.c: `mkseries apply`: the kit and its variants onto a branch, one commit per patch, all or nothing. */
#include <string.h>

#include "apply/applyplan.h"
#include "builtin/builtin.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "apply/plan.h"
#include "kit/select.h"
#include "tree/tree.h"
#include "lib/util.h"

static void print_outcome(const struct plan *plan, const struct apply_outcome *o)
{
	size_t i;

	if (!mks_verbose)
		return;
	for (i = 0; i < plan->nr; i++) {
		const struct kit_patch *p = plan->items[i].patch;
		const char *what = NULL;

		switch (o->state[i]) {
		case APPLIED_COMMIT:
			what = "applied";
			break;
		case APPLIED_SQUASHED:
			what = "squashed";
			break;
		case APPLIED_FOUND:
			what = "found";
			break;
		case APPLIED_NONE:
			continue;
		}
		printf("  %-9s %-28s %-12s", what, kit_patch_label(p),
		       p->upstream ? p->upstream : "-");
		if (o->state[i] == APPLIED_FOUND)
			printf(" already in the tree: not applied twice\n");
		else if (o->replayed && o->replayed[i])
			printf(" -> %s, replayed: %s no longer takes %s as written; merged "
			       "three-way from the tree it was written for, cleanly (%s)\n",
			       oid_short(&o->commit[i]), plan->branch->name, plan->items[i].source,
			       o->replayed[i]);
		else
			printf(" -> %s\n", oid_short(&o->commit[i]));
	}
}

/*
 * Apply variant v of b after the kit into `o` (its ref left to move with
 * the kit's: o->defer). A failure is said at once; *refname and
 * *without (caller frees) are for the summary line said once the refs
 * moved. Returns 0, 1 (did not apply) or 2.
 */
static int apply_variant(struct apply_outcome *o, char **refname, char **without,
			 const struct kit *kit, const struct kernel_branch *b,
			 const struct kernel_variant *v, git_repository *repo, const git_oid *base,
			 const git_oid *kit_tip, const git_signature *me)
{
	struct plan plan = PLAN_INIT;
	int err, ret = 1;

	*without = variant_change_text(v);
	*refname = NULL;
	if (plan_build_variant(&plan, kit, b, v)) {
		ret = 2;
		goto cleanup;
	}
	*refname = branch_refname(&plan);
	o->defer = 1;
	err = branch_apply(o, repo, &plan, base, kit_tip, me, "mkseries apply");
	if (err == MKS_EAPPLYFAIL || err == MKS_EUNSAFE) {
		fprintf(stderr, "error: %s", o->report.buf);
		printf("%s %s: FAILED %s: nothing applied; '%s' %s\n", b->name, v->name,
		       *without, *refname, o->have_old ? "left where it was" : "not created");
		goto cleanup;
	}
	if (!err)
		ret = 0;
cleanup:
	plan_release(&plan);
	return ret;
}

static void print_variant_done(const struct kernel_branch *b, const struct kernel_variant *v,
			       const struct apply_outcome *o, const char *refname,
			       const char *without)
{
	printf("%s %s: %s %s %s (%zu commits, %zu shared with the kit, %zu squashed; %s)\n",
	       b->name, v->name, refname, o->moved ? "->" : "up to date at", oid_short(&o->tip),
	       o->nr_commits, o->nr_shared, o->nr_squashed, without);
}

/*
 * The plan looked at the tree it could find without importing; apply
 * goes by the one it has, so that both check the same tree.
 */
static int replan_at(struct plan *plan, const struct kit *kit, const struct kernel_branch *b,
		     git_repository *repo, const git_oid *base)
{
	if (plan->tree_checked && git_oid_equal(&plan->base, base))
		return 0;
	plan_release(plan);
	return plan_build_at(plan, kit, b, repo, base);
}

static int apply_branch(const struct kit *kit, const struct kernel_branch *b,
			const char *repo_opt, struct kernel_repos *repos)
{
	struct plan plan = PLAN_INIT;
	struct apply_outcome o;
	git_repository *repo = NULL;
	git_signature *me = NULL;
	char *refname = kit_refname(kit, b, NULL);
	git_oid base, kit_tip;
	struct apply_outcome *vo = NULL, **moving = NULL;
	char **vref = NULL, **vwithout = NULL;
	int err, ret = 1, have_kit = 0, *vret = NULL;
	size_t i, nv = 0;

	apply_outcome_init(&o);
	if (plan_build(&plan, kit, b)) {
		ret = 2;
		goto cleanup;
	}
	err = kernel_repos_open(&repo, repos, kit, b, repo_opt,
				KERNEL_REPO_CREATE | KERNEL_REPO_LOCK);
	if (err) {
		ret = mks_exit_status(err);
		goto cleanup;
	}
	if (backporter_signature(&me, repo))
		goto cleanup;
	/* Immediate when the tree was imported from the same source before. */
	err = tree_import(&base, repo, kit, b, 0);
	if (err)
		goto cleanup;
	if (replan_at(&plan, kit, b, repo, &base) && (ret = 2))
		goto cleanup;
	o.defer = 1;
	err = branch_apply(&o, repo, &plan, &base, NULL, me, "mkseries apply");
	if (err == MKS_EAPPLYFAIL || err == MKS_EUNSAFE) {
		print_outcome(&plan, &o);
		fprintf(stderr, "error: %s", o.report.buf);
		fprintf(stderr, "%s: nothing applied; '%s' %s\n", b->name, refname,
			o.have_old ? "left where it was" : "not created");
	} else if (err) {
		goto cleanup;
	} else {
		kit_tip = o.tip;
		have_kit = 1;
		ret = 0;
	}
	/* A variant that does not apply fails itself only; each shares the kit's commits. */
	nv = b->nr_variants;
	vo = xcalloc(nv + 1, sizeof(*vo));
	moving = xcalloc(nv + 1, sizeof(*moving));
	vref = xcalloc(nv + 1, sizeof(*vref));
	vwithout = xcalloc(nv + 1, sizeof(*vwithout));
	vret = xcalloc(nv + 1, sizeof(*vret));
	for (i = 0; i < nv; i++) {
		apply_outcome_init(&vo[i]);
		vret[i] = apply_variant(&vo[i], &vref[i], &vwithout[i], kit, b, &b->variants[i], repo,
					&base, have_kit ? &kit_tip : NULL, me);
		if (vret[i] > ret)
			ret = vret[i];
		moving[i] = &vo[i];
	}
	moving[nv] = have_kit ? &o : NULL;
	/* the kit and its variants move together or not at all */
	if (branch_refs_move(repo, moving, nv + 1)) {
		ret = 1;
		goto cleanup;
	}
	if (have_kit) {
		print_outcome(&plan, &o);
		printf("%s: %s %s %s", b->name, refname, o.moved ? "->" : "up to date at",
		       oid_short(&o.tip));
		printf(" (%zu commits, %zu squashed, %zu already in the tree; plan: %zu present, "
		       "%zu skipped)\n", o.nr_commits, o.nr_squashed, o.nr_found,
		       plan_count(&plan, PLAN_PRESENT), plan_count(&plan, PLAN_SKIP));
	}
	for (i = 0; i < nv; i++)
		if (!vret[i])
			print_variant_done(b, &b->variants[i], &vo[i], vref[i], vwithout[i]);
cleanup:
	for (i = 0; vo && i < nv; i++) {
		apply_outcome_release(&vo[i]);
		free(vref[i]);
		free(vwithout[i]);
	}
	free(vo);
	free(moving);
	free(vref);
	free(vwithout);
	free(vret);
	git_signature_free(me);
	apply_outcome_release(&o);
	plan_release(&plan);
	free(refname);
	return ret;
}

struct apply_args {
	const char *repo;
	struct kernel_repos repos;	/* opened and locked once for every branch */
};

static int apply_one(const struct kit *kit, const struct kernel_branch *b, void *data)
{
	struct apply_args *args = data;

	return apply_branch(kit, b, args->repo, &args->repos);
}

int cmd_apply(int argc, const char **argv)
{
	const char *branch = NULL, *repo = NULL;
	int all = 0, ret = 0;
	const struct option opts[] = {
		OPT_BRANCH_ALL("apply onto", &branch, &all, ""),
		OPT_REPO(&repo),
		OPT_END(),
	};
	const char *usage = "mkseries apply (--branch B | --all) [--repo DIR]";

	struct apply_args args = { .repos = KERNEL_REPOS_INIT };

	parse_options_only(argc, argv, opts, usage);
	args.repo = repo;
	ret = for_each_selected_branch(branch, all, 0, apply_one, &args);
	kernel_repos_release(&args.repos);
	return ret < 0 ? 2 : ret;
}
