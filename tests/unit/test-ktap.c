/* test-ktap.c: unit tests for the KTAP parser, the splat finder and the embedded mm-regress image. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console/ktap.h"
#include "vm/regress.h"
#include "fixture.h"
#include "tap.h"
#include "lib/util.h"

static int parse_str(struct ktap_result *res, const char *s)
{
	return ktap_parse(res, s, strlen(s));
}

static int has_problem(const struct ktap_result *res, const char *needle)
{
	struct strvec v = STRVEC_INIT;
	size_t i;
	int found = 0;

	ktap_problems(res, &v);
	for (i = 0; i < v.nr; i++) {
		if (strstr(v.v[i], needle))
			found = 1;
		else
			printf("# problem: %s\n", v.v[i]);
	}
	strvec_clear(&v);
	return found;
}

static void test_host_run(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result res;
	const struct ktap_metric *m;
	const struct ktap_case *c;
	struct console_splat splat = CONSOLE_SPLAT_INIT;
	struct strvec problems = STRVEC_INIT;

	if (load(&sb, "host-run.txt")) {
		ok(0, "host-run.txt loads");
		return;
	}
	is_int(ktap_parse(&res, sb.buf, sb.len), 0, "a clean host run parses");
	is_int(res.version, 1, "KTAP version 1");
	is_int(res.has_plan, 1, "it has a plan");
	is_int(res.plan, 12, "of 12 cases");
	is_int(res.nr_cases, 12, "12 results");
	is_int(res.nr_pass, 12, "all passed");
	is_int(res.done, 1, "the done marker is seen");
	is_int(res.has_seed, 1, "the seed is found");
	is_int(res.seed, 7, "and it is 7");
	is_int(ktap_all_good(&res), 1, "the run is all good");
	is_int(ktap_problems(&res, &problems), 0, "no problems");
	c = ktap_find_case(&res, "mremap_pte");
	ok(c && c->number == 1 && c->line == 14, "mremap_pte is result 1 on line 14");
	ok(c && c->diag.nr >= 2 && starts_with(c->diag.v[c->diag.nr - 1], "mremap_pte: ") &&
	   ends_with(c->diag.v[c->diag.nr - 1], " s") &&
	   !strcmp(c->diag.v[1], "seed: 7"),
	   "the first result takes the header's diagnostics and its own");
	c = ktap_find_case(&res, "mremap_pmd");
	ok(c && c->diag.nr >= 2 &&
	   !strcmp(c->diag.v[0], "mremap_pmd: move 2 MiB-aligned, 2 MiB-sized regions (PMD-level move)"),
	   "later results take the diagnostics since the previous result");
	c = ktap_find_case(&res, "cache_colour");
	ok(c && c->number == 12 && c->status == KTAP_PASS, "cache_colour is result 12 and passed");
	m = ktap_find_metric(&res, "mremap_pud_time", "pud_speedup");
	ok(m && m->direction == KTAP_HIGHER_IS_BETTER && !strcmp(m->unit, "x") && m->value > 1 &&
	   m->n == 1 && !m->nr_samples, "pud_speedup: a ratio, higher is better, one sample");
	m = ktap_find_metric(&res, "realloc_rate", "calls_per_sec");
	ok(m && m->direction == KTAP_HIGHER_IS_BETTER && !strcmp(m->unit, "calls/s"),
	   "realloc_rate reports calls_per_sec, higher is better");
	m = ktap_find_metric(&res, "process_madvise_dontneed", "dontneed_batch_1024");
	ok(m && m->direction == KTAP_LOWER_IS_BETTER && !strcmp(m->unit, "ns"),
	   "the madvise sweep reports each batch size in ns");
	is_int(res.pending.nr, 3, "Totals, timing and done follow the last result");
	is_int(console_find_splat(&splat, sb.buf, sb.len), 0, "mm-regress's own output is no splat");
	strvec_clear(&problems);
	ktap_release(&res);
	strbuf_release(&sb);
}

static void test_guest_clean(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result res, host;
	struct console_splat splat = CONSOLE_SPLAT_INIT;
	const struct ktap_case *c;

	if (load(&sb, "guest-clean.log")) {
		ok(0, "guest-clean.log loads");
		return;
	}
	is_int(ktap_parse(&res, sb.buf, sb.len), 0, "a console log with boot noise parses");
	is_int(res.header_line, 39, "the header is found after firmware and boot lines");
	is_int(res.nr_cases, 12, "every result is found between printk lines");
	is_int(res.nr_skip, 2, "two cases skipped");
	is_int(res.nr_pass, 10, "ten passed");
	c = ktap_find_case(&res, "pte_batch_mprotect");
	ok(c != NULL, "a SKIP result keeps its name without the directive");
	if (c) {
		is_int(c->status, KTAP_SKIP, "its status is SKIP");
		is_str(c->reason, "THP is disabled (enabled: always madvise [never])",
		       "the SKIP reason, without the \\r of the line end");
	}
	c = ktap_find_case(&res, "mremap_pte");
	ok(c && !strcmp(c->name, "mremap_pte"), "names carry no \\r");
	is_int(ktap_all_good(&res), 1, "skips and printk noise still make a good run");
	ok(load(&sb, "host-run.txt") == 0 && ktap_parse(&host, sb.buf, sb.len) == 0 &&
	   host.nr_metrics == res.nr_metrics, "the same metrics as the host run");
	ktap_release(&host);
	load(&sb, "guest-clean.log");
	is_int(console_find_splat(&splat, sb.buf, sb.len), 0,
	       "a clean boot (x86/fpu, Spectre WARNING inside a line, panic=-1) has no splat");
	if (splat.text)
		printf("# found: %s\n", splat.text);
	console_splat_release(&splat);
	ktap_release(&res);
	strbuf_release(&sb);
}

static void test_guest_oops(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result res;
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	if (load(&sb, "guest-oops.log")) {
		ok(0, "guest-oops.log loads");
		return;
	}
	is_int(ktap_parse(&res, sb.buf, sb.len), 0, "a run cut short by a crash parses");
	is_int(res.nr_cases, 5, "five results came");
	is_int(res.missing, 7, "seven are missing");
	is_int(res.done, 0, "no done marker");
	is_int(ktap_all_good(&res), 0, "the run is not good");
	ok(res.pending.nr && !strcmp(res.pending.v[res.pending.nr - 1],
				     "mremap_pte_loop: mmap/memset/mremap-fixed/munmap loop of the PTE batching series"),
	   "the pending diagnostics tell which case was running");
	ok(has_problem(&res, "plan says 12 results, got 5: the run stopped during case 6"),
	   "the problem names the case that never finished");
	ok(has_problem(&res, "no '# mm-regress: done' line"), "and the missing done marker");
	is_int(console_find_splat(&splat, sb.buf, sb.len), 1, "the crash is a splat");
	is_int(splat.kind, SPLAT_BUG, "of kind BUG");
	is_int(splat.line, 83, "found on its first line");
	ok(splat.text && strstr(splat.text, "BUG: kernel NULL pointer dereference, address:"),
	   "the line is returned whole");
	console_splat_release(&splat);
	ktap_release(&res);
	strbuf_release(&sb);
}

static void test_splat_kinds(void)
{
	static const struct {
		const char *file;
		enum console_splat_kind kind;
		size_t line;
		const char *needle;
	} cases[] = {
		{ "warning.log", SPLAT_WARNING, 7, "at mm/mremap.c:246 move_normal_pmd" },
		{ "bug-null.log", SPLAT_BUG, 6, "NULL pointer dereference" },
		{ "bug-on.log", SPLAT_BUG, 7, "kernel BUG at mm/mremap.c:290!" },
		{ "bad-rss.log", SPLAT_BUG, 6, "Bad rss-counter state" },
		{ "oops.log", SPLAT_OOPS, 6, "Oops: 0002 [#1]" },
		{ "arm64-oops.log", SPLAT_BAD_ACCESS, 6, "Unable to handle kernel NULL pointer" },
		{ "panic.log", SPLAT_PANIC, 8, "Kernel panic - not syncing: VFS" },
		{ "kasan.log", SPLAT_KASAN, 7, "slab-use-after-free in move_ptes" },
		{ "soft-lockup.log", SPLAT_SOFT_LOCKUP, 6, "stuck for 22s" },
		{ "hung-task.log", SPLAT_HUNG_TASK, 6, "blocked for more than 122 seconds" },
		{ "gpf.log", SPLAT_GPF, 6, "non-canonical address 0xdffffc0000000002" },
		{ "gpf-new.log", SPLAT_GPF, 6, "Oops: general protection fault" },
		{ "rcu-stall.log", SPLAT_RCU_STALL, 6, "rcu_sched self-detected stall" },
		{ "rcu-stall-old.log", SPLAT_RCU_STALL, 6, "detected stalls on CPUs/tasks" },
		{ "caller-id.log", SPLAT_WARNING, 6, "[    T1] WARNING: CPU: 0 PID: 1" },
		{ "no-timestamp.log", SPLAT_BUG, 6, "Bad page state" },
		{ "mid-line.log", SPLAT_BUG, 7, "ok 2 mremap_pm[    2.331200] BUG: Bad page map" },
	};
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct console_splat splat = CONSOLE_SPLAT_INIT;
		char *name = xstrfmt("splats/%s", cases[i].file);
		int found = !load(&sb, name) && console_find_splat(&splat, sb.buf, sb.len);

		ok(found && splat.kind == cases[i].kind && splat.line == cases[i].line &&
		   strstr(splat.text, cases[i].needle),
		   "%s: %s on line %zu", cases[i].file, console_splat_kind_name(cases[i].kind),
		   cases[i].line);
		if (found && (splat.kind != cases[i].kind || splat.line != cases[i].line))
			printf("#   got %s on line %zu: %s\n", console_splat_kind_name(splat.kind),
			       splat.line, splat.text);
		console_splat_release(&splat);
		free(name);
	}
	strbuf_release(&sb);
}

/* Lines that mention splat words but are not kernel splats. */
static void test_no_false_splats(void)
{
	static const char *const lines[] = {
		"# WARNING: this is mm-regress talking",
		"# BUG: the read-only part became writable",
		"not ok 3 Oops",
		"ok 4 BUG: a strange name",
		"# Kernel panic - not syncing: quoted in a diagnostic",
		"x86/fpu: Supporting XSAVE feature 0x001: 'x87 floating point registers'",
		"[    0.000000] x86/fpu: Enabled xstate features 0x7, context size is 832 bytes, using 'standard' format.",
		"[    0.000000] Kernel command line: panic=-1 oops=panic softlockup_panic=1 hung_task_panic=1",
		"[    0.000000] BIOS-e820: [mem 0x0000000000100000-0x000000003ffdffff] usable",
		"[    0.002000] rcu: \tRCU CPU stall warnings timeout set to 21 (rcu_cpu_stall_timeout).",
		"[    0.060000] Spectre V2 : WARNING: Unprivileged eBPF is enabled with eIBRS on",
		"[    0.120000] watchdog: Perf NMI watchdog permanently disabled",
		"[    1.000000] hung_task: tracking tasks blocked for more than 120 seconds",
		"[    1.100000] Oopsie: not a real prefix",
		"mm-regress: unknown option '--bogus'",
		"    BUG: indented, a quoted line",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		struct console_splat splat = CONSOLE_SPLAT_INIT;
		int found = console_find_splat(&splat, lines[i], strlen(lines[i]));

		ok(!found, "no splat in '%s'", lines[i]);
		console_splat_release(&splat);
	}
}

