/* kit/series.c: load series.yaml: the series, their patches and fixups, per-branch decisions. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "kit/model.h"
#include "kit/load.h"
#include "lib/util.h"

static const char *const top_keys[] = { "series", "verdicts", NULL };

enum { S_ID, S_TITLE, S_LINK, S_MSGID, S_REQUIRES, S_PATCHES, S_FIXUPS, S_BRANCHES, S_CLAIMS,
       S_FIXUP_ORDER, S_NR };
static const char *const series_keys[] = {
	"id", "title", "link", "message-id", "requires", "patches", "fixups", "branches", "claims",
	"fixup-order", NULL
};

/* A fixup's keys are a patch's and two more: the P_* of both must stay in one order. */
enum { P_FILE, P_UPSTREAM, P_SUBJECT, P_LINK, P_BRANCHES, P_STABLE, P_FIXES, P_SQUASH, P_NR };
static const char *const patch_keys[] = {
	"file", "upstream", "subject", "link", "branches", "stable", NULL
};
static const char *const fixup_keys[] = {
	"file", "upstream", "subject", "link", "branches", "stable", "fixes", "squash", NULL
};

/* Decision keys, in the order of the kinds they map to (see decision_kind_of). */
static const char *const series_decision_keys[] = { "apply", "skip", "present", "patches", NULL };
static const char *const patch_decision_keys[] = { "apply", "skip", "present", "file", NULL };
static void parse_decision(struct yfile *f, yaml_node_t *v, const char *branch,
			   const char *const *keys, struct decision *d)
{
	static const enum decision_kind kinds[] = {
		DECISION_APPLY, DECISION_SKIP, DECISION_PRESENT, 0
	};
	struct strbuf allowed = STRBUF_INIT;
	yaml_node_pair_t *pair;
	yaml_node_t *val;
	const char *k;
	size_t i;

	join_keys(&allowed, keys);
	if (v->type != YAML_MAPPING_NODE ||
	    v->data.mapping.pairs.top - v->data.mapping.pairs.start != 1) {
		yfile_report(f, ynode_line(v), "decision for '%s' must be a mapping with one key (one of: %s)",
			     branch, allowed.buf);
		goto cleanup;
	}
	pair = v->data.mapping.pairs.start;
	k = yfile_key_text(f, v, pair);
	if (!k)
		goto cleanup;
	for (i = 0; keys[i] && strcmp(keys[i], k); i++)
		;
	if (!keys[i]) {
		yfile_report(f, ynode_line(yfile_node(f, pair->key)),
			     "unknown decision '%s' for '%s' (allowed: %s)", k, branch, allowed.buf);
		goto cleanup;
	}
	/* The fourth key is the path kind of its level. */
	d->kind = kinds[i] ? kinds[i] : keys == patch_decision_keys ? DECISION_FILE : DECISION_PATCHES;
	val = yfile_node(f, pair->value);
	switch (d->kind) {
	case DECISION_APPLY:
		yfile_get_str(f, val, k, &d->reason);
		break;
	case DECISION_SKIP:
	case DECISION_PRESENT:
		if (!yfile_get_str(f, val, k, &d->reason) && !d->reason)
			yfile_report(f, ynode_line(val), "'%s' for '%s' needs a reason", k, branch);
		break;
	case DECISION_PATCHES:
	case DECISION_FILE:
		if (yfile_get_str(f, val, k, &d->path))
			break;
		if (!d->path)
			yfile_report(f, ynode_line(val), "'%s' for '%s' needs a path", k, branch);
		else if (d->kind == DECISION_PATCHES)
			check_kit_path(f, ynode_line(val), "patches directory", d->path, 1);
		else
			check_kit_path(f, ynode_line(val), "patch file", d->path, 0);
		break;
	}
cleanup:
	strbuf_release(&allowed);
}

/* `branches:` of a series or a patch: branch name -> { kind: value }. */
static void parse_decisions(struct yfile *f, yaml_node_t *map, const char *const *keys,
			    struct decision **out, size_t *nr)
{
	struct loader *ld = f->ld;
	yaml_node_pair_t *pair;

	if (ynode_absent(map))
		return;
	if (map->type != YAML_MAPPING_NODE) {
		yfile_report(f, ynode_line(map), "'branches' must be a mapping of branch names to decisions, not %s",
			     ynode_kind_name(map));
		return;
	}
	*out = xcalloc(map->data.mapping.pairs.top - map->data.mapping.pairs.start, sizeof(**out));
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *name = yfile_key_text(f, map, pair);
		struct decision *d;

		if (!name)
			continue;
		d = &(*out)[(*nr)++];
		d->branch = xstrdup(name);
		d->line = ynode_line(yfile_node(f, pair->key));
		if (!kit_find_branch(ld->kit, name))
			yfile_report(f, d->line, "unknown branch '%s' (no %skernels/%s.yaml)", name,
				     ld->prefix, name);
		else if (kit_find_branch(ld->kit, name)->decisions)
			yfile_report(f, d->line, "branch '%s' takes its decisions from '%s' (%skernels/%s.yaml:%d): decide there",
				     name, kit_find_branch(ld->kit, name)->decisions, ld->prefix, name,
				     kit_find_branch(ld->kit, name)->decisions_line);
		parse_decision(f, yfile_node(f, pair->value), name, keys, d);
	}
}

