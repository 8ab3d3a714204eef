/* builtin/regress.c: `mkseries regress`: run the embedded mm-regress on this machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "lib/options.h"
#include "vm/regress.h"
#include "lib/util.h"

static const char regress_usage[] = "mkseries regress [--list] [-- <mm-regress options>...]";

/*
 * Run from an anonymous memfd: nothing lands on disk, and nothing is left
 * behind. Returns the exit status, or -1 when the memfd route is closed
 * (no memfd_create, or a noexec policy on it) and a file must do.
 */
static int run_memfd(const char **argv)
{
	struct child c = CHILD_INIT;
	size_t len;
	const char *img = mm_regress_image(&len);
	int fd, status;

	fd = memfd_create("mm-regress", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_in_full(fd, img, len)) {
		close(fd);
		return -1;
	}
	for (; *argv; argv++)
		strvec_push(&c.argv, *argv);
	c.use_exec_fd = 1;
	c.exec_fd = fd;
	/* Said only with -v: the file route is tried next. */
	c.silent_exec_failure = 1;
	status = child_run(&c);
	close(fd);
	child_release(&c);
	if (c.exec_errno) {
		if (mks_verbose > 1)
			warning("cannot run mm-regress from a memfd: %s", strerror(c.exec_errno));
		return -1;
	}
	return status < 0 ? 1 : status;
}

/* The fallback: a private temporary file under $TMPDIR, removed afterwards. */
static int run_tmpfile(const char **argv)
{
	const char *dir = getenv("TMPDIR");
	struct child c = CHILD_INIT;
	char *path = NULL;
	int fd, ret = 1;

	if (!dir || !*dir)
		dir = "/tmp";
	path = xstrfmt("%s/mm-regress.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		print_error("cannot create a temporary file in '%s': %s", dir, strerror(errno));
		free(path);
		return 1;
	}
	close(fd);
	temp_path_add(path);
	if (mm_regress_write(path))
		goto cleanup;
	for (; *argv; argv++)
		strvec_push(&c.argv, *argv);
	/* argv[0] is mm-regress's name; the file to run is path. */
	c.use_exec_fd = 1;
	c.exec_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (c.exec_fd < 0) {
		print_error("cannot open '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	ret = child_run(&c);
	close(c.exec_fd);
	if (ret < 0)
		ret = 1;
cleanup:
	child_release(&c);
	unlink(path);
	temp_path_done(path);
	free(path);
	return ret;
}

int cmd_regress(int argc, const char **argv)
{
	int list = 0, nr, i, ret;
	struct strvec args = STRVEC_INIT;
	const struct option opts[] = {
		OPT_BOOL("list", 0, &list, "list mm-regress's cases"),
		OPT_END(),
	};

	/* Everything after "--" is mm-regress's own, untouched. */
	nr = parse_options_ex(argc, argv, opts, regress_usage, PARSE_OPT_KEEP_DASHDASH);
	if (nr && strcmp(argv[0], "--")) {
		print_error("unexpected argument '%s' (mm-regress options go after '--')", argv[0]);
		usage_with_options(regress_usage, opts, 2);
	}
	strvec_push(&args, "mm-regress");
	if (list)
		strvec_push(&args, "--list");
	for (i = 1; i < nr; i++)
		strvec_push(&args, argv[i]);

	/* MKSERIES_REGRESS_NO_MEMFD=1 takes the file route, so the tests can reach it. */
	ret = getenv("MKSERIES_REGRESS_NO_MEMFD") ? -1 : run_memfd(args.v);
	if (ret < 0)
		ret = run_tmpfile(args.v);
	strvec_clear(&args);
	return ret;
}
