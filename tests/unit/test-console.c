/* test-console.c: real consoles recorded from mkseries boots, read by the KTAP parser and the splat finder. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "console/console.h"
#include "console/ktap.h"
#include "results/results.h"
#include "fixture.h"
#include "tap.h"
#include "lib/util.h"

/* The line `n` (1-based) of text without its line end, into a static buffer. */
static const char *line_of(const char *text, size_t n)
{
	static char buf[512];
	const char *p = text, *eol;

	while (--n && (p = strchr(p, '\n')))
		p++;
	if (!p)
		return "";
	eol = strchrnul(p, '\n');
	if (eol > p && eol[-1] == '\r')
		eol--;
	snprintf(buf, sizeof(buf), "%.*s", (int)(eol - p), p);
	return buf;
}

static void test_clean(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result k;
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	ktap_result_init(&k);
	if (load(&sb, "clean-6.12.log")) {
		ok(0, "clean-6.12.log is there");
		return;
	}
	is_int(ktap_parse(&k, sb.buf, sb.len), 0, "a clean 6.12 boot has KTAP");
	ok(ktap_all_good(&k), "every case ok or skipped, plan complete, done marker seen");
	is_int(k.nr_fail, 0, "no failure");
	ok(k.nr_pass >= 10, "at least ten cases passed (%zu)", k.nr_pass);
	ok(k.done, "the done marker is there");
	is_int(console_find_splat(&splat, sb.buf, sb.len), 0, "no splat on a clean boot");
	console_splat_release(&splat);
	ktap_release(&k);
	strbuf_release(&sb);
}

static void test_warning(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result k;
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	ktap_result_init(&k);
	if (load(&sb, "warning-6.12.log")) {
		ok(0, "warning-6.12.log is there");
		return;
	}
	is_int(console_find_splat(&splat, sb.buf, sb.len), 1, "the kit's WARN_ON_ONCE is found");
	is_int(splat.kind, SPLAT_WARNING, "as a warning");
	ok(splat.text && strstr(splat.text, "WARNING: CPU:") && strstr(splat.text, "mm/mremap.c"),
	   "its line names mm/mremap.c: %s", splat.text ? splat.text : "(none)");
	is_str(line_of(sb.buf, splat.line), splat.text, "the line number points at that line");
	ktap_parse(&k, sb.buf, sb.len);
	ok(k.done, "the run still finished: a WARN does not stop the machine");
	console_splat_release(&splat);
	ktap_release(&k);
	strbuf_release(&sb);
}

static void test_panic(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ktap_result k;
	struct console_splat splat = CONSOLE_SPLAT_INIT;

	ktap_result_init(&k);
	if (load(&sb, "panic-no-init-6.12.log")) {
		ok(0, "panic-no-init-6.12.log is there");
		return;
	}
	is_int(console_find_splat(&splat, sb.buf, sb.len), 1, "a kernel without an init panics");
	is_int(splat.kind, SPLAT_PANIC, "as a panic");
	ok(splat.text && strstr(splat.text, "Kernel panic - not syncing"), "its line: %s",
	   splat.text ? splat.text : "(none)");
	is_int(ktap_parse(&k, sb.buf, sb.len), MKS_ENOTFOUND, "and mm-regress never started");
	console_splat_release(&splat);
	ktap_release(&k);
	strbuf_release(&sb);
}

/*
 * Consoles the test step and the report used to judge apart: each is
 * read back as the report does (cell_read_console()) and judged as the
 * test step does (console_judge(), one boot), and both must agree.
 */
static void test_one_judge(void)
{
	/* Complete, every case ok, but a metric line was lost. */
	static const char lost_metric[] =
		"KTAP version 1\n1..1\n# machine: x86_64\n"
		"# metric: t lat abc us lower_is_better\n"
		"ok 1 t\n# mm-regress: done\n";
	/* A case failed, then the run stopped before its plan was done. */
	static const char failed_then_cut[] =
		"KTAP version 1\n1..3\n# machine: x86_64\n"
		"ok 1 a\n# b: pte not cleared\nnot ok 2 b\n";
	struct console_rules rules = { .machine = "x86_64" };
	struct console_verdict v;
	struct cell_result c;
	const char *text;
	size_t len;

	text = lost_metric;
	len = strlen(text);
	console_judge(&v, &text, &len, 1, &rules);
	is_int(v.rule, CONSOLE_CUT_SHORT, "test step: a lost metric line is a run cut short");
	console_verdict_release(&v);
	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("base");
	cell_read_console(&c, text, len, NULL);
	is_int(c.tests.status, CHECK_FAILED, "report: so are the tests that lost it");
	ok(c.tests.evidence && strstr(c.tests.evidence, "1 metric line(s) do not parse"),
	   "report: saying which line (%s)", c.tests.evidence ? c.tests.evidence : "");
	cell_result_release(&c);

	text = failed_then_cut;
	len = strlen(text);
	console_judge(&v, &text, &len, 1, &rules);
	is_int(v.rule, CONSOLE_CASE_FAILED, "test step: a failed case comes before the cut it led to");
	ok(v.e.first_fail && !strcmp(v.e.first_fail->name, "b"), "test step: the case is b");
	console_verdict_release(&v);
	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("base");
	cell_read_console(&c, text, len, NULL);
	is_str(c.tests.evidence, "not ok 2 b: b: pte not cleared", "report: the same case");
	cell_result_release(&c);

	rules.machine = "aarch64";
	console_judge(&v, &text, &len, 1, &rules);
	ok(v.rule == CONSOLE_WRONG_MACHINE && v.machine && !strcmp(v.machine, "x86_64"),
	   "a run on another machine than the branch's says nothing about its cases");
	console_verdict_release(&v);
}

int main(int argc, char **argv)
{
	find_data_dir(argv[0], "MKSERIES_CONSOLE_DATA", "console");
	test_clean();
	test_warning();
	test_panic();
	test_one_judge();
	return tap_done();
}
