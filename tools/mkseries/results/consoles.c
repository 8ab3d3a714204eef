/* results/consoles.c: a cell's checks, cases and metrics from what its consoles show. */
#include <stdlib.h>
#include <string.h>

#include "console/console.h"
#include "results/results.h"

/* "boot 2: " before what a later boot showed, when there were several. */
static void add_boot(struct strbuf *sb, unsigned boot, size_t nr)
{
	if (nr > 1)
		strbuf_addf(sb, "boot %u of %zu: ", boot, nr);
}

void cell_read_console(struct cell_result *c, const char *console, size_t len,
		       const char *failure)
{
	cell_read_consoles(c, &console, &len, 1, failure);
}

/* Copy into c the cases, metrics and counts of the judged consoles v. */
static void cell_take_ktap(struct cell_result *c, const struct console_verdict *v)
{
	const struct ktap_result *k = &v->k;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	free(c->clocksource);
	c->clocksource = k->clocksource ? xstrdup(k->clocksource) : NULL;
	c->clock_resolution_ns = k->clock_resolution_ns;
	for (i = 0; i < k->nr_metric_skips; i++)
		cell_add_metric_skip(c, k->metric_skips[i].case_name, k->metric_skips[i].name,
				     k->metric_skips[i].reason);
	for (i = 0; i < k->nr_cases; i++) {
		const struct ktap_case *kc = &k->cases[i];
		const char *ev = NULL;

		if (kc->status == KTAP_FAIL && kc->diag.nr)
			ev = kc->diag.v[kc->diag.nr - 1];
		else if (kc->status == KTAP_SKIP || kc->status == KTAP_TODO)
			ev = kc->reason;
		cell_add_case(c, kc->name, kc->status, ev);
	}
	for (i = 0; i < k->nr_metrics; i++) {
		const struct ktap_metric *m = &k->metrics[i];

		/* A number its clock could not resolve in one boot is not a number. */
		if (cell_find_metric_skip(c, m->case_name, m->name))
			continue;
		cell_add_metric(c, m->case_name, m->name, m->unit, m->direction, m->n, m->value,
				m->stddev, m->samples, m->nr_samples);
	}
	c->nr_pass = k->nr_pass + k->nr_todo;
	c->nr_fail = v->e.nr_fail;
	c->nr_xfail = v->e.xfail.nr;
	c->nr_skip = k->nr_skip;
	expectations_describe(&sb, &v->e, c->without);
	free(c->expected);
	c->expected = sb.len ? strbuf_detach(&sb, NULL) : NULL;
	strbuf_release(&sb);
}

/* Set c's tests check from the rule v's judge applied to nr booted consoles. */
static void cell_judge_tests(struct cell_result *c, const struct console_verdict *v, size_t nr,
			     const char *failure)
{
	const struct ktap_result *k = &v->k;
	struct strbuf sb = STRBUF_INIT;

	switch (v->tests_rule) {
	case CONSOLE_OK:
		check_set(&c->tests, CHECK_OK, c->expected);
		return;
	case CONSOLE_CASE_FAILED: {
		const struct ktap_case *kc = v->e.first_fail;

		add_boot(&sb, v->boot_of[kc - k->cases], nr);
		strbuf_addf(&sb, "not ok %u %s", kc->number, kc->name);
		if (kc->diag.nr)
			strbuf_addf(&sb, ": %s", kc->diag.v[kc->diag.nr - 1]);
		break;
	}
	case CONSOLE_CUT_SHORT:
		/* Nothing failed, so the run was cut short: say how. */
		add_boot(&sb, v->cut_short, nr);
		strbuf_addstr(&sb, failure ? failure : v->problems.v[0]);
		break;
	case CONSOLE_MISSED:
		expectations_missed(&sb, &v->e, c->without);
		break;
	default:
		BUG("console_judge() gave tests rule %d without a machine to check", v->tests_rule);
	}
	check_set(&c->tests, CHECK_FAILED, sb.buf);
	strbuf_release(&sb);
}

void cell_read_consoles(struct cell_result *c, const char *const *consoles, const size_t *lens,
			size_t nr, const char *failure)
{
	struct console_rules rules = {
		.expect_fail = c->expect_fail,
		.nr_expect_fail = c->nr_expect_fail,
		.without = c->without,
	};
	struct console_verdict v;
	struct strbuf sb = STRBUF_INIT;

	console_judge(&v, consoles, lens, nr, &rules);
	if (v.splat_boot) {
		add_boot(&sb, v.splat_boot, nr);
		strbuf_addf(&sb, "console line %zu: %s", v.splat.line, v.splat.text ? v.splat.text : "");
		check_set(&c->splats, CHECK_FAILED, sb.buf);
	} else {
		check_set(&c->splats, CHECK_OK, NULL);
	}
	if (!c->boots)
		c->boots = (unsigned)nr;

	if (v.not_started) {
		strbuf_reset(&sb);
		add_boot(&sb, v.not_started, nr);
		strbuf_addstr(&sb, failure ? failure : "mm-regress never started: no KTAP on the console");
		check_set(&c->boot, CHECK_FAILED, sb.buf);
		check_set(&c->tests, CHECK_SKIPPED, "did not boot");
		goto cleanup;
	}
	if (!nr) {
		check_set(&c->boot, CHECK_FAILED, failure ? failure : "no console recorded");
		check_set(&c->tests, CHECK_SKIPPED, "did not boot");
		goto cleanup;
	}
	check_set(&c->boot, CHECK_OK, NULL);

	cell_take_ktap(c, &v);
	cell_judge_tests(c, &v, nr, failure);
cleanup:
	strbuf_release(&sb);
	console_verdict_release(&v);
}
