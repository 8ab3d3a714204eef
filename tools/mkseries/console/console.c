/* console/console.c: judge what a cell's consoles show, in one order for the test step and the report. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "console/console.h"

/* ------------------------------------------------------------------ */
/* Expected failures */

void expectations_judge(struct expectations *e, const struct ktap_result *k,
			char *const *expect_fail, size_t nr)
{
	size_t i, j;

	memset(e, 0, sizeof(*e));
	strvec_init(&e->xfail);
	strvec_init(&e->unexpected_pass);
	strvec_init(&e->not_run);
	strvec_init(&e->skipped);
	for (i = 0; i < k->nr_cases; i++) {
		const struct ktap_case *c = &k->cases[i];

		for (j = 0; j < nr && strcmp(expect_fail[j], c->name); j++)
			;
		if (c->status == KTAP_FAIL && j == nr) {
			if (!e->nr_fail++)
				e->first_fail = c;
		}
	}
	for (j = 0; j < nr; j++) {
		const struct ktap_case *c = ktap_find_case(k, expect_fail[j]);

		if (!c)
			strvec_push(&e->not_run, expect_fail[j]);
		else if (c->status == KTAP_FAIL)
			strvec_push(&e->xfail, c->name);
		else if (c->status == KTAP_SKIP)
			strvec_pushf(&e->skipped, "%s: %s", c->name, c->reason ? c->reason : "no reason given");
		else
			strvec_push(&e->unexpected_pass, c->name);
	}
}

void expectations_release(struct expectations *e)
{
	strvec_clear(&e->xfail);
	strvec_clear(&e->unexpected_pass);
	strvec_clear(&e->not_run);
	strvec_clear(&e->skipped);
	memset(e, 0, sizeof(*e));
}

void expectations_describe(struct strbuf *sb, const struct expectations *e, const char *without)
{
	size_t i;

	for (i = 0; i < e->xfail.nr; i++) {
		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "%s failed as expected", e->xfail.v[i]);
		if (without && *without)
			strbuf_addf(sb, ": shows %s %s", without,
				    strchr(without, ',') ? "matter" : "matters");
	}
	for (i = 0; i < e->skipped.nr; i++) {
		const char *colon = strchr(e->skipped.v[i], ':');

		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "%.*s was expected to fail, but was skipped:%s",
			    (int)(colon - e->skipped.v[i]), e->skipped.v[i], colon + 1);
	}
}

size_t expectations_missed(struct strbuf *sb, const struct expectations *e, const char *without)
{
	const char *w = without && *without ? without : NULL;
	size_t i;

	for (i = 0; i < e->unexpected_pass.nr; i++) {
		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "unexpected pass: %s was expected to fail%s%s (the demonstration did not work)",
			    e->unexpected_pass.v[i], w ? " without " : "", w ? w : "");
	}
	for (i = 0; i < e->not_run.nr; i++) {
		if (sb->len)
			strbuf_addstr(sb, "; ");
		strbuf_addf(sb, "%s was expected to fail%s%s but did not run", e->not_run.v[i],
			    w ? " without " : "", w ? w : "");
	}
	return e->unexpected_pass.nr + e->not_run.nr;
}

/* ------------------------------------------------------------------ */
/* Folding several boots into one run */

/* How bad a case's result is, for the worst of several boots. */
static int case_rank(enum ktap_status s)
{
	switch (s) {
	case KTAP_FAIL:
		return 3;
	case KTAP_SKIP:
		return 2;
	case KTAP_TODO:
		return 1;
	case KTAP_PASS:
		break;
	}
	return 0;
}

/* Whether m's values are all known: its samples, or the one value it printed. */
static int has_values(const struct ktap_metric *m)
{
	return m->nr_samples || m->n <= 1;
}

static size_t add_values(double *to, const struct ktap_metric *m)
{
	if (!m->nr_samples) {
		to[0] = m->value;
		return 1;
	}
	memcpy(to, m->samples, m->nr_samples * sizeof(*to));
	return m->nr_samples;
}

/*
 * One metric over two boots: the samples of both, with the mean and the
 * standard deviation computed from all of them; when a side printed only
 * its summary, the pooled mean and standard deviation of the two groups.
 */
