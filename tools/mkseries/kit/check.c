/* kit/check.c: the checks that need the whole kit: entries named by id or file, requires, fixes, variants, decisions. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kit/model.h"
#include "kit/load.h"
#include "lib/util.h"

/* Every patch and fixup of the kit, in order: each series' patches, then its fixups. */
struct entries {
	struct kit_patch **v;
	size_t nr;
	size_t *base;		/* per series: index of its first entry */
};

static void entries_init(struct entries *e, const struct kit *kit)
{
	size_t i, j, total = 0;

	for (i = 0; i < kit->nr_series; i++)
		total += kit->series[i].nr_patches + kit->series[i].nr_fixups;
	e->v = xcalloc(total, sizeof(*e->v));
	e->base = xcalloc(kit->nr_series, sizeof(*e->base));
	e->nr = 0;
	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		e->base[i] = e->nr;
		for (j = 0; j < s->nr_patches; j++)
			e->v[e->nr++] = &s->patches[j];
		for (j = 0; j < s->nr_fixups; j++)
			e->v[e->nr++] = &s->fixups[j];
	}
}

static size_t entry_index(const struct entries *e, const struct kit *kit, const struct kit_patch *p)
{
	const struct kit_series *s = p->series;
	size_t i = e->base[s - kit->series];

	return p->is_fixup ? i + s->nr_patches + (p - s->fixups) : i + (p - s->patches);
}

static void entries_release(struct entries *e)
{
	free(e->v);
	free(e->base);
}

static void check_requires(struct yfile *f)
{
	struct kit *kit = f->ld->kit;
	size_t i, r, q;

	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		for (r = 0; r < s->nr_requires; r++) {
			struct kit_series *t = kit_find_series(kit, s->requires[r]);

			for (q = 0; q < r && strcmp(s->requires[q], s->requires[r]); q++)
				;
			if (q < r)
				yfile_report(f, s->requires_line[r], "series '%s' requires '%s' twice",
					     series_sid(s), s->requires[r]);
			else if (!t)
				yfile_report(f, s->requires_line[r], "series '%s' requires unknown series '%s'",
					     series_sid(s), s->requires[r]);
			else if (t == s)
				yfile_report(f, s->requires_line[r], "series '%s' requires itself", series_sid(s));
		}
	}
}

/* Depth-first over requires; state 1 is "on the path", 2 "done". */
static void requires_dfs(struct yfile *f, size_t i, unsigned char *state, size_t *path,
			 size_t depth)
{
	struct kit *kit = f->ld->kit;
	struct kit_series *s = &kit->series[i];
	size_t r, k;

	state[i] = 1;
	path[depth] = i;
	for (r = 0; r < s->nr_requires; r++) {
		struct kit_series *t = kit_find_series(kit, s->requires[r]);
		size_t j;

		if (!t || t == s)
			continue;
		j = t - kit->series;
		if (state[j] == 1) {
			struct strbuf sb = STRBUF_INIT;

			for (k = 0; path[k] != j; k++)
				;
			for (; k <= depth; k++)
				strbuf_addf(&sb, "%s -> ", series_sid(&kit->series[path[k]]));
			strbuf_addstr(&sb, series_sid(t));
			yfile_report(f, s->requires_line[r], "requires cycle: %s", sb.buf);
			strbuf_release(&sb);
		} else if (!state[j]) {
			requires_dfs(f, j, state, path, depth + 1);
		}
	}
	state[i] = 2;
}

static void check_requires_cycles(struct yfile *f)
{
	struct kit *kit = f->ld->kit;
	unsigned char *state = xcalloc(kit->nr_series + 1, 1);
	size_t *path = xcalloc(kit->nr_series + 1, sizeof(*path));
	size_t i;

	for (i = 0; i < kit->nr_series; i++)
		if (!state[i])
			requires_dfs(f, i, state, path, 0);
	free(path);
	free(state);
}

