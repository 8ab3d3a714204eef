/* report/planjson.c: the fan-out plan as JSON, the cells a CI job runs and how their reports merge. */
#include <errno.h>
#include <string.h>

#include "lib/json.h"
#include "report/report.h"
#include "diff/present.h"
#include "kit/variants.h"

static void describe_source(struct strbuf *sb, const struct kernel_branch *b)
{
	const struct kernel_source *s = &b->source;

	switch (s->kind) {
	case SOURCE_DEBIAN:
		strbuf_addf(sb, "debian %s (%s)", s->package, s->suite);
		break;
	case SOURCE_GIT:
		strbuf_addf(sb, "git %s %s", s->repo, s->ref ? s->ref : "HEAD");
		break;
	case SOURCE_TARBALL:
		strbuf_addf(sb, "tarball %s", s->tarball);
		break;
	}
}

char *plan_cell_report_name(const char *branch, const char *variant)
{
	char *id = cell_id(branch, variant, '+');
	char *name = xstrfmt("mkseries-%s.json", id);

	free(id);
	return name;
}

char *plan_cells_list(const struct plan_cell *cells, size_t nr)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++) {
		char *id = cell_id(cells[i].b->name, cells[i].variant, '/');

		strbuf_addf(&sb, "%s%s", i ? " " : "", id);
		free(id);
	}
	return strbuf_detach(&sb, NULL);
}

/*
 * What the tree has of an entry the plan would apply: "in_tree" (all,
 * some or none) and "missing", the parts it lacks.
 */
