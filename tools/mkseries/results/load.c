/* results/load.c: results read back from a JSON report, every error at its file and place. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit/variants.h"
#include "lib/json.h"
#include "results/results.h"

struct loader {
	const char *file;
	int errors;
};

__attribute__((format(printf, 3, 4)))
static void lerror(struct loader *ld, const struct jval *at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s:%d: %s", ld->file, at ? at->line : 1, sb.buf);
	strbuf_release(&sb);
	ld->errors++;
}

static const char *type_name(enum jtype t)
{
	switch (t) {
	case J_NULL: return "null";
	case J_BOOL: return "a boolean";
	case J_NUMBER: return "a number";
	case J_STRING: return "a string";
	case J_ARRAY: return "an array";
	case J_OBJECT: return "an object";
	}
	return "?";
}

/* The member `key` of obj when it has type t; NULL when absent or null, else an error. */
static const struct jval *jmember(struct loader *ld, const struct jval *obj, const char *key,
				  enum jtype t, int required)
{
	const struct jval *v = json_get(obj, key);

	if (!v || v->type == J_NULL) {
		if (required)
			lerror(ld, obj, "'%s' is missing", key);
		return NULL;
	}
	if (v->type != t) {
		lerror(ld, v, "'%s' must be %s, not %s", key, type_name(t), type_name(v->type));
		return NULL;
	}
	return v;
}

static char *jdup(struct loader *ld, const struct jval *obj, const char *key, int required)
{
	const struct jval *v = jmember(ld, obj, key, J_STRING, required);

	return v ? xstrdup(v->str) : NULL;
}

static double jnum(struct loader *ld, const struct jval *obj, const char *key, double dflt)
{
	const struct jval *v = jmember(ld, obj, key, J_NUMBER, 0);

	return v ? v->number : dflt;
}

static unsigned jcount(struct loader *ld, const struct jval *obj, const char *key)
{
	const struct jval *v = jmember(ld, obj, key, J_NUMBER, 0);

	if (!v)
		return 0;
	if (v->number < 0 || v->number > 1e9 || v->number != floor(v->number)) {
		lerror(ld, v, "'%s' must be a count, not %g", key, v->number);
		return 0;
	}
	return (unsigned)v->number;
}

static void load_check(struct loader *ld, struct check *c, const struct jval *obj, const char *key)
{
	const struct jval *v = jmember(ld, obj, key, J_OBJECT, 0);
	const struct jval *st;
	int s;

	if (!v)
		return;
	st = jmember(ld, v, "status", J_STRING, 1);
	if (!st)
		return;
	s = check_status_parse(st->str);
	if (s < 0) {
		lerror(ld, st, "unknown status '%s' for '%s'", st->str, key);
		return;
	}
	c->status = s;
	free(c->evidence);
	c->evidence = jdup(ld, v, "evidence", 0);
}

static void load_metric(struct loader *ld, struct cell_result *c, const struct jval *m)
{
	const struct jval *samples = jmember(ld, m, "samples", J_ARRAY, 0);
	const struct jval *dir = jmember(ld, m, "direction", J_STRING, 1);
	char *case_name = jdup(ld, m, "case", 1), *name = jdup(ld, m, "name", 1);
	char *unit = jdup(ld, m, "unit", 0);
	double *v = NULL;
	size_t i, nr = 0;
	enum ktap_direction d = KTAP_LOWER_IS_BETTER;

	if (dir && !strcmp(dir->str, "higher_is_better"))
		d = KTAP_HIGHER_IS_BETTER;
	else if (dir && strcmp(dir->str, "lower_is_better"))
		lerror(ld, dir, "'direction' must be higher_is_better or lower_is_better, not '%s'",
		       dir->str);
	if (!jmember(ld, m, "mean", J_NUMBER, 1))
		goto cleanup;
	if (samples) {
		v = xcalloc(samples->nr ? samples->nr : 1, sizeof(*v));
		for (i = 0; i < samples->nr; i++) {
			if (samples->items[i].type != J_NUMBER) {
				lerror(ld, &samples->items[i], "'samples' must hold numbers");
				goto cleanup;
			}
			v[nr++] = samples->items[i].number;
		}
	}
	if (case_name && name)
		cell_add_metric(c, case_name, name, unit, d,
				samples && !json_get(m, "n") ? (unsigned)nr : jcount(ld, m, "n"),
				jnum(ld, m, "mean", 0), jnum(ld, m, "stddev", 0), v, nr);
cleanup:
	free(v);
	free(case_name);
	free(name);
	free(unit);
}

/*
 * What kind of time a cell measured, how often it booted, whether it is
 * base's tree reused, its clock and the metrics mm-regress skipped. A
 * report written before these were has none: its TCG cells were timed
 * on host time.
 */