/*
 * fuzz-console found it: an empty line (or one of NUL bytes and blanks)
 * made the splat finder look for a printk prefix past the line's end.
 * Only a sanitizer build sees the read; every build checks the answer.
 */
static void test_empty_lines(void)
{
	static const char console[] = "\n\0\0 \t\n\n[    1.000000] BUG: Bad page map in process x\n";
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	ok(console_find_splat(&splat, console, sizeof(console) - 1) && splat.kind == SPLAT_BUG &&
	   splat.line == 4, "empty lines before a splat: found on line 4");
	console_splat_release(&splat);
	ok(!console_find_splat(&splat, "\n\n\n", 3), "only empty lines: no splat");
	console_splat_release(&splat);
}

static void test_result_lines(void)
{
	struct ktap_result res;
	const struct ktap_case *c;
	const struct ktap_metric *m;

	parse_str(&res, "KTAP version 1\n1..6\n"
			"ok 1 - dash_name\n"
			"not ok 2 failing\n"
			"ok 3 # SKIP no name, only a reason\n"
			"not ok 4 expected # TODO known breakage\n"
			"ok 5 odd # skip lower-case directive\n"
			"  ok 1 nested subtest, ignored\n"
			"ok  no number\n"
			"okay 6 not a result\n"
			"ok 6 last # TIMEOUT 30\n"
			"# mm-regress: done\n");
	is_int(res.nr_cases, 6, "six results; nested, unnumbered and look-alike lines ignored");
	c = res.nr_cases > 0 ? &res.cases[0] : NULL;
	is_str(c ? c->name : NULL, "dash_name", "'ok 1 - name' drops the dash");
	c = res.nr_cases > 1 ? &res.cases[1] : NULL;
	ok(c && c->status == KTAP_FAIL, "'not ok' is a failure");
	c = res.nr_cases > 2 ? &res.cases[2] : NULL;
	ok(c && c->status == KTAP_SKIP && !*c->name, "a SKIP without a name");
	is_str(c ? c->reason : NULL, "no name, only a reason", "keeps its reason");
	c = res.nr_cases > 3 ? &res.cases[3] : NULL;
	ok(c && c->status == KTAP_TODO && !strcmp(c->reason, "known breakage"), "TODO with its reason");
	c = res.nr_cases > 4 ? &res.cases[4] : NULL;
	ok(c && c->status == KTAP_SKIP, "directives are case-insensitive");
	c = res.nr_cases > 5 ? &res.cases[5] : NULL;
	ok(c && c->status == KTAP_PASS && !strcmp(c->reason, "TIMEOUT 30"),
	   "an unknown directive keeps the status and the text");
	is_int(res.nr_fail, 1, "one failure");
	is_int(res.nr_todo, 1, "one TODO");
	is_int(ktap_all_good(&res), 0, "a failure makes the run not good");
	is_int(ktap_problems(&res, &(struct strvec)STRVEC_INIT), 0,
	       "but the output itself has no problem");
	ktap_release(&res);

	parse_str(&res, "KTAP version 1\n1..3\nok 1 a\nok 3 c\n# mm-regress: done\n");
	is_int(res.misnumbered, 1, "a skipped number is noticed");
	is_int(res.missing, 1, "and the missing result");
	ok(has_problem(&res, "not numbered"), "reported as a problem");
	ktap_release(&res);

	parse_str(&res, "KTAP version 1\nok 1 a\n# mm-regress: done\n");
	is_int(res.has_plan, 0, "no plan");
	ok(has_problem(&res, "no test plan"), "a missing plan is a problem");
	is_int(ktap_all_good(&res), 0, "and the run is not good");
	ktap_release(&res);

	parse_str(&res, "KTAP version 1\n1..1\nok 1 a\nok 2 b\n# mm-regress: done\n");
	is_int(res.extra, 1, "a result beyond the plan");
	ok(has_problem(&res, "1 results beyond the plan of 1"), "is reported");
	ktap_release(&res);

	parse_str(&res, "KTAP version 1\n1..2\nok 1 a\nBail out! mm-regress: bad arguments\n");
	ok(res.bail_out && !strcmp(res.bail_reason, "mm-regress: bad arguments"), "Bail out! and why");
	ok(has_problem(&res, "bailed out: mm-regress: bad arguments"), "is reported");
	ktap_release(&res);

	/* What mm-regress prints as /init when its arguments are bad. */
	parse_str(&res, "KTAP version 1\n1..0\nBail out! unknown option '--bogus'\n"
			"# init: exit status 2, rebooting\n# mm-regress: done\n");
	ok(res.has_plan && res.plan == 0 && res.bail_out && res.done && !res.nr_cases,
	   "an empty plan, then Bail out! and the done marker");
	ok(has_problem(&res, "bailed out: unknown option '--bogus'"), "the reason is the problem");
	is_int(ktap_all_good(&res), 0, "a bail-out is never good");
	ktap_release(&res);

	parse_str(&res, "KTAP version 1\n1..1\nok 1 a\n# mm-regress: done\nKTAP version 1\n1..1\nnot ok 1 a\n");
	ok(res.second_header && res.nr_cases == 1 && res.nr_fail == 0,
	   "a second run after the first is ignored");
	ok(has_problem(&res, "second KTAP run"), "and reported");
	ktap_release(&res);

	is_int(parse_str(&res, "[    0.1] Linux version 6.12\nok 1 a\n"), MKS_ENOTFOUND,
	       "no header: MKS_ENOTFOUND");
	is_int(res.nr_cases, 0, "and no results taken from before a header");
	ok(has_problem(&res, "no KTAP output"), "reported as no KTAP output");
	ktap_release(&res);
	is_int(ktap_parse(&res, "", 0), MKS_ENOTFOUND, "an empty log has no KTAP");
	ktap_release(&res);

	/* KUnit prints KTAP through printk: never ours. */
	parse_str(&res, "[    0.5] KTAP version 1\n[    0.5] 1..1\n[    0.6] ok 1 kunit_suite\n"
			"\x1b" "c\x1b[2JKTAP version 1\n1..1\n[    1.0] not ok 7 kunit\nok 1 mine\n"
			"# mm-regress: done");
	ok(res.version == 1 && res.header_line == 4 && res.nr_cases == 1 &&
	   !strcmp(res.cases[0].name, "mine") && res.done,
	   "printk-prefixed KTAP is skipped; escapes before the header and a missing final newline are fine");
	ktap_release(&res);

	{
		static const char nul_log[] = "KTAP version 1\n1..1\nok 1 a\0b\n# mm-regress: done\n";

		ktap_parse(&res, nul_log, sizeof(nul_log) - 1);
		ok(res.nr_cases == 1 && !strcmp(res.cases[0].name, "a b") && res.done,
		   "a NUL byte in a line does not end the log");
		ktap_release(&res);
	}

	parse_str(&res, "KTAP version 1\n1..1\n"
			"# sample: t lat 1/3 1.0 us\n"
			"# sample: t other 1/1 9.0 us\n"
			"# sample: t lat 2/3 2.0 us\n"
			"# sample: t lat 3/3 3.0 us\n"
			"# metric: t lat 2.000 us lower_is_better n=3 stddev=1.000\n"
			"# metric: t rate 5e3 calls/s higher_is_better\n"
			"# metric: t broken 1.0 us sideways_is_better\n"
			"# metric: t broken2 abc us lower_is_better\n"
			"# metric: t short 1.0\n"
			"# sample: t lat x/y nope us\n"
			"ok 1 t\n# mm-regress: done\n");
	m = ktap_find_metric(&res, "t", "lat");
	ok(m && m->value == 2.0 && m->n == 3 && m->stddev == 1.0 && m->nr_samples == 3 &&
	   m->samples[0] == 1.0 && m->samples[2] == 3.0 && m->line == 7,
	   "a metric with n=, stddev= and its three samples");
	m = ktap_find_metric(&res, "t", "rate");
	ok(m && m->value == 5000 && m->direction == KTAP_HIGHER_IS_BETTER && m->n == 1,
	   "a single-sample metric in exponent notation");
	is_int(res.nr_metrics, 2, "malformed metric lines are not metrics");
	is_int(res.bad_metrics, 4, "they are counted");
	is_int(res.bad_metric_line, 9, "from the first one's line");
	ok(has_problem(&res, "4 metric line(s) do not parse, the first at line 9"), "and reported");
	c = ktap_find_case(&res, "t");
	ok(c && c->diag.nr == 10, "metric and sample lines are diagnostics of their case too");
	ktap_release(&res);
}