static void json_presence(struct jw *w, const struct plan_item *it)
{
	const struct presence *pr = it->presence;
	size_t i;

	jw_string(w, "in_tree", pr->nr_in == pr->nr ? "all" : pr->nr_in ? "some" : "none");
	jw_open(w, "missing", '[');
	for (i = 0; i < pr->nr; i++) {
		if (pr->v[i].in)
			continue;
		jw_open(w, NULL, '{');
		jw_string(w, "file", pr->v[i].path);
		if (pr->v[i].hunk) {
			jw_count(w, "hunk", pr->v[i].hunk);
			jw_count(w, "hunks", pr->v[i].nr_hunks);
		}
		jw_string(w, "what", pr->v[i].what);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void push_cell(struct plan_cell **cells, size_t *n, size_t *alloc,
		      const struct kernel_branch *b, const char *variant)
{
	ALLOC_GROW(*cells, *n + 1, *alloc);
	(*cells)[*n].b = b;
	(*cells)[(*n)++].variant = variant;
}

size_t plan_cells(struct plan_cell **out, const struct plan *const *plans, size_t nr)
{
	size_t i, j, n = 0, alloc = 0;

	*out = NULL;
	for (i = 0; i < nr; i++) {
		if (plans[i]->variant) {
			push_cell(out, &n, &alloc, plans[i]->branch, plans[i]->variant->name);
			continue;
		}
		for (j = 0; build_variants[j]; j++)
			push_cell(out, &n, &alloc, plans[i]->branch, build_variants[j]);
	}
	return n;
}

static void json_plan_items(struct jw *w, const struct plan *p)
{
	size_t j;

	jw_open(w, "items", '[');
	for (j = 0; j < p->nr; j++) {
		const struct plan_item *it = &p->items[j];

		jw_open(w, NULL, '{');
		jw_string(w, "series", it->patch->series->id);
		jw_string(w, "patch", kit_patch_label(it->patch));
		jw_bool(w, "fixup", it->patch->is_fixup);
		jw_string(w, "upstream", it->patch->upstream);
		jw_string(w, "subject", it->subject);
		jw_string(w, "action", plan_action_name(it->action));
		jw_string(w, "reason", it->reason);
		jw_string(w, "source", it->action == PLAN_APPLY || it->action == PLAN_SQUASH ?
			  it->source : NULL);
		if (it->action == PLAN_SQUASH)
			jw_string(w, "squash_into", kit_patch_label(p->items[it->squash_into].patch));
		if (it->stable_commit)
			jw_string(w, "stable_commit", it->stable_commit);
		if (it->presence)
			json_presence(w, it);
		if (it->policy_note)
			jw_string(w, "policy_note", it->policy_note);
		if (it->policy_rule) {
			jw_string(w, "policy", it->policy > 0 ? "takes" : it->policy ? "unset" : "refuses");
			jw_string(w, "policy_rule", it->policy_rule);
		}
		if (p->variant)
			jw_bool(w, "left_out", it->left_out);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* `key`: [ { patch, upstream }, ... ] for a variant's `without` or `with`. */
static void json_patch_list(struct jw *w, const char *key, struct kit_patch *const *patches,
			    size_t nr)
{
	size_t j;

	jw_open(w, key, '[');
	for (j = 0; j < nr; j++) {
		jw_open(w, NULL, '{');
		jw_string(w, "patch", kit_patch_label(patches[j]));
		jw_string(w, "upstream", patches[j]->upstream);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* A variant's plan: what it leaves out and adds, what it expects to fail, its branch, its items. */
static void json_plan_variant(struct jw *w, const struct plan *vp)
{
	const struct kernel_variant *v = vp->variant;
	char *ref = branch_refname(vp);

	jw_open(w, NULL, '{');
	jw_string(w, "name", v->name);
	jw_string(w, "note", v->note);
	json_patch_list(w, "without", v->without_patch, v->nr_without);
	json_patch_list(w, "with", v->with_patch, v->nr_with);
	jw_strings(w, "expect_fail", (const char *const *)v->expect_fail, v->nr_expect_fail);
	jw_string(w, "ref", ref);
	json_plan_items(w, vp);
	jw_close(w, '}');
	free(ref);
}

static void json_plan_cell(struct jw *w, struct strvec *merge, const struct kernel_branch *b,
			   const char *variant)
{
	const char *name = b->name;
	struct strvec run = STRVEC_INIT;
	char *report = plan_cell_report_name(name, variant);
	char *id = cell_id(name, variant, '/');

	strvec_pushl(&run, "mkseries", "run", "--branch", name, "--variant", variant, "--format",
		     "json", "--output", report, NULL);
	strvec_push(merge, report);
	jw_open(w, NULL, '{');
	jw_string(w, "id", id);
	jw_string(w, "branch", name);
	jw_string(w, "variant", variant);
	/* What a CI runner needs installed: the arch's cross compiler and QEMU. */
	jw_string(w, "arch", b->arch);
	jw_strings(w, "run", run.v, run.nr);
	jw_string(w, "report", report);
	jw_close(w, '}');
	strvec_clear(&run);
	free(report);
	free(id);
}

void plan_render_json(struct strbuf *out, const struct plan *const *plans, size_t nr)
{
	struct jw w = { out, 0, { 0 } };
	struct strvec merge = STRVEC_INIT;
	struct plan_cell *cells = NULL;
	char *list;
	size_t i, j, nr_cells;

	strvec_pushl(&merge, "mkseries", "report", "--merge", NULL);
	jw_open(&w, NULL, '{');
	jw_number(&w, "schema", RESULTS_SCHEMA);
	jw_string(&w, "kind", "plan");
	jw_open(&w, "branches", '[');
	for (i = 0; i < nr; i++) {
		const struct plan *p = plans[i];
		struct branch_result br;
		struct strbuf src = STRBUF_INIT;

		if (p->variant)
			continue;
		memset(&br, 0, sizeof(br));
		branch_series_from_plan(&br, p, NULL, (size_t)-1);
		describe_source(&src, p->branch);
		jw_open(&w, NULL, '{');
		jw_string(&w, "name", p->branch->name);
		jw_string(&w, "source", src.buf);
		jw_bool(&w, "default", p->branch->is_default);
		jw_string(&w, "arch", p->branch->arch);
		jw_string(&w, "decisions", branch_decisions(p->branch));
		jw_open(&w, "series", '[');
		for (j = 0; j < br.nr_series; j++) {
			jw_open(&w, NULL, '{');
			jw_string(&w, "id", br.series[j].id);
			jw_string(&w, "title", br.series[j].title);
			jw_string(&w, "state", series_state_name(br.series[j].state));
			jw_string(&w, "detail", br.series[j].detail);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		json_plan_items(&w, p);
		/* The variants' plans follow their branch's in `plans`. */
		jw_open(&w, "variants", '[');
		for (j = i + 1; j < nr && plans[j]->variant && plans[j]->branch == p->branch; j++)
			json_plan_variant(&w, plans[j]);
		jw_close(&w, ']');
		jw_close(&w, '}');
		strbuf_release(&src);
		branch_result_release(&br);
	}
	jw_close(&w, ']');
	nr_cells = plan_cells(&cells, plans, nr);
	jw_open(&w, "cells", '[');
	for (i = 0; i < nr_cells; i++)
		json_plan_cell(&w, &merge, cells[i].b, cells[i].variant);
	jw_close(&w, ']');
	list = plan_cells_list(cells, nr_cells);
	strvec_pushl(&merge, "--cells", list, NULL);
	jw_strings(&w, "merge", merge.v, merge.nr);
	jw_close(&w, '}');
	strvec_clear(&merge);
	free(list);
	free(cells);
}

int plan_print_json(const struct plan *const *plans, size_t nr, FILE *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	plan_render_json(&sb, plans, nr);
	if (fwrite(sb.buf, 1, sb.len, out) != sb.len || fflush(out))
		ret = error("cannot write the plan: %s", strerror(errno));
	strbuf_release(&sb);
	return ret;
}