/* Whether series `from` requires `to`, directly or through others. */
static int series_requires(const struct kit *kit, const struct kit_series *from,
			   const struct kit_series *to)
{
	unsigned char *seen = xcalloc(kit->nr_series + 1, 1);
	size_t *stack = xcalloc(kit->nr_series + 1, sizeof(*stack));
	size_t top = 0, r;
	int found = 0;

	stack[top++] = from - kit->series;
	seen[from - kit->series] = 1;
	while (top && !found) {
		const struct kit_series *s = &kit->series[stack[--top]];

		for (r = 0; r < s->nr_requires && !found; r++) {
			const struct kit_series *t = kit_find_series(kit, s->requires[r]);

			if (!t)
				continue;
			if (t == to)
				found = 1;
			else if (!seen[t - kit->series]) {
				seen[t - kit->series] = 1;
				stack[top++] = t - kit->series;
			}
		}
	}
	free(stack);
	free(seen);
	return found;
}

/* The kit's entries sorted by upstream id, by file and by file name, to find them by name. */
struct upstream_index {
	const struct entries *e;
	size_t *pos;		/* entries with an upstream id: sorted by id, then in kit order */
	size_t nr;
	char lens[41];		/* lens[n]: some id has n digits */
	size_t *by_path, *by_base;	/* entries with a file: by skip_dot_slash(), by base_name() */
	size_t nr_files;
};

static const struct entries *cmp_upstream_entries;

static int cmp_upstream(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(cmp_upstream_entries->v[x]->upstream, cmp_upstream_entries->v[y]->upstream);

	return c ? c : (x < y ? -1 : x > y);
}

/* The first position in ix whose id is exactly key[0..len), or ix->nr. */
static size_t upstream_find(const struct upstream_index *ix, const char *key, size_t len)
{
	size_t lo = 0, hi = ix->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *id = ix->e->v[ix->pos[mid]]->upstream;
		int c = strncmp(id, key, len);

		if (!c && id[len])
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->nr) {
		const char *id = ix->e->v[ix->pos[lo]]->upstream;

		if (!strncmp(id, key, len) && !id[len])
			return lo;
	}
	return ix->nr;
}

static int cmp_path(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(skip_dot_slash(cmp_upstream_entries->v[x]->file),
		       skip_dot_slash(cmp_upstream_entries->v[y]->file));

	return c ? c : (x < y ? -1 : x > y);
}

static int cmp_base(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(base_name(cmp_upstream_entries->v[x]->file),
		       base_name(cmp_upstream_entries->v[y]->file));

	return c ? c : (x < y ? -1 : x > y);
}

static void upstream_index_init(struct upstream_index *ix, const struct entries *e)
{
	size_t j;

	memset(ix, 0, sizeof(*ix));
	ix->e = e;
	ix->pos = xcalloc(e->nr + 1, sizeof(*ix->pos));
	ix->by_path = xcalloc(e->nr + 1, sizeof(*ix->by_path));
	ix->by_base = xcalloc(e->nr + 1, sizeof(*ix->by_base));
	for (j = 0; j < e->nr; j++) {
		if (e->v[j]->upstream) {
			ix->pos[ix->nr++] = j;
			ix->lens[strlen(e->v[j]->upstream)] = 1;	/* 8 to 40: is_hex_id() */
		}
		if (e->v[j]->file) {
			ix->by_path[ix->nr_files] = ix->by_base[ix->nr_files] = j;
			ix->nr_files++;
		}
	}
	cmp_upstream_entries = e;
	qsort(ix->pos, ix->nr, sizeof(*ix->pos), cmp_upstream);
	qsort(ix->by_path, ix->nr_files, sizeof(*ix->by_path), cmp_path);
	qsort(ix->by_base, ix->nr_files, sizeof(*ix->by_base), cmp_base);
}

static void upstream_index_release(struct upstream_index *ix)
{
	free(ix->pos);
	free(ix->by_path);
	free(ix->by_base);
}

