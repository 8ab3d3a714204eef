/* kit/select.c: find the kit and choose the branches a subcommand works on. */
#include <stdlib.h>
#include <string.h>

#include "kit/select.h"
#include "lib/util.h"

const char *kit_dir(void)
{
	const char *dir = getenv("MKSERIES_KIT");

	return dir && *dir ? dir : ".";
}

int kit_open(struct kit *kit)
{
	return kit_load(kit, kit_dir());
}

int select_branches(struct kernel_branch ***out, size_t *nr, const struct kit *kit,
		    const char *branch, int all, int default_all)
{
	size_t i;

	*out = NULL;
	*nr = 0;
	if (branch && all)
		return error_code(MKS_ECONFIG, "--branch and --all cannot be used together");
	if (branch) {
		struct kernel_branch *b = kit_find_branch(kit, branch);

		if (!b) {
			struct strbuf known = STRBUF_INIT;

			for (i = 0; i < kit->nr_branches; i++)
				strbuf_addf(&known, "%s%s", i ? ", " : "", kit->branches[i].name);
			error("unknown branch '%s' (the kit has: %s)", branch,
			      known.len ? known.buf : "none");
			strbuf_release(&known);
			return MKS_ECONFIG;
		}
		*out = xmalloc(sizeof(**out));
		(*out)[0] = b;
		*nr = 1;
		return 0;
	}
	if (!all && !default_all)
		return error_code(MKS_ECONFIG, "name a branch with --branch B, or use --all");
	*out = xcalloc(kit->nr_branches ? kit->nr_branches : 1, sizeof(**out));
	for (i = 0; i < kit->nr_branches; i++)
		if (kit->branches[i].is_default)
			(*out)[(*nr)++] = &kit->branches[i];
	if (!*nr)
		return error_code(MKS_ECONFIG, "the kit has no default branch in kernels/");
	return 0;
}

int for_each_selected_branch(const char *branch, int all, int default_all,
			     int (*fn)(const struct kit *kit, const struct kernel_branch *b,
				       void *data),
			     void *data)
{
	struct kernel_branch **sel = NULL;
	struct kit kit = KIT_INIT;
	size_t nr = 0, i;
	int ret = 0;

	if (kit_open(&kit))
		return MKS_ECONFIG;
	if (select_branches(&sel, &nr, &kit, branch, all, default_all)) {
		kit_release(&kit);
		return MKS_ECONFIG;
	}
	for (i = 0; i < nr; i++) {
		int r = fn(&kit, sel[i], data);

		if (r > ret)
			ret = r;
	}
	free(sel);
	kit_release(&kit);
	return ret;
}
