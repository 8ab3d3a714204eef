/* run/cells.h: what build, test and run work on: each selected branch's variants, one cell at a time. */
#ifndef MKSERIES_CELLS_H
#define MKSERIES_CELLS_H

#include <git2.h>

#include "kit/model.h"
#include "lib/util.h"
#include "tree/tree.h"

/*
 * What build and test work on: the kit (from kit_dir()), the branches
 * (`branch`, or every default one with `all`) and the --variant names
 * `given`, checked against them. Returns 0, or a negative MKS_* code
 * after printing (MKS_ECONFIG for a kit or name that does not do); *sel
 * (caller frees) points into *kit, which the caller releases either way.
 */
int select_cells(struct kit *kit, struct kernel_branch ***sel, size_t *nr, const char *branch,
		 int all, const struct strvec *given);

/* One cell: a variant of a branch, with the branch's repository and locked work directory. */
struct cell {
	const struct kit *kit;
	const struct kernel_branch *b;
	/*
	 * The branch's repository, open in the loop's `repos` (opened with
	 * `repo_opt`, the loop's --repo) and not locked: a step that writes
	 * to it (import, apply) locks it with kernel_repos_open(...,
	 * KERNEL_REPO_LOCK) and gives the lock back with
	 * kernel_repos_unlock() before the cells build from it.
	 */
	git_repository *repo;
	struct kernel_repos *repos;
	const char *repo_opt;
	const char *workdir;	/* the branch's, from branch_workdir(), held by workdir_lock() */
	const char *variant;
};

/*
 * The one cell loop of `build`, `test` and `run`: each branch is opened
 * (its work directory, its repository, the work directory's lock), then
 * its steps are called: branch_fn once, cell_fn for each variant,
 * branch_end_fn once.
 */
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
	/*
	 * Each cell in turn; returns an exit status: 0, 1 (failed) or 2
	 * (configuration). NULL: a command of the branch alone (apply).
	 */
	int (*cell_fn)(const struct cell *c, void *data);
	/*
	 * After branch_fn and the cells (also when branch_fn skipped them),
	 * with c->variant NULL; may be NULL.
	 */
	void (*branch_end_fn)(const struct cell *c, const struct strvec *variants, void *data);
	/*
	 * When a branch cannot be opened, instead of the three above: `why`
	 * says what failed and the error it printed. May be NULL.
	 */
	void (*not_started_fn)(const struct kit *kit, const struct kernel_branch *b,
			       const struct strvec *variants, const char *why, void *data);
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
/*
 * The loop of a command of the branch alone (apply, import): `fn` once
 * for each branch of --branch or --all, its work directory locked and
 * its repository open (made when missing), no cell visited. Returns what
 * for_each_cell() does.
 */
int for_each_branch_of(const char *cmd, const char *branch, int all, const char *workdir,
		       const char *repo,
		       int (*fn)(const struct cell *c, const struct strvec *variants, void *data),
		       void *data);
/* The same over branches already selected: the nr of sel, of kit. */
int for_each_selected_cell(const struct cell_loop *loop, const struct kit *kit,
			   struct kernel_branch *const *sel, size_t nr);

#endif
