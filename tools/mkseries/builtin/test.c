/* builtin/test.c: `mkseries test`: boot each built variant in QEMU and run mm-regress. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build.h"
#include "builtin.h"
#include "cells.h"
#include "gitutil.h"
#include "options.h"
#include "select.h"
#include "state.h"
#include "tree.h"
#include "util.h"
#include "variant.h"
#include "workdir.h"
#include "vm.h"

struct test_args {
	const char *workdir, *repo, *accel;
	int full;
	unsigned probe_timeout;	/* MKSERIES_KVM_PROBE_TIMEOUT, else 0 (vm's default) */
	unsigned boots;		/* --boots; 0: each branch's boot.boots */
	char *noted;		/* the last accelerator note printed, or NULL */
};

/*
 * The bzImage the last build of `variant` made, when it was built from
 * the commit the variant names now. *why says otherwise. Caller frees.
 */
static char *built_image(struct strbuf *why, git_repository *repo, const struct kit *kit,
			 const struct kernel_branch *b, const char *variant, const char *workdir)
{
	struct state st = STATE_INIT;
	char *path = xstrfmt("%s/state/%s.build", workdir, variant), *refname = NULL, *ret = NULL;
	const char *status, *commit, *image;
	git_oid now;
	struct stat s;

	if (state_read(&st, path))
		goto cleanup;
	status = state_get(&st, "status");
	commit = state_get(&st, "commit");
	image = state_get(&st, "bzimage");
	if (!status) {
		strbuf_addf(why, "not built: run mkseries build --branch %s --variant %s", b->name,
			    variant);
		goto cleanup;
	}
	if (strcmp(status, "ok") || !image) {
		strbuf_addf(why, "not tested: its build failed (%s)",
			    state_get(&st, "failure") ? state_get(&st, "failure") : status);
		goto cleanup;
	}
	if (stat(image, &s)) {
		strbuf_addf(why, "not built: '%s' is gone: run mkseries build --branch %s", image,
			    b->name);
		goto cleanup;
	}
	if (variant_resolve(&now, &refname, why, repo, kit, b, variant)) {
		if (!why->len)
			strbuf_addstr(why, "cannot find its commit");
		goto cleanup;
	}
	if (!commit || strcmp(commit, git_oid_tostr_s(&now))) {
		strbuf_addf(why, "the build is out of date (%s moved since): run mkseries build --branch %s",
			    refname, b->name);
		goto cleanup;
	}
	ret = xstrdup(image);
cleanup:
	state_release(&st);
	free(refname);
	free(path);
	return ret;
}

static int test_one(git_repository *repo, const struct kit *kit, const struct kernel_branch *b,
		    const char *variant, const char *workdir, struct test_args *args)
{
	struct vm_result res;
	struct vm_opts opts = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *label = xstrfmt("%s %s", b->name, variant), *image, *how = NULL;
	int ret = 1, err;

	memset(&res, 0, sizeof(res));
	image = built_image(&why, repo, kit, b, variant, workdir);
	if (!image) {
		printf("%s: %s\n", label, why.buf);
		goto cleanup;
	}
	opts.accel = args->accel;
	opts.full = args->full;
	opts.probe_timeout = args->probe_timeout;
	opts.boots = args->boots;
	opts.progress = mks_isatty_stderr();
	opts.label = label;
	opts.variant = branch_find_variant(b, variant);
	if ((err = vm_test_variant(&res, b, image, workdir, variant, &opts))) {
		printf("%s: FAILED (see the error above)\n", label);
		if (err == MKS_ECONFIG)
			ret = 2;
		goto cleanup;
	}
	/* Once per reason: every cell after a failed probe would say the same. */
	if (res.accel_note && (!args->noted || strcmp(args->noted, res.accel_note))) {
		fprintf(stderr, "note: using %s: %s\n", res.accel, shown(res.accel_note));
		free(args->noted);
		args->noted = xstrdup(res.accel_note);
	}
	how = vm_result_how(&res);
	if (res.status == VM_OK) {
		printf("%s: booted (%s) %zu ok, %zu skip, %zu fail", label, how, res.nr_pass,
		       res.nr_skip, res.nr_fail);
		if (opts.variant && opts.variant->nr_expect_fail)
			printf(", %zu xfail", res.nr_xfail);
		printf(" in %s\n", format_duration(res.seconds));
		ret = 0;
	} else {
		printf("%s: FAILED (%s) %s\n", label, how, res.failure ? shown(res.failure) : "");
		printf("    console: %s\n", res.console_log);
	}
	if (res.expected)
		printf("    XFAIL %s\n", shown(res.expected));
cleanup:
	vm_result_release(&res);
	strbuf_release(&why);
	free(how);
	free(image);
	free(label);
	return ret;
}

