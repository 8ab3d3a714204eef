/* report/json.c: the results of a run as JSON (docs/report-json.md). */
#include <math.h>
#include <string.h>

#include "lib/json.h"
#include "report/perf.h"
#include "report/render.h"
#include "results/verdict.h"

static void json_check(struct jw *w, const char *key, const struct check *c)
{
	jw_open(w, key, '{');
	jw_string(w, "status", check_status_name(c->status));
	jw_string(w, "evidence", c->evidence);
	jw_close(w, '}');
}

/* words[v], or "?" for a value the table does not name. */
static const char *direction_word(enum ktap_direction d)
{
	return d == KTAP_HIGHER_IS_BETTER ? "higher_is_better" : "lower_is_better";
}

/* What a claim says and whose it is: the members a report reads back. */
static void json_claim_members(struct jw *w, const struct claim *cl)
{
	char *metric = xstrfmt("%s.%s", cl->c.case_name, cl->c.metric);

	jw_string(w, "origin", claim_origin_name(cl->origin));
	jw_string(w, "owner", cl->owner);
	jw_string(w, "metric", metric);
	jw_string(w, "kind", claim_kind_name(cl->c.kind));
	jw_number(w, "value", cl->c.value);
	jw_string(w, "than", cl->c.than);
	jw_string(w, "why", cl->c.why);
	free(metric);
}

/* The claims checked on c, each with its outcome (derived). */
static void json_cell_claims(struct jw *w, const struct branch_result *b,
			     const struct cell_result *c)
{
	const struct claim *cl;
	struct claim_verdict v;
	size_t i = 0;

	jw_open(w, "claims", '[');
	while ((cl = cell_claim_next(b, c, &i, &v))) {
		char *text = kit_claim_text(&cl->c);

		jw_open(w, NULL, '{');
		json_claim_members(w, cl);
		jw_string(w, "claim", text);
		jw_string(w, "outcome", claim_outcome_name(v.outcome));
		jw_string(w, "evidence", v.evidence);
		jw_number(w, "mean", v.mean);
		jw_number(w, "other_mean", v.other_mean);
		jw_number(w, "change_pct", v.change_pct);
		jw_number(w, "spread_pct", v.spread_pct);
		jw_number(w, "p_value", v.p);
		if (v.exact)
			jw_bool(w, "exact", 1);
		if (v.repeatable)
			jw_bool(w, "repeatable", 1);
		jw_close(w, '}');
		free(text);
		claim_verdict_release(&v);
	}
	jw_close(w, ']');
}

