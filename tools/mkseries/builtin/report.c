/* builtin/report.c: `mkseries report`: the recorded results, or several JSON reports merged, in any format. */
#include <errno.h>
#include <string.h>

#include "builtin/builtin.h"
#include "results/collect.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "report/report.h"
#include "results/results.h"
#include "run/stale.h"
#include "kit/select.h"
#include "lib/util.h"
#include "kit/variants.h"
#include "results/verdict.h"
#include "tree/workdir.h"

/* The results recorded in the work directories of the chosen branches. */
static int collect(struct run_results *res, const char *branch, int all, const char *workdir,
		   const struct strvec *variants)
{
	struct kernel_branch **sel = NULL;
	struct kit kit = KIT_INIT;
	size_t nr = 0, i, found = 0;
	int ret = 0;

	if (kit_open(&kit))
		return 2;
	if (select_branches(&sel, &nr, &kit, branch, all, 1) ||
	    variants_check(variants, sel, nr)) {
		ret = 2;
		goto cleanup;
	}
	for (i = 0; i < nr; i++) {
		struct run_results one;
		char *dir = branch_workdir(&kit, workdir, sel[i]);
		int r;

		if (!dir) {
			ret = 2;
			goto cleanup;
		}
		results_init(&one);
		r = results_collect_branch(results_branch(&one, sel[i]->name), dir,
					   variants->nr ? variants : NULL);
		if (r < 0) {
			ret = 1;
		} else if (!r) {
			/* one branch alone is said once, below */
			if (nr > 1)
				fprintf(stderr, "%s: no results recorded (run: mkseries run --branch %s)\n",
					sel[i]->name, sel[i]->name);
		} else {
			results_mark_stale(&one.branches[0], &kit, sel[i], dir);
			results_merge(res, &one);
			found++;
		}
		results_release(&one);
		free(dir);
	}
	if (!found && !ret) {
		if (nr == 1)
			print_error("no results recorded for '%s' (run: mkseries run --branch %s)",
			      sel[0]->name, sel[0]->name);
		else
			print_error("no results recorded for any of the %zu branches", nr);
		ret = 1;
	}
	/* The claims and thresholds are the kit's as it is now, like the verdicts. */
	results_use_kit(res, &kit);
cleanup:
	free(sel);
	kit_release(&kit);
	return ret;
}

int cmd_report(int argc, const char **argv)
{
	const char *branch = NULL, *format = "text", *output = NULL, *workdir = NULL, *cells = NULL;
	struct strvec given = STRVEC_INIT, variants = STRVEC_INIT;
	struct run_results res;
	struct report_opts ro = { 0 };
	enum report_format fmt;
	int all = 0, merge = 0, ret = 0, nr;
	const struct option opts[] = {
		OPT_CELLS("report", &branch, &all, " (the default)", &given),
		OPT_STRING("format", 0, &format, "F", "text, json, junit, markdown or html"),
		OPT_STRING("output", 'o', &output, "FILE", "write the report to FILE"),
		OPT_STRING("html-url", 0, &ro.html_url, "URL",
		  "markdown: link each branch's charts in the HTML report published at URL"),
		OPT_WORKDIR(&workdir),
		OPT_BOOL("merge", 0, &merge,
		  "merge the JSON reports named as arguments (from separate CI jobs)"),
		OPT_STRING("cells", 0, &cells, "LIST",
		  "--merge: the reports hold exactly these cells (BRANCH/VARIANT ..., each once)"),
		OPT_END(),
	};
	const char *usage = "mkseries report [--branch B | --all] [--variant V]... "
			    "[--format text|json|junit|markdown|html] [--output FILE] [--workdir DIR]\n"
			    "                       [--html-url URL]\n"
			    "   or: mkseries report --merge FILE... [--cells LIST] [--format ...] [--output FILE]";

	results_init(&res);
	nr = parse_options(argc, argv, opts, usage);
	if (report_format_parse(&fmt, format)) {
		ret = 2;
		goto cleanup;
	}
	if (ro.html_url && fmt != REPORT_MARKDOWN) {
		print_error("--html-url links charts from the markdown report: it needs --format markdown");
		usage_with_options(usage, opts, 2);
	}
	if (merge) {
		if (!nr) {
			print_error("--merge needs the JSON reports to merge");
			usage_with_options(usage, opts, 2);
		}
		if (branch || all || given.nr || workdir) {
			print_error("--merge reads only the reports given: no --branch, --all, --variant or --workdir");
			usage_with_options(usage, opts, 2);
		}
		if (results_load_reports(&res, argv, nr, cells)) {
			ret = 2;
			goto cleanup;
		}
	} else {
		if (cells) {
			print_error("--cells checks the reports --merge reads: it needs --merge");
			usage_with_options(usage, opts, 2);
		}
		if (nr) {
			print_error("unexpected argument '%s' (reports to merge need --merge)", argv[0]);
			usage_with_options(usage, opts, 2);
		}
		if (variants_select(&variants, &given)) {
			ret = 2;
			goto cleanup;
		}
		ret = collect(&res, branch, all, workdir, given.nr ? &variants : &given);
		if (ret)
			goto cleanup;
	}

	if (report_step(&res, fmt, output, &ro, NULL)) {
		ret = 1;
		goto cleanup;
	}
	ret = results_failed(&res);
cleanup:
	results_release(&res);
	strvec_clear(&given);
	strvec_clear(&variants);
	return ret;
}
