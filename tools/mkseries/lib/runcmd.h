/* lib/runcmd.h: the one way mkseries starts a child process, and cleans up after it on any exit. */
#ifndef MKSERIES_RUNCMD_H
#define MKSERIES_RUNCMD_H

#include "lib/util.h"

/*
 * A child process, started from an argument vector (never a shell line).
 * Fill it with designated fields over CHILD_INIT; child_run() starts it,
 * feeds and reads it, and waits for it.
 *
 * Every child runs in a process group of its own (parent and child both
 * set it, so there is no window where a kill of the group misses). While
 * it runs, SIGINT, SIGTERM and SIGHUP sent to mkseries are forwarded to
 * the group; once the child is gone mkseries dies of the same signal
 * (a shell reports 128+signal: 130 for Ctrl-C, 143 for SIGTERM). A group
 * still registered when mkseries exits is sent SIGTERM, then SIGKILL.
 * Signals that were ignored when mkseries started (nohup) stay ignored.
 *
 * A terminal child (an editor) reads the terminal as its stdin, and
 * Ctrl-C is its own: it runs in a group of its own like the others, and
 * when mkseries is in the terminal's foreground that group becomes the
 * foreground one while it runs (mkseries takes the terminal back after,
 * as a shell does with its jobs); mkseries ignores SIGINT meanwhile, as
 * git does for its editor. SIGTERM and SIGHUP are passed on to the whole
 * group, so what the editor started goes too, and it is killed at exit.
 *
 * Output: stdout goes to `out` (and stderr too with err_to_out), stderr
 * to `err`; both are also appended to `log_path`, and each line of stdout
 * (without its newline or a trailing CR) is handed to on_line. Streams
 * nobody wants are inherited. stdin is /dev/null unless `in` is set.
 *
 * Ending early: after timeout_sec seconds, or when on_tick (called about
 * ten times a second) returns nonzero, the group gets SIGTERM, and SIGKILL
 * three seconds later; timed_out or killed says which. A group killed so
 * is killed whole once its leader is reaped (make's jobs, a `sleep`).
 */
struct child {
	struct strvec argv;	/* argv[0] is looked up in PATH */
	struct strvec env;	/* NAME=VALUE to set, NAME to unset */
	const char *dir;	/* chdir before exec, or NULL */
	const char *in;		/* data fed to stdin, or NULL for /dev/null */
	struct strbuf *out;
	struct strbuf *err;
	int err_to_out;		/* merge stderr into stdout */
	const char *log_path;	/* append stdout and stderr to this file */
	void (*on_line)(void *data, const char *line);
	int (*on_tick)(void *data);
	void *data;		/* for on_line and on_tick */
	unsigned timeout_sec;	/* 0: none */
	int use_exec_fd;	/* run the program open at exec_fd (fexecve) */
	int exec_fd;
	int silent_exec_failure; /* print nothing when exec fails */
	int terminal;		/* an editor: see above */
	int took_tty;		/* set by child_run(): the editor's group has the terminal */

	/* Set by child_run(). */
	int timed_out;
	int killed;		/* on_tick asked */
	int exec_errno;		/* nonzero: exec failed (status 127) */
};
#define CHILD_INIT { .argv = STRVEC_INIT, .env = STRVEC_INIT }

/*
 * Run cmd to its end. Returns the exit status (0..255), 128+signal when
 * the child was killed, 127 when it could not be executed (exec_errno
 * says why, and the child said so on its stderr), or -1 when it could not
 * be started at all (a message is printed).
 */
int child_run(struct child *cmd);
/* Free argv and env; cmd can be run again after refilling them. */
void child_release(struct child *cmd);

/*
 * Install the signal forwarding and the exit-time cleanup now, rather
 * than at the first child_run(). Idempotent.
 */
void runcmd_setup(void);

/*
 * A temporary file or directory (removed whole) that mkseries removes
 * itself when done: until temp_path_done(), a signal that ends mkseries
 * or an exit removes it (in a signal handler with no child running, only
 * a file or an empty directory can be removed). At most 16 at once.
 */
void temp_path_add(const char *path);
void temp_path_done(const char *path);

/*
 * The first line `program --version` prints on stdout (on stderr when
 * stdout has nothing; LC_ALL=C, at most 30 s), or a copy of `fallback`
 * when it cannot be run or says nothing. Caller frees.
 */
char *program_version(const char *program, const char *fallback);

/*
 * Whether `program` can be run: a path with a slash that is executable,
 * else an executable file of that name in a directory of $PATH.
 */
int program_on_path(const char *program);
/* Where program_on_path() finds `program`, or NULL. Caller frees. */
char *program_path(const char *program);

#endif
