/* builtin/import.c: `mkseries import`: bring branch trees into the kernel repository, tagged. */
#include <stdlib.h>

#include "builtin/builtin.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "kit/select.h"
#include "tree/tree.h"
#include "lib/util.h"

struct import_args {
	const char *repo;
	int force;
	int log;
	struct kernel_repos repos;	/* opened and locked once for every branch */
};

static int import_branch(const struct kit *kit, const struct kernel_branch *b,
			 struct import_args *args)
{
	struct tree_import_info info = { 0 };
	git_repository *repo = NULL;
	git_oid commit;
	unsigned flags = TREE_IMPORT_REFRESH | (args->force ? TREE_IMPORT_FORCE : 0);
	int create = args->repo || b->source.kind != SOURCE_GIT, err, ret = 1;

	/* A git source's own repository must exist; the others are made on first use. */
	err = kernel_repos_open(&repo, &args->repos, kit, b, args->repo,
				KERNEL_REPO_LOCK | (create ? KERNEL_REPO_CREATE : 0));
	if (err) {
		ret = mks_exit_status(err);
		goto cleanup;
	}
	if (tree_import_ex(&commit, &info, repo, kit, b, flags)) {
		error("%s: nothing imported, '%s' left as it was", b->name, tree_base_refname(b));
		goto cleanup;
	}
	printf("%s\n", tree_import_summary(b, &commit, &info));
	fflush(stdout);
	ret = 0;
cleanup:
	tree_import_info_release(&info);
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
		return mks_exit_status(err);
	if (tree_import_log(&out, repo, b) == 0)
		printf("%s: no import recorded\n", b->name);
	else
		printf("%s:\n%s", b->name, out.buf);
	strbuf_release(&out);
	return 0;
}

static int import_one(const struct kit *kit, const struct kernel_branch *b, void *data)
{
	struct import_args *args = data;

	if (args->log)
		return import_log(kit, b, args);
	return import_branch(kit, b, args);
}

int cmd_import(int argc, const char **argv)
{
	const char *branch = NULL, *repo = NULL;
	int all = 0, force = 0, log = 0, ret = 0;
	const struct option opts[] = {
		OPT_BRANCH_ALL("import", &branch, &all, ""),
		OPT_STRING("repo", 0, &repo, "DIR",
		  "the kernel repository (default: the branch's git repository, else "
		  "$XDG_CACHE_HOME/mkseries/linux.git)"),
		OPT_BOOL("force", 'f', &force, "import again even when up to date"),
		OPT_BOOL("log", 0, &log, "show the imports recorded, newest first"),
		OPT_END(),
	};
	const char *usage = "mkseries import (--branch B | --all) [--repo DIR] [--force | --log]";
	struct import_args args = { .repos = KERNEL_REPOS_INIT };

	parse_options_only(argc, argv, opts, usage);
	args.repo = repo;
	args.force = force;
	args.log = log;
	ret = for_each_selected_branch(branch, all, 0, import_one, &args);
	kernel_repos_release(&args.repos);
	return ret < 0 ? 2 : ret;
}
