/* test-report.c: unit tests for the report formats, reading and merging JSON reports, and the fan-out plan. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitutil.h"
#include "model.h"
#include "plan.h"
#include "report.h"
#include "results.h"
#include "tap.h"
#include "util.h"
#include "verdict.h"

static const char *data_dir;

/* The fixtures live in tests/data/results: from the source tree, or next to build-x/tests/. */
static void find_data_dir(const char *argv0)
{
	static char buf[4096];
	const char *slash = strrchr(argv0, '/');

	data_dir = getenv("MKSERIES_TEST_DATA_RESULTS");
	if (data_dir)
		return;
	if (dir_exists("tests/data/results")) {
		data_dir = "tests/data/results";
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s/../../tests/data/results", slash ? (int)(slash - argv0) : 1,
		 slash ? argv0 : ".");
	data_dir = buf;
}

static int load(struct run_results *r, const char *name)
{
	char *path = path_join(data_dir, name);
	int ret = results_load_json(r, path);

	free(path);
	return ret;
}

static void render(struct strbuf *sb, const struct run_results *r, enum report_format fmt, int color)
{
	struct report_opts ro = { color };

	strbuf_reset(sb);
	report_render(sb, r, fmt, &ro);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* Run a checker (python3 -m json.tool, xmllint) on text; -1 when it is not installed. */
static int external_check(const char *text, const char *prog, ...)
{
	struct child c = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *arg;
	va_list ap;
	int status;

	strvec_push(&c.argv, prog);
	va_start(ap, prog);
	while ((arg = va_arg(ap, const char *)))
		strvec_push(&c.argv, arg);
	va_end(ap);
	c.in = text;
	c.out = &out;
	c.err_to_out = 1;
	status = child_run(&c);
	if (status == 127)
		status = -1;
	else if (status)
		printf("# %s said:\n%s", prog, out.buf);
	child_release(&c);
	strbuf_release(&out);
	return status;
}

/* Display columns of each line: code points, so "±" counts one. */
static size_t widest_line(const char *s, size_t *line_no)
{
	size_t w = 0, best = 0, line = 1;

	*line_no = 0;
	for (; *s; s++) {
		if (*s == '\n') {
			w = 0;
			line++;
			continue;
		}
		if (((unsigned char)*s & 0xc0) != 0x80 && ++w > best) {
			best = w;
			*line_no = line;
		}
	}
	return best;
}

static void test_load(void)
{
	struct run_results r;
	const struct branch_result *b;
	const struct cell_result *c;

	results_init(&r);
	is_int(load(&r, "three-branches.json"), 0, "load: the fixture reads");
	is_int(r.nr_branches, 3, "load: three branches");
	b = results_find_branch(&r, "6.1");
	ok(b && b->apply.status == CHECK_CONFLICT && b->nr_series == 3,
	   "load: 6.1 conflicted, with its series");
	c = b ? branch_find_cell(b, "kit") : NULL;
	ok(c && c->apply.status == CHECK_CONFLICT && c->build.status == CHECK_SKIPPED,
	   "load: 6.1 kit is a conflict, its build skipped");
	b = results_find_branch(&r, "6.12");
	c = b ? branch_find_cell(b, "kit") : NULL;
	ok(c && c->nr_metrics == 3 && c->metrics[0].nr_samples == 5 && c->nr_cases == 4,
	   "load: 6.12 kit has its metrics, samples and cases");
	is_str(r.tester, "Back Porter <backporter@example.com>", "load: the tester");
	results_release(&r);
}

static void test_json(void)
{
	struct run_results r, again;
	struct strbuf one = STRBUF_INIT, two = STRBUF_INIT;
	int status;

	results_init(&r);
	results_init(&again);
	load(&r, "three-branches.json");
	render(&one, &r, REPORT_JSON, 0);
	ok(starts_with(one.buf, "{\n  \"schema\": 1,"), "json: opens with the schema version");
	ok(strstr(one.buf, "\"status\": \"failed\"") != NULL, "json: the run failed");
	ok(strstr(one.buf, "\"verdict\": \"regression\"") != NULL, "json: the regression is there");
	ok(strstr(one.buf, "\"emulated\": true") != NULL, "json: the tcg cell is marked emulated");
	is_int(results_parse_json(&again, "rendered", one.buf, one.len), 0,
	       "json: the rendered report reads back");
	render(&two, &again, REPORT_JSON, 0);
	is_str(two.buf, one.buf, "json: and renders the same again");
	status = external_check(one.buf, "python3", "-m", "json.tool", NULL);
	if (status < 0)
		ok(1, "# SKIP python3 is not installed");
	else
		is_int(status, 0, "json: python3 -m json.tool accepts it");
	strbuf_release(&one);
	strbuf_release(&two);
	results_release(&r);
	results_release(&again);
}

static void test_junit(void)
{
	struct run_results r;
	struct strbuf sb = STRBUF_INIT;
	int status;

	results_init(&r);
	load(&r, "three-branches.json");
	render(&sb, &r, REPORT_JUNIT, 0);
	ok(starts_with(sb.buf, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "),
	   "junit: an XML declaration and <testsuites>");
	is_int(count(sb.buf, "<testsuite "), 6, "junit: a testsuite per cell");
	is_int(count(sb.buf, "</testsuite>"), 6, "junit: each closed");
	/* 4 checks a cell (or mm-regress for missing cases), 13 cases, 3 metrics of 6.12 kit. */
	is_int(count(sb.buf, "<testcase "), 42, "junit: a testcase per check, case and metric");
	ok(strstr(sb.buf, "<testcase classname=\"6.1/kit\" name=\"apply\"") &&
	   strstr(sb.buf, "type=\"conflict\""), "junit: the conflict is a failure of apply");
	ok(strstr(sb.buf, "name=\"build\"") && strstr(sb.buf, "folio_pte_batch"),
	   "junit: the build failure carries the compiler error");
	ok(strstr(sb.buf, "type=\"regression\"") != NULL, "junit: the regression is a failure");
	ok(strstr(sb.buf, "classname=\"6.12/kit/mm-regress\" name=\"madvise_batch\"") &&
	   strstr(sb.buf, "<skipped message=\"needs 256 MiB\"/>"), "junit: a skipped case is skipped");
	ok(strstr(sb.buf, "failures=\"5\"") != NULL, "junit: 5 failures in all");
	status = external_check(sb.buf, "xmllint", "--noout", "-", NULL);
	if (status < 0)
		ok(1, "# SKIP xmllint is not installed");
	else
		is_int(status, 0, "junit: xmllint finds it well-formed");
	strbuf_release(&sb);
	results_release(&r);
}

static void test_markdown(void)
{
	struct run_results r;
	struct strbuf sb = STRBUF_INIT;
	size_t line, w;

	results_init(&r);
	load(&r, "three-branches.json");
	render(&sb, &r, REPORT_MARKDOWN, 0);
	w = widest_line(sb.buf, &line);
	ok(w <= REPORT_MARKDOWN_WIDTH, "markdown: no line passes 72 columns (line %zu has %zu)", line, w);
	ok(strstr(sb.buf, "| series ") && strstr(sb.buf, "| mremap-pte-batch | skipped | conflict |"),
	   "markdown: the series matrix");
	ok(strstr(sb.buf, "| 6.1 kit   | conflict |") != NULL, "markdown: the cell matrix");
	ok(strstr(sb.buf, "    5.10 kit: build: mm/mremap.c:312:17: error:") != NULL,
	   "markdown: problems with their evidence");
	ok(strstr(sb.buf, "+23.8%") && strstr(sb.buf, "(worse)"), "markdown: the regression");
	ok(strstr(sb.buf, "No branch passed every check: no Tested-by.") != NULL,
	   "markdown: no Tested-by when nothing passed");
	ok(!strchr(sb.buf, '\033') && !strchr(sb.buf, '\t'), "markdown: no escapes, no tabs");
	results_release(&r);

	results_init(&r);
	load(&r, "all-good.json");
	render(&sb, &r, REPORT_MARKDOWN, 0);
	ok(strstr(sb.buf, "\nTested-by: Back Porter <backporter@example.com> # 6.17\n") != NULL,
	   "markdown: a Tested-by line for the branch that passed");
	w = widest_line(sb.buf, &line);
	ok(w <= REPORT_MARKDOWN_WIDTH, "markdown: all good fits too (line %zu has %zu)", line, w);
	strbuf_release(&sb);
	results_release(&r);
}

/* Too many branches for 72 columns: the series matrix is split, the first column repeated. */
static void test_wide_markdown(void)
{
	static const char *const names[] = { "4.19", "5.4", "5.10", "5.15", "6.1", "6.6", "6.12",
					     "6.17", "7.0" };
	struct run_results r;
	struct strbuf sb = STRBUF_INIT;
	size_t i, line, w;

	results_init(&r);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		struct branch_result *b = results_branch(&r, names[i]);

		branch_add_series(b, "process-madvise-mmap-lock", NULL)->state = SERIES_CONFLICT;
		branch_add_series(b, "mremap-pte-batch", NULL)->state = SERIES_APPLIED;
	}
	render(&sb, &r, REPORT_MARKDOWN, 0);
	w = widest_line(sb.buf, &line);
	ok(w <= REPORT_MARKDOWN_WIDTH, "wide: nine branches fit in 72 columns (line %zu has %zu)",
	   line, w);
	ok(count(sb.buf, "| series ") >= 2, "wide: the series matrix is split in parts");
	ok(strstr(sb.buf, "| 7.0 ") != NULL, "wide: and no branch is lost");
	strbuf_release(&sb);
	results_release(&r);
}

static void test_text(void)
{
	struct run_results r;
	struct strbuf sb = STRBUF_INIT;

	results_init(&r);
	load(&r, "three-branches.json");
	render(&sb, &r, REPORT_TEXT, 0);
	ok(!strchr(sb.buf, '\033'), "text: no colour unless asked");
	ok(strstr(sb.buf, "mremap-pte-batch  skipped  conflict  applied") != NULL,
	   "text: the branch x series matrix");
	ok(strstr(sb.buf, "5.10 base  -         ok      ok tcg  1 FAILED, 0 ok  SPLAT") != NULL,
	   "text: the branch x variant matrix");
	ok(strstr(sb.buf, "%stddev     %change         %stddev") &&
	   strstr(sb.buf, "     10.10 \xc2\xb1  2%     +23.8%      12.50 \xc2\xb1  1%  perf_loop.us_per_iteration (us)  (worse)"),
	   "text: the kernel test robot's layout");
	ok(strstr(sb.buf, "6 cells: 3 ok, 2 failed, 1 conflict; 1 regression, 1 improvement") != NULL,
	   "text: the summary");
	render(&sb, &r, REPORT_TEXT, 1);
	ok(strstr(sb.buf, "\033[31mconflict\033[m") != NULL, "text: colours on request");
	strbuf_release(&sb);
	results_release(&r);
}

static void test_hostile(void)
{
	struct run_results r, again;
	struct strbuf sb = STRBUF_INIT;

	results_init(&r);
	results_init(&again);
	is_int(load(&r, "hostile.json"), 0, "hostile: reads");
	render(&sb, &r, REPORT_TEXT, 1);
	ok(!strstr(sb.buf, "\033[2J") && !strstr(sb.buf, "\033]0;") && !strchr(sb.buf, '\a'),
	   "hostile: no escape sequence from the console reaches the terminal");
	ok(strstr(sb.buf, "?[2J?[31mred") != NULL, "hostile: they are shown defused");
	render(&sb, &r, REPORT_JUNIT, 0);
	ok(strstr(sb.buf, "name=\"evil&lt;&amp;&gt;\"") &&
	   strstr(sb.buf, "message=\"not ok evil&lt;&amp;&gt;: ?]0;title? tab?here\""),
	   "hostile: XML is escaped, control characters defused");
	ok(!strchr(sb.buf, '\033') && !strchr(sb.buf, '\a'), "hostile: no control characters in XML");
	render(&sb, &r, REPORT_JSON, 0);
	ok(!strchr(sb.buf, '\033') && strstr(sb.buf, "tab\\there"),
	   "hostile: JSON escapes tabs and drops escapes");
	is_int(results_parse_json(&again, "hostile-rendered", sb.buf, sb.len), 0,
	       "hostile: the JSON reads back");
	render(&sb, &r, REPORT_MARKDOWN, 0);
	ok(!strchr(sb.buf, '\033'), "hostile: markdown is clean");
	strbuf_release(&sb);
	results_release(&r);
	results_release(&again);
}

static void test_merge(void)
{
	struct run_results r;
	const struct branch_result *b;
	struct branch_comparison bc;

	results_init(&r);
	is_int(load(&r, "cell-6.12-base.json"), 0, "merge: the base job's report");
	is_int(load(&r, "cell-6.12-kit.json"), 0, "merge: the kit job's report");
	b = results_find_branch(&r, "6.12");
	ok(b && b->nr_cells == 2 && !strcmp(b->cells[0].variant, "base"),
	   "merge: one branch, base and kit");
	ok(b && b->apply.status == CHECK_OK && b->nr_series == 3,
	   "merge: apply and series come from the kit job");
	branch_compare(&bc, b);
	is_int(bc.nr_regressions, 1, "merge: the verdicts are computed across jobs");
	branch_comparison_release(&bc);
	fprintf(stderr, "# expected warning below:\n");
	is_int(load(&r, "cell-6.12-kit.json"), 0, "merge: the same cell twice");
	b = results_find_branch(&r, "6.12");
	ok(b && b->nr_cells == 2, "merge: is kept once");
	results_release(&r);
}

static void test_bad_json(void)
{
	static const char *const bad[][2] = {
		{ "{\"schema\": 1, \"branches\": [", "truncated" },
		{ "{\"schema\": 2, \"branches\": []}", "a newer schema" },
		{ "{\"branches\": []}", "no schema" },
		{ "{\"schema\": 1, \"branches\": {}}", "branches not an array" },
		{ "{\"schema\": 1, \"branches\": [{\"name\": \"x\", \"cells\": [{\"variant\": \"../evil\", \"checks\": {}}]}]}",
		  "a variant name unfit for a file name" },
		{ "{\"schema\": 1, \"branches\": [{\"name\": \"x\", \"apply\": {\"status\": \"great\"}}]}",
		  "an unknown status" },
		{ "{\"schema\": 1, \"branches\": [{\"name\": \"../x\"}]}", "a branch name with a slash" },
		{ "{\"schema\": 1, \"branches\": []} x", "trailing garbage" },
		{ "{\"schema\": 1, \"tester\": \"a\\u0000b\", \"branches\": []}", "a NUL in a string" },
		{ "{\"schema\": 1, \"branches\": [], \"x\": 1e999}", "a number out of range" },
		{ "[1, 2,]", "a trailing comma" },
	};
	struct strbuf deep = STRBUF_INIT;
	size_t i;

	fprintf(stderr, "# expected errors below:\n");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct run_results r;

		results_init(&r);
		is_int(results_parse_json(&r, "bad.json", bad[i][0], strlen(bad[i][0])), MKS_ECONFIG,
		       "bad report: %s is refused", bad[i][1]);
		ok(r.nr_branches == 0, "bad report: %s adds nothing", bad[i][1]);
		results_release(&r);
	}
	for (i = 0; i < 200; i++)
		strbuf_addch(&deep, '[');
	{
		struct run_results r;

		results_init(&r);
		is_int(results_parse_json(&r, "deep.json", deep.buf, deep.len), MKS_ECONFIG,
		       "bad report: 200 nested arrays are refused, not recursed into");
		results_release(&r);
	}
	strbuf_release(&deep);
}