/* Add to *v the entries of sorted `by` (nr long) whose key(file) is `name`. */
static void add_file_matches(size_t **v, size_t *n, size_t *alloc, const struct entries *e,
			     const size_t *by, size_t nr, const char *(*key)(const char *),
			     const char *name)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(key(e->v[by[mid]]->file), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nr && !strcmp(key(e->v[by[lo]]->file), name); lo++) {
		ALLOC_GROW(*v, *n + 1, *alloc);
		(*v)[(*n)++] = by[lo];
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* match_entries() through the index: the same entries, in kit order, without a scan of them all. */
static size_t index_match(const struct upstream_index *ix, const char *what, struct kit_patch ***out)
{
	const struct entries *e = ix->e;
	const char *path = skip_dot_slash(what);
	size_t *v = NULL, n = 0, alloc = 0, i, k;

	if (is_hex_id(what)) {
		char *w = xstrdup(what);
		size_t len = strlen(w), L, g, lo = 0, hi = ix->nr;

		for (i = 0; w[i]; i++)
			w[i] = tolower((unsigned char)w[i]);
		/* ids that w abbreviates or equals: they start with w */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strncmp(e->v[ix->pos[mid]]->upstream, w, len) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ix->nr && !strncmp(e->v[ix->pos[lo]]->upstream, w, len); lo++) {
			ALLOC_GROW(v, n + 1, alloc);
			v[n++] = ix->pos[lo];
		}
		/* ids abbreviating w */
		for (L = 8; L < len; L++) {
			if (!ix->lens[L])
				continue;
			for (g = upstream_find(ix, w, L);
			     g < ix->nr && !strncmp(e->v[ix->pos[g]]->upstream, w, L) &&
			     !e->v[ix->pos[g]]->upstream[L];
			     g++) {
				ALLOC_GROW(v, n + 1, alloc);
				v[n++] = ix->pos[g];
			}
		}
		free(w);
	}
	add_file_matches(&v, &n, &alloc, e, ix->by_path, ix->nr_files, skip_dot_slash, path);
	add_file_matches(&v, &n, &alloc, e, ix->by_base, ix->nr_files, base_name, path);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_size);
	*out = NULL;
	for (i = k = 0; i < n; i++)
		if (!i || v[i] != v[i - 1])
			v[k++] = v[i];
	if (k) {
		*out = xcalloc(k, sizeof(**out));
		for (i = 0; i < k; i++)
			(*out)[i] = e->v[v[i]];
	}
	free(v);
	return k;
}

/*
 * Report each entry whose upstream id names the same commit as an earlier
 * one's (one abbreviates the other), naming the earliest. Ids are
 * lowercase (parse_patch()); an abbreviation is a prefix, and only the
 * lengths some id has can be one, so each entry looks up its prefixes of
 * those lengths in the sorted ids instead of comparing every pair (a kit
 * of 100,000 patches took minutes that way).
 */
static void check_upstream_twice(struct yfile *f, const struct entries *e,
				 const struct upstream_index *ixp)
{
	const struct upstream_index ix = *ixp;
	const char *lens = ix.lens;
	size_t *ext_min = NULL, i, j, L;

	/* ext_min[g]: the earliest entry whose id the id at position g abbreviates. */
	ext_min = xcalloc(ix.nr + 1, sizeof(*ext_min));
	for (i = 0; i < ix.nr; i++)
		ext_min[i] = SIZE_MAX;
	for (i = 0; i < ix.nr; i++) {
		const char *id = e->v[ix.pos[i]]->upstream;
		size_t n = strlen(id), g;

		for (L = 8; L < n; L++)
			if (lens[L] && (g = upstream_find(&ix, id, L)) < ix.nr && ix.pos[i] < ext_min[g])
				ext_min[g] = ix.pos[i];
	}
	for (j = 0; j < e->nr; j++) {
		const char *id = e->v[j]->upstream;
		size_t n, g, best = SIZE_MAX;

		if (!id)
			continue;
		n = strlen(id);
		/* Earlier ids equal to or abbreviating this one: the first of each group is the earliest. */
		for (L = 8; L <= n; L++)
			if (lens[L] && (g = upstream_find(&ix, id, L)) < ix.nr && ix.pos[g] < best)
				best = ix.pos[g];
		g = upstream_find(&ix, id, n);
		if (ext_min[g] < best)
			best = ext_min[g];
		if (best < j)
			yfile_report(f, e->v[j]->line, "upstream id '%s' is listed twice: %s:%d and :%d",
				     id, f->name, e->v[best]->line, e->v[j]->line);
	}
	free(ext_min);
}

