/* test-options.c: unit tests for lib/options.c: every form an option takes and every misuse refused. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/options.h"
#include "lib/progress.h"
#include "tap.h"
#include "lib/util.h"

/* What the options below parse into; reset before each command line. */
static const char *branch, *color, *workdir;
static int all, force, level;
static unsigned jobs;
static struct strvec variants = STRVEC_INIT;
static const char *step;

static int step_cb(const struct option *opt, const char *arg, int unset)
{
	if (unset) {
		step = "none";
		return 0;
	}
	if (strcmp(arg, "build") && strcmp(arg, "import"))
		return error("option '--step' takes import or build, not '%s'", arg);
	step = arg;
	return 0;
}

/* A shared table, spliced into the command's with OPT_INCLUDE(). */
static const struct option shared[] = {
	OPT_WORKDIR(&workdir),
	OPT_END(),
};

static const struct option opts[] = {
	OPT_BRANCH_ALL("test", &branch, &all, ""),
	OPT_VARIANTS(&variants),
	OPT_JOBS(&jobs),
	OPT_BOOL("force", 'f', &force, "force"),
	OPT_SET_INT("high", 'H', &level, "level 3", 3),
	OPT_STRING_OPTARG("color", 'c', &color, "WHEN", "color", "always"),
	OPT_CALLBACK_F("step", 's', NULL, "STEP", "a step", OPT_OPTARG, "import", step_cb),
	OPT_BOOL("all-patches", 0, &force, "prefix of nothing, extends --all"),
	OPT_INCLUDE(shared),
	OPT_END(),
};

static struct strbuf errors = STRBUF_INIT;
static const char *args[16];

static void reset(void)
{
	branch = color = workdir = step = NULL;
	all = force = level = 0;
	jobs = 0;
	strvec_clear(&variants);
	strbuf_reset(&errors);
	mks_verbose = 1;
	mks_progress = PROGRESS_AUTO;
}

/* ret, after moving the messages error() kept into `errors` ("; " between two). */
static int keep_errors(int ret)
{
	char *kept = error_since(0);

	if (kept)
		strbuf_addf(&errors, "%s%s", errors.len ? "; " : "", kept);
	free(kept);
	error_drop(0);
	return ret;
}

/* Parse the command line "cmd ARGS..." (a NULL-terminated list); the errors go to `errors`. */
static int parse(const char *first, ...)
{
	va_list ap;
	const char *a;
	int n = 0, ret;

	reset();
	args[n++] = "cmd";
	va_start(ap, first);
	for (a = first; a; a = va_arg(ap, const char *))
		args[n++] = a;
	va_end(ap);
	args[n] = NULL;
	ret = keep_errors(parse_options_gently(n, args, opts));
	return ret;
}

static void test_values(void)
{
	is_int(parse("--branch", "6.1", NULL), 0, "--branch V takes the next argument");
	is_str(branch, "6.1", "... as the value");
	is_int(parse("--branch=6.1", "x", NULL), 1, "--branch=V leaves the next one an argument");
	is_str(branch, "6.1", "... with the value after '='");
	is_str(args[0], "x", "... the argument first in argv");
	is_int(parse("-b6.1", NULL), 0, "-bV");
	is_str(branch, "6.1", "... attached");
	is_int(parse("-b", "6.1", NULL), 0, "-b V");
	is_str(branch, "6.1", "... separate");
	is_int(parse("--branch=", NULL), 0, "--branch= gives the empty value");
	is_str(branch, "", "... empty, not missing");
	is_int(parse("-j2", "--jobs", "4", NULL), 0, "a number, twice: the last wins");
	is_int(jobs, 4, "... 4");
	is_int(parse("--variant", "base", "--variant=kit", NULL), 0, "a list, twice");
	is_int(variants.nr, 2, "... both kept");
	is_str(variants.nr == 2 ? variants.v[1] : NULL, "kit", "... in order");
	is_int(parse("--branch", "t", "--branch=t", NULL), 0, "the same string twice is fine");
	is_int(parse("-f", "--all", "-H", NULL), 0, "booleans and a set-int");
	ok(force && all && level == 3, "... all set");
	is_int(parse("--workdir=w", NULL), 0, "an option of an included table");
	is_str(workdir, "w", "... set");
}

