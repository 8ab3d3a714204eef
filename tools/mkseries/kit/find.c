/* kit/find.c: look things up in a loaded kit: series, branches, variants, patches, decisions and their labels. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "kit/model.h"
#include "kit/load.h"
#include "lib/util.h"

const char *series_sid(const struct kit_series *s)
{
	return s->id ? s->id : "?";
}

struct kit_series *kit_find_series(const struct kit *kit, const char *id)
{
	size_t lo = 0, hi = kit->nr_by_id;

	/* The first in file order of the series named id: the lowest match. */
	while (id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(kit->by_id[mid]->id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return id && lo < kit->nr_by_id && !strcmp(kit->by_id[lo]->id, id) ? kit->by_id[lo] : NULL;
}

char *kit_file(const struct kit *kit, const char *rel)
{
	if (rel[0] == '/' || !kit || !kit->dir)
		return xstrdup(rel);
	return path_join(kit->dir, rel);
}

struct kernel_branch *kit_find_branch(const struct kit *kit, const char *name)
{
	size_t i;

	for (i = 0; name && i < kit->nr_branches; i++)
		if (kit->branches[i].name && !strcmp(kit->branches[i].name, name))
			return &kit->branches[i];
	return NULL;
}

int variant_name_taken(const char *name)
{
	return !strcmp(name, "base") || !strcmp(name, "kit") || !strcmp(name, VARIANT_BISECT);
}

const struct kernel_variant *branch_find_variant(const struct kernel_branch *b, const char *name)
{
	size_t i;

	for (i = 0; name && i < b->nr_variants; i++)
		if (!strcmp(b->variants[i].name, name))
			return &b->variants[i];
	return NULL;
}

int variant_expects_fail(const struct kernel_variant *v, const char *name)
{
	size_t i;

	for (i = 0; v && name && i < v->nr_expect_fail; i++)
		if (!strcmp(v->expect_fail[i], name))
			return 1;
	return 0;
}

char *variant_without_text(const struct kernel_variant *v)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < v->nr_without; i++) {
		const struct kit_patch *p = v->without_patch[i];

		strbuf_addstr(&sb, i ? ", " : "");
		if (!p)
			strbuf_addstr(&sb, v->without[i]);
		else if (p->upstream)
			strbuf_addstr(&sb, p->upstream);
		else
			strbuf_addstr(&sb, kit_patch_label(p));
	}
	return strbuf_detach(&sb, NULL);
}

char *variant_change_text(const struct kernel_variant *v)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (v->nr_without) {
		char *without = variant_without_text(v);

		strbuf_addf(&sb, "without %s", without);
		free(without);
	}
	for (i = 0; i < v->nr_with; i++) {
		const struct kit_patch *p = v->with_patch[i];

		strbuf_addstr(&sb, i ? ", " : sb.len ? "; with " : "with ");
		strbuf_addstr(&sb, p ? kit_patch_label(p) : v->with[i]);
	}
	return strbuf_detach(&sb, NULL);
}

/* Entries `what` names (upstream abbreviation or file), in kit order, in a new array. */
size_t match_entries(const struct kit *kit, const char *what, struct kit_patch ***out)
{
	const char *path = skip_dot_slash(what);
	int hex = is_hex_id(what);
	size_t i, j, nr = 0, alloc = 0;

	*out = NULL;
	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		for (j = 0; j < s->nr_patches + s->nr_fixups; j++) {
			struct kit_patch *p = j < s->nr_patches ? &s->patches[j] :
				&s->fixups[j - s->nr_patches];

			if ((hex && p->upstream && same_commit(p->upstream, what)) ||
			    (p->file && (!strcmp(skip_dot_slash(p->file), path) ||
					 !strcmp(base_name(p->file), path)))) {
				ALLOC_GROW(*out, nr + 1, alloc);
				(*out)[nr++] = p;
			}
		}
	}
	return nr;
}

struct kit_patch *kit_find_patch(const struct kit *kit, const char *what, int *ambiguous)
{
	struct kit_patch **m = NULL, *found = NULL;
	size_t nr = what && *what ? match_entries(kit, what, &m) : 0;

	if (ambiguous)
		*ambiguous = nr > 1;
	if (nr == 1)
		found = m[0];
	free(m);
	return found;
}

static const struct decision *find_decision(const struct decision *d, size_t nr,
					    const char *branch)
{
	size_t i;

	for (i = 0; branch && i < nr; i++)
		if (!strcmp(d[i].branch, branch))
			return &d[i];
	return NULL;
}

const struct decision *series_decision(const struct kit_series *s, const char *branch)
{
	return find_decision(s->decisions, s->nr_decisions, branch);
}

const struct decision *patch_decision(const struct kit_patch *p, const char *branch)
{
	return find_decision(p->decisions, p->nr_decisions, branch);
}

const char *kit_patch_label_to(char *buf, size_t size, const struct kit_patch *p)
{
	const struct kit_series *s = p->series;

	if (p->is_fixup)
		snprintf(buf, size, "%s fixup %d/%zu", series_sid(s), p->index, s->nr_fixups);
	else
		snprintf(buf, size, "%s %d/%zu", series_sid(s), p->index, s->nr_patches);
	return buf;
}
