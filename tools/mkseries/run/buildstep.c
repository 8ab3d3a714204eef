/* run/buildstep.c: the line of a cell's build step, as build and run both say it. */
#include <string.h>

#include "run/buildstep.h"

static const char *failure(const struct build_result *res)
{
	return res->failure ? shown(res->failure) : "";
}

/* A failure's further lines, its log and its notes. */
static void say_failure_details(struct strbuf *out, const struct build_result *res)
{
	if (res->details && strchr(res->details, '\n')) {
		strbuf_add_shown(out, res->details, strlen(res->details), SHOWN_LINES);
		strbuf_addch(out, '\n');
	}
	if (res->log)
		strbuf_addf(out, "    log: %s\n", res->log);
}

void build_step_say(struct strbuf *out, const char *label, const char *step, int err,
		    const struct build_result *res, int verbose)
{
	strbuf_addf(out, "%s: %s", label, step);
	if (err) {
		strbuf_addf(out, "FAILED %s: %s\n", err == MKS_ECONFIG ?
			    "the kit's build settings are invalid" : "the build could not run",
			    failure(res));
		return;
	}
	switch (res->status) {
	case BUILD_OK:
		strbuf_addf(out, "built in %s (%s)\n", format_duration(res->seconds), res->bzimage);
		break;
	case BUILD_UPTODATE:
		strbuf_addf(out, "up to date (%s)\n", res->bzimage);
		break;
	case BUILD_FAILED:
		/* Recorded: it failed with these very inputs, and --force tries again. */
		strbuf_addf(out, res->recorded ? "up to date (FAILED %s)\n" : "FAILED %s\n",
			    failure(res));
		say_failure_details(out, res);
		break;
	}
	if (res->notes)
		strbuf_addf(out, "    note: %s\n", shown(res->notes));
	if (verbose && res->status == BUILD_OK)
		strbuf_addf(out, "    source: %s, %zu written, %zu removed, %zu repaired in %.1fs\n",
			    res->mat.full ? "full write" : "changes only", res->mat.written,
			    res->mat.removed, res->mat.repaired, res->mat.seconds);
}
