/* run/cells.h: what build and test work on: each selected branch's variants, one cell at a time. */
#ifndef MKSERIES_CELLS_H
#define MKSERIES_CELLS_H

#include <git2.h>

#include "kit/model.h"
#include "lib/util.h"

/*
 * What build and test work on: the kit (from kit_dir()), the branches
 * (`branch`, or every default one with `all`) and the --variant names
 * `given`, checked against them. Returns 0, or a negative MKS_* code
 * after printing (MKS_ECONFIG for a kit or name that does not do); *sel
 * (caller frees) points into *kit, which the caller releases either way.
 */
int select_cells(struct kit *kit, struct kernel_branch ***sel, size_t *nr, const char *branch,
		 int all, const struct strvec *given);

/*
 * For "[cell 3/16]" on the progress lines: element i is the number of
 * cells of the branches before sel[i], element nr all of them. Caller frees.
 */
size_t *progress_count_cells(struct kernel_branch *const *sel, size_t nr,
			     const struct strvec *given);

/* One cell: a variant of a branch, with the branch's repository and locked work directory. */
struct cell {
	const struct kit *kit;
	const struct kernel_branch *b;
	git_repository *repo;
	const char *workdir;	/* the branch's, from branch_workdir(), held by workdir_lock() */
	const char *variant;
};

struct cell_loop {
	const char *branch;		/* --branch, or NULL */
	int all;			/* --all */
	const struct strvec *given;	/* --variant names; empty: every variant of a branch */
	const char *workdir;		/* --workdir, or NULL */
	const char *repo;		/* --repo, or NULL */
	int create_repo;		/* make the kernel repository when it is missing */
	unsigned need;			/* doctor's checks to pass before the first branch (doctor.h) */
	const char *cmd;		/* the command, for the preflight's message */
	/*
	 * Once per branch, after its repository is open and its work
	 * directory locked, with the variants about to be visited (c->variant
	 * is NULL); may be NULL. A nonzero exit status skips the branch.
	 */
	int (*branch_fn)(const struct cell *c, const struct strvec *variants, void *data);
	/* Each cell in turn; returns an exit status: 0, 1 (failed) or 2 (configuration). */
	int (*cell_fn)(const struct cell *c, void *data);
	void *data;
};

/*
 * Select the cells as select_cells() does and call the loop's functions
 * on each branch and each of its variants, in order. One cell's failure
 * does not stop the next. Returns the highest exit status seen: 2 when
 * the selection does not do, or a branch's repository is misconfigured,
 * 1 when a repository cannot be opened or a work directory is in use.
 */
int for_each_cell(const struct cell_loop *loop);

#endif