/* The clock lines of mm-regress's header, and metrics it withheld. */
static void test_clock_lines(void)
{
	struct ktap_result res;
	const struct ktap_metric_skip *ms;
	struct strbuf sb = STRBUF_INIT;

	parse_str(&res, "KTAP version 1\n1..2\n"
			"# seed: 3\n"
			"# clocksource: tsc\n"
			"# clock: resolution_ns=24 getres_ns=1 step_ns=24\n"
			"# clocksource: hpet\n"
			"# clock: resolution_ns=99 getres_ns=1 step_ns=99\n"
			"# metric-skip: t lat shortest timed interval 812 ns is under 100 x the clock's resolution (24 ns, clocksource tsc)\n"
			"# metric: t rate 5.0 calls/s higher_is_better\n"
			"ok 1 t\n"
			"# metric-skip: u  ratio   short  \n"
			"ok 2 u # SKIP shortest timed interval 812 ns is under 100 x the clock's resolution (24 ns, clocksource tsc)\n"
			"# mm-regress: done\n");
	is_str(res.clocksource, "tsc", "the clocksource is read from the header");
	ok(res.clock_resolution_ns == 24, "and the clock's resolution_ns");
	is_int(res.nr_metric_skips, 2, "two withheld metrics");
	ms = res.nr_metric_skips > 0 ? &res.metric_skips[0] : NULL;
	ok(ms && !strcmp(ms->case_name, "t") && !strcmp(ms->name, "lat") && ms->line == 8,
	   "a metric-skip line names its case and metric, on its line");
	is_str(ms ? ms->reason : NULL,
	       "shortest timed interval 812 ns is under 100 x the clock's resolution (24 ns, clocksource tsc)",
	       "and keeps the whole reason");
	ms = res.nr_metric_skips > 1 ? &res.metric_skips[1] : NULL;
	ok(ms && !strcmp(ms->case_name, "u") && !strcmp(ms->name, "ratio") &&
	   !strcmp(ms->reason, "short"), "blanks around the words do not matter");
	is_int(res.nr_metrics, 1, "a withheld metric is no metric");
	ok(!ktap_find_metric(&res, "t", "lat"), "and cannot be found as one");
	is_int(res.bad_metrics, 0, "nothing malformed");
	ok(res.nr_cases == 2 && res.cases[1].status == KTAP_SKIP &&
	   starts_with(res.cases[1].reason, "shortest timed interval 812 ns"),
	   "a case skipped for its clock keeps the reason");
	ok(res.nr_cases && res.cases[0].diag.nr == 7, "the clock lines are diagnostics of the first case too");
	is_int(ktap_all_good(&res), 1, "withheld metrics do not make a run bad");
	ktap_release(&res);

	parse_str(&res, "KTAP version 1\n1..1\n"
			"# clocksource: unknown\n"
			"# cannot read /sys/devices/system/clocksource/clocksource0/current_clocksource: No such file or directory\n"
			"# clock: resolution_ns=10000000.5 getres_ns=10000000 step_ns=9999999\n"
			"ok 1 t\n# mm-regress: done\n");
	is_str(res.clocksource, "unknown", "an unknown clocksource is kept as such");
	ok(res.clock_resolution_ns == 10000000.5, "a decimal resolution_ns");
	ktap_release(&res);

	{
		static const char *const bad[] = {
			"# clock: getres_ns=1 step_ns=20\n",
			"# clock: resolution_ns=\n",
			"# clock: resolution_ns=abc getres_ns=1\n",
			"# clock: resolution_ns=20ns\n",
			"# clock: resolution_ns=0 getres_ns=0 step_ns=0\n",
			"# clock: resolution_ns=-5\n",
			"# clock: resolution_ns=1e13\n",
		};
		size_t i;

		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			char *log = xstrfmt("KTAP version 1\n1..1\n# clocksource:  \n%s"
					    "ok 1 t\n# mm-regress: done\n", bad[i]);

			parse_str(&res, log);
			ok(res.clock_resolution_ns == 0 && !res.clocksource && !res.bad_metrics,
			   "no resolution from '%.*s', and no clocksource from a blank one",
			   (int)strlen(bad[i]) - 1, bad[i]);
			ktap_release(&res);
			free(log);
		}
	}

	parse_str(&res, "KTAP version 1\n1..1\n"
			"# metric-skip: t\n"
			"# metric-skip: t lat\n"
			"# metric-skip: t lat   \n"
			"# metric-skip:\n"
			"# metric-skip:    \n"
			"ok 1 t\n# mm-regress: done\n");
	is_int(res.nr_metric_skips, 0, "metric-skip lines without a case, a name or a reason are not taken");
	is_int(res.bad_metrics, 5, "each is counted as a bad metric line");
	ok(has_problem(&res, "5 metric line(s) do not parse, the first at line 3"), "and reported");
	ktap_release(&res);

	if (load(&sb, "host-run.txt")) {
		ok(0, "host-run.txt loads");
	} else {
		ktap_parse(&res, sb.buf, sb.len);
		ok(!res.clocksource && res.clock_resolution_ns == 0 && !res.nr_metric_skips,
		   "a run from before the clock lines has no clocksource, resolution or metric-skip");
		ktap_release(&res);
	}
	strbuf_release(&sb);
}

