/* report/gitlab.c: the fan-out plan as a GitLab CI pipeline: a job per cell, a job that merges their reports. */
#include <string.h>
#include <yaml.h>

#include "report/report.h"

/*
 * What a job's shell runs. These lines are the same whatever the kit:
 * what differs per cell (branch, variant, report) reaches the shell only
 * as the job's variables, expanded inside double quotes, never as text
 * of a command line, so no branch or variant name can add a command.
 * The site's settings are the pipeline's variables (see site_variables).
 */
static const char *const cell_script[] = {
	/*
	 * ccache keys hold the absolute paths of the compile: with the job's
	 * checkout as its base_dir they become relative, and a job in another
	 * directory (another runner, another pipeline) hits what this one
	 * compiled.
	 */
	"export CCACHE_BASEDIR=\"${CCACHE_BASEDIR:-$PWD}\"",
	"if [ -n \"$MKSERIES_CACHE_URL\" ]; then export CCACHE_REMOTE_STORAGE=\"$MKSERIES_CACHE_URL\"; fi",
	"\"$MKSERIES\" run --branch \"$MKSERIES_BRANCH\" --variant \"$MKSERIES_VARIANT\""
	" --format json --output \"$MKSERIES_REPORT\""
	" --workdir mkseries-work --repo mkseries-work/linux.git"
	" ${MKSERIES_JOBS:+--jobs \"$MKSERIES_JOBS\"} $MKSERIES_RUN_OPTIONS",
	NULL
};

/*
 * The merge: every format first (exit 1, a failed verdict, still writes
 * the report; 2, a report missing or unreadable, a cell of the plan
 * missing or found twice, stops the job), the text report into the
 * job's log, and last the merged JSON, whose exit status is the job's:
 * the merged verdict. $MKSERIES_CELLS is the plan's cells: a report
 * that holds another cell than its name says cannot stand in for it.
 */
#define MERGE "\"$MKSERIES\" report --merge $MKSERIES_REPORTS --cells \"$MKSERIES_CELLS\""
static const char *const merge_script[] = {
	MERGE " --format junit --output mkseries-junit.xml || test $? = 1",
	MERGE " --format markdown --output mkseries-reply.md || test $? = 1",
	MERGE " --format html --output mkseries-report.html || test $? = 1",
	MERGE " --output mkseries-report.txt || test $? = 1",
	"cat mkseries-report.txt",
	MERGE " --format json --output mkseries-merged.json",
	NULL
};
#undef MERGE

static const char *const merge_artifacts[] = {
	"mkseries-junit.xml", "mkseries-reply.md", "mkseries-report.html", "mkseries-report.txt",
	"mkseries-merged.json", NULL
};

/* The site's settings, with their defaults. */
static const char *const site_variables[][2] = {
	{ "MKSERIES", "mkseries" },		/* the command: on PATH, or a path */
	{ "MKSERIES_RUNNER_TAG", "mkseries" },	/* the tag of the runners that take the jobs */
	{ "MKSERIES_CACHE_URL", "" },		/* ccache's remote storage, e.g. redis://host:6379 */
	{ "MKSERIES_JOBS", "" },		/* make -jN; empty: the runner's CPUs */
	{ "MKSERIES_RUN_OPTIONS", "" },		/* more options for each run, e.g. --full */
};

static const char header[] =
	"# A GitLab CI pipeline written by `mkseries ci gitlab`: a job per cell of\n"
	"# the plan (branch x variant: base, kit, each declared variant) running\n"
	"# `mkseries run` on that cell alone, and a merge job that joins their JSON\n"
	"# reports (`mkseries report --merge`) into JUnit, markdown, HTML and text,\n"
	"# and fails when the merged verdict fails. Use it as .gitlab-ci.yml or as\n"
	"# a child pipeline (trigger: include: artifact). Set the variables below\n"
	"# for your site; docs/gitlab-ci.md, \"The matrix on GitLab CI\", says how.\n";

struct emitter {
	yaml_emitter_t e;
	int failed;
};

static int write_handler(void *data, unsigned char *buf, size_t size)
{
	strbuf_add(data, buf, size);
	return 1;
}

static void emit(struct emitter *em, yaml_event_t *ev)
{
	/* yaml_emitter_emit() frees the event, also when it fails. */
	if (!em->failed && !yaml_emitter_emit(&em->e, ev))
		em->failed = 1;
	else if (em->failed)
		yaml_event_delete(ev);
}

static void scalar_style(struct emitter *em, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1,
					  style)) {
		em->failed = 1;
		return;
	}
	emit(em, &ev);
}

/* A key: a name of ours, written plain. */
static void key(struct emitter *em, const char *s)
{
	scalar_style(em, s, YAML_PLAIN_SCALAR_STYLE);
}