static int test_branch(const struct kit *kit, const struct kernel_branch *b,
		       const struct strvec *given, struct test_args *args)
{
	struct workdir_lock lock = WORKDIR_LOCK_INIT;
	struct strvec list = STRVEC_INIT, *variants = &list;
	git_repository *repo = NULL;
	char *workdir = branch_workdir(kit, args->workdir, b);
	size_t i;
	int err, ret = 0;

	variants_of_branch(&list, b, given);
	err = kernel_repo_open(&repo, kit, b, args->repo, 0);
	if (err == MKS_ECONFIG) {
		ret = 2;
		goto cleanup;
	}
	if (err || workdir_lock(&lock, workdir)) {
		ret = 1;
		goto cleanup;
	}
	for (i = 0; i < variants->nr; i++) {
		int r = test_one(repo, kit, b, variants->v[i], workdir, args);

		if (r > ret)
			ret = r;
	}
cleanup:
	workdir_unlock(&lock);
	git_repository_free(repo);
	strvec_clear(&list);
	free(workdir);
	return ret;
}

int cmd_test(int argc, const char **argv)
{
	const char *branch = NULL;
	struct strvec given = STRVEC_INIT;
	struct test_args args = { 0 };
	int all = 0, quick = 0, ret = 0;
	const struct option opts[] = {
		{ OPT_STRING, "branch", 'b', &branch, "B", "test this branch" },
		{ OPT_BOOL, "all", 0, &all, NULL, "test every default branch" },
		{ OPT_LIST, "variant", 0, &given, "V",
		  "base, kit or a declared variant (repeatable; default: every one)" },
		{ OPT_BOOL, "quick", 0, &quick, NULL, "mm-regress --quick (the default)" },
		{ OPT_BOOL, "full", 0, &args.full, NULL, "the full mm-regress run" },
		{ OPT_STRING, "accel", 0, &args.accel, "A",
		  "auto, kvm or tcg (default: the branch's boot.accel, else auto)" },
		{ OPT_UINT, "boots", 0, &args.boots, "N",
		  "boots of each variant, samples pooled (default: the branch's boot.boots, else 2)" },
		{ OPT_STRING, "workdir", 0, &args.workdir, "DIR",
		  "work directories are in DIR/<branch> (default: ~/.cache/mkseries/work/<kit id>)" },
		{ OPT_STRING, "repo", 0, &args.repo, "DIR", "the kernel repository" },
		{ OPT_END },
	};
	const char *usage = "mkseries test (--branch B | --all) [--variant V]... "
			    "[--quick | --full] [--accel auto|kvm|tcg] [--boots N] [--workdir DIR] [--repo DIR]";
	struct kernel_branch **sel = NULL;
	struct kit kit = KIT_INIT;
	size_t nr = 0, i;

	if (parse_options(argc, argv, opts, usage))
		usage_with_options(usage, opts, 2);
	gitutil_init();
	if (quick && args.full) {
		error("--quick and --full cannot be used together");
		usage_with_options(usage, opts, 2);
	}
	if (args.accel && strcmp(args.accel, "auto") && strcmp(args.accel, "kvm") &&
	    strcmp(args.accel, "tcg")) {
		error("unknown accelerator '%s' (auto, kvm or tcg)", args.accel);
		usage_with_options(usage, opts, 2);
	}
	if (args.boots > 100) {
		error("--boots must be between 1 and 100, not %u", args.boots);
		usage_with_options(usage, opts, 2);
	}
	if (getenv("MKSERIES_KVM_PROBE_TIMEOUT"))
		args.probe_timeout = strtoul(getenv("MKSERIES_KVM_PROBE_TIMEOUT"), NULL, 10);
	if (select_cells(&kit, &sel, &nr, branch, all, &given)) {
		ret = 2;
		goto cleanup;
	}
	for (i = 0; i < nr; i++) {
		int r = test_branch(&kit, sel[i], &given, &args);

		if (r > ret)
			ret = r;
	}
cleanup:
	free(args.noted);
	free(sel);
	kit_release(&kit);
	strvec_clear(&given);
	return ret;
}