static void parse_patch(struct yfile *f, yaml_node_t *node, struct kit_patch *p)
{
	const char *what = p->is_fixup ? "a fixup" : "a patch";
	yaml_node_t *v[P_NR];
	size_t i;

	p->line = ynode_line(node);
	if (yfile_map_fields(f, node, what, p->is_fixup ? fixup_keys : patch_keys, v))
		return;
	if (!yfile_get_str(f, v[P_FILE], "file", &p->file) && p->file &&
	    check_kit_path(f, ynode_line(v[P_FILE]), "patch file", p->file, 0)) {
		free(p->file);
		p->file = NULL;
	}
	if (!yfile_get_str(f, v[P_UPSTREAM], "upstream", &p->upstream) && p->upstream) {
		if (!is_hex_id(p->upstream)) {
			yfile_report(f, ynode_line(v[P_UPSTREAM]),
				     "invalid upstream id '%s' (expected 8 to 40 hex digits)", p->upstream);
			free(p->upstream);
			p->upstream = NULL;
		} else {
			for (i = 0; p->upstream[i]; i++)
				p->upstream[i] = tolower((unsigned char)p->upstream[i]);
		}
	}
	yfile_get_str(f, v[P_SUBJECT], "subject", &p->subject);
	yfile_get_str(f, v[P_LINK], "link", &p->link);
	if (!yfile_get_str(f, v[P_STABLE], "stable", &p->stable) && v[P_STABLE] &&
	    (!p->stable || !*p->stable))
		yfile_report(f, ynode_line(v[P_STABLE]),
			     "'stable' states why a stable branch takes %s: it must not be empty", what);
	if (ynode_absent(v[P_FILE]) && ynode_absent(v[P_UPSTREAM]))
		yfile_report(f, p->line, "%s needs a 'file' or an 'upstream' id", what);
	else if (ynode_absent(v[P_FILE]) && !p->subject)
		yfile_report(f, v[P_SUBJECT] ? ynode_line(v[P_SUBJECT]) : p->line,
			     "%s without a 'file' needs a 'subject'", what);
	if (p->is_fixup) {
		if (!v[P_FIXES]) {
			yfile_report(f, p->line, "a fixup needs 'fixes' (the upstream id or file it fixes)");
		} else {
			p->fixes_line = ynode_line(v[P_FIXES]);
			if (!yfile_get_str(f, v[P_FIXES], "fixes", &p->fixes) && !p->fixes)
				yfile_report(f, p->fixes_line, "'fixes' must not be empty");
		}
		yfile_get_bool(f, v[P_SQUASH], "squash", &p->squash);
	}
	parse_decisions(f, v[P_BRANCHES], patch_decision_keys, &p->decisions, &p->nr_decisions);
}

/* Fill the entries array `*arr` from sequence `n` (the patches or the fixups of s). */
static void parse_patches(struct yfile *f, yaml_node_t *n, struct kit_series *s, int is_fixup,
			  struct kit_patch **arr, size_t *nr)
{
	yaml_node_t **items;
	size_t count, i;

	items = yfile_seq_nodes(f, n, is_fixup ? "fixups" : "patches", 0, &count);
	if (!count) {
		free(items);
		return;
	}
	*arr = xcalloc(count, sizeof(**arr));
	for (i = 0; i < count; i++) {
		struct kit_patch *p = &(*arr)[(*nr)++];

		p->series = s;
		p->is_fixup = is_fixup;
		p->index = (int)i + 1;
		parse_patch(f, items[i], p);
	}
	free(items);
}

static void parse_message_id(struct yfile *f, yaml_node_t *n, struct kit_series *s)
{
	char *v = NULL;
	size_t len;

	if (yfile_get_str(f, n, "message-id", &v) || !v)
		return;
	len = strlen(v);
	if (len >= 2 && v[0] == '<' && v[len - 1] == '>') {
		memmove(v, v + 1, len - 2);
		v[len - 2] = '\0';
	}
	if (!*v || v[0] == '-' || v[strcspn(v, " \t<>")]) {
		yfile_report(f, ynode_line(n), "invalid message-id '%s'", ynode_text(n));
		free(v);
		return;
	}
	s->message_id = v;
}

/* `fixup-order: upstream` or `after-fixed` (the default). */
static void parse_fixup_order(struct yfile *f, yaml_node_t *node, struct kit_series *s)
{
	char *v = NULL;

	if (!node || yfile_get_str(f, node, "fixup-order", &v))
		return;
	if (v && !strcmp(v, "upstream"))
		s->fixups_upstream_order = 1;
	else if (!v || strcmp(v, "after-fixed"))
		yfile_report(f, ynode_line(node),
			     "'fixup-order' is upstream (after the whole series) or after-fixed "
			     "(right after the patch each fixes, the default), not '%s'", v ? v : "");
	free(v);
}

