/* report/junit.c: the results of a run as JUnit XML, a testsuite per branch x variant. */
#include <string.h>

#include "report/perf.h"
#include "report/render.h"
#include "report/words.h"
#include "results/verdict.h"

static void xml_text(struct strbuf *sb, const char *s, int attribute)
{
	report_add_markup(sb, s, !attribute);
}

struct junit_suite {
	struct strbuf body;
	size_t tests, failures, skipped;
	double time;
};

/* A testcase: ok when `failure` and `skipped` are NULL. */
static void junit_case(struct junit_suite *js, const char *classname, const char *name,
		       double seconds, const char *failure, const char *type, const char *skipped,
		       const char *details)
{
	struct strbuf *sb = &js->body;

	js->tests++;
	strbuf_addstr(sb, "    <testcase classname=\"");
	xml_text(sb, classname, 1);
	strbuf_addstr(sb, "\" name=\"");
	xml_text(sb, name, 1);
	strbuf_addf(sb, "\" time=\"%.3f\"", seconds > 0 ? seconds : 0);
	if (!failure && !skipped) {
		strbuf_addstr(sb, "/>\n");
		return;
	}
	strbuf_addstr(sb, ">\n");
	if (failure) {
		js->failures++;
		strbuf_addstr(sb, "      <failure message=\"");
		xml_text(sb, failure, 1);
		strbuf_addf(sb, "\" type=\"%s\">", type ? type : "failure");
		xml_text(sb, details ? details : failure, 0);
		strbuf_addstr(sb, "</failure>\n");
	} else {
		js->skipped++;
		strbuf_addstr(sb, "      <skipped message=\"");
		xml_text(sb, skipped, 1);
		strbuf_addstr(sb, "\"/>\n");
	}
	strbuf_addstr(sb, "    </testcase>\n");
}

/* A check as a testcase: failed and conflict fail, skipped and not-run are skipped. */
static void junit_check(struct junit_suite *js, const char *classname, const char *name,
			const struct check *c, double seconds, const char *details)
{
	const char *ev = c->evidence;

	switch (c->status) {
	case CHECK_OK:
	case CHECK_NA:
		junit_case(js, classname, name, seconds, NULL, NULL, NULL, NULL);
		break;
	case CHECK_FAILED:
	case CHECK_CONFLICT:
		junit_case(js, classname, name, seconds, ev ? ev : check_word(c),
			   c->status == CHECK_CONFLICT ? "conflict" : name, NULL, details);
		break;
	case CHECK_SKIPPED:
	case CHECK_NOT_RUN:
		junit_case(js, classname, name, seconds, NULL, NULL,
			   ev ? ev : c->status == CHECK_SKIPPED ? "skipped" : "not run", NULL);
		break;
	}
}

/* One testcase per claim checked on c: a failure when it did not hold, skipped when not checked. */
static void junit_claims(struct junit_suite *js, const char *suite, const struct branch_result *b,
			 const struct cell_result *c)
{
	char *classname = xstrfmt("%s/claims", suite);
	const struct claim *cl;
	struct claim_verdict v;
	size_t i = 0;

	while ((cl = cell_claim_next(b, c, &i, &v))) {
		char *text = kit_claim_text(&cl->c), *name, *msg;

		name = xstrfmt("%s: %s", claim_owner_label(cl), text);
		if (v.outcome == CLAIM_FAILED) {
			char *details;

			msg = xstrfmt("claim did not hold: %s: %s", text, v.evidence);
			details = xstrfmt("%s\n%s%s", msg, cl->c.why ? "why: " : "",
					  cl->c.why ? cl->c.why : "");
			junit_case(js, classname, name, 0, msg, "claim", NULL, details);
			free(details);
		} else if (v.outcome == CLAIM_NOT_CHECKED) {
			msg = xstrfmt("not checked: %s", v.evidence);
			junit_case(js, classname, name, 0, NULL, NULL, msg, NULL);
		} else {
			msg = NULL;
			junit_case(js, classname, name, 0, NULL, NULL, NULL, NULL);
		}
		free(msg);
		free(name);
		free(text);
		claim_verdict_release(&v);
	}
	free(classname);
}