static void merge_metric(struct ktap_metric *into, const struct ktap_metric *from)
{
	if (has_values(into) && has_values(from)) {
		size_t n1 = into->nr_samples ? into->nr_samples : 1;
		size_t n2 = from->nr_samples ? from->nr_samples : 1, n;
		double *all = xcalloc(n1 + n2, sizeof(*all));
		struct sample_stats st;

		n = add_values(all, into);
		n += add_values(all + n, from);
		sample_stats(&st, all, n);
		free(into->samples);
		into->samples = all;
		into->nr_samples = n;
		into->n = st.n;
		into->value = st.mean;
		into->stddev = st.stddev;
	} else {
		double n1 = into->n ? into->n : 1, n2 = from->n ? from->n : 1, n = n1 + n2;
		double mean = (n1 * into->value + n2 * from->value) / n;
		double ss = (n1 - 1) * into->stddev * into->stddev +
			    (n2 - 1) * from->stddev * from->stddev +
			    n1 * (into->value - mean) * (into->value - mean) +
			    n2 * (from->value - mean) * (from->value - mean);

		free(into->samples);
		into->samples = NULL;
		into->nr_samples = 0;
		into->n = (unsigned)n;
		into->value = mean;
		into->stddev = sqrt(ss / (n - 1));
	}
}

/*
 * Fold boot number `boot` (from) into `into`, what the earlier boots
 * showed: a case keeps its worst result (boot_of[i] says which boot
 * case i of into shows), metrics gather their samples, skips add up.
 * What is kept is taken from `from`; boot_of has room for every case
 * of both.
 */
static void ktap_fold(struct ktap_result *into, struct ktap_result *from, unsigned boot,
		      unsigned *boot_of)
{
	size_t i, j;

	for (i = 0; i < from->nr_cases; i++) {
		struct ktap_case *fc = &from->cases[i];

		for (j = 0; j < into->nr_cases && strcmp(into->cases[j].name, fc->name); j++)
			;
		if (j == into->nr_cases) {
			ALLOC_GROW(into->cases, into->nr_cases + 1, into->alloc_cases);
			into->cases[into->nr_cases] = *fc;
			boot_of[into->nr_cases++] = boot;
			memset(fc, 0, sizeof(*fc));
		} else if (case_rank(fc->status) > case_rank(into->cases[j].status)) {
			struct ktap_case t = into->cases[j];

			into->cases[j] = *fc;
			*fc = t;
			boot_of[j] = boot;
		}
	}
	for (i = 0; i < from->nr_metrics; i++) {
		struct ktap_metric *fm = &from->metrics[i];

		for (j = 0; j < into->nr_metrics; j++)
			if (!strcmp(into->metrics[j].case_name, fm->case_name) &&
			    !strcmp(into->metrics[j].name, fm->name))
				break;
		if (j < into->nr_metrics) {
			merge_metric(&into->metrics[j], fm);
			continue;
		}
		ALLOC_GROW(into->metrics, into->nr_metrics + 1, into->alloc_metrics);
		into->metrics[into->nr_metrics++] = *fm;
		memset(fm, 0, sizeof(*fm));
	}
	for (i = 0; i < from->nr_metric_skips; i++) {
		struct ktap_metric_skip *fs = &from->metric_skips[i];

		for (j = 0; j < into->nr_metric_skips; j++)
			if (!strcmp(into->metric_skips[j].case_name, fs->case_name) &&
			    !strcmp(into->metric_skips[j].name, fs->name))
				break;
		if (j < into->nr_metric_skips)
			continue;
		ALLOC_GROW(into->metric_skips, into->nr_metric_skips + 1, into->alloc_metric_skips);
		into->metric_skips[into->nr_metric_skips++] = *fs;
		memset(fs, 0, sizeof(*fs));
	}
	if (!into->clocksource) {
		into->clocksource = from->clocksource;
		from->clocksource = NULL;
	}
	if (!into->clock_resolution_ns)
		into->clock_resolution_ns = from->clock_resolution_ns;
	into->bad_metrics += from->bad_metrics;
	into->nr_pass = into->nr_fail = into->nr_skip = into->nr_todo = 0;
	for (i = 0; i < into->nr_cases; i++) {
		switch (into->cases[i].status) {
		case KTAP_PASS:
			into->nr_pass++;
			break;
		case KTAP_FAIL:
			into->nr_fail++;
			break;
		case KTAP_SKIP:
			into->nr_skip++;
			break;
		case KTAP_TODO:
			into->nr_todo++;
			break;
		}
	}
}

/* ------------------------------------------------------------------ */
/* The judge */

/*
 * The machine mm-regress said it ran on ("# machine: aarch64"), or NULL
 * when it said none. Caller frees.
 */