/* A console of a boot with the tcg-cache plugin: its lines on QEMU's stderr among the guest's. */
static const char *modelled_console =
	"mkseries-cycles: model l1d=48K/12 l2=2048K/16+16 llc=36864K/12+70 mem+350 dtlb=96/6 stlb=2048/16+7 walk+30 stores=buffered rep=line user_page=4K line=64 physical\n"
	"KTAP version 1\n"
	"1..2\n"
	"mkseries-cycles: region=1 insns=1000 l1d_misses=100 l2_misses=50 llc_misses=10 dtlb_misses=20 page_walks=2 l1d_store_misses=60 l2_store_misses=40 llc_store_misses=5 rep_elements=512 rep_lines=64 tlb_flushes=3 tlb_page_flushes=1 cycles=9000\n"
	"# region: realloc_rate 10 call\n"
	"mkseries-cycles: region=2 insns=3000 l1d_misses=300 l2_misses=150 llc_misses=30 dtlb_misses=60 page_walks=6 cycles=33000 a_later_key=7\n"
	"# region: realloc_rate 30 call\n"
	"# metric: realloc_rate calls_per_sec 5 calls/s higher_is_better\n"
	"ok 1 realloc_rate\n"
	"mkseries-cycles: region=3 insns=500 l1d_misses=5 l2_misses=0 llc_misses=0 dtlb_misses=1 page_walks=0 cycles=800\n"
	"# region: mremap_pte_loop 100 iteration\n"
	"ok 2 mremap_pte_loop\n"
	"# mm-regress: done\n"
	"mkseries-cycles: total regions=3 markers=6 unmatched_ends=0 insns=1 l1d_misses=1 l2_misses=1 llc_misses=1 dtlb_misses=1 page_walks=1 cycles=1\n";

