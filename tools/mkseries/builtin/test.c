/* builtin/test.c: `mkseries test`: boot each built variant in QEMU and run mm-regress. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin/builtin.h"
#include "doctor/doctor.h"
#include "run/cells.h"
#include "run/teststep.h"
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

/*
 * One variant: find its image, then the test step `run` takes (one body,
 * run/teststep.c), always booting, its record keyed as run keys it: a
 * `run` after it finds the test up to date. Returns 0 ok, 1 failed, 2 config.
 */
static int test_one(const struct cell *c, void *data)
{
	struct test_args *args = data;
	const struct kernel_branch *b = c->b;
	const char *variant = c->variant, *workdir = c->workdir;
	struct test_step t = TEST_STEP_INIT;
	struct test_step_opts o = { 0 };
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;
	char *label = xstrfmt("%s %s", b->name, variant), *image;
	int ret = 1, err;

	image = built_image(&why, c->repo, c->kit, b, variant, workdir);
	if (!image) {
		printf("%s: %s\n", label, why.buf);
		goto cleanup;
	}
	o.accel = args->accel;
	o.full = args->full;
	o.force = 1;
	o.repeat = TEST_DEFAULT_REPEAT;
	o.boots = args->boots;
	o.probe_timeout = args->probe_timeout;
	o.label = label;
	if ((err = test_step_run(&t, b, variant, image, workdir, &o))) {
		printf("%s: FAILED %s\n", label, t.why.buf);
		ret = err == MKS_ECONFIG ? 2 : 1;
		goto cleanup;
	}
	/* Once per reason: every cell after a failed probe would say the same. */
	if (t.res.accel_note && (!args->noted || strcmp(args->noted, t.res.accel_note))) {
		fprintf(stderr, "note: using %s: %s\n", t.res.accel, shown(t.res.accel_note));
		free(args->noted);
		args->noted = xstrdup(t.res.accel_note);
	}
	test_step_say(&out, label, "", &t, branch_find_variant(b, variant));
	fputs(out.buf, stdout);
	ret = t.res.status == VM_OK ? 0 : 1;
cleanup:
	test_step_release(&t);
	strbuf_release(&why);
	strbuf_release(&out);
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
		OPT_CELLS("test", &branch, &all, "", &given),
		OPT_BOOL("quick", 0, &quick, "mm-regress --quick (the default)"),
		OPT_BOOL("full", 0, &args.full, "the full mm-regress run"),
		OPT_STRING("accel", 0, &args.accel, "A",
		  "auto, kvm or tcg (default: the branch's boot.accel, else auto)"),
		OPT_UINT("boots", 0, &args.boots, "N",
		  "boots of each variant, samples pooled (default: the branch's boot.boots, else 2)"),
		OPT_WORKDIR(&args.workdir),
		OPT_REPO(&args.repo),
		OPT_END(),
	};
	const char *usage = "mkseries test (--branch B | --all) [--variant V]... "
			    "[--quick | --full] [--accel auto|kvm|tcg] [--boots N] [--workdir DIR] [--repo DIR]";
	struct cell_loop loop = { 0 };

	parse_options_only(argc, argv, opts, usage);
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
