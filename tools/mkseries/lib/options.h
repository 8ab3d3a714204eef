/* lib/options.h: command-line options for subcommands, git's parse-options semantics in small. */
#ifndef MKSERIES_OPTIONS_H
#define MKSERIES_OPTIONS_H

#include <stdint.h>

#include "lib/util.h"

enum opt_type {
	OPTION_END = 0,
	OPTION_BOOL,		/* int *: 1; --no-NAME: 0 */
	OPTION_SET_INT,		/* int *: set to defval; --no-NAME: 0 */
	OPTION_STRING,		/* const char **: given twice, the same value or an error; --no-NAME: NULL */
	OPTION_LIST,		/* struct strvec *: every use appended; --no-NAME empties it */
	OPTION_UINT,		/* unsigned *: a decimal number; no --no-NAME */
	OPTION_CALLBACK,	/* callback(opt, value, unset): its own parsing */
	OPTION_GROUP,		/* no option: `group`'s options are spliced in here */
};

/* option.flags */
#define OPT_OPTARG 1	/* the value is optional: --NAME alone gives defval, only --NAME=V gives V */
#define OPT_NONEG 2	/* no --no-NAME */

struct option;
/*
 * An OPTION_CALLBACK's work: `arg` is the value (the default for an
 * OPT_OPTARG option given alone, NULL for one that takes none), `unset`
 * is 1 for --no-NAME. Returns 0, or nonzero after error() naming the option.
 */
typedef int (*option_cb)(const struct option *opt, const char *arg, int unset);

struct option {
	enum opt_type type;
	const char *long_name;
	char short_name;
	void *value;
	const char *argh;	/* "DIR", "B" ... for the help text */
	const char *help;
	int flags;
	intptr_t defval;	/* OPTION_SET_INT: the int; OPT_OPTARG: the default value (a string) */
	option_cb callback;
	const struct option *group;	/* OPTION_GROUP: the table spliced in (OPT_END()-terminated) */
};

/* A table's entries, as git writes them: OPT_STRING("branch", 'b', &branch, "B", "help"). */
#define OPT_END() { .type = OPTION_END }
#define OPT_BOOL(l, s, v, h) { .type = OPTION_BOOL, .long_name = (l), .short_name = (s), \
			       .value = (v), .help = (h) }
#define OPT_SET_INT(l, s, v, h, i) { .type = OPTION_SET_INT, .long_name = (l), \
				     .short_name = (s), .value = (v), .help = (h), \
				     .flags = OPT_NONEG, .defval = (i) }
#define OPT_STRING(l, s, v, a, h) { .type = OPTION_STRING, .long_name = (l), .short_name = (s), \
				    .value = (v), .argh = (a), .help = (h) }
/* An OPTION_STRING whose value is optional: --NAME alone sets it to d. */
#define OPT_STRING_OPTARG(l, s, v, a, h, d) { .type = OPTION_STRING, .long_name = (l), \
					      .short_name = (s), .value = (v), .argh = (a), \
					      .help = (h), .flags = OPT_OPTARG, \
					      .defval = (intptr_t)(d) }
#define OPT_LIST(l, s, v, a, h) { .type = OPTION_LIST, .long_name = (l), .short_name = (s), \
				  .value = (v), .argh = (a), .help = (h) }
#define OPT_UINT(l, s, v, a, h) { .type = OPTION_UINT, .long_name = (l), .short_name = (s), \
				  .value = (v), .argh = (a), .help = (h) }
/* f: OPT_OPTARG with d its default, OPT_NONEG; a NULL argh: the option takes no value. */
#define OPT_CALLBACK_F(l, s, v, a, h, f, d, cb) { .type = OPTION_CALLBACK, .long_name = (l), \
						  .short_name = (s), .value = (v), .argh = (a), \
						  .help = (h), .flags = (f), \
						  .defval = (intptr_t)(d), .callback = (cb) }

/* git's OPT_GROUP in spirit: a table several commands share, spliced in, written once. */
#define OPT_INCLUDE(table) { .type = OPTION_GROUP, .group = (table) }

/*
 * The branch selection several commands take: --branch B and --all.
 * `verb` starts each help line ("build" gives "build this branch");
 * `all_help` ends the --all line ("" or " (the default)").
 */
#define OPT_BRANCH_ALL(verb, branch, all, all_help) \
	OPT_STRING("branch", 'b', (branch), "B", verb " this branch"), \
	OPT_BOOL("all", 0, (all), verb " every default branch" all_help)
/* OPT_BRANCH_ALL and the repeatable --variant V: the cells of build, test, run, doctor, report. */
#define OPT_CELLS(verb, branch, all, all_help, given) \
	OPT_BRANCH_ALL(verb, branch, all, all_help), OPT_VARIANTS(given)
#define OPT_VARIANTS(given) \
	OPT_LIST("variant", 0, (given), "V", \
		 "base, kit or a declared variant (repeatable; default: every one)")
#define OPT_WORKDIR(dir) \
	OPT_STRING("workdir", 0, (dir), "DIR", \
		   "work directories go in DIR/<branch> (default: ~/.cache/mkseries/work/<kit id>)")
#define OPT_REPO(dir) OPT_STRING("repo", 0, (dir), "DIR", "the kernel repository")
#define OPT_JOBS(n) OPT_UINT("jobs", 'j', (n), "N", "make -jN (default: the number of CPUs)")

/*
 * The options every command takes, here and before the command:
 * -q/--quiet (mks_verbose 0), -v/--verbose (2), --progress[=WHEN]
 * (mks_progress: alone "always", --no-progress "never"). parse_options()
 * takes them after the command's own table.
 */
extern const struct option common_options[];

/*
 * The options before the command (main.c): `arg` is one of
 * common_options (1), not (0), or misused (-1 after an error()).
 */
int common_option(const char *arg);

/*
 * Parse argv[1..] (argv[0] is the subcommand) against opts, then
 * common_options. An option that takes a value takes it as "--name
 * VALUE", "--name=VALUE", "-n VALUE" or "-nVALUE"; one whose value is
 * optional (OPT_OPTARG) only as "--name=VALUE" or "-nVALUE", never from
 * the next argument. --no-NAME negates a boolean, empties a list, unsets
 * a string. Long names are never abbreviated: "--bra" is refused, with
 * the option it may mean. "--" ends the options. Non-options are left
 * in argv, which is compacted, and their count returned.
 *
 * parse_options_gently() returns the count, -1 after an error() naming
 * the option, or PARSE_OPT_HELP for -h/--help; parse_options() prints
 * the usage for those and exits (0 for help, 2 for an error).
 */
#define PARSE_OPT_HELP (-2)
int parse_options_gently(int argc, const char **argv, const struct option *opts);
int parse_options(int argc, const char **argv, const struct option *opts, const char *usage);
/*
 * The same with flags: PARSE_OPT_KEEP_DASHDASH keeps "--" among the
 * arguments, for a command that hands what follows it to another
 * program (`mkseries regress -- ARGS`).
 */
#define PARSE_OPT_KEEP_DASHDASH 1
int parse_options_gently_ex(int argc, const char **argv, const struct option *opts,
			    unsigned flags);
int parse_options_ex(int argc, const char **argv, const struct option *opts, const char *usage,
		     unsigned flags);
/*
 * parse_options() for a command that takes no arguments: one left is
 * named ("unexpected argument 'x': 'mkseries build' takes no
 * arguments") before the usage, and the exit status is 2.
 */
void parse_options_only(int argc, const char **argv, const struct option *opts, const char *usage);
void usage_with_options(const char *usage, const struct option *opts, int status)
	__attribute__((noreturn));

#endif