static void load_cell_timing(struct loader *ld, struct cell_result *c, const struct jval *obj)
{
	const struct jval *v = jmember(ld, obj, "timing", J_STRING, 0), *list;
	size_t i;

	c->timing = timing_from_accel(c->accel);
	if (v && timing_parse(v->str) < 0)
		lerror(ld, v, "unknown timing '%s' (hardware, instructions or emulated)", v->str);
	else if (v)
		c->timing = timing_parse(v->str);
	c->boots = jcount(ld, obj, "boots");
	c->reused = jdup(ld, obj, "reused", 0);
	c->stale = jdup(ld, obj, "stale", 0);
	list = jmember(ld, obj, "console_logs", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_STRING) {
			lerror(ld, &list->items[i], "'console_logs' must hold strings");
			continue;
		}
		strvec_push(&c->console_logs, list->items[i].str);
	}
	v = jmember(ld, obj, "clock", J_OBJECT, 0);
	if (v) {
		c->clocksource = jdup(ld, v, "source", 0);
		c->clock_resolution_ns = jnum(ld, v, "resolution_ns", 0);
	}
	list = jmember(ld, obj, "metric_skips", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		const struct jval *m = &list->items[i];
		char *case_name, *name, *reason;

		if (m->type != J_OBJECT) {
			lerror(ld, m, "'metric_skips' must hold objects");
			continue;
		}
		case_name = jdup(ld, m, "case", 1);
		name = jdup(ld, m, "name", 1);
		reason = jdup(ld, m, "reason", 0);
		if (case_name && name)
			cell_add_metric_skip(c, case_name, name, reason);
		free(case_name);
		free(name);
		free(reason);
	}
}

/* A claim of a branch: what it says and whose it is (its outcome is derived, not read). */
static void load_cost(struct loader *ld, struct branch_result *b, const struct jval *obj)
{
	const struct jval *metric = jmember(ld, obj, "metric", J_STRING, 1);
	const struct jval *worse = jmember(ld, obj, "worse_pct", J_NUMBER, 1);
	struct kit_cost kc;
	const char *dot = metric ? strchr(metric->str, '.') : NULL;

	if (metric && (!dot || dot == metric->str || !dot[1])) {
		lerror(ld, metric, "a cost's 'metric' must be CASE.NAME, not '%s'", metric->str);
		return;
	}
	if (worse && !(worse->number > 0 && worse->number <= 100)) {
		lerror(ld, worse, "a cost's 'worse_pct' must be more than 0 and at most 100, not %g",
		       worse->number);
		return;
	}
	if (!metric || !worse)
		return;
	memset(&kc, 0, sizeof(kc));
	kc.case_name = xstrndup(metric->str, dot - metric->str);
	kc.metric = xstrdup(dot + 1);
	kc.worse_pct = worse->number;
	kc.why = jdup(ld, obj, "why", 0);
	branch_add_cost(b, &kc);
	free(kc.case_name);
	free(kc.metric);
	free(kc.why);
}

static void load_claim(struct loader *ld, struct branch_result *b, const struct jval *obj)
{
	const struct jval *origin = jmember(ld, obj, "origin", J_STRING, 1);
	const struct jval *kind = jmember(ld, obj, "kind", J_STRING, 1);
	const struct jval *metric = jmember(ld, obj, "metric", J_STRING, 1);
	const struct jval *value = jmember(ld, obj, "value", J_NUMBER, 1);
	char *owner = jdup(ld, obj, "owner", 1);
	struct kit_claim kc;
	const char *dot;
	int o = -1, k = -1;

	memset(&kc, 0, sizeof(kc));
	if (origin && (o = claim_origin_parse(origin->str)) < 0)
		lerror(ld, origin, "unknown claim origin '%s' (series, branch or variant)", origin->str);
	if (kind && (k = claim_kind_parse(kind->str)) < 0)
		lerror(ld, kind, "unknown claim kind '%s' (better, worse, above or below)", kind->str);
	dot = metric ? strchr(metric->str, '.') : NULL;
	if (metric && (!dot || dot == metric->str || !dot[1]))
		lerror(ld, metric, "a claim's 'metric' must be CASE.NAME, not '%s'", metric->str);
	if (o < 0 || k < 0 || !dot || !dot[1] || dot == metric->str || !value || !owner)
		goto cleanup;
	kc.case_name = xstrndup(metric->str, dot - metric->str);
	kc.metric = xstrdup(dot + 1);
	kc.kind = k;
	kc.value = value->number;
	kc.why = jdup(ld, obj, "why", 0);
	if (k == CLAIM_BETTER || k == CLAIM_WORSE) {
		kc.than = jdup(ld, obj, "than", 0);
		if (!kc.than)
			kc.than = xstrdup("base");
	}
	branch_add_claim(b, o, owner, &kc);
	free(kc.case_name);
	free(kc.metric);
	free(kc.than);
	free(kc.why);
cleanup:
	free(owner);
}

