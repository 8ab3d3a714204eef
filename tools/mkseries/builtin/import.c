/* builtin/import.c: `mkseries import`: bring branch trees into the kernel repository, tagged. */
#include <stdlib.h>

#include "builtin/builtin.h"
#include "run/applystep.h"
#include "run/cells.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "kit/select.h"
#include "tree/tree.h"
#include "lib/util.h"

struct import_args {
	const char *repo;
	int force;
	int log;
	struct kernel_repos repos;	/* --log: opened once for every branch */
};

/*
 * One branch: run's import step (run/applystep.c), recorded in the
 * branch's work directory as run records it, asking the source whether
 * it moved on. Returns the branch's exit status.
 */
static int import_branch(const struct cell *c, const struct strvec *variants, void *data)
{
	const struct import_args *args = data;
	const struct kernel_branch *b = c->b;
	struct strbuf line = STRBUF_INIT;
	git_repository *repo;
	git_oid commit;
	unsigned flags = TREE_IMPORT_REFRESH | (args->force ? TREE_IMPORT_FORCE : 0);
	int err, ret = 1;

	err = kernel_repos_open(&repo, c->repos, c->kit, b, c->repo_opt, KERNEL_REPO_LOCK);
	if (err)
		return mks_exit_status(err);
	if (import_step_run(&commit, &line, repo, c->kit, b, c->workdir, flags)) {
		printf("%s: %s\n", b->name, line.buf);
		print_error("%s: nothing imported, '%s' left as it was", b->name, tree_base_refname(b));
	} else {
		printf("%s: %s\n", b->name, line.buf);
		ret = 0;
	}
	fflush(stdout);
	kernel_repos_unlock(c->repos);
	strbuf_release(&line);
	return ret;
}

/* `--log`: the imports recorded for b, newest first. */
static int import_log(const struct kit *kit, const struct kernel_branch *b,
		      struct import_args *args)
{
	struct strbuf out = STRBUF_INIT;
	git_repository *repo = NULL;
	int err = kernel_repos_open(&repo, &args->repos, kit, b, args->repo, 0);

	if (err)
		return err;
	if (tree_import_log(&out, repo, b) == 0)
		printf("%s: no import recorded\n", b->name);
	else
		printf("%s:\n%s", b->name, out.buf);
	strbuf_release(&out);
	return 0;
}

static int log_one(const struct kit *kit, const struct kernel_branch *b, void *data)
{
	return import_log(kit, b, data);
}

int cmd_import(int argc, const char **argv)
{
	const char *branch = NULL, *repo = NULL, *workdir = NULL;
	int all = 0, force = 0, log = 0, ret = 0;
	const struct option opts[] = {
		OPT_BRANCH_ALL("import", &branch, &all, ""),
		OPT_STRING("repo", 0, &repo, "DIR",
		  "the kernel repository (default: the branch's git repository, else "
		  "$XDG_CACHE_HOME/mkseries/linux.git)"),
		OPT_WORKDIR(&workdir),
		OPT_BOOL("force", 'f', &force, "import again even when up to date"),
		OPT_BOOL("log", 0, &log, "show the imports recorded, newest first"),
		OPT_END(),
	};
	const char *usage = "mkseries import (--branch B | --all) [--repo DIR] [--workdir DIR] "
			    "[--force | --log]";
	struct import_args args = { .repos = KERNEL_REPOS_INIT };

	parse_options_only(argc, argv, opts, usage);
	args.repo = repo;
	args.force = force;
	args.log = log;
	if (log) {
		/* reads the repository only: no work directory, no lock */
		ret = for_each_selected_branch(branch, all, 0, log_one, &args);
		kernel_repos_release(&args.repos);
		return mks_exit_status(ret);
	}
	return for_each_branch_of("import", branch, all, workdir, repo, import_branch, &args);
}
