/* kit/select.c: find the kit and choose the branches a subcommand works on. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kit/select.h"
#include "lib/util.h"

/*
 * The nearest directory holding series.yaml, from the current one up to
 * the root, as a path relative to the current one ("." or "../.."), as
 * git finds its repository from a subdirectory; NULL when there is none.
 */
static char *find_kit_up(void)
{
	struct strbuf rel = STRBUF_INIT, probe = STRBUF_INIT;
	const char *env = getenv("MKSERIES_CEILING_DIRECTORY");
	char *cwd = getcwd(NULL, 0), *slash, *ceiling = env && *env ? realpath(env, NULL) : NULL;
	int found = 0;

	strbuf_addstr(&rel, ".");
	while (cwd) {
		strbuf_reset(&probe);
		strbuf_addf(&probe, "%s/series.yaml", rel.buf);
		if ((found = file_exists(probe.buf)))
			break;
		slash = strrchr(cwd, '/');
		if (!slash || (slash == cwd && !cwd[1]))
			break;
		slash[slash == cwd] = '\0';
		/* As GIT_CEILING_DIRECTORIES: never up into it (the tests' trash directories). */
		if (ceiling && !strcmp(cwd, ceiling))
			break;
		if (!strcmp(rel.buf, "."))
			strbuf_reset(&rel);
		else
			strbuf_addch(&rel, '/');
		strbuf_addstr(&rel, "..");
	}
	free(cwd);
	free(ceiling);
	strbuf_release(&probe);
	if (!found) {
		strbuf_release(&rel);
		return NULL;
	}
	return strbuf_detach(&rel, NULL);
}

static int kit_not_found;
static const char *kit_given;	/* --kit */

void kit_dir_set(const char *dir)
{
	kit_given = dir;
}

const char *kit_dir(void)
{
	static char *found;
	const char *dir = kit_given && *kit_given ? kit_given : getenv("MKSERIES_KIT");

	if (dir && *dir)
		return dir;
	if (!found && !kit_not_found && !(found = find_kit_up()))
		kit_not_found = 1;
	return found ? found : ".";
}

int kit_found(void)
{
	kit_dir();
	return !kit_not_found;
}

int kit_open(struct kit *kit)
{
	const char *dir = kit_dir();

	if (kit_not_found)
		return error_code(MKS_ECONFIG,
				  "not in a kit: no series.yaml here or in a directory above; "
				  "run mkseries in the kit, or name it with --kit DIR");
	return kit_load(kit, dir);
}

/* ", did you mean 'x'?" for the names most like `typed`, or nothing. */
static void suggest(struct strbuf *sb, const char *typed, const char *const *names, size_t nr)
{
	size_t i, n = 0;

	for (i = 0; i < nr; i++) {
		if (!similar_name(typed, names[i]))
			continue;
		strbuf_addf(sb, "%s'%s'", n++ ? " or " : "; did you mean ", shown(names[i]));
	}
	if (n)
		strbuf_addch(sb, '?');
}

/* Print that `what` `typed` is not in the kit, with the known names and a suggestion. */
static int unknown(const char *what, const char *typed, const char *const *names, size_t nr)
{
	struct strbuf known = STRBUF_INIT, hint = STRBUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++)
		strbuf_addf(&known, "%s%s", i ? ", " : "", shown(names[i]));
	suggest(&hint, typed, names, nr);
	error("unknown %s '%s' (the kit has: %s)%s", what, shown(typed),
	      known.len ? known.buf : "none", hint.buf);
	strbuf_release(&known);
	strbuf_release(&hint);
	return MKS_ECONFIG;
}

int kit_unknown_branch(const struct kit *kit, const char *name)
{
	const char **names = xcalloc(kit->nr_branches + 1, sizeof(*names));
	size_t i;
	int ret;

	for (i = 0; i < kit->nr_branches; i++)
		names[i] = kit->branches[i].name;
	ret = unknown("branch", name, names, kit->nr_branches);
	free(names);
	return ret;
}

int kit_unknown_series(const struct kit *kit, const char *name)
{
	const char **names = xcalloc(kit->nr_series + 1, sizeof(*names));
	size_t i, n = 0;
	int ret;

	for (i = 0; i < kit->nr_series; i++)
		if (kit->series[i].id)
			names[n++] = kit->series[i].id;
	ret = unknown("series", name, names, n);
	free(names);
	return ret;
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

		if (!b)
			return kit_unknown_branch(kit, branch);
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

		if (!ret)
			ret = r;
	}
	free(sel);
	kit_release(&kit);
	return ret;
}