static void load_cell(struct loader *ld, struct branch_result *b, const struct jval *obj)
{
	const struct jval *variant = jmember(ld, obj, "variant", J_STRING, 1);
	const struct jval *checks, *list, *v;
	struct cell_result tmp, *c;
	size_t i;

	if (!variant)
		return;
	if (!variant_name_ok(variant->str)) {
		lerror(ld, variant, "bad variant name '%s' (base, kit, or [a-z0-9][a-z0-9-]*)",
		       variant->str);
		return;
	}
	if (branch_find_cell(b, variant->str)) {
		lerror(ld, variant, "cell '%s %s' appears twice", b->name, variant->str);
		return;
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.variant = xstrdup(variant->str);
	tmp.commit = jdup(ld, obj, "commit", 0);
	checks = jmember(ld, obj, "checks", J_OBJECT, 1);
	load_check(ld, &tmp.apply, checks, "apply");
	load_check(ld, &tmp.build, checks, "build");
	load_check(ld, &tmp.boot, checks, "boot");
	load_check(ld, &tmp.tests, checks, "tests");
	load_check(ld, &tmp.splats, checks, "splats");
	tmp.accel = jdup(ld, obj, "accel", 0);
	tmp.accel_note = jdup(ld, obj, "accel_note", 0);
	tmp.mode = jdup(ld, obj, "mode", 0);
	tmp.repeat = jcount(ld, obj, "repeat");
	tmp.build_seconds = jnum(ld, obj, "build_seconds", 0);
	tmp.test_seconds = jnum(ld, obj, "test_seconds", 0);
	tmp.build_log = jdup(ld, obj, "build_log", 0);
	tmp.console_log = jdup(ld, obj, "console_log", 0);
	tmp.nr_pass = jcount(ld, obj, "pass");
	tmp.nr_fail = jcount(ld, obj, "fail");
	tmp.nr_skip = jcount(ld, obj, "skip");
	/* A declared variant's members; a report of an older mkseries has none. */
	tmp.nr_xfail = jcount(ld, obj, "xfail");
	tmp.without = jdup(ld, obj, "without", 0);
	tmp.expected = jdup(ld, obj, "expected", 0);
	list = jmember(ld, obj, "expect_fail", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_STRING) {
			lerror(ld, &list->items[i], "'expect_fail' must hold strings");
			continue;
		}
		cell_expect_fail(&tmp, list->items[i].str);
	}
	list = jmember(ld, obj, "cases", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		const struct jval *k = &list->items[i];
		char *name, *ev;
		int s;

		if (k->type != J_OBJECT) {
			lerror(ld, k, "'cases' must hold objects");
			continue;
		}
		v = jmember(ld, k, "status", J_STRING, 1);
		s = v ? ktap_status_parse(v->str) : -1;
		if (v && s < 0)
			lerror(ld, v, "unknown case status '%s' (pass, fail, skip or todo)", v->str);
		name = jdup(ld, k, "name", 1);
		ev = jdup(ld, k, "evidence", 0);
		if (name && s >= 0)
			cell_add_case(&tmp, name, s, ev);
		free(name);
		free(ev);
	}
	list = jmember(ld, obj, "metrics", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'metrics' must hold objects");
			continue;
		}
		load_metric(ld, &tmp, &list->items[i]);
	}
	load_cell_timing(ld, &tmp, obj);
	c = branch_cell(b, variant->str);
	cell_result_release(c);
	*c = tmp;
}

