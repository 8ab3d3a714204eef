/* builtin/test.c: `mkseries test`: boot each built variant in QEMU and run mm-regress. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin/builtin.h"
#include "doctor/doctor.h"
#include "run/cells.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "lib/progress.h"
#include "record/record.h"
#include "lib/util.h"
#include "apply/variant.h"
#include "vm/vm.h"

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
	struct step_record st = STEP_RECORD_INIT;
	char *refname = NULL, *ret = NULL;
	const char *commit, *image;
	enum record_status status;
	git_oid now;
	struct stat s;

	if (record_read(&st, workdir, STEP_BUILD, variant))
		goto cleanup;
	status = record_status(&st);
	commit = record_get(&st, RF_COMMIT);
	image = record_get(&st, RF_BZIMAGE);
	if (status == RS_NONE) {
		strbuf_addf(why, "not built: run mkseries build --branch %s --variant %s", b->name,
			    variant);
		goto cleanup;
	}
	if (status == RS_RUNNING) {
		/* The word report uses for it. */
		strbuf_addf(why, "not tested: its build was interrupted: run mkseries build --branch %s "
			    "--variant %s", b->name, variant);
		goto cleanup;
	}
	if (status != RS_OK || !image) {
		strbuf_addf(why, "not tested: its build failed (%s)",
			    record_get(&st, RF_FAILURE) ? record_get(&st, RF_FAILURE) :
			    record_status_name(status));
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
	record_release(&st);
	free(refname);
	return ret;
}

/* One variant: find its image, boot it, print its line. Returns 0 ok, 1 failed, 2 config. */
static int test_one(const struct cell *c, void *data)
{
	struct test_args *args = data;
	const struct kernel_branch *b = c->b;
	const char *variant = c->variant, *workdir = c->workdir;
	struct vm_result res;
	struct vm_opts opts = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *label = xstrfmt("%s %s", b->name, variant), *image, *how = NULL;
	int ret = 1, err;

	memset(&res, 0, sizeof(res));
	image = built_image(&why, c->repo, c->kit, b, variant, workdir);
	if (!image) {
		printf("%s: %s\n", label, why.buf);
		goto cleanup;
	}
	opts.accel = args->accel;
	opts.full = args->full;
	opts.probe_timeout = args->probe_timeout;
	opts.boots = args->boots;
	opts.progress = progress_wanted();
	opts.label = label;
	opts.variant = branch_find_variant(b, variant);
	if ((err = vm_test_variant(&res, b, image, workdir, variant, &opts))) {
		printf("%s: FAILED %s\n", label, shown(res.failure));
		ret = mks_exit_status(err);
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

int cmd_test(int argc, const char **argv)
{
	const char *branch = NULL;
	struct strvec given = STRVEC_INIT;
	struct test_args args = { 0 };
	int all = 0, quick = 0, ret;
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
	struct cell_loop loop = { 0 };

	parse_options_only(argc, argv, opts, usage);
	gitutil_init();
	if (vm_check_options(quick, args.full, args.accel, args.boots))
		usage_with_options(usage, opts, 2);
	args.probe_timeout = vm_probe_timeout_env();
	loop.branch = branch;
	loop.all = all;
	loop.given = &given;
	loop.workdir = args.workdir;
	loop.repo = args.repo;
	loop.cell_fn = test_one;
	loop.cmd = "test";
	loop.need = NEED_BOOT;
	loop.data = &args;
	ret = for_each_cell(&loop);
	free(args.noted);
	strvec_clear(&given);
	return ret;
}
