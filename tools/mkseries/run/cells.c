/* run/cells.c: choosing the branches and variants a command works on, and visiting each cell. */
#include <stdlib.h>

#include "run/cells.h"
#include "doctor/doctor.h"
#include "kit/select.h"
#include "lib/progress.h"
#include "tree/tree.h"
#include "kit/variants.h"
#include "tree/workdir.h"

int select_cells(struct kit *kit, struct kernel_branch ***sel, size_t *nr, const char *branch,
		 int all, const struct strvec *given)
{
	struct strvec checked = STRVEC_INIT;
	int ret;

	*sel = NULL;
	*nr = 0;
	ret = variants_select(&checked, given);
	if (!ret)
		ret = kit_open(kit);
	if (!ret)
		ret = select_branches(sel, nr, kit, branch, all, 0);
	if (!ret)
		ret = variants_check(given, *sel, *nr);
	strvec_clear(&checked);
	/* Whatever a helper returned, what the caller gets is one of ours. */
	return ret > 0 ? MKS_ECONFIG : ret;
}

/* Print the errors kept since mark, and tell the loop that b cannot start: `what` failed, for them. */
static void not_started(const struct cell_loop *loop, const struct kit *kit,
			const struct kernel_branch *b, const struct strvec *variants,
			const char *what, size_t mark)
{
	char *errors = error_since(mark), *why;

	error_flush();
	if (loop->not_started_fn) {
		why = errors ? xstrfmt("%s: %s", what, errors) : xstrdup(what);
		loop->not_started_fn(kit, b, variants, why, loop->data);
		free(why);
	}
	free(errors);
}

/*
 * Open b's repository in repos (the branches that share one share its
 * handle), lock its work directory and visit its cells. Returns an exit
 * status.
 */
static int visit_branch(const struct cell_loop *loop, const struct kit *kit,
			const struct kernel_branch *b, struct kernel_repos *repos)
{
	struct workdir_lock lock = WORKDIR_LOCK_INIT;
	struct strvec variants = STRVEC_INIT;
	size_t mark = error_mark();
	struct cell c = { kit, b, NULL, repos, loop->repo, NULL, NULL };
	char *workdir;
	size_t i;
	int err, ret = 0, skip;

	workdir = branch_workdir(kit, loop->workdir, b);
	variants_of_branch(&variants, b, loop->given);
	if (!workdir) {
		not_started(loop, kit, b, &variants, "no work directory", mark);
		ret = 2;
		goto cleanup;
	}
	c.workdir = workdir;
	err = kernel_repos_open(&c.repo, repos, kit, b, loop->repo,
				loop->create_repo ? KERNEL_REPO_CREATE : 0);
	if (err) {
		not_started(loop, kit, b, &variants, "cannot open the kernel repository", mark);
		ret = mks_exit_status(err);
		goto cleanup;
	}
	if (workdir_lock(&lock, workdir)) {
		/* what workdir_lock() printed says it best; its short reason when it printed nothing */
		char *what = error_mark() > mark ? xstrdup("its work directory") :
				xstrfmt("its work directory: %s", lock.why ? lock.why : "in use");

		not_started(loop, kit, b, &variants, what, mark);
		free(what);
		ret = 1;
		goto cleanup;
	}
	/* From here on, each step prints and keeps the errors of its own. */
	error_flush();
	/* A nonzero exit status of branch_fn skips the cells. */
	ret = loop->branch_fn ? loop->branch_fn(&c, &variants, loop->data) : 0;
	skip = ret != 0;
	for (i = 0; !skip && loop->cell_fn && i < variants.nr; i++) {
		int r;

		c.variant = variants.v[i];
		progress_cell_next();
		r = loop->cell_fn(&c, loop->data);
		if (r > ret)
			ret = r;
	}
	c.variant = NULL;
	if (loop->branch_end_fn)
		loop->branch_end_fn(&c, &variants, loop->data);
cleanup:
	workdir_unlock(&lock);
	strvec_clear(&variants);
	free(workdir);
	return ret;
}

/*
 * For "[cell 3/16]" on the progress lines: element i is the number of
 * cells of the branches before sel[i], element nr all of them. Caller frees.
 */
static size_t *progress_count_cells(struct kernel_branch *const *sel, size_t nr,
			     const struct strvec *given)
{
	size_t *first = xcalloc(nr + 1, sizeof(*first)), i;

	for (i = 0; i < nr; i++) {
		struct strvec variants = STRVEC_INIT;

		variants_of_branch(&variants, sel[i], given);
		first[i + 1] = first[i] + variants.nr;
		strvec_clear(&variants);
	}
	return first;
}

int for_each_selected_cell(const struct cell_loop *loop, const struct kit *kit,
			   struct kernel_branch *const *sel, size_t nr)
{
	size_t i, *cells = progress_count_cells(sel, nr, loop->given);
	struct kernel_repos repos = KERNEL_REPOS_INIT;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		int r;

		progress_cells(cells[i], cells[nr]);
		r = visit_branch(loop, kit, sel[i], &repos);
		if (r > ret)
			ret = r;
	}
	progress_cells(0, 0);
	kernel_repos_release(&repos);
	free(cells);
	return ret;
}

int for_each_branch_of(const char *cmd, const char *branch, int all, const char *workdir,
		       const char *repo,
		       int (*fn)(const struct cell *c, const struct strvec *variants, void *data),
		       void *data)
{
	struct strvec given = STRVEC_INIT;
	struct cell_loop loop = { 0 };
	int ret;

	loop.branch = branch;
	loop.all = all;
	loop.given = &given;
	loop.workdir = workdir;
	loop.repo = repo;
	loop.create_repo = 1;
	loop.cmd = cmd;
	loop.branch_fn = fn;
	loop.data = data;
	ret = for_each_cell(&loop);
	strvec_clear(&given);
	return ret;
}

int for_each_cell(const struct cell_loop *loop)
{
	struct kernel_branch **sel = NULL;
	struct kit kit = KIT_INIT;
	size_t nr = 0;
	int ret;

	if (select_cells(&kit, &sel, &nr, loop->branch, loop->all, loop->given)) {
		ret = 2;
		goto cleanup;
	}
	if (loop->need) {
		struct doctor_opts dopts = { .repo = loop->repo, .workdir = loop->workdir,
					     .given = loop->given, .need = loop->need };
		int err = doctor_preflight(loop->cmd, &kit, sel, nr, &dopts);

		if (err) {
			ret = mks_exit_status(err);
			goto cleanup;
		}
	}
	ret = for_each_selected_cell(loop, &kit, sel, nr);
cleanup:
	free(sel);
	kit_release(&kit);
	return ret;
}