/* A cell that built, booted and ran, with one metric of five samples around `mean`. */
static struct cell_result *variant_cell(struct branch_result *b, const char *variant, double mean)
{
	struct cell_result *c = branch_cell(b, variant);
	double v[5];
	size_t i;

	for (i = 0; i < 5; i++)
		v[i] = mean + (double)i - 2;
	check_set(&c->apply, strcmp(variant, "base") ? CHECK_OK : CHECK_NA, NULL);
	check_set(&c->build, CHECK_OK, NULL);
	check_set(&c->boot, CHECK_OK, NULL);
	check_set(&c->tests, CHECK_OK, NULL);
	check_set(&c->splats, CHECK_OK, NULL);
	c->accel = xstrdup("tcg");
	c->mode = xstrdup("quick");
	c->repeat = 5;
	c->nr_pass = 2;
	cell_add_case(c, "realloc_rate", KTAP_PASS, NULL);
	cell_add_metric(c, "realloc_rate", "calls_per_sec", "calls/s", KTAP_HIGHER_IS_BETTER, 5, mean,
			1.58, v, 5);
	return c;
}

static void test_variants(void)
{
	struct run_results r, again;
	struct strbuf sb = STRBUF_INIT, two = STRBUF_INIT;
	struct branch_result *b;
	struct cell_result *c;
	const struct cell_result *back;
	size_t line, w;

	results_init(&r);
	results_init(&again);
	b = results_branch(&r, "6.12");
	variant_cell(b, "base", 1000);
	variant_cell(b, "kit", 1000);
	variant_cell(b, "no-hotfix", 700);
	c = variant_cell(b, "no-fixes", 690);
	c->without = xstrdup("0b5be138ce00, 04d1c9d60c6e");
	cell_expect_fail(c, "pte_batch_wrbit");
	cell_add_case(c, "pte_batch_wrbit", KTAP_FAIL, "the child saw the write");
	c->nr_xfail = 1;
	c->expected = xstrdup("pte_batch_wrbit failed as expected: shows 0b5be138ce00, 04d1c9d60c6e matter");
	check_set(&c->tests, CHECK_OK, c->expected);

	render(&sb, &r, REPORT_TEXT, 0);
	ok(strstr(sb.buf, "\n6.12: kit, no-hotfix, no-fixes against base, mm-regress quick, 5 samples a metric") != NULL,
	   "variants: one table, every compared cell named");
	ok(strstr(sb.buf, "\n        base                         kit                   no-hotfix                    no-fixes\n") != NULL,
	   "variants: base, then each column under its name");
	ok(strstr(sb.buf, "\n---------------- --------------------------- --------------------------- ---------------------------\n") != NULL,
	   "variants: a rule per column");
	ok(strstr(sb.buf, "      1000 \xc2\xb1  0%      +0.0%       1000 \xc2\xb1  0%     -30.0%        700 \xc2\xb1  0%     -31.0%        690 \xc2\xb1  0%  realloc_rate.calls_per_sec (calls/s)  (no-hotfix worse, no-fixes worse)\n") != NULL,
	   "variants: the metric of the kit and of each variant side by side");
	ok(strstr(sb.buf, "6.12 no-fixes   ok     ok     ok tcg  2 ok, 1 xfail  none    -31.0% realloc_rate.calls_per_sec (worse)") != NULL,
	   "variants: a row of the matrix each");
	ok(strstr(sb.buf, "expected failures:\n  6.12 no-fixes: pte_batch_wrbit failed as expected: shows 0b5be138ce00, 04d1c9d60c6e matter\n") != NULL,
	   "variants: what the expected failure showed");
	ok(strstr(sb.buf, "4 cells: 4 ok; 0 regressions, 0 improvements (variants: 2 worse, 0 better); 1 expected failure") != NULL,
	   "variants: their regressions are counted apart");

	render(&sb, &r, REPORT_MARKDOWN, 0);
	w = widest_line(sb.buf, &line);
	ok(w <= REPORT_MARKDOWN_WIDTH, "variants: markdown fits in 72 columns (line %zu has %zu)", line, w);
	is_int(count(sb.buf, "\n    --------------- ------------------------"), 2,
	       "variants: markdown takes two compared columns a table");
	ok(strstr(sb.buf, "\n           base                      kit                no-hotfix\n") != NULL,
	   "variants: kit and no-hotfix side by side");
	ok(strstr(sb.buf, "Tested-by: ") != NULL || strstr(sb.buf, "Passed on: 6.12") != NULL,
	   "variants: an expected failure does not stop a Tested-by");

	render(&sb, &r, REPORT_JSON, 0);
	ok(strstr(sb.buf, "\"comparisons\": [") && count(sb.buf, "\"variant\": \"no-hotfix\"") == 2,
	   "variants: json has the cell and its comparison");
	ok(strstr(sb.buf, "\"expect_fail\": [\n            \"pte_batch_wrbit\"\n          ]") != NULL,
	   "variants: json has what the variant expects to fail");
	is_int(results_parse_json(&again, "variants.json", sb.buf, sb.len), 0, "variants: json reads back");
	back = branch_find_cell(results_find_branch(&again, "6.12"), "no-fixes");
	ok(back && back->nr_expect_fail == 1 && back->nr_xfail == 1 && back->without &&
	   !strcmp(back->without, "0b5be138ce00, 04d1c9d60c6e") && back->nr_cases == 2 &&
	   back->cases[1].expected_fail && back->expected,
	   "variants: with its expectations");
	ok(again.nr_branches == 1 && again.branches[0].nr_cells == 4 &&
	   !strcmp(again.branches[0].cells[2].variant, "no-hotfix") &&
	   !strcmp(again.branches[0].cells[3].variant, "no-fixes"),
	   "variants: in their order");
	render(&two, &again, REPORT_JSON, 0);
	is_str(two.buf, sb.buf, "variants: and renders the same again");

	render(&sb, &r, REPORT_JUNIT, 0);
	ok(strstr(sb.buf, "<testcase classname=\"6.12/no-fixes/mm-regress\" name=\"pte_batch_wrbit\" time=\"0.000\"/>") != NULL,
	   "variants: junit passes the expected failure");
	strbuf_release(&sb);
	strbuf_release(&two);
	results_release(&r);
	results_release(&again);
}

