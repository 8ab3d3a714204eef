/* test-runcmd.c: unit tests for runcmd.c: capture, feeding, lines, timeouts, and no child left behind. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "lib/runcmd.h"

static char tmpdir[] = "/tmp/test-runcmd-XXXXXX";
/* What the sleeper scripts print: kept off the TAP stream. */
static struct strbuf sink = STRBUF_INIT;

/* Alive and not a zombie waiting for a reaper (a container's init may never reap it). */
static int pid_alive(pid_t pid)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xstrfmt("/proc/%ld/stat", (long)pid);
	const char *p;
	int alive = kill(pid, 0) == 0;

	if (alive && !strbuf_read_file(&sb, path) && (p = strrchr(sb.buf, ')')))
		alive = p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	strbuf_release(&sb);
	free(path);
	return alive;
}

/* Wait up to 5 s for a process to go. */
static int pid_gone(pid_t pid)
{
	/* long enough for a child started on a machine busy with other builds (ASan, two cores) */
	double until = mono_seconds() + 30;

	while (pid_alive(pid) && mono_seconds() < until)
		usleep(20000);
	return !pid_alive(pid);
}

/* The pid a script wrote to path, waiting up to 5 s for it; 0 when none. */
static pid_t read_pid(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	/* long enough for a child started on a machine busy with other builds (ASan, two cores) */
	double until = mono_seconds() + 30;
	pid_t pid = 0;

	while (mono_seconds() < until) {
		strbuf_reset(&sb);
		if (!strbuf_read_file(&sb, path) && strchr(sb.buf, '\n')) {
			pid = atoi(sb.buf);
			break;
		}
		usleep(20000);
	}
	strbuf_release(&sb);
	return pid;
}

/* sh -c script, with "$1" set to arg. */
static void sh(struct child *c, const char *script, const char *arg)
{
	strvec_pushl(&c->argv, "sh", "-c", script, "sh", arg, NULL);
}

static void test_capture(void)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct child c = CHILD_INIT;
	int status;

	sh(&c, "echo out; echo err >&2; exit 3", "");
	c.out = &out;
	c.err = &err;
	status = child_run(&c);
	is_int(status, 3, "capture: the exit status comes back");
	is_str(out.buf, "out\n", "capture: stdout");
	is_str(err.buf, "err\n", "capture: stderr, apart");
	child_release(&c);
	c = (struct child)CHILD_INIT;

	strbuf_reset(&out);
	sh(&c, "echo one; echo two >&2; echo three", "");
	c.out = &out;
	c.err = NULL;
	c.err_to_out = 1;
	child_run(&c);
	is_str(out.buf, "one\ntwo\nthree\n", "err_to_out: stderr in stdout, in order");
	child_release(&c);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_stdin_env_dir(void)
{
	struct strbuf out = STRBUF_INIT, big = STRBUF_INIT;
	struct child c = CHILD_INIT;
	size_t i;

	/* More than a pipe holds: the writes must be interleaved with the reads. */
	for (i = 0; i < 200000; i++)
		strbuf_addstr(&big, "line\n");
	strvec_push(&c.argv, "cat");
	c.in = big.buf;
	c.out = &out;
	is_int(child_run(&c), 0, "stdin: cat exits 0");
	ok(out.len == big.len && !memcmp(out.buf, big.buf, big.len),
	   "stdin: a megabyte goes through cat unchanged");
	child_release(&c);
	c = (struct child)CHILD_INIT;

	strbuf_reset(&out);
	setenv("RUNCMD_B", "inherited", 1);
	sh(&c, "echo \"$RUNCMD_A ${RUNCMD_B-unset} $(pwd)\"; read x || echo eof", "");
	strvec_pushl(&c.env, "RUNCMD_A=set", "RUNCMD_B", NULL);
	c.dir = "/";
	c.out = &out;
	child_run(&c);
	is_str(out.buf, "set unset /\neof\n", "env set and unset, dir, stdin is /dev/null");
	ok(!strcmp(getenv("RUNCMD_B"), "inherited"), "env: ours is left alone");
	child_release(&c);
	strbuf_release(&out);
	strbuf_release(&big);
}