static char *console_machine(const char *console, size_t len)
{
	const char *p = console, *end = console + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p), *q = p, *close;
		size_t n;

		if (!eol)
			eol = end;
		/* A printk prefix may stand before it, as in vm.c's watch_on_line(). */
		if (*q == '[' && (close = memchr(q, ']', eol - q)))
			q = close + 1 + (close + 1 < eol && close[1] == ' ');
		n = strlen("# machine: ");
		if ((size_t)(eol - q) >= n && !memcmp(q, "# machine: ", n)) {
			q += n;
			return xstrndup(q, strcspn(q, " \r\n") < (size_t)(eol - q) ?
					       strcspn(q, " \r\n") : (size_t)(eol - q));
		}
		p = eol + 1;
	}
	return NULL;
}

/*
 * The rules, in order, and why this order (the test step and the report
 * used to order them differently, and could disagree):
 *  1. a splat: it explains a failing case better than the case does;
 *  2. mm-regress never started (no KTAP header): nothing else can be read;
 *  3. mm-regress ran on another machine: its cases say nothing about the
 *     branch's arch, pass or fail (a run cut short before it named its
 *     machine is judged by rule 5);
 *  4. a case failed that was not expected to: the earliest evidence the
 *     run gives, named even when the run was then cut short, since the
 *     cut is more often the failure's consequence than its cause (the
 *     report's order; the test step named the cut first);
 *  5. the run was cut short: any problem ktap_problems() finds, metric
 *     lines that do not parse and a second KTAP run included (the test
 *     step's rule; the report checked only header, plan, results and
 *     done marker, and called a run with lost metrics ok);
 *  6. an expected failure passed, or a complete run never reached it.
 */
void console_judge(struct console_verdict *out, const char *const *consoles, const size_t *lens,
		   size_t nr, const struct console_rules *rules)
{
	struct ktap_result *k = xcalloc(nr ? nr : 1, sizeof(*k));
	struct strbuf missed = STRBUF_INIT;
	size_t i, total = 0;

	memset(out, 0, sizeof(*out));
	out->splat = (struct console_splat)CONSOLE_SPLAT_INIT;
	strvec_init(&out->problems);
	for (i = 0; i < nr; i++) {
		ktap_result_init(&k[i]);
		ktap_parse(&k[i], consoles[i], lens[i]);
	}
	for (i = 0; i < nr && !out->splat_boot; i++)
		if (console_find_splat(&out->splat, consoles[i], lens[i]))
			out->splat_boot = i + 1;
	for (i = 0; i < nr && !out->not_started; i++)
		if (!k[i].version)
			out->not_started = i + 1;
	for (i = 0; i < nr && !out->cut_short; i++)
		if (ktap_problems(&k[i], &out->problems))
			out->cut_short = i + 1;
	/*
	 * A run cut short may have stopped before it named its machine: that
	 * is the cut's to report. Naming another machine is never excused.
	 */
	for (i = 0; rules->machine && i < nr && !out->wrong_machine; i++) {
		char *m = console_machine(consoles[i], lens[i]);
		struct strvec p = STRVEC_INIT;

		if (m ? strcmp(m, rules->machine) : !ktap_problems(&k[i], &p)) {
			out->wrong_machine = i + 1;
			out->machine = m;
		} else {
			free(m);
		}
		strvec_clear(&p);
	}

	for (i = 0; i < nr; i++)
		total += k[i].nr_cases;
	out->boot_of = xcalloc(total + 1, sizeof(*out->boot_of));
	for (i = 0; nr && i < k[0].nr_cases; i++)
		out->boot_of[i] = 1;
	for (i = 1; i < nr; i++) {
		ktap_fold(&k[0], &k[i], (unsigned)i + 1, out->boot_of);
		ktap_release(&k[i]);
	}
	out->k = k[0];
	if (!nr)
		ktap_result_init(&out->k);
	free(k);
	expectations_judge(&out->e, &out->k, rules->expect_fail, rules->nr_expect_fail);

	if (out->wrong_machine)
		out->tests_rule = CONSOLE_WRONG_MACHINE;
	else if (out->e.nr_fail)
		out->tests_rule = CONSOLE_CASE_FAILED;
	else if (out->cut_short)
		out->tests_rule = CONSOLE_CUT_SHORT;
	else if (expectations_missed(&missed, &out->e, rules->without))
		out->tests_rule = CONSOLE_MISSED;

	if (out->splat_boot)
		out->rule = CONSOLE_SPLAT;
	else if (out->not_started || !nr)
		out->rule = CONSOLE_NOT_STARTED;
	else
		out->rule = out->tests_rule;
	strbuf_release(&missed);
}

void console_verdict_release(struct console_verdict *v)
{
	ktap_release(&v->k);
	free(v->boot_of);
	expectations_release(&v->e);
	console_splat_release(&v->splat);
	free(v->machine);
	strvec_clear(&v->problems);
	memset(v, 0, sizeof(*v));
}