/* A value: always quoted, so that no name ("on", "1.10", "null") is read as another type. */
static void value(struct emitter *em, const char *s)
{
	scalar_style(em, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

/* A key of ours and its value. */
static void pair(struct emitter *em, const char *k, const char *v)
{
	key(em, k);
	value(em, v);
}

/* A script line: single-quoted, which keeps its double quotes readable. */
static void script_line(struct emitter *em, const char *s)
{
	scalar_style(em, s, YAML_SINGLE_QUOTED_SCALAR_STYLE);
}

enum collection { MAPPING, SEQUENCE };

/* The start of a mapping or a sequence: block style, or flow when FLOW. */
static void open_node(struct emitter *em, enum collection c, int flow)
{
	yaml_event_t ev;
	int ok;

	if (c == MAPPING)
		ok = yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	else
		ok = yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							  flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	if (!ok) {
		em->failed = 1;
		return;
	}
	emit(em, &ev);
}

/* The end of the mapping or the sequence open_node() started. */
static void close_node(struct emitter *em, enum collection c)
{
	yaml_event_t ev;

	if (c == MAPPING)
		yaml_mapping_end_event_initialize(&ev);
	else
		yaml_sequence_end_event_initialize(&ev);
	emit(em, &ev);
}

static void value_list(struct emitter *em, const char *k, const char *const *v, int script)
{
	key(em, k);
	open_node(em, SEQUENCE, 0);
	for (; *v; v++)
		if (script)
			script_line(em, *v);
		else
			value(em, *v);
	close_node(em, SEQUENCE);
}

/* "variables:" and the nr names and values of vars. */
static void variables(struct emitter *em, const char *const (*vars)[2], size_t nr)
{
	size_t i;

	key(em, "variables");
	open_node(em, MAPPING, 0);
	for (i = 0; i < nr; i++)
		pair(em, vars[i][0], vars[i][1]);
	close_node(em, MAPPING);
}

/*
 * How a job ends: its script, and its artifacts (the paths, and the
 * JUnit report when junit is not NULL), kept whether it passes or fails.
 */
static void job_script(struct emitter *em, const char *const *script, const char *const *paths,
		       const char *junit)
{
	value_list(em, "script", script, 1);
	key(em, "artifacts");
	open_node(em, MAPPING, 0);
	pair(em, "when", "always");
	value_list(em, "paths", paths, 0);
	if (junit) {
		key(em, "reports");
		open_node(em, MAPPING, 0);
		pair(em, "junit", junit);
		close_node(em, MAPPING);
	}
	close_node(em, MAPPING);
}

/* What every job has: its stage and the runners' tag. */
static void job_common(struct emitter *em, const char *stage)
{
	pair(em, "stage", stage);
	key(em, "tags");
	open_node(em, SEQUENCE, 1);
	value(em, "$MKSERIES_RUNNER_TAG");
	close_node(em, SEQUENCE);
}

static void emit_cell(struct emitter *em, const struct plan_cell *c)
{
	char *name = xstrfmt("%s %s", c->b->name, c->variant);
	char *report = plan_cell_report_name(c->b->name, c->variant);
	char *logs = xstrfmt("mkseries-work/%s/logs/", c->b->name);
	const char *paths[] = { report, logs, NULL };
	const char *const vars[][2] = {
		{ "MKSERIES_BRANCH", c->b->name },
		{ "MKSERIES_VARIANT", c->variant },
		{ "MKSERIES_REPORT", report },
	};

	value(em, name);
	open_node(em, MAPPING, 0);
	job_common(em, "cells");
	/* Cells do not wait for each other: the merge compares them (docs/gitlab-ci.md). */
	key(em, "needs");
	open_node(em, SEQUENCE, 1);
	close_node(em, SEQUENCE);
	variables(em, vars, ARRAY_SIZE(vars));
	job_script(em, cell_script, paths, NULL);
	close_node(em, MAPPING);
	free(logs);
	free(report);
	free(name);
}

/* The names of the cells' JSON reports, separated by spaces. */
static char *report_names(const struct plan_cell *cells, size_t nr)
{
	struct strbuf reports = STRBUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++) {
		char *report = plan_cell_report_name(cells[i].b->name, cells[i].variant);

		strbuf_addf(&reports, "%s%s", i ? " " : "", report);
		free(report);
	}
	return strbuf_detach(&reports, NULL);
}

static void emit_merge(struct emitter *em, const struct plan_cell *cells, size_t nr)
{
	char *reports = report_names(cells, nr), *list = plan_cells_list(cells, nr);
	const char *const vars[][2] = {
		{ "MKSERIES_REPORTS", reports },
		{ "MKSERIES_CELLS", list },
	};

	key(em, "merge");
	open_node(em, MAPPING, 0);
	job_common(em, "merge");
	/* After every cell, failed or not: the stage order brings their artifacts. */
	pair(em, "when", "always");
	variables(em, vars, ARRAY_SIZE(vars));
	job_script(em, merge_script, merge_artifacts, "mkseries-junit.xml");
	close_node(em, MAPPING);
	free(list);
	free(reports);
}

void plan_render_gitlab(struct strbuf *out, const struct plan *const *plans, size_t nr)
{
	static const char *const stages[] = { "cells", "merge", NULL };
	struct emitter em = { .failed = 0 };
	struct plan_cell *cells = NULL;
	size_t nr_cells = plan_cells(&cells, plans, nr), i;
	yaml_event_t ev;

	strbuf_addstr(out, header);
	if (!yaml_emitter_initialize(&em.e))
		die("out of memory");
	yaml_emitter_set_output(&em.e, write_handler, out);
	yaml_emitter_set_unicode(&em.e, 1);
	yaml_emitter_set_width(&em.e, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit(&em, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	emit(&em, &ev);
	open_node(&em, MAPPING, 0);
	value_list(&em, "stages", stages, 0);
	variables(&em, site_variables, ARRAY_SIZE(site_variables));
	for (i = 0; i < nr_cells; i++)
		emit_cell(&em, &cells[i]);
	emit_merge(&em, cells, nr_cells);
	close_node(&em, MAPPING);
	yaml_document_end_event_initialize(&ev, 1);
	emit(&em, &ev);
	yaml_stream_end_event_initialize(&ev);
	emit(&em, &ev);
	/* Our own events, in a valid order, into memory: a failure is ours. */
	if (em.failed)
		BUG("the YAML emitter refused the pipeline: %s", em.e.problem ? em.e.problem : "?");
	yaml_emitter_delete(&em.e);
	free(cells);
}