static void resolve_fixes(struct yfile *f, const struct entries *e, const struct upstream_index *ix)
{
	size_t i, k, nr;

	for (i = 0; i < e->nr; i++) {
		struct kit_patch *p = e->v[i], **m = NULL;
		struct strbuf sb = STRBUF_INIT;

		if (!p->is_fixup || !p->fixes)
			continue;
		nr = index_match(ix, p->fixes, &m);
		if (!nr) {
			yfile_report(f, p->fixes_line, "fixes '%s' matches no patch of the kit", p->fixes);
		} else if (nr > 1) {
			for (k = 0; k < nr; k++)
				strbuf_addf(&sb, "%s'%s' (line %d)", k ? ", " : "",
					    kit_patch_label(m[k]), m[k]->line);
			yfile_report(f, p->fixes_line, "fixes '%s' is ambiguous: it matches %s", p->fixes,
				     sb.buf);
		} else if (m[0] == p) {
			yfile_report(f, p->fixes_line, "fixup '%s' fixes itself", kit_patch_label(p));
		} else {
			p->fixes_patch = m[0];
		}
		strbuf_release(&sb);
		free(m);
	}
}

static void check_fixup_cycles(struct yfile *f, const struct entries *e)
{
	struct kit *kit = f->ld->kit;
	size_t i, steps, least;
	struct kit_patch *g;

	for (i = 0; i < e->nr; i++) {
		struct kit_patch *p = e->v[i];
		struct strbuf sb = STRBUF_INIT;

		if (!p->is_fixup)
			continue;
		least = i;
		for (g = p->fixes_patch, steps = 0; g && g->is_fixup && g != p && steps < e->nr;
		     g = g->fixes_patch, steps++)
			if (entry_index(e, kit, g) < least)
				least = entry_index(e, kit, g);
		/* Report each cycle once, from its first entry. */
		if (g != p || least != i)
			continue;
		strbuf_addf(&sb, "'%s'", kit_patch_label(p));
		for (g = p->fixes_patch; g != p; g = g->fixes_patch)
			strbuf_addf(&sb, " -> '%s'", kit_patch_label(g));
		strbuf_addf(&sb, " -> '%s'", kit_patch_label(p));
		yfile_report(f, p->fixes_line, "fixup cycle: %s", sb.buf);
		strbuf_release(&sb);
	}
}

static void check_fixup_requires(struct yfile *f, const struct entries *e)
{
	struct kit *kit = f->ld->kit;
	size_t i;

	for (i = 0; i < e->nr; i++) {
		struct kit_patch *p = e->v[i];
		struct kit_series *s = p->series, *t;

		if (!p->is_fixup || !p->fixes_patch)
			continue;
		t = p->fixes_patch->series;
		if (t == s || series_requires(kit, s, t))
			continue;
		yfile_report(f, p->fixes_line,
			     "fixup '%s' of series '%s' fixes a patch of series '%s': add '%s' to the requires of '%s'",
			     kit_patch_label(p), series_sid(s), series_sid(t), series_sid(t), series_sid(s));
	}
}
/*
 * Resolve the entries of a variant's `without` or `with` (`key`) to kit
 * patches: each must match exactly one, once.
 */
static void resolve_variant_entries(struct yfile *kf, const struct kit *kit,
				    const struct kernel_variant *v, const char *key,
				    char **names, const int *lines, struct kit_patch **patches,
				    size_t count)
{
	size_t k, q, nr;

	for (k = 0; k < count; k++) {
		struct kit_patch **m = NULL;
		struct strbuf sb = STRBUF_INIT;

		nr = match_entries(kit, names[k], &m);
		if (!nr) {
			yfile_report(kf, lines[k], "variant '%s': %s '%s' matches no patch or fixup of the kit",
				     v->name, key, names[k]);
		} else if (nr > 1) {
			for (q = 0; q < nr; q++)
				strbuf_addf(&sb, "%s'%s' (series.yaml:%d)", q ? ", " : "",
					    kit_patch_label(m[q]), m[q]->line);
			yfile_report(kf, lines[k], "variant '%s': %s '%s' is ambiguous: it matches %s",
				     v->name, key, names[k], sb.buf);
		} else {
			for (q = 0; q < k && patches[q] != m[0]; q++)
				;
			if (q < k)
				yfile_report(kf, lines[k], "variant '%s' names '%s' twice in '%s' (lines %d and %d)",
					     v->name, kit_patch_label(m[0]), key, lines[q], lines[k]);
			else
				patches[k] = m[0];
		}
		strbuf_release(&sb);
		free(m);
	}
}

