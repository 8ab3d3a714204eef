/* builtin/build.c: `mkseries build`: build the variants of a branch: base, kit and the declared ones. */
#include <string.h>

#include "build/build.h"
#include "doctor/doctor.h"
#include "builtin/builtin.h"
#include "run/applystep.h"
#include "run/buildstep.h"
#include "run/cells.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "lib/progress.h"
#include "tree/tree.h"
#include "lib/util.h"
#include "apply/variant.h"

struct build_args {
	const char *workdir, *repo;
	unsigned jobs;
	int force;
};

/* One variant: resolve its commit, build it, print its line. Returns 0 ok, 1 failed, 2 config. */
static int build_one(const struct cell *c, void *data)
{
	const struct build_args *args = data;
	git_repository *repo = c->repo;
	const struct kit *kit = c->kit;
	const struct kernel_branch *b = c->b;
	const char *variant = c->variant;
	struct build_result res;
	struct build_opts opts = { 0 };
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;
	char *refname = NULL, *label = xstrfmt("%s %s", b->name, variant);
	git_oid commit;
	int err, ret = 1;

	memset(&res, 0, sizeof(res));
	err = variant_resolve(&commit, &refname, &why, repo, kit, b, variant);
	if (err == MKS_ENOTFOUND) {
		printf("%s: %s\n", label, why.buf);
		goto cleanup;
	}
	if (err) {
		printf("%s: FAILED cannot find its commit\n", label);
		goto cleanup;
	}
	opts.workdir = c->workdir;
	opts.jobs = args->jobs;
	opts.force = args->force;
	opts.progress = progress_wanted();
	opts.label = label;
	err = build_variant(&res, repo, kit, b, variant, &commit, &opts);
	build_step_say(&out, label, "", err, &res, mks_verbose > 1);
	fputs(out.buf, stdout);
	ret = err ? mks_exit_status(err) : res.status == BUILD_FAILED;
cleanup:
	build_result_release(&res);
	strbuf_release(&out);
	strbuf_release(&why);
	free(refname);
	free(label);
	return ret;
}

/*
 * The base is the imported tree: import it now unless that was done
 * already. An import writes objects and the base tag, so it holds the
 * repository lock as apply and import do; the build itself only reads.
 */
static int import_base(const struct cell *c, const struct strvec *variants, void *data)
{
	struct strbuf line = STRBUF_INIT;
	git_repository *repo;
	git_oid base;
	size_t i;
	int err;

	for (i = 0; i < variants->nr && strcmp(variants->v[i], "base"); i++)
		;
	if (i == variants->nr)
		return 0;
	err = kernel_repos_open(&repo, c->repos, c->kit, c->b, c->repo_opt, KERNEL_REPO_LOCK);
	/* run's import step: its record is what report and run read */
	if (!err && (err = import_step_run(&base, &line, repo, c->kit, c->b, c->workdir, 0)))
		printf("%s: import: %s\n", c->b->name, line.buf);
	kernel_repos_unlock(c->repos);
	strbuf_release(&line);
	return err ? 1 : 0;
}

int cmd_build(int argc, const char **argv)
{
	const char *branch = NULL;
	struct strvec given = STRVEC_INIT;
	struct build_args args = { 0 };
	int all = 0, ret;
	const struct option opts[] = {
		OPT_CELLS("build", &branch, &all, "", &given),
		OPT_WORKDIR(&args.workdir),
		OPT_REPO(&args.repo),
		OPT_JOBS(&args.jobs),
		OPT_BOOL("force", 'f', &args.force, "build even when nothing changed"),
		OPT_END(),
	};
	const char *usage = "mkseries build (--branch B | --all) [--variant V]... "
			    "[--workdir DIR] [--repo DIR] [--jobs N] [--force]";
	struct cell_loop loop = { 0 };

	parse_options_only(argc, argv, opts, usage);
	loop.branch = branch;
	loop.all = all;
	loop.given = &given;
	loop.workdir = args.workdir;
	loop.repo = args.repo;
	loop.create_repo = 1;
	loop.cmd = "build";
	loop.need = NEED_BUILD | NEED_IMPORT;
	loop.branch_fn = import_base;
	loop.cell_fn = build_one;
	loop.data = &args;
	ret = for_each_cell(&loop);
	strvec_clear(&given);
	return ret;
}
