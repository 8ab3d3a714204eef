/* builtin/run.c: `mkseries run`: the options, the branches to run (run/steps.c runs them) and the report. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "builtin/builtin.h"
#include "doctor/doctor.h"
#include "run/cells.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "lib/progress.h"
#include "report/report.h"
#include "results/results.h"
#include "record/key.h"
#include "run/estimate.h"
#include "run/steps.h"
#include "run/teststep.h"
#include "lib/util.h"
#include "kit/variants.h"
#include "results/verdict.h"
#include "vm/vm.h"


/* ------------------------------------------------------------------ */

/* Whether `s` names a step, without a message. */
static int run_step_parse_quiet(const char *s)
{
	return !strcmp(s, "import") || !strcmp(s, "apply") || !strcmp(s, "build") ||
	       !strcmp(s, "test");
}

/* --force: every step; --force=STEP: that one and the later ones; --no-force: none. */
static int force_cb(const struct option *opt, const char *arg, int unset)
{
	if (unset) {
		*(enum run_step *)opt->value = STEP_NONE;
		return 0;
	}
	return run_step_parse(opt->value, arg);
}

/* doctor's checks of what the run's steps need, before the first of them. */
static int preflight(const struct kit *kit, struct kernel_branch *const *sel, size_t nr,
		     const struct run_opts *args)
{
	struct doctor_opts dopts = { .repo = args->repo, .workdir = args->workdir,
				     .given = &args->given,
				     .need = NEED_BUILD | NEED_BOOT | NEED_IMPORT };
	size_t i, j;

	/* Applying signs commits: needed when a cell but base is run. */
	for (i = 0; i < nr; i++) {
		struct strvec variants = STRVEC_INIT;

		variants_of_branch(&variants, sel[i], &args->given);
		for (j = 0; j < variants.nr; j++)
			if (strcmp(variants.v[j], "base"))
				dopts.need |= NEED_IDENTITY;
		strvec_clear(&variants);
	}
	return doctor_preflight("run", kit, sel, nr, &dopts);
}

int cmd_run(int argc, const char **argv)
{
	const char *branch = NULL, *format = "text", *output = NULL;
	struct run_opts args;
	struct strvec given = STRVEC_INIT;
	struct run_results res;
	struct run_estimate est = RUN_ESTIMATE_INIT;
	struct strbuf said = STRBUF_INIT;
	struct kernel_branch **sel = NULL;
	struct kit kit = KIT_INIT;
	enum report_format fmt;
	struct report_opts ro = { 0 };
	size_t nr = 0;
	int all = 0, quick = 0, ret = 0;
	const struct option opts[] = {
		OPT_CELLS("run", &branch, &all, "", &given),
		OPT_CALLBACK_F("force", 'f', &args.force, "STEP",
			       "redo every step; --force=STEP: that step (import, apply, build, test) "
			       "and the later ones", OPT_OPTARG, "import", force_cb),
		OPT_BOOL("quick", 0, &quick, "mm-regress --quick (the default)"),
		OPT_BOOL("full", 0, &args.full, "the full mm-regress run"),
		OPT_UINT("repeat", 0, &args.repeat, "N", "samples per metric (default 5)"),
		OPT_UINT("boots", 0, &args.boots, "N",
		  "boots of each variant, samples pooled (default: the branch's boot.boots, else 2)"),
		OPT_STRING("accel", 0, &args.accel, "A",
		  "auto, kvm or tcg (default: the branch's boot.accel, else auto)"),
		OPT_STRING("format", 0, &format, "F", "text, json, junit or markdown"),
		OPT_STRING("output", 'o', &output, "FILE", "write the report to FILE"),
		OPT_WORKDIR(&args.workdir),
		OPT_REPO(&args.repo),
		OPT_JOBS(&args.jobs),
		OPT_END(),
	};
	const char *usage = "mkseries run (--branch B | --all) [--variant V]... "
			    "[--force[=STEP]] [--quick | --full] [--repeat N] [--boots N] "
			    "[--format text|json|junit|markdown] [--output FILE] [--workdir DIR] "
			    "[--repo DIR]";

	memset(&args, 0, sizeof(args));
	args.force = STEP_NONE;
	args.repeat = (unsigned)-1;
	strvec_init(&args.given);
	results_init(&res);
	if (parse_options(argc, argv, opts, usage)) {
		print_error("unexpected argument '%s'%s", argv[0], run_step_parse_quiet(argv[0]) ?
		      " (a step to force is given as --force=STEP)" : "");
		usage_with_options(usage, opts, 2);
	}
	if (vm_check_options(quick, args.full, args.accel, args.boots))
		usage_with_options(usage, opts, 2);
	args.probe_timeout = vm_probe_timeout_env();
	if (args.repeat == (unsigned)-1)
		args.repeat = TEST_DEFAULT_REPEAT;
	if (!args.repeat || args.repeat > 1000) {
		print_error("--repeat must be between 1 and 1000, not %u", args.repeat);
		usage_with_options(usage, opts, 2);
	}
	if (report_format_parse(&fmt, format) ||
	    select_cells(&kit, &sel, &nr, branch, all, &given)) {
		ret = 2;
		goto cleanup;
	}
	/* The --variant names, each once (checked above); none: every cell of each branch. */
	if (given.nr)
		variants_select(&args.given, &given);
	if ((ret = mks_exit_status(preflight(&kit, sel, nr, &args))))
		goto cleanup;
	/* The steps' lines go with the report, unless the report is data on stdout. */
	args.log = fmt == REPORT_TEXT || output ? stdout : stderr;
	/* What it will do and how long that takes, before it starts. */
	run_estimate_make(&est, &kit, sel, nr, &args);
	run_estimate_say(&said, &est);
	fputs(said.buf, args.log);
	fflush(args.log);
	args.estimate = &est;

	ret = run_branches(&res, &kit, sel, nr, &args);
	args.estimate = NULL;
	run_estimate_release(&est);
	results_use_kit(&res, &kit);
	if (report_step(&res, fmt, output, &ro, args.log))
		ret = ret ? ret : 1;
	if (!ret && results_failed(&res))
		ret = 1;
cleanup:
	free(sel);
	kit_release(&kit);
	results_release(&res);
	strbuf_release(&said);
	strvec_clear(&args.given);
	strvec_clear(&given);
	return ret;
}
