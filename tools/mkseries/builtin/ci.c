/* builtin/ci.c: `mkseries ci gitlab`: the plan's cells as a CI pipeline a real engine runs. */
#include <errno.h>
#include <string.h>

#include "builtin/builtin.h"
#include "lib/options.h"
#include "apply/plan.h"
#include "report/report.h"
#include "kit/select.h"
#include "lib/util.h"

/* The branches named by --branch (each once, in the order given), or every default one. */
static int select_ci_branches(struct kernel_branch ***out, size_t *nr, const struct kit *kit,
			      const struct strvec *branches, int all)
{
	size_t i, j, alloc = 0;

	*out = NULL;
	*nr = 0;
	if (!branches->nr)
		return select_branches(out, nr, kit, NULL, all, 1);
	if (all)
		return print_error("--all and --branch choose the branches two ways: give one of them");
	for (i = 0; i < branches->nr; i++) {
		struct kernel_branch **one = NULL;
		size_t n = 0;

		if (select_branches(&one, &n, kit, branches->v[i], 0, 0))
			return -1;
		for (j = 0; j < *nr && (*out)[j] != one[0]; j++)
			;
		if (j == *nr) {
			ALLOC_GROW(*out, *nr + 1, alloc);
			(*out)[(*nr)++] = one[0];
		}
		free(one);
	}
	return 0;
}

int cmd_ci(int argc, const char **argv)
{
	const char *output = NULL;
	struct strvec branches = STRVEC_INIT;
	int all = 0, ret = 0;
	const struct option opts[] = {
		OPT_LIST("branch", 'b', &branches, "B", "this branch's cells (repeatable)"),
		OPT_BOOL("all", 0, &all, "every default branch's cells (the default)"),
		OPT_STRING("output", 'o', &output, "FILE", "write the pipeline to FILE"),
		OPT_END(),
	};
	const char *usage = "mkseries ci gitlab [--all | --branch B...] [--output FILE]";
	struct kernel_branch **sel = NULL;
	struct plan *plans = NULL;
	const struct plan **ptrs = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct kit kit = KIT_INIT;
	size_t nr = 0, nr_plans = 0, i;
	int nr_args;

	nr_args = parse_options(argc, argv, opts, usage);
	if (nr_args != 1 || strcmp(argv[0], "gitlab")) {
		if (!nr_args)
			print_error("which CI system? (gitlab)");
		else
			print_error("unknown CI system '%s' (gitlab)", argv[0]);
		usage_with_options(usage, opts, 2);
	}
	if (kit_open(&kit)) {
		ret = 2;
		goto cleanup;
	}
	if (select_ci_branches(&sel, &nr, &kit, &branches, all)) {
		ret = 2;
		goto cleanup;
	}
	/* The same plans as `plan --format json`: a kit that does not plan writes no pipeline. */
	if (plan_build_selection(&plans, &nr_plans, &kit, sel, nr)) {
		ret = 2;
		goto cleanup;
	}
	ptrs = xcalloc(nr_plans ? nr_plans : 1, sizeof(*ptrs));
	for (i = 0; i < nr_plans; i++)
		ptrs[i] = &plans[i];
	plan_render_gitlab(&sb, ptrs, nr_plans);
	if (output) {
		if (write_file_atomic(output, sb.buf, sb.len)) {
			print_error("cannot write '%s': %s", output, strerror(errno));
			ret = 1;
		}
	} else {
		fwrite(sb.buf, 1, sb.len, stdout);
	}
cleanup:
	for (i = 0; i < nr_plans; i++)
		plan_release(&plans[i]);
	free(plans);
	free(ptrs);
	free(sel);
	strbuf_release(&sb);
	strvec_clear(&branches);
	kit_release(&kit);
	return ret;
}
