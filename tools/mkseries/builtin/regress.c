/* builtin/regress.c: `mkseries regress`: run the embedded mm-regress on this machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "options.h"
#include "regress.h"
#include "util.h"

static const char regress_usage[] = "mkseries regress [--list] [-- <mm-regress options>...]";

/* The child's exit status, or 128 + signal as a shell reports it. */
static int wait_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return error("cannot wait for mm-regress: %s", strerror(errno)), 1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * Run from an anonymous memfd: nothing lands on disk, and nothing is left
 * behind. Returns the exit status, or -1 when the memfd route is closed
 * (no memfd_create, or a noexec policy on it) and a file must do.
 */
static int run_memfd(const char **argv)
{
	size_t len;
	const char *img = mm_regress_image(&len);
	int fd, pipefd[2], err = 0;
	ssize_t n;
	pid_t pid;

	fd = memfd_create("mm-regress", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_in_full(fd, img, len) || pipe2(pipefd, O_CLOEXEC)) {
		close(fd);
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fd);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (!pid) {
		close(pipefd[0]);
		fexecve(fd, (char *const *)argv, environ);
		/* Tell the parent why, so it can fall back to a file. */
		err = errno;
		if (write(pipefd[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(127);
	}
	close(fd);
	close(pipefd[1]);
	/* The pipe closes on a successful exec; a message means it failed. */
	while ((n = read(pipefd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	if (n == sizeof(err)) {
		wait_status(pid);
		if (mks_verbose)
			warning("cannot run mm-regress from a memfd: %s", strerror(err));
		return -1;
	}
	return wait_status(pid);
}

/* The fallback: a private temporary file under $TMPDIR, removed afterwards. */
static int run_tmpfile(const char **argv)
{
	const char *dir = getenv("TMPDIR");
	char *path = NULL;
	int fd = -1, ret = 1, err;
	pid_t pid;

	if (!dir || !*dir)
		dir = "/tmp";
	path = xstrfmt("%s/mm-regress.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0) {
		error("cannot create a temporary file in '%s': %s", dir, strerror(errno));
		free(path);
		return 1;
	}
	close(fd);
	if (mm_regress_write(path))
		goto cleanup;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		error("cannot fork: %s", strerror(errno));
		goto cleanup;
	}
	if (!pid) {
		execv(path, (char *const *)argv);
		err = errno;
		fprintf(stderr, "error: cannot run '%s': %s\n", path, strerror(err));
		_exit(127);
	}
	ret = wait_status(pid);
cleanup:
	unlink(path);
	free(path);
	return ret;
}

int cmd_regress(int argc, const char **argv)
{
	int list = 0, dashdash = argc, nr, i, ret;
	struct strvec args = STRVEC_INIT;
	const struct option opts[] = {
		{ OPT_BOOL, "list", 0, &list, NULL, "list mm-regress's cases" },
		{ OPT_END },
	};

	/* Everything after "--" is mm-regress's own, untouched. */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	}
	nr = parse_options(dashdash, argv, opts, regress_usage);
	if (nr) {
		error("unexpected argument '%s' (mm-regress options go after '--')", argv[0]);
		usage_with_options(regress_usage, opts, 2);
	}
	strvec_push(&args, "mm-regress");
	if (list)
		strvec_push(&args, "--list");
	for (i = dashdash + 1; i < argc; i++)
		strvec_push(&args, argv[i]);

	/* MKSERIES_REGRESS_NO_MEMFD=1 takes the file route, so the tests can reach it. */
	ret = getenv("MKSERIES_REGRESS_NO_MEMFD") ? -1 : run_memfd(args.v);
	if (ret < 0)
		ret = run_tmpfile(args.v);
	strvec_clear(&args);
	return ret;
}
