/* main.c: the mkseries command: dispatch to one builtin per subcommand. */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "kit/select.h"
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
	{ "series", cmd_series, "start a series in the kit from a message id or an mbox (b4)" },
	{ "fetch", cmd_fetch, "bring a series' patches (b4, or a local mainline repository)" },
	{ "build", cmd_build, "build each variant of a branch" },
	{ "test", cmd_test, "boot each built variant in QEMU and run mm-regress" },
	{ "regress", cmd_regress, "run the embedded mm-regress on this machine" },
	{ "report", cmd_report, "report the results: text, json, junit, markdown or html" },
	{ "export", cmd_export, "ship an applied, verified branch: stable mails, quilt (Debian) or RPM patches" },
	{ "bisect", cmd_bisect, "the first applied patch of a branch where a failure appears" },
	{ "gc", cmd_gc, "what the cache holds per kit and branch; drop what no kit uses" },
	{ "doctor", cmd_doctor, "check the machine: tools, git identity, QEMU, KVM, disk, Debian mirror" },
	{ "run", cmd_run, "the whole job: import, apply, build, test, verdicts, report" },
	{ "ci", cmd_ci, "write a CI pipeline (gitlab) that runs the plan's cells and merges their reports" },
};

static void usage(int status)
{
	FILE *f = status ? stderr : stdout;
	size_t i;

	error_flush();
	fprintf(f, "usage: mkseries [--kit DIR] [-q | -v] [--progress=auto|always|never] "
		   "<command> [<options>]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "    %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'mkseries <command> --help' lists a command's options; 'mkseries help <command>'\n"
		   "shows its manual page ('mkseries help kit': the kit's files).\n"
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

/*
 * The manual page `page` in section `section`: the one built next to this
 * binary (build/man/man<section>/ in a source tree) when it is there, so that `mkseries
 * help` in a checkout shows that checkout's pages, else the installed one,
 * as man(1) finds it. Returns only when man cannot be run.
 */
static int show_manual(const char *page, const char *section)
{
	char exe[PATH_MAX], *slash;
	struct strbuf local = STRBUF_INIT;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *argv[4] = { "man", section, page, NULL };

	if (len > 0) {
		exe[len] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			strbuf_addf(&local, "%s/man/man%s/%s.%s", exe, section, page, section);
			if (!access(local.buf, R_OK)) {
				argv[1] = "-l";
				argv[2] = local.buf;
			}
		}
	}
	fflush(stdout);
	execvp(argv[0], (char *const *)argv);
	print_error("cannot run man to show %s(%s): %s", page, section, strerror(errno));
	strbuf_release(&local);
	return 1;
}

/* `mkseries help [<command> | kit]`: usage() alone, else the manual page. */
static int cmd_help(int argc, const char **argv)
{
	struct strbuf page = STRBUF_INIT;
	size_t i;
	int ret;

	if (argc < 2)
		usage(0);
	if (argc > 2) {
		fprintf(stderr, "mkseries help: one command at a time, not '%s' too\n", shown(argv[2]));
		usage(2);
	}
	if (!strcmp(argv[1], "kit")) {
		ret = show_manual("mkseries-kit", "5");
		if (ret)
			fprintf(stderr, "hint: docs/kit.md, \"The kit: series.yaml\", has the same\n");
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			break;
	if (i == ARRAY_SIZE(commands))
		unknown_command(argv[1]);
	strbuf_addf(&page, "mkseries-%s", commands[i].name);
	ret = show_manual(page.buf, "1");
	if (ret)
		fprintf(stderr, "hint: 'mkseries %s --help' lists its options\n", commands[i].name);
	strbuf_release(&page);
	return ret;
}

/* Each claim's CASE.NAME in `v`, once. */
static void push_claims(struct strvec *v, const struct kit_claim *c, size_t nr)
{
	size_t i, j;

	for (i = 0; i < nr; i++) {
		char *m = xstrfmt("%s.%s", c[i].case_name, c[i].metric);

		for (j = 0; j < v->nr && strcmp(v->v[j], m); j++)
			;
		if (j == v->nr)
			strvec_push(v, m);
		free(m);
	}
}

/* The metrics the kit's claims name (series, kernel files, variants), for bisect --claim. */
static void list_claims(const struct kit *kit)
{
	struct strvec v = STRVEC_INIT;
	size_t i, j;

	for (i = 0; i < kit->nr_series; i++)
		push_claims(&v, kit->series[i].claims, kit->series[i].nr_claims);
	for (i = 0; i < kit->nr_branches; i++) {
		const struct kernel_branch *b = &kit->branches[i];

		push_claims(&v, b->claims, b->nr_claims);
		for (j = 0; j < b->nr_variants; j++)
			push_claims(&v, b->variants[j].claims, b->variants[j].nr_claims);
	}
	for (i = 0; i < v.nr; i++)
		puts(v.v[i]);
	strvec_clear(&v);
}

/*
 * `mkseries --list=WHAT`: names one a line, for scripts and the bash
 * completion (contrib/completion/mkseries.bash): the commands; the
 * kit's branches, variants (BRANCH/VARIANT, base and kit included),
 * series or the metrics its claims name (CASE.NAME); or the other kits
 * the cache holds (gc --drop).
 */
static int list_names(const char *what)
{
	static const char *const whats[] = { "cmds", "branches", "variants", "series", "claims",
					     "kits" };
	struct kit kit = KIT_INIT;
	size_t i, j;
	char *yaml;

	for (i = 0; i < ARRAY_SIZE(whats) && strcmp(what, whats[i]); i++)
		;
	if (i == ARRAY_SIZE(whats)) {
		print_error("--list: '%s' is not one of cmds, branches, variants, series, claims, kits",
		      shown(what));
		return MKS_ECONFIG;
	}
	if (!strcmp(what, "cmds")) {
		for (i = 0; i < ARRAY_SIZE(commands); i++)
			puts(commands[i].name);
		puts("help");
		return 0;
	}
	if (!strcmp(what, "kits")) {
		/* outside a kit, every kit of the cache */
		yaml = path_join(kit_dir(), "series.yaml");
		i = file_exists(yaml) && !kit_open(&kit);
		free(yaml);
		gc_list_kits(i ? kit_id(&kit) : NULL);
		kit_release(&kit);
		return 0;
	}
	if (kit_open(&kit))
		return MKS_ECONFIG;
	if (!strcmp(what, "claims"))
		list_claims(&kit);
	if (!strcmp(what, "series")) {
		for (i = 0; i < kit.nr_series; i++)
			if (kit.series[i].id)
				puts(kit.series[i].id);
	}
	for (i = 0; i < kit.nr_branches && (!strcmp(what, "branches") || !strcmp(what, "variants")); i++) {
		const struct kernel_branch *b = &kit.branches[i];

		if (!strcmp(what, "branches")) {
			puts(b->name);
			continue;
		}
		printf("%s/base\n%s/kit\n", b->name, b->name);
		for (j = 0; j < b->nr_variants; j++)
			printf("%s/%s\n", b->name, b->variants[j].name);
	}
	kit_release(&kit);
	return 0;
}

/* The command line as the repository lock's holder note shows it: "mkseries run --all". */
static void set_command_line(int argc, const char **argv)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	strbuf_addstr(&sb, "mkseries");
	for (i = 1; i < argc && sb.len < 200; i++)
		strbuf_addf(&sb, " %s", shown(argv[i]));
	mks_command_line = strbuf_detach(&sb, NULL);
}

/* Whatever was kept and not yet said is said before mkseries exits. */
static void flush_errors_at_exit(void)
{
	error_flush();
}

int main(int argc, const char **argv)
{
	size_t i;
	int ret, known;

	atexit(flush_errors_at_exit);
	set_command_line(argc, argv);
	argv++;
	argc--;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))
			usage(0);
		else if (!strcmp(argv[0], "--version")) {
			puts("mkseries " MKSERIES_VERSION);
			return 0;
		} else if (!strcmp(argv[0], "--kit") && argc > 1) {
			kit_dir_set(argv[1]);
			argv++;
			argc--;
		} else if (starts_with(argv[0], "--kit=")) {
			kit_dir_set(argv[0] + 6);
		} else if (starts_with(argv[0], "--list=")) {
			gitutil_init();
			return list_names(argv[0] + 7) ? 2 : 0;
		} else if ((known = common_option(argv[0]))) {
			if (known < 0)
				usage(2);
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
		return cmd_help(argc, argv);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[0], commands[i].name))
			break;
	if (i == ARRAY_SIZE(commands))
		unknown_command(argv[0]);
	gitutil_init();
	ret = commands[i].fn(argc, argv);
	error_flush();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "error: cannot write to standard output: %s\n", strerror(errno));
		return ret ? ret : 1;
	}
	return ret;
}