static void add_line(void *data, const char *line)
{
	strbuf_addf(data, "[%s]", line);
}

/* The child gets no descriptor of ours beyond 0, 1 and 2 (inherited ones aside). */
static void test_no_leak(void)
{
	struct strbuf fed = STRBUF_INIT, devnull = STRBUF_INIT;
	struct child c = CHILD_INIT;

	strvec_pushl(&c.argv, "ls", "/proc/self/fd", NULL);
	c.in = "";
	c.out = &fed;
	child_run(&c);
	child_release(&c);
	c = (struct child)CHILD_INIT;
	strvec_pushl(&c.argv, "ls", "/proc/self/fd", NULL);
	c.out = &devnull;
	child_run(&c);
	child_release(&c);
	is_str(devnull.buf, fed.buf, "fds: opening /dev/null for stdin leaves nothing open");
	strbuf_release(&fed);
	strbuf_release(&devnull);
}

static void test_log_and_lines(void)
{
	struct strbuf log = STRBUF_INIT, lines = STRBUF_INIT;
	struct child c = CHILD_INIT;
	char *path = path_join(tmpdir, "log");

	sh(&c, "echo first", "");
	c.log_path = path;
	child_run(&c);
	child_release(&c);
	c = (struct child)CHILD_INIT;
	sh(&c, "printf 'a\\r\\nb\\n' ; echo oops >&2; printf last", "");
	c.log_path = path;
	c.err_to_out = 1;
	c.on_line = add_line;
	c.data = &lines;
	child_run(&c);
	child_release(&c);
	strbuf_read_file(&log, path);
	is_str(log.buf, "first\na\r\nb\noops\nlast", "log: appended, both streams");
	is_str(lines.buf, "[a][b][oops][last]", "on_line: lines without CR-LF, the unfinished last one too");
	strbuf_release(&log);
	strbuf_release(&lines);
	free(path);
}

static void test_status(void)
{
	struct strbuf err = STRBUF_INIT;
	struct child c = CHILD_INIT;

	strvec_push(&c.argv, "./no/such/program");
	c.err = &err;
	is_int(child_run(&c), 127, "exec failure: status 127");
	is_int(c.exec_errno, ENOENT, "exec failure: exec_errno says why");
	ok(strstr(err.buf, "cannot run './no/such/program'") != NULL,
	   "exec failure: said on the child's stderr");
	child_release(&c);
	c = (struct child)CHILD_INIT;

	strbuf_reset(&err);
	strvec_push(&c.argv, "./no/such/program");
	c.err = &err;
	c.silent_exec_failure = 1;
	child_run(&c);
	is_str(err.buf, "", "silent_exec_failure: nothing said");
	child_release(&c);
	c = (struct child)CHILD_INIT;

	sh(&c, "kill -9 $$", "");
	is_int(child_run(&c), 128 + SIGKILL, "killed by a signal: 128+signal");
	ok(!c.timed_out && !c.killed && !c.exec_errno, "killed by a signal: no flag set");
	child_release(&c);
	strbuf_release(&err);
}

/*
 * A script that starts a grandchild `sleep` (in its group), records its
 * pid in $1, and waits; with TRAP, both ignore SIGTERM.
 */
#define SLEEPER "sleep 60 & echo $! >\"$1\"; echo started; wait"
#define STUBBORN "trap '' TERM; " SLEEPER

