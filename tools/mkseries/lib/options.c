/* lib/options.c: a small long-option parser shared by the subcommands. */
#include <stdlib.h>
#include <string.h>

#include "lib/options.h"
#include "lib/progress.h"

/* What every command takes besides its own options (its usage line ends with them). */
#define COMMON_USAGE "[-q | -v] [--progress=auto|always|never]"

void usage_with_options(const char *usage, const struct option *opts, int status)
{
	FILE *f = status ? stderr : stdout;
	const char *or = strstr(usage, "\n   or: ");
	const struct option *o;

	/* The common options end the first form, before any "or:" line. */
	if (or)
		fprintf(f, "usage: %.*s %s%s\n\n", (int)(or - usage), usage, COMMON_USAGE, or);
	else
		fprintf(f, "usage: %s %s\n\n", usage, COMMON_USAGE);
	for (o = opts; o->type != OPT_END; o++) {
		struct strbuf sb = STRBUF_INIT;

		if (o->short_name)
			strbuf_addf(&sb, "-%c, ", o->short_name);
		strbuf_addf(&sb, "--%s", o->long_name);
		if (o->type != OPT_BOOL)
			strbuf_addf(&sb, " %s", o->argh ? o->argh : "VALUE");
		fprintf(f, "    %-24s %s\n", sb.buf, o->help);
		strbuf_release(&sb);
	}
	fprintf(f, "    %-24s %s\n", "-q, --quiet", "no progress; only the lines that matter");
	fprintf(f, "    %-24s %s\n", "-v, --verbose", "say more of what is done");
	fprintf(f, "    %-24s %s\n", "--progress WHEN",
		"auto (a line on a terminal, a status line every 30 s in a log), always or never");
	fprintf(f, "    %-24s %s\n", "-h, --help", "show this help");
	exit(status);
}

static const struct option *find_long(const struct option *opts, const char *name, size_t len)
{
	for (; opts->type != OPT_END; opts++)
		if (strlen(opts->long_name) == len && !strncmp(opts->long_name, name, len))
			return opts;
	return NULL;
}

static const struct option *find_short(const struct option *opts, char c)
{
	for (; opts->type != OPT_END; opts++)
		if (opts->short_name && opts->short_name == c)
			return opts;
	return NULL;
}

static void set_value(const struct option *o, const char *val, const char *usage,
		      const struct option *opts)
{
	char *end;
	unsigned long n;

	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = 1;
		break;
	case OPT_STRING:
		*(const char **)o->value = val;
		break;
	case OPT_LIST:
		strvec_push(o->value, val);
		break;
	case OPT_UINT:
		n = strtoul(val, &end, 10);
		if (!*val || *end || n > 0xffffffffUL) {
			error("option '--%s' expects a number, not '%s'", o->long_name, val);
			usage_with_options(usage, opts, 2);
		}
		*(unsigned *)o->value = (unsigned)n;
		break;
	case OPT_END:
		BUG("OPT_END");
	}
}

int common_option(const char *arg, const char *next, int *used_next)
{
	const char *when = NULL;

	*used_next = 0;
	if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
		mks_verbose = 0;
		return 1;
	}
	if (!strcmp(arg, "-v") || !strcmp(arg, "--verbose")) {
		mks_verbose = 2;
		return 1;
	}
	if (!strcmp(arg, "--progress")) {
		if (!next)
			return error("option '--progress' needs a value: auto, always or never");
		when = next;
		*used_next = 1;
	} else if (!skip_prefix(arg, "--progress=", &when)) {
		return 0;
	}
	if (progress_when_parse(&mks_progress, when))
		return error("option '--progress' takes auto, always or never, not '%s'",
			     shown(when));
	return 1;
}

/* Whether o was given before on this command line; remembers it when not. */
static int seen_before(const struct option **given, size_t *nr, const struct option *o)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (given[i] == o)
			return 1;
	if (*nr < 64)
		given[(*nr)++] = o;
	return 0;
}

int parse_options(int argc, const char **argv, const struct option *opts, const char *usage)
{
	const struct option *given[64];
	size_t nr_given = 0;
	int i, nr = 0, only_args = 0, used;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq, *val = NULL;
		const struct option *o;

		if (only_args || arg[0] != '-' || !arg[1]) {
			argv[nr++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_args = 1;
			continue;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
			usage_with_options(usage, opts, 0);
		switch (common_option(arg, i + 1 < argc ? argv[i + 1] : NULL, &used)) {
		case 1:
			i += used;
			continue;
		case -1:
			usage_with_options(usage, opts, 2);
		}
		if (arg[1] == '-') {
			eq = strchr(arg + 2, '=');
			o = find_long(opts, arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));
			if (!o) {
				error("unknown option '%s'", arg);
				usage_with_options(usage, opts, 2);
			}
			if (eq)
				val = eq + 1;
		} else {
			o = find_short(opts, arg[1]);
			if (!o || (arg[2] && o->type == OPT_BOOL)) {
				error("unknown option '%s'", arg);
				usage_with_options(usage, opts, 2);
			}
			if (arg[2])
				val = arg + 2;	/* "-j2", as git takes it */
		}
		if (o->type == OPT_BOOL) {
			if (val) {
				error("option '--%s' takes no value", o->long_name);
				usage_with_options(usage, opts, 2);
			}
		} else if (!val) {
			if (i + 1 >= argc) {
				error("option '%s' needs a value", arg);
				usage_with_options(usage, opts, 2);
			}
			val = argv[++i];
		}
		if (o->type == OPT_STRING && seen_before(given, &nr_given, o) &&
		    strcmp(*(const char **)o->value, val)) {
			error("option '--%s' is given twice ('%s', then '%s'): it takes one",
			      o->long_name, shown(*(const char **)o->value), shown(val));
			usage_with_options(usage, opts, 2);
		}
		set_value(o, val, usage, opts);
	}
	argv[nr] = NULL;
	return nr;
}

void parse_options_only(int argc, const char **argv, const struct option *opts, const char *usage)
{
	int len = (int)strcspn(usage, " ");

	if (!parse_options(argc, argv, opts, usage))
		return;
	/* "mkseries build ...": the command is the usage line's second word. */
	if (usage[len] == ' ')
		len += 1 + (int)strcspn(usage + len + 1, " ");
	error("unexpected argument '%s': '%.*s' takes no arguments", shown(argv[0]), len, usage);
	usage_with_options(usage, opts, 2);
}
