/* lib/options.c: a small option parser shared by the subcommands, after git's parse-options. */
#include <stdlib.h>
#include <string.h>

#include "lib/options.h"
#include "lib/progress.h"

/* What every command takes besides its own options (its usage line ends with them). */
#define COMMON_USAGE "[-q | -v] [--progress=auto|always|never]"

static int progress_cb(const struct option *opt, const char *arg, int unset)
{
	if (unset) {
		mks_progress = PROGRESS_NEVER;
		return 0;
	}
	if (progress_when_parse(&mks_progress, arg))
		return error("option '--progress' takes auto, always or never, not '%s'", shown(arg));
	return 0;
}

const struct option common_options[] = {
	OPT_SET_INT("quiet", 'q', &mks_verbose, "no progress; only the lines that matter", 0),
	OPT_SET_INT("verbose", 'v', &mks_verbose, "say more of what is done", 2),
	OPT_CALLBACK_F("progress", 0, NULL, "WHEN",
		       "auto (a line on a terminal, a status line every 30 s in a log), always "
		       "(--progress alone) or never (--no-progress)",
		       OPT_OPTARG, "always", progress_cb),
	OPT_END(),
};

static int takes_value(const struct option *o)
{
	return o->type == OPTION_STRING || o->type == OPTION_LIST || o->type == OPTION_UINT ||
	       (o->type == OPTION_CALLBACK && o->argh);
}

static int negatable(const struct option *o)
{
	return !(o->flags & OPT_NONEG) && o->type != OPTION_UINT;
}

static void print_options(FILE *f, const struct option *o)
{
	for (; o->type != OPTION_END; o++) {
		struct strbuf sb = STRBUF_INIT;

		if (o->type == OPTION_GROUP) {
			print_options(f, o->group);
			continue;
		}
		if (o->short_name)
			strbuf_addf(&sb, "-%c, ", o->short_name);
		strbuf_addf(&sb, "--%s", o->long_name);
		if (o->flags & OPT_OPTARG)
			strbuf_addf(&sb, "[=%s]", o->argh ? o->argh : "VALUE");
		else if (takes_value(o))
			strbuf_addf(&sb, " %s", o->argh ? o->argh : "VALUE");
		fprintf(f, "    %-24s %s\n", sb.buf, o->help);
		strbuf_release(&sb);
	}
}

void usage_with_options(const char *usage, const struct option *opts, int status)
{
	FILE *f = status ? stderr : stdout;
	const char *or = strstr(usage, "\n   or: ");

	/* what was wrong with the command line, before how to write it */
	error_flush();
	/* The common options end the first form, before any "or:" line. */
	if (or)
		fprintf(f, "usage: %.*s %s%s\n\n", (int)(or - usage), usage, COMMON_USAGE, or);
	else
		fprintf(f, "usage: %s %s\n\n", usage, COMMON_USAGE);
	print_options(f, opts);
	print_options(f, common_options);
	fprintf(f, "    %-24s %s\n", "-h, --help", "show this help");
	exit(status);
}

/* The option named name[0..len) in opts or the groups it splices in. */
static const struct option *find_long(const struct option *opts, const char *name, size_t len)
{
	const struct option *o;

	for (; opts->type != OPTION_END; opts++) {
		if (opts->type == OPTION_GROUP) {
			if ((o = find_long(opts->group, name, len)))
				return o;
		} else if (strlen(opts->long_name) == len && !strncmp(opts->long_name, name, len)) {
			return opts;
		}
	}
	return NULL;
}

static const struct option *find_short(const struct option *opts, char c)
{
	const struct option *o;

	for (; opts->type != OPTION_END; opts++) {
		if (opts->type == OPTION_GROUP) {
			if ((o = find_short(opts->group, c)))
				return o;
		} else if (opts->short_name && opts->short_name == c) {
			return opts;
		}
	}
	return NULL;
}

/* How many long names in opts start with name[0..len); *found: the last. */
static int count_prefixed(const struct option *opts, const char *name, size_t len,
			  const struct option **found)
{
	int n = 0;

	for (; opts->type != OPTION_END; opts++) {
		if (opts->type == OPTION_GROUP)
			n += count_prefixed(opts->group, name, len, found);
		else if (!strncmp(opts->long_name, name, len)) {
			*found = opts;
			n++;
		}
	}
	return n;
}

struct parse_ctx {
	const struct option *opts;
	const struct option *given[64];	/* the OPT_STRINGs given so far */
	size_t nr_given;
};

/* Whether o was given before on this command line; remembers it when not. */
static int seen_before(struct parse_ctx *ctx, const struct option *o)
{
	size_t i;

	for (i = 0; i < ctx->nr_given; i++)
		if (ctx->given[i] == o)
			return 1;
	if (ctx->nr_given < ARRAY_SIZE(ctx->given))
		ctx->given[ctx->nr_given++] = o;
	return 0;
}

static void forget(struct parse_ctx *ctx, const struct option *o)
{
	size_t i;

	for (i = 0; i < ctx->nr_given; i++)
		if (ctx->given[i] == o)
			ctx->given[i] = ctx->given[--ctx->nr_given];
}

