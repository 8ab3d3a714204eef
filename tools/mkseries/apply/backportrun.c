/* apply/backportrun.c: what a run of the backport loop works with: its kit, branch, repository and work tree, opened, said and closed. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apply/backportsteps.h"
#include "kit/select.h"
#include "lib/fs.h"
#include "lib/gitutil.h"

void backport_loop_say(const struct backport_loop *l, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (!l->ops || !l->ops->say)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (sb.len)
		l->ops->say(l, sb.buf);
	strbuf_release(&sb);
}

int backport_loop_worktree_tree(git_oid *out, struct backport_loop *l,
				const struct backport_result *r)
{
	if (!l->have_wt_tree) {
		struct strbuf said = STRBUF_INIT;
		int n = backport_index_unlock(&l->paths, l->repo, &said);

		backport_loop_say(l, "%s", said.buf);
		strbuf_release(&said);
		strbuf_reset(&l->wt_ignored);
		if (n || backport_index_begin(&l->paths))
			return -1;
		test_crash_point("index-writing");
		git_index_free(l->wt_index);
		l->wt_index = NULL;
		n = backport_worktree_tree(&l->wt_tree, l->paths.tree, r, &l->wt_ignored,
					   &l->wt_index);
		backport_index_done(&l->paths);
		if (n < 0)
			return -1;
		l->wt_nr_ignored = n;
		l->have_wt_tree = 1;
	}
	*out = l->wt_tree;
	return 0;
}

int backport_loop_recover(struct backport_loop *l, int aborting)
{
	struct strbuf said = STRBUF_INIT;
	int ret = backport_journal_recover(&l->paths, l->repo, l->kit->dir, aborting, &said);

	backport_loop_say(l, "%s", said.buf);
	strbuf_release(&said);
	return ret;
}

int backport_loop_reloaded(struct backport_loop *l)
{
	l->b = kit_find_branch(l->kit, l->name);
	if (!l->b)
		return error("branch '%s' is gone from the kit", shown(l->name));
	return 0;
}

int backport_loop_open(struct backport_loop *l, unsigned flags)
{
	int err = kernel_repos_open(&l->repo, &l->repos, l->kit, l->b, l->opts->repo, flags);

	if (err)
		return err;
	if ((flags & KERNEL_REPO_LOCK) && backporter_signature(&l->me, l->repo))
		return -1;
	return 0;
}

static void loop_close(struct backport_loop *l)
{
	git_signature_free(l->me);
	l->me = NULL;
	kernel_repos_release(&l->repos);
	l->repo = NULL;
}

void backport_loop_release(struct backport_loop *l)
{
	loop_close(l);
	backport_paths_release(&l->paths);
	strbuf_release(&l->wt_ignored);
	git_index_free(l->wt_index);
	l->wt_index = NULL;
	free(l->name);
	free(l->last_label);
	l->name = l->last_label = NULL;
}

int backport_loop_tree_there(const struct backport_loop *l)
{
	char *git = path_join(l->paths.tree, ".git");
	int there = file_exists(git);

	free(git);
	return there;
}

int backport_loop_check_kit(const struct backport_loop *l)
{
	struct state st = STATE_INIT;
	const char *kit;
	int ret = 0;

	if (state_read(&st, l->paths.loop))
		ret = -1;
	else if ((kit = loop_state_get(&st, LK_KIT)) && strcmp(kit, l->kit->dir))
		ret = error("the backport loop in '%s' was started in the kit '%s', not here",
			    l->paths.dir, kit);
	state_release(&st);
	return ret;
}

int backport_loop_find_branch(const char **out, const struct kit *kit, const char *workdir)
{
	struct strbuf found = STRBUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < kit->nr_branches; i++) {
		struct backport_paths lp;

		if (backport_paths_init(&lp, kit, workdir, &kit->branches[i])) {
			strbuf_release(&found);
			return MKS_ECONFIG;
		}
		if (file_exists(lp.loop) || file_exists(lp.patch)) {
			strbuf_addf(&found, "  mkseries backport --branch %s ...\n",
				    kit->branches[i].name);
			*out = kit->branches[i].name;
			n++;
		}
		backport_paths_release(&lp);
	}
	if (n > 1)
		error("backport loops are in progress on %zu branches; name one:\n%s", n,
		      found.buf);
	strbuf_release(&found);
	if (n != 1)
		*out = NULL;
	return n > 1 ? MKS_ECONFIG : (int)n;
}

int backport_loop_setup(struct backport_loop *l, struct kit *kit,
			const struct backport_loop_opts *lo, const struct backport_loop_ops *ops,
			const char *branch, const char *workdir)
{
	l->kit = kit;
	l->opts = lo;
	l->ops = ops;
	l->name = xstrdup(branch);
	l->b = kit_find_branch(kit, l->name);
	if (!l->b) {
		kit_unknown_branch(kit, l->name);
		return MKS_ECONFIG;
	}
	if (lo->series && !kit_find_series(kit, lo->series)) {
		kit_unknown_series(kit, lo->series);
		return MKS_ECONFIG;
	}
	return backport_paths_init(&l->paths, kit, workdir, l->b) ? MKS_ECONFIG : 0;
}
