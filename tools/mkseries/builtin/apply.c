/* builtin/apply.c: `mkseries apply`: the kit and its variants onto a branch, one commit per patch, all or nothing. */
#include <stdio.h>
#include <string.h>

#include "builtin/builtin.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "run/applystep.h"
#include "run/cells.h"
#include "tree/tree.h"
#include "lib/util.h"

/* Say the apply's lines: conflicts' reports on stderr, as errors. */
static void print_apply(const struct apply_step *s)
{
	struct strbuf out = STRBUF_INIT, reports = STRBUF_INIT;

	apply_step_say(&out, &reports, "", s, mks_verbose > 0);
	fputs(out.buf, stdout);
	fflush(stdout);
	if (reports.len)
		fprintf(stderr, "error: %s", reports.buf);
	strbuf_release(&out);
	strbuf_release(&reports);
}

/*
 * One branch: import its tree when it is not yet, then the apply step
 * `run` takes (one body, run/applystep.c), always applying, recorded as
 * run records it: a `run` after it finds the apply up to date. Returns
 * the branch's exit status: 0, 1 (did not apply) or 2 (the kit does not do).
 */
static int apply_branch(const struct cell *c, const struct strvec *variants, void *data)
{
	struct apply_step s = APPLY_STEP_INIT;
	struct apply_step_opts o = { .force = 1, .cmd = "mkseries apply" };
	struct strbuf why = STRBUF_INIT, line = STRBUF_INIT;
	git_repository *repo;
	git_oid base;
	int err, ret = 1;

	(void)variants;
	(void)data;
	if (apply_step_plan(&s, c->kit, c->b, &why)) {
		ret = 2;
		goto cleanup;
	}
	err = kernel_repos_open(&repo, c->repos, c->kit, c->b, c->repo_opt, KERNEL_REPO_LOCK);
	if (err) {
		ret = mks_exit_status(err);
		goto cleanup;
	}
	/* Immediate when the tree was imported from the same source before; said when it was not. */
	err = import_step_run(&base, &line, repo, c->kit, c->b, c->workdir, 0);
	if (err || !starts_with(line.buf, "up to date"))
		printf("%s: import: %s\n", c->b->name, line.buf);
	if (!err) {
		err = apply_step_run(&s, repo, &base, c->workdir, &o);
		print_apply(&s);
		ret = err == MKS_ECONFIG ? 2 : err ? 1 : apply_step_status(&s);
	}
	kernel_repos_unlock(c->repos);
cleanup:
	apply_step_release(&s);
	strbuf_release(&why);
	strbuf_release(&line);
	return ret;
}

int cmd_apply(int argc, const char **argv)
{
	const char *branch = NULL, *workdir = NULL, *repo = NULL;
	int all = 0;
	const struct option opts[] = {
		OPT_BRANCH_ALL("apply onto", &branch, &all, ""),
		OPT_WORKDIR(&workdir),
		OPT_REPO(&repo),
		OPT_END(),
	};
	const char *usage = "mkseries apply (--branch B | --all) [--workdir DIR] [--repo DIR]";

	parse_options_only(argc, argv, opts, usage);
	return for_each_branch_of("apply", branch, all, workdir, repo, apply_branch, NULL);
}