/* What each variant names in `without` and `with` must be one entry of the kit, named once. */
static void resolve_variants(struct loader *ld)
{
	struct kit *kit = ld->kit;
	size_t i, j, k, q;

	for (i = 0; i < kit->nr_branches; i++) {
		struct kernel_branch *b = &kit->branches[i];
		/* Messages name the kernel file; nothing is loaded into this one. */
		struct yfile kf;

		memset(&kf, 0, sizeof(kf));
		kf.ld = ld;
		kf.name = xstrfmt("%s%s", ld->prefix, b->path);
		for (j = 0; j < b->nr_variants; j++) {
			struct kernel_variant *v = &b->variants[j];

			resolve_variant_entries(&kf, kit, v, "without", v->without, v->without_line,
						v->without_patch, v->nr_without);
			resolve_variant_entries(&kf, kit, v, "with", v->with, v->with_line,
						v->with_patch, v->nr_with);
			for (k = 0; k < v->nr_with; k++) {
				for (q = 0; q < v->nr_without; q++)
					if (v->with_patch[k] && v->with_patch[k] == v->without_patch[q])
						yfile_report(&kf, v->with_line[k],
							     "variant '%s' both leaves out and adds '%s' (line %d)",
							     v->name, kit_patch_label(v->with_patch[k]),
							     v->without_line[q]);
				if (v->with_patch[k] && v->with_patch[k]->is_fixup)
					yfile_report(&kf, v->with_line[k],
						     "variant '%s': 'with' names fixup '%s'; only patches can be "
						     "added (a fixup travels with the patch it fixes)",
						     v->name, kit_patch_label(v->with_patch[k]));
			}
		}
		free(kf.name);
	}
}

/*
 * A branch whose `decisions` names another takes that one's decisions
 * from series.yaml: the other must exist, take its own, and series.yaml
 * must not name this one as well.
 */
static void resolve_decisions(struct loader *ld)
{
	struct kit *kit = ld->kit;
	size_t i;

	for (i = 0; i < kit->nr_branches; i++) {
		struct kernel_branch *b = &kit->branches[i];
		const struct kernel_branch *o;
		struct yfile kf;

		if (!b->decisions)
			continue;
		memset(&kf, 0, sizeof(kf));
		kf.ld = ld;
		kf.name = xstrfmt("%s%s", ld->prefix, b->path);
		o = kit_find_branch(kit, b->decisions);
		if (!o)
			yfile_report(&kf, b->decisions_line, "decisions: unknown branch '%s' (no %skernels/%s.yaml)",
				     b->decisions, ld->prefix, b->decisions);
		else if (o->decisions)
			yfile_report(&kf, b->decisions_line,
				     "decisions: branch '%s' takes its own from '%s'; name '%s' here",
				     o->name, o->decisions, o->decisions);
		free(kf.name);
	}
}

/* The branch whose series.yaml decisions apply to b: its `decisions`, else its own name. */
const char *branch_decisions(const struct kernel_branch *b)
{
	return b->decisions ? b->decisions : b->name;
}

/* The checks that need the whole kit. */
void check_kit(struct yfile *f)
{
	struct upstream_index ix;
	struct entries e;

	check_requires(f);
	check_requires_cycles(f);
	entries_init(&e, f->ld->kit);
	upstream_index_init(&ix, &e);
	check_upstream_twice(f, &e, &ix);
	resolve_fixes(f, &e, &ix);
	upstream_index_release(&ix);
	check_fixup_cycles(f, &e);
	check_fixup_requires(f, &e);
	entries_release(&e);
	resolve_variants(f->ld);
	resolve_decisions(f->ld);
}