static void parse_series(struct yfile *f, yaml_node_t *node, struct kit_series *s)
{
	yaml_node_t *v[S_NR], **items;
	char *owner = NULL;
	size_t n, i;

	s->line = ynode_line(node);
	if (yfile_map_fields(f, node, "a series", series_keys, v))
		return;
	if (!v[S_ID]) {
		yfile_report(f, s->line, "a series needs an 'id'");
	} else if (!yfile_get_str(f, v[S_ID], "id", &s->id)) {
		if (!s->id)
			yfile_report(f, ynode_line(v[S_ID]), "'id' must not be empty");
		else if (!valid_series_id(s->id))
			yfile_report(f, ynode_line(v[S_ID]),
				     "invalid series id '%s' (lowercase letters, digits, '.', '_' and '-', starting with a letter or digit)",
				     s->id);
		s->id_line = ynode_line(v[S_ID]);
	}
	owner = s->id ? xstrfmt("series '%s'", s->id) : xstrdup("the series");
	yfile_need_str(f, v[S_TITLE], "title", s->line, owner, &s->title);
	yfile_get_str(f, v[S_LINK], "link", &s->link);
	parse_message_id(f, v[S_MSGID], s);
	parse_fixup_order(f, v[S_FIXUP_ORDER], s);

	items = yfile_seq_nodes(f, v[S_REQUIRES], "requires", 1, &n);
	if (n) {
		s->requires = xcalloc(n, sizeof(*s->requires));
		s->requires_line = xcalloc(n, sizeof(*s->requires_line));
	}
	for (i = 0; i < n; i++) {
		char *r = NULL;

		if (yfile_get_str(f, items[i], "requires", &r))
			continue;
		if (!r) {
			yfile_report(f, ynode_line(items[i]), "'requires' names an empty series id");
			continue;
		}
		s->requires_line[s->nr_requires] = ynode_line(items[i]);
		s->requires[s->nr_requires++] = r;
	}
	free(items);

	if (ynode_absent(v[S_PATCHES]))
		yfile_report(f, v[S_PATCHES] ? ynode_line(v[S_PATCHES]) : s->line, "%s has no patches", owner);
	parse_patches(f, v[S_PATCHES], s, 0, &s->patches, &s->nr_patches);
	if (v[S_PATCHES] && v[S_PATCHES]->type == YAML_SEQUENCE_NODE && !s->nr_patches)
		yfile_report(f, ynode_line(v[S_PATCHES]), "%s has no patches", owner);
	parse_patches(f, v[S_FIXUPS], s, 1, &s->fixups, &s->nr_fixups);
	parse_decisions(f, v[S_BRANCHES], series_decision_keys, &s->decisions, &s->nr_decisions);
	parse_claims(f, v[S_CLAIMS], &s->claims, &s->nr_claims);
	check_claims_than(f, s->claims, s->nr_claims, OWNER_SERIES, NULL, NULL);
	free(owner);
}

static int cmp_series_by_id(const void *a, const void *b)
{
	const struct kit_series *x = *(const struct kit_series *const *)a;
	const struct kit_series *y = *(const struct kit_series *const *)b;
	int c = strcmp(x->id, y->id);

	return c ? c : (x < y ? -1 : x > y);
}

/*
 * Sort the series by id (kit->by_id) and report each id used again, at
 * its first use: one sort instead of comparing every pair, which took
 * minutes on a kit of 100,000 series.
 */
static void index_series(struct yfile *f, struct kit *kit)
{
	size_t i, first = 0;

	kit->by_id = xcalloc(kit->nr_series + 1, sizeof(*kit->by_id));
	for (i = 0; i < kit->nr_series; i++)
		if (kit->series[i].id)
			kit->by_id[kit->nr_by_id++] = &kit->series[i];
	qsort(kit->by_id, kit->nr_by_id, sizeof(*kit->by_id), cmp_series_by_id);
	for (i = 1; i < kit->nr_by_id; i++) {
		const struct kit_series *s = kit->by_id[i], *o = kit->by_id[first];

		if (strcmp(s->id, o->id)) {
			first = i;
			continue;
		}
		yfile_report(f, s->id_line, "duplicate series id '%s' (first at %s:%d)", s->id, f->name,
			     o->id_line);
	}
}

void load_series(struct loader *ld, struct yfile *f)
{
	struct kit *kit = ld->kit;
	yaml_node_t *root, *top[3], **items;
	size_t n, i;

	root = yfile_load(f, ld, "series.yaml");
	if (!root)
		return;
	if (yfile_map_fields(f, root, "series.yaml", top_keys, top))
		return;
	parse_verdicts(f, top[1], &kit->threshold_pct);
	if (!top[0]) {
		yfile_report(f, ynode_line(root), "series.yaml has no 'series'");
		return;
	}
	items = yfile_seq_nodes(f, top[0], "series", 0, &n);
	if (n)
		kit->series = xcalloc(n, sizeof(*kit->series));
	for (i = 0; i < n; i++)
		parse_series(f, items[i], &kit->series[kit->nr_series++]);
	free(items);
	index_series(f, kit);
}
