/* run/cells.c: choosing the branches and variants a command works on, and visiting each cell. */
#include <stdlib.h>

#include "run/cells.h"
#include "doctor/doctor.h"
#include "kit/select.h"
#include "lib/progress.h"
#include "tree/tree.h"
#include "apply/variant.h"
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

/* Open b's repository, lock its work directory and visit its cells. Returns an exit status. */
static int visit_branch(const struct cell_loop *loop, const struct kit *kit,
			const struct kernel_branch *b)
{
	struct workdir_lock lock = WORKDIR_LOCK_INIT;
	struct strvec variants = STRVEC_INIT;
	struct cell c = { kit, b, NULL, NULL, NULL };
	char *workdir = branch_workdir(kit, loop->workdir, b);
	size_t i;
	int err, ret = 0;

	if (!workdir)
		return 2;
	c.workdir = workdir;
	variants_of_branch(&variants, b, loop->given);
	err = kernel_repo_open(&c.repo, kit, b, loop->repo, loop->create_repo);
	if (err) {
		ret = mks_exit_status(err);
		goto cleanup;
	}
	if (workdir_lock(&lock, workdir)) {
		ret = 1;
		goto cleanup;
	}
	if (loop->branch_fn && (ret = loop->branch_fn(&c, &variants, loop->data)))
		goto cleanup;
	for (i = 0; i < variants.nr; i++) {
		int r;

		c.variant = variants.v[i];
		progress_cell_next();
		r = loop->cell_fn(&c, loop->data);
		if (r > ret)
			ret = r;
	}
cleanup:
	workdir_unlock(&lock);
	git_repository_free(c.repo);
	strvec_clear(&variants);
	free(workdir);
	return ret;
}

size_t *progress_count_cells(struct kernel_branch *const *sel, size_t nr,
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

int for_each_cell(const struct cell_loop *loop)
{
	struct kernel_branch **sel = NULL;
	struct kit kit = KIT_INIT;
	size_t nr = 0, i, *cells = NULL;
	int ret = 0;

	if (select_cells(&kit, &sel, &nr, loop->branch, loop->all, loop->given)) {
		ret = 2;
		goto cleanup;
	}
	if (loop->need) {
		struct doctor_opts dopts = { loop->repo, loop->workdir, loop->given, loop->need, 0 };

		int err = doctor_preflight(loop->cmd, &kit, sel, nr, &dopts);

		if (err) {
			ret = mks_exit_status(err);
			goto cleanup;
		}
	}
	cells = progress_count_cells(sel, nr, loop->given);
	for (i = 0; i < nr; i++) {
		int r;

		progress_cells(cells[i], cells[nr]);
		r = visit_branch(loop, &kit, sel[i]);
		if (r > ret)
			ret = r;
	}
	progress_cells(0, 0);
cleanup:
	free(cells);
	free(sel);
	kit_release(&kit);
	return ret;
}