/* Give o its value val (NULL: none), or unset it (--no-NAME). */
static int set_value(struct parse_ctx *ctx, const struct option *o, const char *val, int unset)
{
	char *end;
	unsigned long n;

	switch (o->type) {
	case OPTION_BOOL:
		*(int *)o->value = !unset;
		return 0;
	case OPTION_SET_INT:
		*(int *)o->value = unset ? 0 : (int)o->defval;
		return 0;
	case OPTION_STRING:
		if (unset) {
			*(const char **)o->value = NULL;
			forget(ctx, o);
			return 0;
		}
		if (seen_before(ctx, o) && *(const char **)o->value &&
		    strcmp(*(const char **)o->value, val))
			return error("option '--%s' is given twice ('%s', then '%s'): it takes one",
				     o->long_name, shown(*(const char **)o->value), shown(val));
		*(const char **)o->value = val;
		return 0;
	case OPTION_LIST:
		if (unset)
			strvec_clear(o->value);
		else
			strvec_push(o->value, val);
		return 0;
	case OPTION_UINT:
		n = strtoul(val, &end, 10);
		if (!*val || *end || n > 0xffffffffUL || strchr(val, '-'))
			return error("option '--%s' expects a number, not '%s'", o->long_name,
				     shown(val));
		*(unsigned *)o->value = (unsigned)n;
		return 0;
	case OPTION_CALLBACK:
		return o->callback(o, val, unset);
	case OPTION_GROUP:
	case OPTION_END:
		break;
	}
	BUG("option type %d", o->type);
}

/* A long option, arg after its "--"; *i moves past the value it took. */
static int parse_long(struct parse_ctx *ctx, const char *arg, int *i, int argc, const char **argv)
{
	const char *eq = strchr(arg, '='), *val = eq ? eq + 1 : NULL, *name = arg;
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct option *o, *maybe = NULL;
	int unset = 0;

	o = find_long(ctx->opts, name, len);
	if (!o)
		o = find_long(common_options, name, len);
	if (!o && len > 3 && starts_with(name, "no-")) {
		o = find_long(ctx->opts, name + 3, len - 3);
		if (!o)
			o = find_long(common_options, name + 3, len - 3);
		if (o && !negatable(o))
			return error("option '--%s' cannot be negated ('--%.*s')", o->long_name,
				     (int)len, name);
		unset = !!o;
	}
	if (!o) {
		if (count_prefixed(ctx->opts, name, len, &maybe) +
		    count_prefixed(common_options, name, len, &maybe) == 1)
			return error("unknown option '--%s': options are never abbreviated; "
				     "did you mean '--%s'?", shown(arg), maybe->long_name);
		return error("unknown option '--%s'", shown(arg));
	}
	if (val && (unset || !takes_value(o)))
		return error("option '--%.*s' takes no value", (int)len, name);
	if (!val && !unset && takes_value(o)) {
		if (o->flags & OPT_OPTARG)
			val = (const char *)o->defval;
		else if (*i + 1 < argc)
			val = argv[++*i];
		else
			return error("option '--%s' needs a value", o->long_name);
	}
	return set_value(ctx, o, val, unset);
}

/* A short option, arg after its "-": "-f", "-j2", "-j 2". */
static int parse_short(struct parse_ctx *ctx, const char *arg, int *i, int argc, const char **argv)
{
	const struct option *o = find_short(ctx->opts, arg[0]);
	const char *val = arg[1] ? arg + 1 : NULL;

	if (!o)
		o = find_short(common_options, arg[0]);
	if (!o || (val && !takes_value(o)))
		return error("unknown option '-%s'", shown(arg));
	if (!val && takes_value(o)) {
		if (o->flags & OPT_OPTARG)
			val = (const char *)o->defval;
		else if (*i + 1 < argc)
			val = argv[++*i];
		else
			return error("option '-%c' (--%s) needs a value", o->short_name, o->long_name);
	}
	return set_value(ctx, o, val, 0);
}

int parse_options_gently(int argc, const char **argv, const struct option *opts)
{
	return parse_options_gently_ex(argc, argv, opts, 0);
}

int parse_options_gently_ex(int argc, const char **argv, const struct option *opts,
			    unsigned flags)
{
	struct parse_ctx ctx = { .opts = opts };
	int i, nr = 0, only_args = 0;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		int err;

		if (only_args || arg[0] != '-' || !arg[1]) {
			argv[nr++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_args = 1;
			if (flags & PARSE_OPT_KEEP_DASHDASH)
				argv[nr++] = arg;
			continue;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h"))
			return PARSE_OPT_HELP;
		if (arg[1] == '-')
			err = parse_long(&ctx, arg + 2, &i, argc, argv);
		else
			err = parse_short(&ctx, arg + 1, &i, argc, argv);
		if (err)
			return -1;
	}
	argv[nr] = NULL;
	return nr;
}

int parse_options(int argc, const char **argv, const struct option *opts, const char *usage)
{
	return parse_options_ex(argc, argv, opts, usage, 0);
}

int parse_options_ex(int argc, const char **argv, const struct option *opts, const char *usage,
		     unsigned flags)
{
	int nr = parse_options_gently_ex(argc, argv, opts, flags);

	if (nr == PARSE_OPT_HELP)
		usage_with_options(usage, opts, 0);
	if (nr < 0)
		usage_with_options(usage, opts, 2);
	return nr;
}

int common_option(const char *arg)
{
	static const struct option none[] = { OPT_END() };
	struct parse_ctx ctx = { .opts = none };
	const char *name;
	size_t len;
	int i = 0;

	if (skip_prefix(arg, "--", &name)) {
		len = strcspn(name, "=");
		if (!find_long(common_options, name, len) &&
		    !(starts_with(name, "no-") && find_long(common_options, name + 3, len - 3)))
			return 0;
		return parse_long(&ctx, name, &i, 1, &arg) ? -1 : 1;
	}
	if (arg[0] == '-' && arg[1] && find_short(common_options, arg[1]))
		return parse_short(&ctx, arg + 1, &i, 1, &arg) ? -1 : 1;
	return 0;
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