static void json_cell(struct jw *w, const struct branch_result *b, const struct cell_result *c)
{
	size_t i, j;

	jw_open(w, NULL, '{');
	jw_string(w, "variant", c->variant);
	jw_string(w, "status", cell_health_name(cell_status(b, c)));
	jw_string(w, "commit", c->commit);
	jw_open(w, "checks", '{');
	json_check(w, "apply", &c->apply);
	json_check(w, "build", &c->build);
	json_check(w, "boot", &c->boot);
	json_check(w, "tests", &c->tests);
	json_check(w, "splats", &c->splats);
	jw_close(w, '}');
	jw_string(w, "accel", c->accel);
	jw_string(w, "timing", cell_timing(c) ? timing_name(cell_timing(c)) : NULL);
	jw_string(w, "timing_note", cell_timing(c) ? timing_words(cell_timing(c), 0) : NULL);
	jw_bool(w, "emulated", cell_timing(c) == TIMING_EMULATED);
	jw_string(w, "accel_note", c->accel_note);
	jw_string(w, "mode", c->mode);
	jw_count(w, "repeat", c->repeat);
	jw_count(w, "boots", c->boots);
	jw_string(w, "reused", c->reused);
	jw_string(w, "stale", c->stale);
	jw_open(w, "clock", '{');
	jw_string(w, "source", c->clocksource);
	jw_number(w, "resolution_ns", c->clock_resolution_ns > 0 ? c->clock_resolution_ns : NAN);
	jw_close(w, '}');
	jw_number(w, "build_seconds", c->build_seconds);
	jw_number(w, "test_seconds", c->test_seconds);
	jw_string(w, "build_log", c->build_log);
	jw_string(w, "console_log", c->console_log);
	jw_strings(w, "console_logs", c->console_logs.v, c->console_logs.nr);
	jw_count(w, "pass", c->nr_pass);
	jw_count(w, "fail", c->nr_fail);
	jw_count(w, "skip", c->nr_skip);
	jw_count(w, "xfail", c->nr_xfail);
	jw_string(w, "without", c->without);
	jw_strings(w, "expect_fail", (const char *const *)c->expect_fail, c->nr_expect_fail);
	jw_string(w, "expected", c->expected);
	jw_open(w, "cases", '[');
	for (i = 0; i < c->nr_cases; i++) {
		jw_open(w, NULL, '{');
		jw_string(w, "name", c->cases[i].name);
		jw_string(w, "status", ktap_status_name(c->cases[i].status));
		jw_string(w, "evidence", c->cases[i].evidence);
		jw_bool(w, "expected_fail", c->cases[i].expected_fail);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "metrics", '[');
	for (i = 0; i < c->nr_metrics; i++) {
		const struct metric_result *m = &c->metrics[i];

		jw_open(w, NULL, '{');
		jw_string(w, "case", m->case_name);
		jw_string(w, "name", m->name);
		jw_string(w, "unit", m->unit);
		jw_string(w, "direction", direction_word(m->direction));
		jw_count(w, "n", m->n);
		jw_number(w, "mean", m->mean);
		jw_number(w, "stddev", m->stddev);
		jw_open(w, "samples", '[');
		for (j = 0; j < m->nr_samples; j++)
			jw_number(w, NULL, m->samples[j]);
		jw_close(w, ']');
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_open(w, "metric_skips", '[');
	for (i = 0; i < c->nr_metric_skips; i++) {
		jw_open(w, NULL, '{');
		jw_string(w, "case", c->metric_skips[i].case_name);
		jw_string(w, "name", c->metric_skips[i].name);
		jw_string(w, "reason", c->metric_skips[i].reason);
		jw_close(w, '}');
	}
	jw_close(w, ']');
	json_cell_claims(w, b, c);
	jw_close(w, '}');
}

static void json_comparison(struct jw *w, const char *key, const struct branch_comparison *bc,
			    int named)
{
	size_t i;

	jw_open(w, key, '{');
	if (named)
		jw_string(w, "variant", bc->kit ? bc->kit->variant : "kit");
	jw_bool(w, "comparable", bc->comparable);
	jw_string(w, "note", bc->note);
	jw_string(w, "timing", bc->timing ? timing_name(bc->timing) : NULL);
	jw_bool(w, "emulated", bc->emulated);
	jw_bool(w, "same_tree", bc->same_tree);
	jw_number(w, "threshold_pct", bc->threshold_pct);
	jw_count(w, "regressions", bc->nr_regressions);
	jw_count(w, "improvements", bc->nr_improvements);
	jw_count(w, "costs", bc->nr_costs);
	jw_open(w, "metrics", '[');
	for (i = 0; i < bc->nr; i++) {
		const struct metric_row *r = &bc->rows[i];
		const struct metric_result *m = r->kit ? r->kit : r->base;

		jw_open(w, NULL, '{');
		jw_string(w, "case", m->case_name);
		jw_string(w, "name", m->name);
		jw_string(w, "unit", m->unit);
		jw_string(w, "direction", direction_word(m->direction));
		if (r->base) {
			jw_number(w, "base_mean", r->b.mean);
			jw_number(w, "base_stddev", r->b.stddev);
			jw_count(w, "base_n", r->b.n);
		}
		if (r->kit) {
			jw_number(w, "kit_mean", r->k.mean);
			jw_number(w, "kit_stddev", r->k.stddev);
			jw_count(w, "kit_n", r->k.n);
		}
		jw_number(w, "change_pct", r->base && r->kit ? r->v.change_pct : NAN);
		jw_number(w, "p_value", r->v.p);
		if (r->v.exact)
			jw_bool(w, "exact", 1);
		if (r->v.repeatable)
			jw_bool(w, "repeatable", 1);
		jw_number(w, "threshold_pct", r->v.threshold_pct);
		jw_string(w, "verdict", perf_call_name(r->v.call));
		jw_string(w, "why", r->v.why);
		if (r->cost) {
			jw_open(w, "cost", '{');
			jw_number(w, "worse_pct", r->cost->worse_pct);
			jw_string(w, "why", r->cost->why);
			jw_close(w, '}');
		}
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

void render_json(struct strbuf *sb, const struct run_results *r)
{
	struct jw w = { sb, 0, { 0 } };
	struct run_summary s;
	size_t i, j;

	results_summarise(&s, r);
	jw_open(&w, NULL, '{');
	jw_number(&w, "schema", RESULTS_SCHEMA);
	jw_string(&w, "generator", r->generator);
	jw_string(&w, "generated", r->generated);
	jw_string(&w, "tester", r->tester);
	jw_string(&w, "status", results_failed(r) ? "failed" : "ok");
	jw_open(&w, "summary", '{');
	jw_count(&w, "branches", s.branches);
	jw_count(&w, "cells", s.cells);
	jw_count(&w, "ok", s.ok);
	jw_count(&w, "failed", s.failed);
	jw_count(&w, "conflicts", s.conflicts);
	jw_count(&w, "incomplete", s.incomplete);
	jw_count(&w, "stale", s.stale);
	jw_count(&w, "branch_failures", s.branch_failures);
	jw_count(&w, "regressions", s.regressions);
	jw_count(&w, "improvements", s.improvements);
	jw_count(&w, "costs", s.costs);
	jw_count(&w, "emulated_regressions", s.emulated_regressions);
	jw_count(&w, "variant_regressions", s.variant_regressions);
	jw_count(&w, "variant_improvements", s.variant_improvements);
	jw_count(&w, "xfail", s.xfail);
	jw_count(&w, "claims_held", s.claims_held);
	jw_count(&w, "claims_failed", s.claims_failed);
	jw_count(&w, "claims_not_checked", s.claims_not_checked);
	jw_close(&w, '}');
	jw_open(&w, "branches", '[');
	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct branch_comparison bc;
		struct comparisons cs;

		jw_open(&w, NULL, '{');
		jw_string(&w, "name", b->name);
		jw_string(&w, "base", b->base);
		jw_string(&w, "tip", b->tip);
		json_check(&w, "import", &b->import);
		json_check(&w, "apply", &b->apply);
		jw_open(&w, "series", '[');
		for (j = 0; j < b->nr_series; j++) {
			jw_open(&w, NULL, '{');
			jw_string(&w, "id", b->series[j].id);
			jw_string(&w, "title", b->series[j].title);
			jw_string(&w, "state", series_state_name(b->series[j].state));
			jw_string(&w, "detail", b->series[j].detail);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		jw_number(&w, "threshold_pct", branch_threshold_pct(b));
		jw_open(&w, "claims", '[');
		for (j = 0; j < b->nr_claims; j++) {
			jw_open(&w, NULL, '{');
			json_claim_members(&w, &b->claims[j]);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
		jw_open(&w, "costs", '[');
		for (j = 0; j < b->nr_costs; j++) {
			char *m = xstrfmt("%s.%s", b->costs[j].case_name, b->costs[j].metric);

			jw_open(&w, NULL, '{');
			jw_string(&w, "metric", m);
			jw_number(&w, "worse_pct", b->costs[j].worse_pct);
			jw_string(&w, "why", b->costs[j].why);
			jw_close(&w, '}');
			free(m);
		}
		jw_close(&w, ']');
		jw_open(&w, "cells", '[');
		for (j = 0; j < b->nr_cells; j++)
			json_cell(&w, b, &b->cells[j]);
		jw_close(&w, ']');
		branch_compare(&bc, b);
		json_comparison(&w, "comparison", &bc, 0);
		branch_comparison_release(&bc);
		/* Every cell but base against base: the kit's again, then the variants'. */
		comparisons_init(&cs, b);
		jw_open(&w, "comparisons", '[');
		for (j = 0; j < cs.nr; j++)
			json_comparison(&w, NULL, &cs.v[j], 1);
		jw_close(&w, ']');
		comparisons_release(&cs);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
}