static void load_branch(struct loader *ld, struct run_results *r, const struct jval *obj)
{
	const struct jval *name = jmember(ld, obj, "name", J_STRING, 1);
	const struct jval *list;
	struct branch_result tmp, *b;
	size_t i;

	if (!name)
		return;
	if (!*name->str || strchr(name->str, '/') || strchr(name->str, '\n')) {
		lerror(ld, name, "bad branch name '%s'", name->str);
		return;
	}
	if (results_find_branch(r, name->str)) {
		lerror(ld, name, "branch '%s' appears twice", name->str);
		return;
	}
	memset(&tmp, 0, sizeof(tmp));
	tmp.name = xstrdup(name->str);
	tmp.base = jdup(ld, obj, "base", 0);
	tmp.tip = jdup(ld, obj, "tip", 0);
	load_check(ld, &tmp.import, obj, "import");
	load_check(ld, &tmp.apply, obj, "apply");
	list = jmember(ld, obj, "series", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		const struct jval *s = &list->items[i], *st;
		struct series_result *sr;
		char *id, *title;
		int state = SERIES_PLANNED;

		if (s->type != J_OBJECT) {
			lerror(ld, s, "'series' must hold objects");
			continue;
		}
		st = jmember(ld, s, "state", J_STRING, 1);
		if (st && (state = series_state_parse(st->str)) < 0) {
			lerror(ld, st, "unknown series state '%s'", st->str);
			continue;
		}
		id = jdup(ld, s, "id", 1);
		title = jdup(ld, s, "title", 0);
		if (id) {
			sr = branch_add_series(&tmp, id, title);
			sr->state = state;
			sr->detail = jdup(ld, s, "detail", 0);
		}
		free(id);
		free(title);
	}
	list = jmember(ld, obj, "cells", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'cells' must hold objects");
			continue;
		}
		load_cell(ld, &tmp, &list->items[i]);
	}
	/* A report written before claims and thresholds has neither: the defaults. */
	tmp.threshold_pct = jnum(ld, obj, "threshold_pct", 0);
	if (tmp.threshold_pct < 0 || tmp.threshold_pct > 100) {
		lerror(ld, json_get(obj, "threshold_pct"), "'threshold_pct' must be between 0 and 100, not %g",
		       tmp.threshold_pct);
		tmp.threshold_pct = 0;
	}
	list = jmember(ld, obj, "claims", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'claims' must hold objects");
			continue;
		}
		load_claim(ld, &tmp, &list->items[i]);
	}
	list = jmember(ld, obj, "costs", J_ARRAY, 0);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(ld, &list->items[i], "'costs' must hold objects");
			continue;
		}
		load_cost(ld, &tmp, &list->items[i]);
	}
	b = results_branch(r, tmp.name);
	free(b->name);
	*b = tmp;
}

int results_parse_json(struct run_results *r, const char *file, const char *buf, size_t len)
{
	struct loader ld = { file, 0 };
	struct run_results tmp;
	struct jval root;
	const struct jval *v, *list;
	size_t i;
	int ret;

	results_init(&tmp);
	ret = json_parse(&root, file, buf, len);
	if (ret)
		return ret;
	if (root.type != J_OBJECT) {
		lerror(&ld, &root, "a report is a JSON object, not %s", type_name(root.type));
		goto done;
	}
	v = jmember(&ld, &root, "schema", J_NUMBER, 1);
	if (!v)
		goto done;
	if (v->number != RESULTS_SCHEMA) {
		lerror(&ld, v, "report schema %g is not one this mkseries reads (%d)", v->number,
		       RESULTS_SCHEMA);
		goto done;
	}
	tmp.generator = jdup(&ld, &root, "generator", 0);
	tmp.generated = jdup(&ld, &root, "generated", 0);
	tmp.tester = jdup(&ld, &root, "tester", 0);
	list = jmember(&ld, &root, "branches", J_ARRAY, 1);
	for (i = 0; list && i < list->nr; i++) {
		if (list->items[i].type != J_OBJECT) {
			lerror(&ld, &list->items[i], "'branches' must hold objects");
			continue;
		}
		load_branch(&ld, &tmp, &list->items[i]);
	}
done:
	jval_release(&root);
	for (i = 0; !ld.errors && i < tmp.nr_branches; i++) {
		const struct branch_result *had = results_find_branch(r, tmp.branches[i].name);
		size_t j;

		for (j = 0; had && j < tmp.branches[i].nr_cells; j++)
			if (branch_find_cell(had, tmp.branches[i].cells[j].variant))
				lerror(&ld, &root, "cell '%s %s' is in an earlier report too",
				       had->name, tmp.branches[i].cells[j].variant);
	}
	if (ld.errors) {
		results_release(&tmp);
		return MKS_ECONFIG;
	}
	results_merge(r, &tmp);
	return 0;
}

int results_read_file(struct strbuf *sb, const char *path, size_t max, struct strbuf *why)
{
	return strbuf_read_regular(sb, path, max, "a report reads", why);
}

int results_load_json(struct run_results *r, const char *path)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	int ret;

	if (results_read_file(&sb, path, RESULTS_FILE_MAX, &why)) {
		ret = error_code(MKS_ECONFIG, "cannot read report '%s': %s", path, why.buf);
		strbuf_release(&why);
		strbuf_release(&sb);
		return ret;
	}
	if (memchr(sb.buf, '\0', sb.len)) {
		strbuf_release(&sb);
		return error_code(MKS_ECONFIG, "%s: not a JSON report (it holds NUL bytes)", path);
	}
	ret = results_parse_json(r, path, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}