static void test_optional(void)
{
	is_int(parse("--color", NULL), 0, "--color alone");
	is_str(color, "always", "... gives its default");
	is_int(parse("--color=never", NULL), 0, "--color=V");
	is_str(color, "never", "... gives V");
	is_int(parse("--color", "never", NULL), 1, "--color V does not take the next argument");
	is_str(color, "always", "... the default");
	is_str(args[0], "never", "... and V stays an argument");
	is_int(parse("-c", NULL), 0, "-c alone");
	is_str(color, "always", "... the default");
	is_int(parse("-cnever", NULL), 0, "-cV");
	is_str(color, "never", "... V");
	is_int(parse("--step", NULL), 0, "a callback with an optional value, alone");
	is_str(step, "import", "... called with its default");
	is_int(parse("--step=build", NULL), 0, "... with =V");
	is_str(step, "build", "... called with V");
	is_int(parse("--no-step", NULL), 0, "... negated");
	is_str(step, "none", "... called to unset");
	is_int(parse("--step=test", NULL), -1, "a callback refuses a value");
	is_str(errors.buf, "option '--step' takes import or build, not 'test'", "... in its words");
}

static void test_negation(void)
{
	is_int(parse("--force", "--no-force", NULL), 0, "--no-force after --force");
	is_int(force, 0, "... clears it");
	is_int(parse("--variant", "a", "--no-variant", "--variant", "b", NULL), 0,
	       "--no-variant between uses");
	is_int(variants.nr, 1, "... empties the list");
	is_str(variants.nr ? variants.v[0] : NULL, "b", "... and the later use counts");
	is_int(parse("--branch", "t", "--no-branch", "--branch", "u", NULL), 0,
	       "--no-branch forgets the first value");
	is_str(branch, "u", "... no 'given twice'");
	is_int(parse("--no-branch", NULL), 0, "--no-branch alone");
	is_str(branch, NULL, "... unsets it");
	is_int(parse("--no-color", NULL), 0, "--no-color (an optional value)");
	is_str(color, NULL, "... unsets it");
	is_int(parse("--no-jobs", NULL), -1, "a number cannot be negated");
	is_str(errors.buf, "option '--jobs' cannot be negated ('--no-jobs')", "... said");
	is_int(parse("--no-quiet", NULL), -1, "nor -q");
	is_str(errors.buf, "option '--quiet' cannot be negated ('--no-quiet')", "... said");
	is_int(parse("--no-force=1", NULL), -1, "--no-NAME=V");
	is_str(errors.buf, "option '--no-force' takes no value", "... refused");
	is_int(parse("--no-such", NULL), -1, "--no- of no option");
	is_str(errors.buf, "unknown option '--no-such'", "... unknown");
}

static void test_errors(void)
{
	is_int(parse("--jobs", "x", NULL), -1, "--jobs x");
	is_str(errors.buf, "option '--jobs' expects a number, not 'x'", "... not a number");
	is_int(parse("-j-1", NULL), -1, "-j-1");
	is_str(errors.buf, "option '--jobs' expects a number, not '-1'", "... not negative");
	is_int(parse("--jobs=", NULL), -1, "--jobs=");
	is_str(errors.buf, "option '--jobs' expects a number, not ''", "... not empty");
	is_int(parse("--jobs=99999999999", NULL), -1, "a number too large");
	is_str(errors.buf, "option '--jobs' expects a number, not '99999999999'", "... refused");
	is_int(parse("--force=yes", NULL), -1, "--force=V");
	is_str(errors.buf, "option '--force' takes no value", "... a boolean takes none");
	is_int(parse("-fx", NULL), -1, "-fx");
	is_str(errors.buf, "unknown option '-fx'", "... not bundled");
	is_int(parse("--branch", NULL), -1, "--branch last");
	is_str(errors.buf, "option '--branch' needs a value", "... without its value");
	is_int(parse("-b", NULL), -1, "-b last");
	is_str(errors.buf, "option '-b' (--branch) needs a value", "... without its value");
	is_int(parse("--bogus", NULL), -1, "--bogus");
	is_str(errors.buf, "unknown option '--bogus'", "... unknown");
	is_int(parse("-Z", NULL), -1, "-Z");
	is_str(errors.buf, "unknown option '-Z'", "... unknown");
	is_int(parse("--bra", "t", NULL), -1, "an abbreviation");
	is_str(errors.buf, "unknown option '--bra': options are never abbreviated; "
	       "did you mean '--branch'?", "... refused, naming the option");
	is_int(parse("--al", NULL), -1, "a prefix of two options");
	is_str(errors.buf, "unknown option '--al'", "... refused without a guess");
	is_int(parse("--branch", "t", "--branch", "u", NULL), -1, "a string given twice");
	is_str(errors.buf, "option '--branch' is given twice ('t', then 'u'): it takes one",
	       "... names both values");
	is_int(parse("--progress=sometimes", NULL), -1, "a bad --progress");
	is_str(errors.buf, "option '--progress' takes auto, always or never, not 'sometimes'",
	       "... names the value");
}