static void test_timeout(void)
{
	struct child c = CHILD_INIT;
	char *pidfile = path_join(tmpdir, "timeout.pid");
	double t0 = mono_seconds();
	int status;
	pid_t pid;

	sh(&c, SLEEPER, pidfile);
	c.out = &sink;
	c.timeout_sec = 1;
	status = child_run(&c);
	ok(c.timed_out && mono_seconds() - t0 < 3, "timeout: ends after about a second");
	is_int(status, 128 + SIGTERM, "timeout: SIGTERM first");
	pid = read_pid(pidfile);
	ok(pid > 0 && pid_gone(pid), "timeout: the grandchild went with its group");
	child_release(&c);
	c = (struct child)CHILD_INIT;

	unlink(pidfile);
	t0 = mono_seconds();
	sh(&c, STUBBORN, pidfile);
	c.out = &sink;
	c.timeout_sec = 1;
	status = child_run(&c);
	is_int(status, 128 + SIGKILL, "timeout: SIGKILL for a child that ignores SIGTERM");
	ok(mono_seconds() - t0 < 8, "timeout: SIGKILL within the grace");
	pid = read_pid(pidfile);
	ok(pid > 0 && pid_gone(pid), "timeout: its stubborn grandchild too");
	child_release(&c);
	free(pidfile);
}

static int tick_after_start(void *data)
{
	return file_exists(data);
}

static void test_tick(void)
{
	struct child c = CHILD_INIT;
	char *pidfile = path_join(tmpdir, "tick.pid");
	int status;
	pid_t pid;

	sh(&c, SLEEPER, pidfile);
	c.out = &sink;
	c.on_tick = tick_after_start;
	c.data = pidfile;
	status = child_run(&c);
	ok(c.killed && !c.timed_out, "on_tick: nonzero kills and sets killed");
	is_int(status, 128 + SIGTERM, "on_tick: the child died of SIGTERM");
	pid = read_pid(pidfile);
	ok(pid > 0 && pid_gone(pid), "on_tick: the grandchild too");
	child_release(&c);
	free(pidfile);
}

static void exit_on_line(void *data, const char *line)
{
	exit(5);
}

/* In a forked mkseries stand-in: run SLEEPER; `how` says how it ends. */
static void __attribute__((noreturn)) run_sleeper(const char *pidfile, int how)
{
	struct child c = CHILD_INIT;

	sh(&c, SLEEPER, pidfile);
	c.out = &sink;
	if (how == 'x')
		c.on_line = exit_on_line;
	child_run(&c);
	_exit(0);
}

/* Fork a stand-in, send it sig once its grandchild runs; its wait status. */
static int signal_standin(const char *name, int how, int sig, pid_t *grandchild)
{
	char *pidfile = path_join(tmpdir, name);
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (!pid)
		run_sleeper(pidfile, how);
	*grandchild = read_pid(pidfile);
	if (sig && *grandchild > 0)
		kill(pid, sig);
	/* Whatever happens, do not hang the suite. */
	alarm(60);
	waitpid(pid, &status, 0);
	alarm(0);
	free(pidfile);
	return status;
}

static void test_signals(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	int status;
	pid_t gc;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		char name[32];

		snprintf(name, sizeof(name), "sig%d.pid", sigs[i]);
		status = signal_standin(name, 0, sigs[i], &gc);
		ok(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i],
		   "signal %d: forwarded, then mkseries dies of it", sigs[i]);
		ok(gc > 0 && pid_gone(gc), "signal %d: the grandchild is gone", sigs[i]);
	}

	status = signal_standin("exit.pid", 'x', 0, &gc);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 5, "exit() with a child running: exit status kept");
	ok(gc > 0 && pid_gone(gc), "exit() with a child running: the group is killed at exit");

	fflush(NULL);
	if (!fork()) {
		runcmd_setup();
		raise(SIGTERM);
		_exit(0);
	}
	wait(&status);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM,
	   "a signal with no child running: mkseries dies of it at once");
}

/* In a forked mkseries stand-in: an editor-like terminal child that reads our stdin and owns Ctrl-C. */
static void __attribute__((noreturn)) run_terminal(const char *pidfile)
{
	struct child c = CHILD_INIT;
	int p[2];

	if (pipe(p) || write(p[1], "typed\n", 6) != 6)
		_exit(99);
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	sh(&c, "read -r word; echo \"$word\" >\"$1.in\"; sleep 300 </dev/null & echo $! >\"$1.kid\"; "
	   "trap 'kill $!; exit 7' INT; echo $$ >\"$1\"; "
	   "while :; do sleep 0.05; done", pidfile);
	c.terminal = 1;
	_exit(child_run(&c));
}

