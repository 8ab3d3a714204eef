/* test-report.c: unit tests for the report formats, reading and merging JSON reports, and the fan-out plan. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/gitutil.h"
#include "kit/model.h"
#include "apply/plan.h"
#include "report/html.h"
#include "report/words.h"
#include "report/report.h"
#include "results/metricindex.h"
#include "results/results.h"
#include "tap.h"
#include "lib/util.h"
#include "results/verdict.h"

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
	struct report_opts ro = { .color = color };

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
	ok(strstr(sb.buf, "\\x1b[2J\\x1b[31mred") != NULL, "hostile: they are shown escaped");
	render(&sb, &r, REPORT_JUNIT, 0);
	ok(strstr(sb.buf, "name=\"evil&lt;&amp;&gt;\"") &&
	   strstr(sb.buf, "message=\"not ok evil&lt;&amp;&gt;: \\x1b]0;title\\x07 tab here\""),
	   "hostile: XML is escaped, control characters too");
	ok(!strchr(sb.buf, '\033') && !strchr(sb.buf, '\a'), "hostile: no control characters in XML");
	render(&sb, &r, REPORT_JSON, 0);
	ok(!strchr(sb.buf, '\033') && strstr(sb.buf, "tab\\there"),
	   "hostile: JSON escapes tabs and drops escapes");
	is_int(results_parse_json(&again, "hostile-rendered", sb.buf, sb.len), 0,
	       "hostile: the JSON reads back");
	render(&sb, &r, REPORT_MARKDOWN, 0);
	ok(!strchr(sb.buf, '\033'), "hostile: markdown is clean");
	render(&sb, &r, REPORT_HTML, 0);
	ok(!strchr(sb.buf, '\033') && !strchr(sb.buf, '\a'), "hostile: HTML has no control characters");
	ok(strstr(sb.buf, "\\x1b[2J\\x1b[31mred&lt;/failure&gt;&lt;x&gt;&amp;amp; &quot;quoted&quot;") &&
	   !strstr(sb.buf, "<x>"), "hostile: HTML escapes the evidence");
	strbuf_release(&sb);
	results_release(&r);
	results_release(&again);
}

static void test_html_escape(void)
{
	struct strbuf sb = STRBUF_INIT;

	report_add_markup(&sb, "<script>alert(1)</script>", 0);
	is_str(sb.buf, "&lt;script&gt;alert(1)&lt;/script&gt;", "html: a script is text");
	strbuf_reset(&sb);
	report_add_markup(&sb, "a \"b\" & 'c' <d>", 0);
	is_str(sb.buf, "a &quot;b&quot; &amp; &#39;c&#39; &lt;d&gt;", "html: quotes and ampersands");
	strbuf_reset(&sb);
	report_add_markup(&sb, "&amp;", 0);
	is_str(sb.buf, "&amp;amp;", "html: an entity in the input stays text");
	strbuf_reset(&sb);
	report_add_markup(&sb, "x\033[2J\033]0;t\a\r\x7f\xc2\x85y\tz\nw", 0);
	is_str(sb.buf, "x\\x1b[2J\\x1b]0;t\\x07\\r\\x7f\\u0085y z\\nw",
	       "html: control characters shown escaped, on one line");
	strbuf_reset(&sb);
	report_add_markup(&sb, "a\n<b>\xff", 1);
	is_str(sb.buf, "a\n&lt;b&gt;\\xff", "html: lines kept, invalid UTF-8 escaped");
	strbuf_reset(&sb);
	report_add_markup(&sb, NULL, 0);
	is_str(sb.buf, "", "html: NULL adds nothing");
	strbuf_release(&sb);
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
	fprintf(stderr, "# expected error below:\n");
	is_int(load(&r, "cell-6.12-kit.json"), MKS_ECONFIG, "merge: the same cell twice is refused");
	b = results_find_branch(&r, "6.12");
	ok(b && b->nr_cells == 2, "merge: and not kept twice");
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
		{ "{\"schema\": 1, \"branches\": [], \"branches\": []}", "a key twice" },
		{ "{\"schema\": 1, \"branches\": [], \"br\\u0061nches\": []}", "a key twice, once escaped" },
		{ "{\"schema\": 1, \"branches\": [], \"tester\": \"\xc3\"}", "a UTF-8 sequence cut short" },
		{ "{\"schema\": 1, \"branches\": [], \"tester\": \"\xc0\xaf\"}", "an overlong UTF-8 form" },
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

static void test_cell_id(void)
{
	static const char *const pairs[][3] = {
		{ "a", "b-c", "a/b-c" },
		{ "a-b", "c", "a-b/c" },
		{ "6.12", "arm64-x", "6.12/arm64-x" },
		{ "6.12-arm64", "x", "6.12-arm64/x" },
		{ "a/b", "c", "a%2Fb/c" },
		{ "a", "b/c", "a/b%2Fc" },
		{ "x+y %", "kit", "x%2By%20%25/kit" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		char *id = cell_id(pairs[i][0], pairs[i][1], '/');

		is_str(id, pairs[i][2], "cell_id: '%s' + '%s'", pairs[i][0], pairs[i][1]);
		free(id);
	}
	{
		char *id = cell_id("6.12-arm64", "x", '+');

		is_str(id, "6.12-arm64+x", "cell_id: '+' joins them for a file name");
		free(id);
	}
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

static void add_claim(struct branch_result *b, enum claim_origin origin, const char *owner,
		      const char *case_name, const char *metric, enum claim_kind kind, double value,
		      const char *why)
{
	struct kit_claim kc;

	memset(&kc, 0, sizeof(kc));
	kc.case_name = (char *)case_name;
	kc.metric = (char *)metric;
	kc.kind = kind;
	kc.value = value;
	kc.than = kind == CLAIM_BETTER || kind == CLAIM_WORSE ? (char *)"base" : NULL;
	kc.why = (char *)why;
	branch_add_claim(b, origin, owner, &kc);
}

/* What kind of time, boots, skipped metrics and claims, in every format, and back from JSON. */
static void test_timing_claims(void)
{
	struct run_results r, again;
	struct strbuf sb = STRBUF_INIT, two = STRBUF_INIT;
	struct branch_result *b;
	struct cell_result *base, *kit;
	struct series_result *sr;
	const struct cell_result *back;
	size_t line, w;
	int status;

	results_init(&r);
	results_init(&again);
	b = results_branch(&r, "6.12");
	base = variant_cell(b, "base", 1000);
	kit = variant_cell(b, "kit", 1300);
	base->timing = kit->timing = TIMING_INSTRUCTIONS;
	base->boots = 2;
	strvec_push(&base->console_logs, "/w/6.12/logs/base-console.log");
	strvec_push(&base->console_logs, "/w/6.12/logs/base-console.2.log");
	kit->boots = 1;
	kit->clocksource = xstrdup("tsc");
	kit->clock_resolution_ns = 1;
	cell_add_metric_skip(kit, "madvise", "cold_batch_1", "shortest interval under 100 x the clock's resolution");
	sr = branch_add_series(b, "pte-batch", "mm: PTE batching");
	sr->state = SERIES_APPLIED;
	add_claim(b, CLAIM_OF_SERIES, "pte-batch", "realloc_rate", "calls_per_sec", CLAIM_BETTER, 20,
		  "the cover letter: 30% more calls");
	add_claim(b, CLAIM_OF_SERIES, "pte-batch", "realloc_rate", "calls_per_sec", CLAIM_BETTER, 50, NULL);
	add_claim(b, CLAIM_OF_BRANCH, "6.12", "madvise", "cold_batch_1", CLAIM_BELOW, 1e6, NULL);
	b->threshold_pct = 3;

	render(&sb, &r, REPORT_TEXT, 0);
	ok(strstr(sb.buf, "\n6.12: kit against base, mm-regress quick, 5 samples a metric, tcg: "
			  "instruction-paced time (TCG icount: instructions at a 1 GHz virtual clock, "
			  "not hardware time: no cache or TLB-miss costs), clock tsc (resolution 1 ns), "
			  "threshold 3%, boots (samples merged): base 2, kit 1\n") != NULL,
	   "text: the table's header says what kind of time, the clock, the threshold, the boots");
	ok(strstr(sb.buf, "(better)\n") != NULL, "text: +30%% instruction-paced is called");
	ok(strstr(sb.buf, "not measured (mm-regress's clock could not resolve them):\n"
			  "  6.12 kit madvise.cold_batch_1: not measured: shortest interval under 100 x "
			  "the clock's resolution\n") != NULL, "text: a skipped metric is not a number");
	ok(strstr(sb.buf, "claims:\n  6.12 kit: series pte-batch: realloc_rate.calls_per_sec better by 20% "
			  "than base (\"the cover letter: 30% more calls\"): held: +30.0% against base") != NULL,
	   "text: a claim that held, with its why and its change");
	ok(strstr(sb.buf, "\n  6.12 kit: series pte-batch: realloc_rate.calls_per_sec better by 50% "
			  "than base: DID NOT HOLD: +30.0% against base") &&
	   strstr(sb.buf, "needed +50% or more (better by 50%), beyond 2 x the spread: "
			  "smaller than claimed\n"), "text: a claim that did not hold, and what was needed");
	ok(strstr(sb.buf, "samples of instruction-paced time, which repeats; needed +50%") &&
	   !strstr(sb.buf, "p="), "text: instruction-paced samples repeat: no p-value shown");
	ok(strstr(sb.buf, "\n  6.12 kit: branch 6.12: madvise.cold_batch_1 below 1e+06: not checked: "
			  "madvise.cold_batch_1 not measured on kit: mm-regress skipped it") != NULL,
	   "text: a claim on a skipped metric is not checked");
	ok(strstr(sb.buf, "problems:\n  6.12 kit: claim did not hold: series pte-batch: "
			  "realloc_rate.calls_per_sec better by 50% than base\n") != NULL,
	   "text: the claim that did not hold is a problem of the cell");
	ok(strstr(sb.buf, "6.12 kit   ok     ok     ok tcg  0 ok   none    +30.0%") != NULL ||
	   strstr(sb.buf, "6.12 kit ") != NULL, "text: the kit's row");
	ok(strstr(sb.buf, "2 cells: 1 ok, 1 failed; 0 regressions, 1 improvement; claims: 1 held, "
			  "1 did not hold, 1 not checked\n") != NULL, "text: the summary counts the claims");

	render(&sb, &r, REPORT_MARKDOWN, 0);
	w = widest_line(sb.buf, &line);
	ok(w <= REPORT_MARKDOWN_WIDTH, "markdown: fits in 72 columns (line %zu has %zu)", line, w);
	ok(strstr(sb.buf, "mm-regress quick, 5 samples a metric, tcg: instruction-paced time (TCG\n"
			  "icount: instructions at a 1 GHz virtual clock, not hardware time: no\n"
			  "cache or TLB-miss costs)") != NULL,
	   "markdown: the table's header says what kind of time");
	ok(strstr(sb.buf, "\nClaims:\n\n    6.12 kit: series pte-batch: realloc_rate.calls_per_sec better by 20%\n") != NULL,
	   "markdown: a claims section");
	ok(strstr(sb.buf, "DID NOT HOLD") && strstr(sb.buf, "not checked") && strstr(sb.buf, "held"),
	   "markdown: every outcome");
	ok(strstr(sb.buf, "Not measured (mm-regress's clock could not resolve them):\n\n"
			  "    6.12 kit madvise.cold_batch_1: not measured:") != NULL,
	   "markdown: the skipped metric");
	ok(strstr(sb.buf, "No branch passed every check: no Tested-by.") != NULL,
	   "markdown: a claim that did not hold stops the Tested-by");

	render(&sb, &r, REPORT_JSON, 0);
	status = external_check(sb.buf, "python3", "-m", "json.tool", NULL);
	ok(status <= 0, "json: valid (python3 %s)", status < 0 ? "not installed" : "says so");
	ok(strstr(sb.buf, "\"timing\": \"instructions\",\n          \"timing_note\": \"instruction-paced time (TCG icount") &&
	   strstr(sb.buf, "\"emulated\": false"), "json: the cell's kind of time");
	ok(strstr(sb.buf, "\"boots\": 2,") && strstr(sb.buf, "\"console_logs\": [\n            \"/w/6.12/logs/base-console.log\",\n            \"/w/6.12/logs/base-console.2.log\"\n          ]"),
	   "json: the boots and every console");
	ok(strstr(sb.buf, "\"clock\": {\n            \"source\": \"tsc\",\n            \"resolution_ns\": 1\n          }") != NULL,
	   "json: the clock");
	ok(strstr(sb.buf, "\"metric_skips\": [\n            {\n              \"case\": \"madvise\",\n              \"name\": \"cold_batch_1\",\n              \"reason\": \"shortest interval") != NULL,
	   "json: the skipped metric with its reason");
	ok(strstr(sb.buf, "\"threshold_pct\": 3,\n      \"claims\": [\n        {\n          \"origin\": \"series\",\n          \"owner\": \"pte-batch\",\n          \"metric\": \"realloc_rate.calls_per_sec\",\n          \"kind\": \"better\",\n          \"value\": 20,\n          \"than\": \"base\",\n          \"why\": \"the cover letter: 30% more calls\"\n        },") != NULL,
	   "json: the branch's threshold and claims");
	ok(strstr(sb.buf, "\"claim\": \"realloc_rate.calls_per_sec better by 50% than base\",\n              \"outcome\": \"failed\",") &&
	   strstr(sb.buf, "\"outcome\": \"held\"") && strstr(sb.buf, "\"outcome\": \"not-checked\""),
	   "json: each cell's claims with their outcomes");
	ok(strstr(sb.buf, "\"claims_held\": 1,\n    \"claims_failed\": 1,\n    \"claims_not_checked\": 1") != NULL,
	   "json: the summary counts them");
	ok(strstr(sb.buf, "\"status\": \"failed\"") != NULL, "json: the run failed");
	is_int(results_parse_json(&again, "claims.json", sb.buf, sb.len), 0, "json: reads back");
	back = branch_find_cell(results_find_branch(&again, "6.12"), "base");
	ok(back && back->timing == TIMING_INSTRUCTIONS && back->boots == 2 &&
	   back->console_logs.nr == 2, "json: the kind of time and the boots read back");
	ok(again.nr_branches == 1 && again.branches[0].nr_claims == 3 &&
	   again.branches[0].threshold_pct == 3, "json: the claims and threshold read back");
	render(&two, &again, REPORT_JSON, 0);
	is_str(two.buf, sb.buf, "json: and render the same again");

	render(&sb, &r, REPORT_JUNIT, 0);
	status = external_check(sb.buf, "xmllint", "--noout", "-", NULL);
	ok(status <= 0, "junit: well-formed (xmllint %s)", status < 0 ? "not installed" : "says so");
	ok(strstr(sb.buf, "<property name=\"timing\" value=\"instructions\"/>\n"
			  "      <property name=\"timing_note\" value=\"instruction-paced time (TCG icount:") != NULL,
	   "junit: the kind of time is a property");
	ok(strstr(sb.buf, "<testcase classname=\"6.12/kit/claims\" name=\"series pte-batch: realloc_rate.calls_per_sec better by 20% than base\" time=\"0.000\"/>") != NULL,
	   "junit: a claim that held passes");
	ok(strstr(sb.buf, "<testcase classname=\"6.12/kit/claims\" name=\"series pte-batch: realloc_rate.calls_per_sec better by 50% than base\" time=\"0.000\">\n"
			  "      <failure message=\"claim did not hold: realloc_rate.calls_per_sec better by 50% than base: +30.0% against base") != NULL,
	   "junit: one that did not hold fails");
	ok(strstr(sb.buf, "<testcase classname=\"6.12/kit/claims\" name=\"branch 6.12: madvise.cold_batch_1 below 1e+06\" time=\"0.000\">\n"
			  "      <skipped message=\"not checked: madvise.cold_batch_1 not measured on kit: mm-regress skipped it") != NULL,
	   "junit: one not checked is skipped");
	ok(strstr(sb.buf, "<testcase classname=\"6.12/kit/perf\" name=\"madvise.cold_batch_1\" time=\"0.000\">\n"
			  "      <skipped message=\"not measured: shortest interval") != NULL,
	   "junit: the skipped metric is a skipped testcase");

	/* The kit is base's tree: base's results, no change, in every format. */
	results_release(&r);
	results_init(&r);
	b = results_branch(&r, "6.12");
	base = variant_cell(b, "base", 1000);
	kit = variant_cell(b, "kit", 1000);
	base->timing = kit->timing = TIMING_INSTRUCTIONS;
	kit->reused = xstrdup("base");
	render(&sb, &r, REPORT_TEXT, 0);
	ok(strstr(sb.buf, "kit is base's tree (nothing applied): base's build and results reused, no change against base\n") &&
	   strstr(sb.buf, "same tree as base"), "reused: text says so");
	render(&sb, &r, REPORT_MARKDOWN, 0);
	ok(strstr(sb.buf, "kit is base's tree (nothing applied): base's build and results reused,\nno change against base") &&
	   strstr(sb.buf, "| base's tree"), "reused: markdown says so");
	render(&sb, &r, REPORT_JSON, 0);
	ok(strstr(sb.buf, "\"reused\": \"base\"") && strstr(sb.buf, "\"same_tree\": true") &&
	   strstr(sb.buf, "\"why\": \"same tree as base: no change\""), "reused: json says so");
	render(&sb, &r, REPORT_JUNIT, 0);
	ok(strstr(sb.buf, "<property name=\"reused\" value=\"base: the same tree as base, base&#39;s build and results, no change\"/>") != NULL,
	   "reused: junit says so");
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
	ok(strstr(sb.buf, "\"report\": \"mkseries-old+base.json\"") != NULL,
	   "plan: and the report it writes");
	ok(strstr(sb.buf, "\"id\": \"old/base\"") != NULL, "plan: a cell's id is branch/variant");
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

/*
 * The metric index pairs and groups metrics in n log n comparisons: the
 * count, not a clock, says so (a walk of every pair would take n^2 / 2).
 */
static void test_metric_index(void)
{
	enum { N = 50000 };
	struct metric_result *ms = xcalloc(2 * N, sizeof(*ms));
	struct metric_index ix = METRIC_INDEX_INIT;
	size_t i, found = 0;

	for (i = 0; i < 2 * N; i++) {
		/* two cells of the same N metrics, the second in reverse order */
		size_t k = i < N ? i : 2 * N - 1 - i;

		ms[i].case_name = "case";
		ms[i].name = xstrfmt("m%zu", k);
		metric_index_add(&ix, &ms[i], i < N ? 0 : 1, NULL);
	}
	/* a name given twice in the second cell: the first added is found */
	ms[2 * N - 1].name[1] = '1';
	ms[2 * N - 1].name[2] = '\0';
	metric_index_sort(&ix);
	for (i = 0; i < N; i++) {
		size_t p = metric_index_lookup_tag(&ix, "case", ms[i].name, 1);

		found += p < ix.nr && ix.v[p].m == &ms[2 * N - 1 - i] && ix.v[p].tag == 1;
	}
	is_int(found, N - 1, "each metric of cell 0 found in cell 1, but m0, which it lacks");
	i = metric_index_lookup_tag(&ix, "case", "m1", 1);
	ok(i < ix.nr && ix.v[i].m == &ms[2 * N - 2], "of a name given twice, the one added first");
	ok(metric_index_lookup(&ix, "case", "nothing") == ix.nr, "a name not there");
	ok(metric_index_lookup(&ix, "case", "m0") < ix.nr &&
	   ix.v[metric_index_lookup(&ix, "case", "m0")].m == &ms[0], "m0 is in cell 0 only");
	ok(ix.compared < 40ull * 2 * N, "%llu comparisons for %d entries sorted and %d looked up",
	   ix.compared, 2 * N, N);
	for (i = 0; i < 2 * N; i++)
		free(ms[i].name);
	free(ms);
	metric_index_release(&ix);
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
	test_html_escape();
	test_merge();
	test_bad_json();
	test_cell_id();
	test_variants();
	test_timing_claims();
	test_plan_json();
	test_metric_index();
	return tap_done();
}