/* The test cases of mm-regress, each as a testcase; expected failures pass. */
static void junit_cases(struct junit_suite *js, const char *cases_class,
			const struct cell_result *c)
{
	size_t i;

	for (i = 0; i < c->nr_cases; i++) {
		const struct case_result *k = &c->cases[i];

		if (k->status == KTAP_FAIL && k->expected_fail) {
			/* A failure the variant expects is what it is there to show: a pass. */
			junit_case(js, cases_class, k->name, 0, NULL, NULL, NULL, NULL);
		} else if (k->status == KTAP_FAIL) {
			char *msg = xstrfmt("not ok %s%s%s", k->name, k->evidence ? ": " : "",
					    k->evidence ? k->evidence : "");

			junit_case(js, cases_class, k->name, 0, msg, "case", NULL, NULL);
			free(msg);
		} else if (k->status != KTAP_SKIP && k->expected_fail) {
			char *msg = xstrfmt("unexpected pass: %s was expected to fail%s%s",
					    k->name, c->without ? " without " : "",
					    c->without ? c->without : "");

			junit_case(js, cases_class, k->name, 0, msg, "unexpected-pass", NULL, NULL);
			free(msg);
		} else if (k->status == KTAP_SKIP) {
			junit_case(js, cases_class, k->name, 0, NULL, NULL,
				   k->evidence ? k->evidence : "skipped", NULL);
		} else {
			junit_case(js, cases_class, k->name, 0, NULL, NULL, NULL, NULL);
		}
	}
	/* Without a case list, the tests check stands for them (it failed or never ran). */
	if (!c->nr_cases && c->tests.status != CHECK_OK)
		junit_check(js, cases_class, "mm-regress", &c->tests, 0, NULL);
}

/* "p=0.0031", or "exact: no spread in 6 and 6 samples", where a p would mean nothing. */
static const char *significance(struct strbuf *sb, const struct metric_row *r)
{
	if (r->v.exact)
		strbuf_addf(sb, "exact: no spread in %u and %u samples", r->b.n, r->k.n);
	else if (r->v.repeatable)
		strbuf_addf(sb, "repeatable: %u and %u samples of a clock that repeats",
			    r->b.n, r->k.n);
	else
		strbuf_addf(sb, "p=%.2g", r->v.p);
	return sb->buf;
}

/* One kit metric against base: a regression fails unless timing was emulated. */
static void junit_metric(struct junit_suite *js, const char *perf_class,
			 const struct branch_comparison *bc, const struct metric_row *r)
{
	const struct metric_result *m = r->kit ? r->kit : r->base;
	struct strbuf msg = STRBUF_INIT, row = STRBUF_INIT, sig = STRBUF_INIT;

	lkp_header(&row, "");
	lkp_row(&row, r, "", 0, 0);
	if (r->v.call == PERF_REGRESSION && bc->emulated) {
		/* The run does not fail for it: neither does CI. */
		strbuf_addf(&msg, "regression in emulated time (TCG on host time), not a failure: %+.1f%% (%s, threshold %.1f%%)",
			    r->v.change_pct, significance(&sig, r), r->v.threshold_pct);
		junit_case(js, perf_class, metric_label(m), 0, NULL, NULL, msg.buf, NULL);
	} else if (r->v.call == PERF_REGRESSION) {
		strbuf_addf(&msg, "regression: %+.1f%% (%s, threshold %.1f%%), in %s",
			    r->v.change_pct, significance(&sig, r), r->v.threshold_pct,
			    timing_words(bc->timing, 1));
		junit_case(js, perf_class, metric_label(m), 0, msg.buf, "regression", NULL,
			   row.buf);
	} else if (r->v.call == PERF_COST) {
		strbuf_addf(&msg, "declared cost: %+.1f%%, within its bound of %g%%: %s",
			    r->v.change_pct, r->cost ? r->cost->worse_pct : 0,
			    r->cost && r->cost->why ? r->cost->why : "no why given");
		junit_case(js, perf_class, metric_label(m), 0, NULL, NULL, msg.buf, NULL);
	} else if (r->v.call == PERF_NO_CALL) {
		junit_case(js, perf_class, metric_label(m), 0, NULL, NULL,
			   r->v.why ? r->v.why : "no call", NULL);
	} else {
		junit_case(js, perf_class, metric_label(m), 0, NULL, NULL, NULL, NULL);
	}
	strbuf_release(&msg);
	strbuf_release(&row);
	strbuf_release(&sig);
}

/* The kit's metrics against base (only the kit's suite has them), then those not measured. */
static void junit_perf(struct junit_suite *js, const char *perf_class,
		       const struct cell_result *c, const struct branch_comparison *bc)
{
	size_t i;

	for (i = 0; bc && !strcmp(c->variant, "kit") && i < bc->nr; i++)
		if (bc->rows[i].kit)
			junit_metric(js, perf_class, bc, &bc->rows[i]);
	for (i = 0; i < c->nr_metric_skips; i++) {
		const struct metric_skip *ms = &c->metric_skips[i];
		char *name = xstrfmt("%s.%s", ms->case_name, ms->name);
		char *why = xstrfmt("not measured: %s", ms->reason);

		junit_case(js, perf_class, name, 0, NULL, NULL, why, NULL);
		free(name);
		free(why);
	}
}

