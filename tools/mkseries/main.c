/* main.c: the mkseries command: dispatch to one builtin per subcommand. */
#include <errno.h>
#include <string.h>

#include "builtin/builtin.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "lib/util.h"

struct command {
	const char *name;
	int (*fn)(int argc, const char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "import", cmd_import, "bring a branch's tree into the kernel repository" },
	{ "plan", cmd_plan, "show what apply would do on each branch, and why" },
	{ "apply", cmd_apply, "apply the kit onto a branch, in memory, one commit per patch" },
	{ "backport", cmd_backport, "resolve what does not apply in a work tree; record it as the branch's backport" },
	{ "fixups", cmd_fixups, "list fixups: declared, resolved, and missing upstream ones" },
	{ "fetch", cmd_fetch, "bring a series' patches (b4, or a local mainline repository)" },
	{ "build", cmd_build, "build each variant of a branch" },
	{ "test", cmd_test, "boot each built variant in QEMU and run mm-regress" },
	{ "regress", cmd_regress, "run the embedded mm-regress on this machine" },
	{ "report", cmd_report, "report the results: text, json, junit, markdown or html" },
	{ "export", cmd_export, "ship an applied, verified branch: stable mails, quilt (Debian) or RPM patches" },
	{ "doctor", cmd_doctor, "check the machine: tools, git identity, QEMU, KVM, disk, Debian mirror" },
	{ "run", cmd_run, "the whole job: import, apply, build, test, verdicts, report" },
};

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;
	size_t i;

	fprintf(f, "usage: mkseries [--kit DIR] [-q | -v] [--progress=auto|always|never] "
		   "<command> [<options>]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "    %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'mkseries <command> --help' describes a command's options.\n"
		   "exit status: 0 all good, 1 something failed, 2 usage or configuration error\n");
	exit(status);
}

static void unknown_command(const char *cmd)
{
	size_t i, nr = 0;

	fprintf(stderr, "mkseries: '%s' is not a mkseries command. See 'mkseries --help'.\n",
		shown(cmd));
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (!similar_name(cmd, commands[i].name))
			continue;
		fprintf(stderr, "%s\n\t%s\n", nr++ ? "" : "\nThe most similar command is",
			commands[i].name);
	}
	exit(2);
}

/* The kit directory chosen with --kit before the command, else the environment. */
static void set_kit_dir(const char *dir)
{
	if (setenv("MKSERIES_KIT", dir, 1))
		die("cannot set MKSERIES_KIT: %s", strerror(errno));
}

int main(int argc, const char **argv)
{
	size_t i;
	int ret, known, used;

	argv++;
	argc--;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))
			usage(0);
		else if (!strcmp(argv[0], "--version")) {
			puts("mkseries " MKSERIES_VERSION);
			return 0;
		} else if (!strcmp(argv[0], "--kit") && argc > 1) {
			set_kit_dir(argv[1]);
			argv++;
			argc--;
		} else if (starts_with(argv[0], "--kit=")) {
			set_kit_dir(argv[0] + 6);
		} else if ((known = common_option(argv[0], argc > 1 ? argv[1] : NULL, &used))) {
			if (known < 0)
				usage(2);
			argv += used;
			argc -= used;
		} else {
			fprintf(stderr, "mkseries: unknown option '%s'\n", shown(argv[0]));
			usage(2);
		}
		argv++;
		argc--;
	}
	if (!argc)
		usage(2);
	if (!strcmp(argv[0], "help"))
		usage(0);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[0], commands[i].name))
			break;
	if (i == ARRAY_SIZE(commands))
		unknown_command(argv[0]);
	gitutil_init();
	ret = commands[i].fn(argc, argv);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "error: cannot write to standard output: %s\n", strerror(errno));
		return ret ? ret : 1;
	}
	return ret;
}