static void test_args(void)
{
	is_int(parse("a", "--force", "-", "b", NULL), 3, "arguments among options");
	ok(!strcmp(args[0], "a") && !strcmp(args[1], "-") && !strcmp(args[2], "b") && !args[3],
	   "... kept in order, '-' an argument, argv ended by NULL");
	is_int(parse("--", "--force", "-b", NULL), 2, "-- ends the options");
	ok(!force && !branch && !strcmp(args[0], "--force"), "... what follows is arguments");
	reset();
	args[0] = "cmd";
	args[1] = "-f";
	args[2] = "--";
	args[3] = "--list";
	args[4] = "--";
	args[5] = NULL;
	is_int(parse_options_gently_ex(5, args, opts, PARSE_OPT_KEEP_DASHDASH), 3,
	       "PARSE_OPT_KEEP_DASHDASH");
	ok(force && !strcmp(args[0], "--") && !strcmp(args[1], "--list") && !strcmp(args[2], "--"),
	   "... keeps the first -- and all that follows");
	is_int(parse("--help", NULL), PARSE_OPT_HELP, "--help");
	is_int(parse("-h", NULL), PARSE_OPT_HELP, "-h");
}

static void test_common(void)
{
	is_int(parse("-q", NULL), 0, "-q on every command");
	is_int(mks_verbose, 0, "... quiet");
	is_int(parse("--verbose", NULL), 0, "--verbose");
	is_int(mks_verbose, 2, "... verbose");
	is_int(parse("--progress", NULL), 0, "--progress alone");
	is_int(mks_progress, PROGRESS_ALWAYS, "... always");
	is_int(parse("--progress", "never", NULL), 1, "--progress does not take the next argument");
	is_int(mks_progress, PROGRESS_ALWAYS, "... always");
	is_int(parse("--progress=never", NULL), 0, "--progress=never");
	is_int(mks_progress, PROGRESS_NEVER, "... never");
	is_int(parse("--no-progress", NULL), 0, "--no-progress");
	is_int(mks_progress, PROGRESS_NEVER, "... never");

	reset();
	is_int(common_option("-v"), 1, "common_option(-v)");
	is_int(mks_verbose, 2, "... verbose");
	is_int(common_option("--progress=always"), 1, "common_option(--progress=always)");
	is_int(mks_progress, PROGRESS_ALWAYS, "... always");
	is_int(common_option("--no-progress"), 1, "common_option(--no-progress)");
	is_int(mks_progress, PROGRESS_NEVER, "... never");
	is_int(common_option("--kit"), 0, "common_option(--kit): not one");
	is_int(common_option("-x"), 0, "common_option(-x): not one");
	strbuf_reset(&errors);
	is_int(keep_errors(common_option("-qx")), -1, "common_option(-qx): misused");
	is_int(keep_errors(common_option("--quiet=1")), -1, "common_option(--quiet=1): misused");
	is_str(errors.buf, "unknown option '-qx'; option '--quiet' takes no value", "... both said");
}

int main(void)
{
	/* the errors are checked in `errors`, not shown */
	if (!freopen("/dev/null", "w", stderr))
		return 1;
	test_values();
	test_optional();
	test_negation();
	test_errors();
	test_args();
	test_common();
	reset();
	strbuf_release(&errors);
	return tap_done();
}