static void test_modelled(void)
{
	struct ktap_result res;
	const struct ktap_metric *m;
	struct strbuf sb = STRBUF_INIT;

	is_int(parse_str(&res, modelled_console), 0, "a console with the plugin's lines parses");
	is_int(ktap_all_good(&res), 1, "its lines are no problem");
	is_int(res.nr_modelled_regions, 3, "three regions joined");
	m = ktap_find_metric(&res, "realloc_rate", "modelled_cycles");
	ok(m && m->value == 1000 && m->nr_samples == 2 && m->samples[0] == 900 &&
	   m->samples[1] == 1100 && !strcmp(m->unit, "cycles/call") &&
	   m->direction == KTAP_LOWER_IS_BETTER,
	   "realloc_rate modelled_cycles: one sample a region, per call (900, 1100), "
	   "keys it does not know skipped before and after cycles=");
	m = ktap_find_metric(&res, "realloc_rate", "llc_misses");
	ok(m && m->value == 1 && m->stddev == 0 && !strcmp(m->unit, "misses/call"),
	   "realloc_rate llc_misses: 1 per call in both");
	m = ktap_find_metric(&res, "mremap_pte_loop", "dtlb_misses");
	ok(m && m->value == 0.01 && m->n == 1 && !strcmp(m->unit, "misses/iteration"),
	   "mremap_pte_loop dtlb_misses: 1 in 100 iterations");
	ok(ktap_find_metric(&res, "mremap_pte_loop", "page_walks") &&
	   ktap_find_metric(&res, "mremap_pte_loop", "instructions") &&
	   ktap_find_metric(&res, "mremap_pte_loop", "l1d_misses") &&
	   ktap_find_metric(&res, "mremap_pte_loop", "l2_misses"),
	   "and the other counters");
	ktap_release(&res);

	/* Without the plugin, the region lines make nothing. */
	strbuf_addstr(&sb, "KTAP version 1\n1..1\n# region: realloc_rate 10 call\nok 1 realloc_rate\n# mm-regress: done\n");
	parse_str(&res, sb.buf);
	ok(ktap_all_good(&res) && !ktap_find_metric(&res, "realloc_rate", "modelled_cycles"),
	   "region lines without the plugin's: no modelled metrics, no problem");
	ktap_release(&res);

	/* A start marker whose region never ended: numbers skip, nothing is joined. */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "KTAP version 1\n1..1\n"
		      "mkseries-cycles: region=1 insns=1 l1d_misses=1 l2_misses=1 llc_misses=1 dtlb_misses=1 page_walks=1 cycles=1\n"
		      "# region: realloc_rate 10 call\n"
		      "mkseries-cycles: region=3 insns=1 l1d_misses=1 l2_misses=1 llc_misses=1 dtlb_misses=1 page_walks=1 cycles=1\n"
		      "# region: realloc_rate 10 call\nok 1 realloc_rate\n# mm-regress: done\n");
	parse_str(&res, sb.buf);
	ok(!ktap_find_metric(&res, "realloc_rate", "modelled_cycles") &&
	   has_problem(&res, "the tcg-cache plugin's regions and mm-regress's '# region:' lines are out of step at line 5"),
	   "regions out of step join nothing and say where");
	ktap_release(&res);
	strbuf_release(&sb);
}

static void test_image(void)
{
	char path[] = "/tmp/test-ktap-image.XXXXXX";
	size_t len;
	const char *img = mm_regress_image(&len);
	struct stat st;
	int fd;

	ok(len > 4096 && !memcmp(img, "\177ELF", 4), "mkseries carries an ELF mm-regress");
	fd = mkstemp(path);
	if (fd >= 0)
		close(fd);
	chmod(path, 0600);
	is_int(mm_regress_write(path), 0, "mm_regress_write() writes it over an existing file");
	ok(!stat(path, &st) && (st.st_mode & 07777) == 0755 && (size_t)st.st_size == len,
	   "with mode 0755 and the full size");
	unlink(path);
	is_int(mm_regress_write("/nonexistent-dir/init"), -1,
	       "mm_regress_write() into a missing directory fails (error: cannot create '/nonexistent-dir/init')");
}

int main(int argc, char **argv)
{
	find_data_dir(argv[0], "MKSERIES_TEST_DATA", "ktap");
	test_host_run();
	test_guest_clean();
	test_guest_oops();
	test_splat_kinds();
	test_no_false_splats();
	test_empty_lines();
	test_result_lines();
	test_clock_lines();
	test_modelled();
	test_image();
	return tap_done();
}
