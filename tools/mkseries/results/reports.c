/* results/reports.c: the cells' JSON reports read together, each cell exactly once, checked against the plan's list. */
#include <stdlib.h>
#include <string.h>

#include "results/results.h"

/* What stays readable in a cell's id: the characters of the kit's branch and variant names. */
static int id_char_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

static void id_part(struct strbuf *sb, const char *s)
{
	for (; *s; s++)
		if (id_char_plain(*s))
			strbuf_addch(sb, *s);
		else
			strbuf_addf(sb, "%%%02X", (unsigned char)*s);
}

char *cell_id(const char *branch, const char *variant, char sep)
{
	struct strbuf sb = STRBUF_INIT;

	if (id_char_plain(sep) || sep == '%')
		BUG("cell id separator '%c' could be part of a name", sep);
	id_part(&sb, branch);
	strbuf_addch(&sb, sep);
	id_part(&sb, variant);
	return strbuf_detach(&sb, NULL);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether s is among the nr strings of v, sorted by strcmp. */
static int sorted_has(char *const *v, size_t nr, const char *s)
{
	return nr && bsearch(&s, v, nr, sizeof(*v), cmp_str) != NULL;
}

/* The cells a merge must find: `list` split on white space into want, each a "B/V" id, each once. */
static int split_cells(struct strvec *want, const char *list)
{
	const char *p = list, *ws = " \t\n";
	char **sorted;
	size_t i;
	int ret = 0;

	while (*(p += strspn(p, ws))) {
		size_t n = strcspn(p, ws);
		char *id = xstrndup(p, n);

		if (!strchr(id, '/') || strchr(id, '/') != strrchr(id, '/') || *id == '/' ||
		    id[n - 1] == '/')
			ret = error_code(MKS_ECONFIG, "--cells: '%s' is not BRANCH/VARIANT", shown(id));
		strvec_push(want, id);
		free(id);
		p += n;
	}
	if (!want->nr)
		return error_code(MKS_ECONFIG, "--cells names no cell");
	sorted = xcalloc(want->nr, sizeof(*sorted));
	memcpy(sorted, want->v, want->nr * sizeof(*sorted));
	qsort(sorted, want->nr, sizeof(*sorted), cmp_str);
	for (i = 1; i < want->nr; i++)
		if (!strcmp(sorted[i - 1], sorted[i]))
			ret = error_code(MKS_ECONFIG, "--cells names cell '%s' twice", shown(sorted[i]));
	free(sorted);
	return ret;
}

/* The cells read so far: their ids ("B/V") and, at the same index, the report each came from. */
struct seen {
	struct strvec ids;
	const char **from;
	size_t alloc;
};

/* Refuse the cells of `one` (read from `path`) that r already has from another report. */
static int check_new_cells(struct seen *seen, const struct run_results *r,
			   const struct run_results *one, const char *path)
{
	size_t i, j, k;
	int ret = 0;

	for (i = 0; i < one->nr_branches; i++) {
		const struct branch_result *b = &one->branches[i];
		const struct branch_result *had = results_find_branch(r, b->name);

		for (j = 0; j < b->nr_cells; j++) {
			char *id = cell_id(b->name, b->cells[j].variant, '/');

			if (had && branch_find_cell(had, b->cells[j].variant)) {
				for (k = 0; k < seen->ids.nr && strcmp(seen->ids.v[k], id); k++)
					;
				ret = error_code(MKS_ECONFIG,
						 "cell '%s %s' is in two reports: '%s' and '%s'",
						 b->name, b->cells[j].variant,
						 k < seen->ids.nr ? shown(seen->from[k]) : "?", shown(path));
			}
			free(id);
		}
	}
	if (ret)
		return ret;
	for (i = 0; i < one->nr_branches; i++)
		for (j = 0; j < one->branches[i].nr_cells; j++) {
			char *id = cell_id(one->branches[i].name, one->branches[i].cells[j].variant, '/');

			ALLOC_GROW(seen->from, seen->ids.nr + 1, seen->alloc);
			seen->from[seen->ids.nr] = path;
			strvec_push(&seen->ids, id);
			free(id);
		}
	return 0;
}

/* The cells of `want` that no report holds, and those the reports hold that `want` does not name. */
static int check_planned(const struct seen *seen, const struct strvec *want)
{
	char **got = xcalloc(seen->ids.nr + 1, sizeof(*got)), **planned;
	size_t i;
	int ret = 0;

	memcpy(got, seen->ids.v, seen->ids.nr * sizeof(*got));
	qsort(got, seen->ids.nr, sizeof(*got), cmp_str);
	planned = xcalloc(want->nr + 1, sizeof(*planned));
	memcpy(planned, want->v, want->nr * sizeof(*planned));
	qsort(planned, want->nr, sizeof(*planned), cmp_str);
	for (i = 0; i < want->nr; i++)
		if (!sorted_has(got, seen->ids.nr, want->v[i]))
			ret = error_code(MKS_ECONFIG, "cell '%s' of the plan is in no report",
					 shown(want->v[i]));
	for (i = 0; i < seen->ids.nr; i++)
		if (!sorted_has(planned, want->nr, seen->ids.v[i]))
			ret = error_code(MKS_ECONFIG, "cell '%s' (in '%s') is not one of the plan's",
					 shown(seen->ids.v[i]), shown(seen->from[i]));
	free(planned);
	free(got);
	return ret;
}

int results_load_reports(struct run_results *r, const char *const *paths, size_t nr,
			 const char *cells)
{
	struct strvec want = STRVEC_INIT;
	struct seen seen = { STRVEC_INIT, NULL, 0 };
	size_t i, j;
	int ret = 0, want_ok = 0;

	if (cells) {
		want_ok = !split_cells(&want, cells);
		if (!want_ok)
			ret = MKS_ECONFIG;
	}
	for (i = 0; i < nr; i++) {
		struct run_results one;

		for (j = 0; j < i && strcmp(paths[j], paths[i]); j++)
			;
		if (j < i) {
			ret = error_code(MKS_ECONFIG, "report '%s' is given twice", shown(paths[i]));
			continue;
		}
		results_init(&one);
		if (results_load_json(&one, paths[i]) || check_new_cells(&seen, r, &one, paths[i]))
			ret = MKS_ECONFIG;
		else
			results_merge(r, &one);
		results_release(&one);
	}
	/* A report that could not be read is also a cell missing: name it. */
	if (want_ok && check_planned(&seen, &want))
		ret = MKS_ECONFIG;
	strvec_clear(&want);
	strvec_clear(&seen.ids);
	free(seen.from);
	return ret;
}