/* The suite's <properties>: what the cell is and how it ran; unset ones are left out. */
static void junit_properties(struct strbuf *sb, const struct branch_result *b,
			     const struct cell_result *c)
{
	char boots[16], resolution[32];
	const char *props[][2] = {
		{ "branch", b->name }, { "variant", c->variant }, { "commit", c->commit },
		{ "accel", c->accel },
		{ "timing", cell_timing(c) ? timing_name(cell_timing(c)) : NULL },
		{ "timing_note", cell_timing(c) ? timing_words(cell_timing(c), 0) : NULL },
		{ "emulated", cell_timing(c) == TIMING_EMULATED ? "true" : "false" },
		{ "mode", c->mode }, { "boots", c->boots ? boots : NULL },
		{ "reused", c->reused ? "base: the same tree as base, base's build and results, no change" :
			    NULL },
		{ "clocksource", c->clocksource },
		{ "clock_resolution_ns", c->clock_resolution_ns > 0 ? resolution : NULL },
		{ "status", cell_health_name(cell_status(b, c)) },
	};
	size_t i;

	snprintf(boots, sizeof(boots), "%u", c->boots);
	snprintf(resolution, sizeof(resolution), "%g", c->clock_resolution_ns);

	strbuf_addstr(sb, "    <properties>\n");
	for (i = 0; i < ARRAY_SIZE(props); i++) {
		if (!props[i][1])
			continue;
		strbuf_addstr(sb, "      <property name=\"");
		xml_text(sb, props[i][0], 1);
		strbuf_addstr(sb, "\" value=\"");
		xml_text(sb, props[i][1], 1);
		strbuf_addstr(sb, "\"/>\n");
	}
	strbuf_addstr(sb, "    </properties>\n");
}

static void junit_suite(struct strbuf *sb, struct junit_suite *total, const struct branch_result *b,
			const struct cell_result *c, const struct branch_comparison *bc)
{
	struct junit_suite js;
	char *suite = xstrfmt("%s/%s", b->name, c->variant);
	char *cases_class = xstrfmt("%s/mm-regress", suite), *perf_class = xstrfmt("%s/perf", suite);

	memset(&js, 0, sizeof(js));
	strbuf_init(&js.body, 0);
	if (c->stale) {
		/* A result whose inputs changed since its run vouches for nothing: a failure. */
		const struct check stale = { CHECK_FAILED, c->stale };

		junit_check(&js, suite, "stale", &stale, 0, NULL);
	}
	junit_check(&js, suite, "apply", &c->apply, 0, NULL);
	junit_check(&js, suite, "build", &c->build, c->build_seconds, NULL);
	junit_check(&js, suite, "boot", &c->boot, c->test_seconds, NULL);
	junit_check(&js, suite, "splats", &c->splats, 0, NULL);
	junit_cases(&js, cases_class, c);
	junit_perf(&js, perf_class, c, bc);
	junit_claims(&js, suite, b, c);
	js.time = c->build_seconds + c->test_seconds;

	strbuf_addstr(sb, "  <testsuite name=\"");
	xml_text(sb, suite, 1);
	strbuf_addf(sb, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
		    js.tests, js.failures, js.skipped, js.time);
	junit_properties(sb, b, c);
	strbuf_add(sb, js.body.buf, js.body.len);
	strbuf_addstr(sb, "  </testsuite>\n");
	total->tests += js.tests;
	total->failures += js.failures;
	total->skipped += js.skipped;
	total->time += js.time;
	strbuf_release(&js.body);
	free(suite);
	free(cases_class);
	free(perf_class);
}

void render_junit(struct strbuf *sb, const struct run_results *r)
{
	struct junit_suite total;
	struct strbuf suites = STRBUF_INIT;
	size_t i, j;

	memset(&total, 0, sizeof(total));
	for (i = 0; i < r->nr_branches; i++) {
		const struct branch_result *b = &r->branches[i];
		struct branch_comparison bc;

		branch_compare(&bc, b);
		for (j = 0; j < b->nr_cells; j++)
			junit_suite(&suites, &total, b, &b->cells[j], &bc);
		branch_comparison_release(&bc);
	}
	strbuf_addstr(sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	strbuf_addf(sb, "<testsuites name=\"mkseries\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
		    "skipped=\"%zu\" time=\"%.3f\">\n", total.tests, total.failures, total.skipped,
		    total.time);
	strbuf_add(sb, suites.buf, suites.len);
	strbuf_addstr(sb, "</testsuites>\n");
	strbuf_release(&suites);
}