static void test_plan_json(void)
{
	struct kit kit = KIT_INIT;
	struct plan plans[2] = { PLAN_INIT, PLAN_INIT };
	const struct plan *ptrs[2];
	struct strbuf sb = STRBUF_INIT;
	char *dir = path_join(data_dir, "kit");
	size_t i;
	int status;

	if (kit_load(&kit, dir)) {
		ok(0, "plan: the fixture kit loads");
		free(dir);
		return;
	}
	is_int(kit.nr_branches, 2, "plan: two branches in the fixture kit");
	for (i = 0; i < 2 && i < kit.nr_branches; i++) {
		plan_build(&plans[i], &kit, &kit.branches[i]);
		ptrs[i] = &plans[i];
	}
	plan_render_json(&sb, ptrs, 2);
	ok(strstr(sb.buf, "\"kind\": \"plan\"") != NULL, "plan: says what it is");
	is_int(count(sb.buf, "\"variant\": \""), 4, "plan: a cell per branch x variant");
	ok(strstr(sb.buf, "\"run\": [\n        \"mkseries\",\n        \"run\",\n        \"--branch\",\n"
			  "        \"new\",\n        \"--variant\",\n        \"kit\",") != NULL,
	   "plan: each cell has the command a CI job runs");
	ok(strstr(sb.buf, "\"report\": \"mkseries-old-base.json\"") != NULL,
	   "plan: and the report it writes");
	ok(strstr(sb.buf, "\"merge\": [\n    \"mkseries\",\n    \"report\",\n    \"--merge\",") != NULL,
	   "plan: and the command that merges them");
	ok(strstr(sb.buf, "\"state\": \"skipped\",\n          \"detail\": \"needs folio_pte_batch() (v6.9)\"") != NULL,
	   "plan: a skipped series with its reason");
	status = external_check(sb.buf, "python3", "-m", "json.tool", NULL);
	if (status < 0)
		ok(1, "# SKIP python3 is not installed");
	else
		is_int(status, 0, "plan: python3 -m json.tool accepts it");
	for (i = 0; i < 2; i++)
		plan_release(&plans[i]);
	kit_release(&kit);
	strbuf_release(&sb);
	free(dir);
}

int main(int argc, const char **argv)
{
	find_data_dir(argv[0]);
	gitutil_init();
	setenv("NO_COLOR", "1", 1);
	test_load();
	test_json();
	test_junit();
	test_markdown();
	test_wide_markdown();
	test_text();
	test_hostile();
	test_merge();
	test_bad_json();
	test_variants();
	test_plan_json();
	return tap_done();
}
