/* report/report.c: render recorded results in the format asked for, and who tested them when. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "report/render.h"

static char *report_timestamp(void);
static char *report_tester(git_repository *repo);

int report_format_parse(enum report_format *out, const char *name)
{
	static const struct {
		const char *name;
		enum report_format fmt;
	} formats[] = {
		{ "text", REPORT_TEXT },
		{ "json", REPORT_JSON },
		{ "junit", REPORT_JUNIT },
		{ "markdown", REPORT_MARKDOWN },
		{ "html", REPORT_HTML },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(name, formats[i].name)) {
			*out = formats[i].fmt;
			return 0;
		}
	return error_code(MKS_ECONFIG, "unknown report format '%s' (text, json, junit, markdown or html)",
			  name);
}


void report_render(struct strbuf *out, const struct run_results *r, enum report_format fmt,
		   const struct report_opts *opts)
{
	switch (fmt) {
	case REPORT_TEXT:
		render_text(out, r, opts && opts->color);
		break;
	case REPORT_JSON:
		render_json(out, r);
		break;
	case REPORT_JUNIT:
		render_junit(out, r);
		break;
	case REPORT_MARKDOWN:
		render_markdown(out, r, opts ? opts->html_url : NULL);
		break;
	case REPORT_HTML:
		render_html(out, r);
		break;
	}
}

int report_step(struct run_results *res, enum report_format fmt, const char *output,
		const struct report_opts *opts, FILE *log)
{
	struct report_opts ro = *opts;
	struct strbuf sb = STRBUF_INIT;
	char *tester = report_tester(NULL);
	int ret = 0;

	free(res->generator);
	res->generator = xstrdup("mkseries " MKSERIES_VERSION);
	free(res->generated);
	res->generated = report_timestamp();
	/* A merge keeps the tester its reports name when git names none here. */
	if (tester) {
		free(res->tester);
		res->tester = tester;
	}
	ro.color = fmt == REPORT_TEXT && !output && mks_use_color();
	report_render(&sb, res, fmt, &ro);
	if (output) {
		if (write_file_atomic(output, sb.buf, sb.len))
			ret = error("cannot write '%s': %s", output, strerror(errno));
		else if (log)
			fprintf(log, "report: %s\n", output);
	} else {
		/* After the steps' lines, the table stands apart. */
		if (log && fmt == REPORT_TEXT)
			putchar('\n');
		if (fwrite(sb.buf, 1, sb.len, stdout) != sb.len || fflush(stdout))
			ret = error("cannot write the report: %s", strerror(errno));
	}
	strbuf_release(&sb);
	return ret;
}

static char *config_string(git_config *cfg, const char *name)
{
	git_buf buf = { 0 };
	char *ret = NULL;

	if (git_config_get_string_buf(&buf, cfg, name) == 0 && buf.ptr && *buf.ptr)
		ret = xstrdup(buf.ptr);
	git_buf_dispose(&buf);
	return ret;
}

/*
 * "Name <email>" for a Tested-by: from git's user.name and user.email,
 * in repo's configuration (NULL: the user's global one). NULL when
 * either is unset. Caller frees.
 */
static char *report_tester(git_repository *repo)
{
	git_config *cfg = NULL, *snap = NULL;
	char *name = NULL, *email = NULL, *ret = NULL;
	int err;

	err = repo ? git_repository_config(&cfg, repo) : git_config_open_default(&cfg);
	if (err < 0 || git_config_snapshot(&snap, cfg) < 0)
		goto cleanup;
	name = config_string(snap, "user.name");
	email = config_string(snap, "user.email");
	if (name && email)
		ret = xstrfmt("%s <%s>", name, email);
cleanup:
	git_config_free(snap);
	git_config_free(cfg);
	free(name);
	free(email);
	return ret;
}

/* The current time as "2025-11-30T12:00:00Z". Caller frees. */
static char *report_timestamp(void)
{
	char buf[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}
