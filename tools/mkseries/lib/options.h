/* lib/options.h: command-line options for subcommands, git style (--name=VALUE, -nVALUE, -h). */
#ifndef MKSERIES_OPTIONS_H
#define MKSERIES_OPTIONS_H

#include "lib/util.h"

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,	/* int *: set to 1 */
	OPT_STRING,	/* const char **: given twice, the same value or an error */
	OPT_LIST,	/* struct strvec *: every use appended */
	OPT_UINT,	/* unsigned *: a decimal number */
};

struct option {
	enum opt_type type;
	const char *long_name;
	char short_name;
	void *value;
	const char *argh;	/* "DIR", "B" ... for the help text */
	const char *help;
};

/*
 * Parse argv[1..] (argv[0] is the subcommand). An option that takes a
 * value takes it as "--name VALUE", "--name=VALUE", "-n VALUE" or
 * "-nVALUE". Non-options are left in
 * argv, which is compacted, and their count returned. `--help`/`-h`
 * print the usage and exit 0; an unknown option or a missing value
 * prints the usage and exits 2.
 */
/*
 * The options every command takes, here and before the command:
 * -q/--quiet (mks_verbose 0), -v/--verbose (2), --progress=WHEN
 * (mks_progress). Returns 1 when `arg` was one (*used_next: it took
 * `next` as its value), 0 when not, -1 after printing a bad value.
 * parse_options() handles them for each command.
 */
int common_option(const char *arg, const char *next, int *used_next);

int parse_options(int argc, const char **argv, const struct option *opts, const char *usage);
/*
 * parse_options() for a command that takes no arguments: one left is
 * named ("unexpected argument 'x': 'mkseries build' takes no
 * arguments") before the usage, and the exit status is 2.
 */
void parse_options_only(int argc, const char **argv, const struct option *opts, const char *usage);
void usage_with_options(const char *usage, const struct option *opts, int status)
	__attribute__((noreturn));

#endif
