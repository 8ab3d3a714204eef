/* export/stable.c: what a stable branch's export leaves out: the commits the policy refuses, and whether the rest still applies. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "diff/apply.h"
#include "apply/plan.h"
#include "export/export.h"
#include "lib/gitutil.h"

/* Whether the commit's upstream id and the kit's (an abbreviation) name the same commit. */
static int same_upstream(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;

	return n >= 8 && !strncasecmp(a, b, n);
}

/* The commit of s that carries plan item `it`, not taken yet; -1 when none does. */
static long find_commit(const struct export_series *s, const struct plan_item *it, const char *taken)
{
	const struct kit_patch *p = it->patch;
	size_t j;

	for (j = 0; j < s->nr; j++) {
		const struct export_patch *e = &s->v[j];

		if (taken[j])
			continue;
		if (p->upstream ? e->upstream && same_upstream(e->upstream, p->upstream) :
		    !e->upstream && it->subject && !strcmp(it->subject, e->subject))
			return (long)j;
	}
	return -1;
}

/* The diffstat of base's tree to `tree`, as export_patch.stat. */
static int tree_stat(char **out, git_repository *repo, const git_oid *base_tree, const git_oid *tree)
{
	git_tree *a = NULL, *b = NULL;
	int err;

	if ((err = git_tree_lookup(&a, repo, base_tree)) >= 0 &&
	    (err = git_tree_lookup(&b, repo, tree)) >= 0)
		err = export_tree_diff(NULL, out, repo, a, b);
	git_tree_free(a);
	git_tree_free(b);
	if (err < 0)
		return gitutil_error(err, "cannot diff what '%s' keeps", "export");
	return 0;
}

/*
 * Kept commit k does not apply onto `cur` (the kept ones before it):
 * the first left-out commit before k which, added to cur with the
 * left-out ones before it, lets k apply; -1 when none does.
 */
static long needed_by(git_repository *repo, const struct export_series *s, char *const *why,
		      size_t k, const git_oid *cur)
{
	struct strbuf report = STRBUF_INIT;
	git_oid t = *cur, next, probe;
	long found = -1;
	size_t d;

	for (d = 0; d < k && found < 0; d++) {
		if (!why[d])
			continue;
		strbuf_reset(&report);
		if (apply_diff(&next, repo, &t, s->v[d].diff, strlen(s->v[d].diff), &report))
			continue;
		t = next;
		strbuf_reset(&report);
		if (!apply_diff(&probe, repo, &t, s->v[k].diff, strlen(s->v[k].diff), &report))
			found = (long)d;
	}
	git_error_clear();
	strbuf_release(&report);
	return found;
}

/* Whether the kept commits apply in order onto the base; *stat_tree the tree they make. */
static int check_kept(struct export_series *s, git_repository *repo, char *const *why, int force,
		      git_oid *tree)
{
	struct strbuf report = STRBUF_INIT;
	git_oid next;
	size_t k;
	int err, ret = 0;

	for (k = 0; k < s->nr && !ret; k++) {
		long d;

		if (why[k])
			continue;
		strbuf_reset(&report);
		err = apply_diff(&next, repo, tree, s->v[k].diff, strlen(s->v[k].diff), &report);
		if (!err) {
			*tree = next;
			continue;
		}
		if (err != MKS_EAPPLYFAIL && err != MKS_EUNSAFE) {
			ret = -1;
			break;
		}
		d = needed_by(repo, s, why, k, tree);
		if (!force) {
			if (d >= 0)
				error("'%s' depends on '%s', which the stable policy leaves out: "
				      "without it '%s' does not apply; not exported (export every "
				      "patch: --all-patches; or without the one it needs: --force)",
				      s->v[k].subject, s->v[d].subject, s->v[k].subject);
			else
				error("'%s' does not apply once the stable policy leaves out what "
				      "it does; not exported (export every patch: --all-patches; "
				      "or as it is: --force)\n%s", s->v[k].subject, report.buf);
			ret = -1;
		} else if (d >= 0) {
			warning("'%s' depends on '%s', which the stable policy leaves out: "
				"the series does not apply; exported anyway (--force)",
				s->v[k].subject, s->v[d].subject);
		} else {
			warning("'%s' does not apply once the stable policy leaves out what it "
				"does; exported anyway (--force)", s->v[k].subject);
		}
	}
	strbuf_release(&report);
	return ret;
}

int export_stable_filter(struct export_series *s, git_repository *repo, const struct plan *plan,
			 int force)
{
	char *taken = xcalloc(s->nr ? s->nr : 1, 1);
	char **why = xcalloc(s->nr ? s->nr : 1, sizeof(*why));
	long *commit_of = xcalloc(plan->nr ? plan->nr : 1, sizeof(*commit_of));
	struct export_patch *kept;
	git_commit *base = NULL;
	git_oid base_tree, tree;
	size_t i, nr_kept = 0, n = s->nr;
	int err, ret = -1;

	for (i = 0; i < plan->nr; i++) {
		const struct plan_item *it = &plan->items[i];
		const struct kit_patch *p = it->patch;
		const struct plan_item *target;
		long j;

		commit_of[i] = -1;
		if (it->action != PLAN_APPLY || (j = find_commit(s, it, taken)) < 0)
			continue;
		taken[j] = 1;
		commit_of[i] = j;
		target = p->is_fixup && p->fixes_patch ? plan_find(plan, p->fixes_patch) : NULL;
		if (it->policy == 0)
			why[j] = xstrdup(it->policy_rule);
		else if (target && commit_of[target - plan->items] >= 0 &&
			 why[commit_of[target - plan->items]])
			why[j] = xstrfmt("a fixup of '%s', which is left out, goes with it",
					 s->v[commit_of[target - plan->items]].subject);
	}

	if ((err = git_commit_lookup(&base, repo, &s->base)) < 0) {
		gitutil_error(err, "cannot read base %s", oid_short(&s->base));
		goto cleanup;
	}
	base_tree = *git_commit_tree_id(base);
	tree = base_tree;
	if (check_kept(s, repo, why, force, &tree))
		goto cleanup;

	/* Move what is left out to s->left; the rest keeps its order. */
	kept = xcalloc(s->nr ? s->nr : 1, sizeof(*kept));
	for (i = 0; i < s->nr; i++) {
		struct export_patch *e = &s->v[i];
		struct export_left_out *l;

		if (!why[i]) {
			kept[nr_kept++] = *e;
			continue;
		}
		fprintf(stderr, "%s: left out '%s'%s%s%s: %s\n", s->branch, e->subject,
			e->upstream ? " (commit " : "", e->upstream ? e->upstream : "",
			e->upstream ? " upstream)" : "", why[i]);
		ALLOC_GROW(s->left, s->nr_left + 1, s->alloc_left);
		l = &s->left[s->nr_left++];
		l->subject = e->subject;
		l->upstream = e->upstream;
		l->why = why[i];
		why[i] = NULL;
		e->subject = e->upstream = NULL;
		free(e->body);
		free(e->author_name);
		free(e->author_email);
		free(e->applied_upstream);
		free(e->stat);
		free(e->diff);
	}
	free(s->v);
	s->v = kept;
	s->nr = nr_kept;
	s->alloc = s->nr;
	if (s->nr_left) {
		char *stat = NULL;

		if (tree_stat(&stat, repo, &base_tree, &tree))
			goto cleanup;
		free(s->stat);
		s->stat = stat;
	}
	ret = 0;
cleanup:
	for (i = 0; i < n; i++)
		free(why[i]);
	free(why);
	git_commit_free(base);
	free(taken);
	free(commit_of);
	return ret;
}