static pid_t start_terminal(const char *pidfile, pid_t *editor)
{
	pid_t pid;

	unlink(pidfile);
	fflush(NULL);
	pid = fork();
	if (!pid)
		run_terminal(pidfile);
	*editor = read_pid(pidfile);
	return pid;
}

static void test_terminal(void)
{
	char *pidfile = path_join(tmpdir, "editor.pid"), *infile = xstrfmt("%s.in", pidfile);
	char *kidfile = xstrfmt("%s.kid", pidfile);
	struct strbuf in = STRBUF_INIT;
	int status = -1;
	pid_t pid, editor, kid;

	pid = start_terminal(pidfile, &editor);
	ok(editor > 0 && !strbuf_read_file(&in, infile) && !strcmp(in.buf, "typed\n"),
	   "terminal child: reads mkseries's own stdin");
	ok(editor > 0 && getpgid(editor) == editor && getpgid(editor) != getpgid(pid),
	   "terminal child: in a group of its own, with what it starts");
	kill(pid, SIGINT);
	usleep(300000);
	ok(editor > 0 && pid_alive(editor) && waitpid(pid, &status, WNOHANG) == 0,
	   "terminal child: Ctrl-C is not mkseries's to act on while it runs");
	kill(editor, SIGINT);
	alarm(60);
	waitpid(pid, &status, 0);
	alarm(0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 7, "terminal child: its own exit status comes back");

	pid = start_terminal(pidfile, &editor);
	kid = read_pid(kidfile);
	kill(pid, SIGTERM);
	alarm(60);
	waitpid(pid, &status, 0);
	alarm(0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "terminal child: SIGTERM is still passed on");
	ok(editor > 0 && pid_gone(editor), "terminal child: gone with mkseries");
	ok(kid > 0 && pid_gone(kid), "terminal child: what the editor started is gone too");
	if (kid > 0)
		kill(kid, SIGKILL);
	strbuf_release(&in);
	free(kidfile);
	free(infile);
	free(pidfile);
}

/* In a fork: register a temporary file and a directory with a file in it, then end by `how`. */
static int temp_paths_end(const char *file, const char *dir, int how)
{
	int status = -1;

	fflush(NULL);
	if (!fork()) {
		char *inner = path_join(dir, "f");

		if (write_file_atomic(file, "x", 1) || mkdir_p(dir, 0700) || write_file_atomic(inner, "y", 1))
			_exit(99);
		temp_path_add(file);
		temp_path_add(dir);
		if (how == 'k')
			raise(SIGTERM);
		exit(0);
	}
	wait(&status);
	return status;
}

static void test_temp_paths(void)
{
	char *file = path_join(tmpdir, "temp.file"), *dir = path_join(tmpdir, "temp.dir");
	int status;

	status = temp_paths_end(file, dir, 'x');
	ok(WIFEXITED(status) && !WEXITSTATUS(status) && !file_exists(file) && !file_exists(dir),
	   "temporary paths: removed at exit, a directory whole");
	status = temp_paths_end(file, dir, 'k');
	ok(WIFSIGNALED(status) && !file_exists(file),
	   "temporary paths: a signal with no child running removes a file");
	remove_tree(dir);
	free(file);
	free(dir);
}

int main(void)
{
	/*
	 * The signal tests expect each signal's default action: under nohup
	 * (or any parent that ignores one) the ignored disposition would be
	 * inherited by every child and the sleepers would never die of it.
	 */
	signal(SIGHUP, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (!mkdtemp(tmpdir))
		return 1;
	test_capture();
	test_stdin_env_dir();
	test_no_leak();
	test_log_and_lines();
	test_status();
	test_timeout();
	test_tick();
	test_signals();
	test_terminal();
	test_temp_paths();
	remove_tree(tmpdir);
	strbuf_release(&sink);
	return tap_done();
}
