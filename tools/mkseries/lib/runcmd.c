/* lib/runcmd.c: start children in process groups of their own, feed and read them, and leave none behind. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/runcmd.h"

extern char **environ;

#define MAX_GROUPS 64
#define KILL_GRACE 3.0		/* seconds between SIGTERM and SIGKILL */
#define EXIT_GRACE 2.0		/* the same, when mkseries itself is leaving */

/*
 * The children now running, each as what kill() takes to reach it: -pgid
 * for a child in a group of its own, its pid for a terminal child (which
 * stays in ours); 0 is a free slot. The signal handler reads it without a
 * lock: a slot is one aligned int, and it is filled only after the group
 * exists and emptied only after the child is reaped.
 */
static volatile pid_t live[MAX_GROUPS];
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t pending_signal;
/*
 * Temporary files and directories mkseries made and removes itself when
 * all goes well; a signal that ends mkseries, or an exit before their
 * owner is done, removes them here. Owned copies; NULL is a free slot.
 */
#define MAX_TEMP 16
static char *volatile temp_paths[MAX_TEMP];
static volatile sig_atomic_t terminal_children;	/* Ctrl-C is theirs while they run */

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP };
static int handled[ARRAY_SIZE(forwarded)];	/* our handler is installed */
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void on_signal(int sig)
{
	int saved_errno = errno, any = 0;
	size_t i;

	/* An editor on the terminal has Ctrl-C for itself, as under git. */
	if (sig == SIGINT && terminal_children)
		return;
	for (i = 0; i < MAX_GROUPS; i++) {
		pid_t target = live[i];

		if (target) {
			kill(target, sig);
			any = 1;
		}
	}
	if (!any) {
		/*
		 * Nothing to wait for: die now, as if we had no handler, after
		 * what can be removed safely here (a file, an empty directory).
		 */
		for (i = 0; i < MAX_TEMP; i++)
			if (temp_paths[i] && unlink(temp_paths[i]))
				rmdir(temp_paths[i]);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	pending_signal = sig;
	errno = saved_errno;
}

/*
 * Make process group `pgid` the terminal's foreground group, as a shell
 * does for a job: an editor in a group of its own gets the terminal's
 * Ctrl-C and reads it without SIGTTIN, and mkseries takes it back after.
 * SIGTTOU is blocked meanwhile: a background group may not otherwise.
 */
static void give_terminal(pid_t pgid)
{
	sigset_t ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &ttou, &old);
	tcsetpgrp(0, pgid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int group_add(pid_t pid)
{
	size_t i;
	int ret = -1;

	pthread_mutex_lock(&live_lock);
	for (i = 0; i < MAX_GROUPS && ret < 0; i++) {
		if (!live[i]) {
			live[i] = pid;
			ret = 0;
		}
	}
	pthread_mutex_unlock(&live_lock);
	return ret;
}

static void group_remove(pid_t pid)
{
	size_t i;

	pthread_mutex_lock(&live_lock);
	for (i = 0; i < MAX_GROUPS; i++)
		if (live[i] == pid)
			live[i] = 0;
	pthread_mutex_unlock(&live_lock);
}

/* The pid of the child a kill() target of live[] reaches. */
static pid_t target_pid(pid_t target)
{
	return target < 0 ? -target : target;
}

/* Whether a child is gone: reaped (when it is ours) and, for a group, no member left. */
static int group_gone(pid_t target)
{
	waitpid(target_pid(target), NULL, WNOHANG);
	return kill(target, 0) < 0 && errno == ESRCH;
}

/* At exit: every group still registered gets SIGTERM, then SIGKILL. */
static void kill_live_groups(void)
{
	double until = mono_seconds() + EXIT_GRACE;
	size_t i;
	int left;

	pthread_mutex_lock(&live_lock);
	for (i = 0; i < MAX_GROUPS; i++)
		if (live[i])
			kill(live[i], SIGTERM);
	do {
		left = 0;
		for (i = 0; i < MAX_GROUPS; i++) {
			if (live[i] && group_gone(live[i]))
				live[i] = 0;
			left |= live[i] != 0;
		}
		if (left)
			poll(NULL, 0, 20);
	} while (left && mono_seconds() < until);
	for (i = 0; i < MAX_GROUPS; i++) {
		if (live[i]) {
			kill(live[i], SIGKILL);
			waitpid(target_pid(live[i]), NULL, 0);
			live[i] = 0;
		}
	}
	pthread_mutex_unlock(&live_lock);
}

void temp_path_add(const char *path)
{
	size_t i;

	runcmd_setup();
	for (i = 0; i < MAX_TEMP; i++) {
		if (!temp_paths[i]) {
			temp_paths[i] = xstrdup(path);
			return;
		}
	}
	warning("more than %d temporary paths at once: '%s' is not cleaned on a signal", MAX_TEMP,
		path);
}

void temp_path_done(const char *path)
{
	size_t i;

	for (i = 0; i < MAX_TEMP; i++) {
		char *p = temp_paths[i];

		if (p && !strcmp(p, path)) {
			temp_paths[i] = NULL;	/* before the free: the handler may look */
			free(p);
		}
	}
}

static void remove_temp_paths(void)
{
	size_t i;

	for (i = 0; i < MAX_TEMP; i++) {
		char *p = temp_paths[i];

		if (p) {
			temp_paths[i] = NULL;
			remove_tree(p);
			free(p);
		}
	}
}

static void at_exit(void)
{
	kill_live_groups();
	remove_temp_paths();
}

static void setup(void)
{
	struct sigaction sa, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&sa.sa_mask, forwarded[i]);
	for (i = 0; i < ARRAY_SIZE(forwarded); i++) {
		/* Ignored when we started (nohup, a background job): keep it so. */
		if (sigaction(forwarded[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		handled[i] = !sigaction(forwarded[i], &sa, NULL);
	}
	atexit(at_exit);
}

void runcmd_setup(void)
{
	pthread_once(&setup_once, setup);
}

/* Called once a child is reaped after mkseries was told to stop: stop. */
static void __attribute__((noreturn)) die_of_signal(int sig)
{
	sigset_t set;

	kill_live_groups();
	remove_temp_paths();
	fflush(NULL);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

void child_release(struct child *cmd)
{
	strvec_clear(&cmd->argv);
	strvec_clear(&cmd->env);
}

/* One child_run(): the parent's ends of the pipes (-1 when closed) and where it stands. */
struct run {
	struct child *cmd;
	pid_t pid;
	pid_t target;		/* what kill() takes: -pid for the child's group */
	int out, err, in, log;
	size_t in_off, in_len;
	struct strbuf pending;	/* a line not finished yet, for on_line */
	double deadline, kill_at;
	int status, reaped;
	int nap_ms;		/* between looks when no pipe is open */
};

/* Pipes the child writes into or reads from: [0] read end, [1] write end. */
struct pipes {
	int out[2], err[2], in[2], exec[2];
};

static void close_pair(int fd[2])
{
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	fd[0] = fd[1] = -1;
}

static void __attribute__((noreturn)) child_fail(int fd, const char *what, const char *arg, int err,
						   int quiet)
{
	if (!quiet)
		fprintf(stderr, "error: %s '%s': %s\n", what, arg, strerror(err));
	if (fd >= 0 && write(fd, &err, sizeof(err)) < 0)
		_exit(127);
	_exit(127);
}

/* In the child, after fork(): set up fds, signals, cwd and env, and exec. */
static void __attribute__((noreturn)) child_exec(struct child *cmd, struct pipes *p,
						  const sigset_t *mask)
{
	int in = p->in[0];
	size_t i;

	setpgid(0, 0);
	if (cmd->terminal && cmd->took_tty) {
		/* the parent does it too: whichever is first, the editor's group has the terminal */
		signal(SIGTTOU, SIG_IGN);
		tcsetpgrp(0, getpid());
		signal(SIGTTOU, SIG_DFL);
	}
	for (i = 0; i < ARRAY_SIZE(forwarded); i++)
		if (handled[i])
			signal(forwarded[i], SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	pthread_sigmask(SIG_SETMASK, mask, NULL);
	if (cmd->terminal && !cmd->in)
		in = 0;
	else if (!cmd->in && (in = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		child_fail(-1, "cannot open", "/dev/null", errno, 0);
	if (in)
		dup2(in, 0);
	if (p->out[1] >= 0)
		dup2(p->out[1], 1);
	if (cmd->err_to_out)
		dup2(1, 2);
	else if (p->err[1] >= 0)
		dup2(p->err[1], 2);
	if (cmd->dir && chdir(cmd->dir))
		child_fail(-1, "cannot chdir to", cmd->dir, errno, 0);
	for (i = 0; i < cmd->env.nr; i++) {
		if (strchr(cmd->env.v[i], '='))
			putenv((char *)cmd->env.v[i]);
		else
			unsetenv(cmd->env.v[i]);
	}
	if (cmd->use_exec_fd)
		fexecve(cmd->exec_fd, (char *const *)cmd->argv.v, environ);
	else
		execvp(cmd->argv.v[0], (char *const *)cmd->argv.v);
	child_fail(p->exec[1], "cannot run", cmd->argv.v[0], errno, cmd->silent_exec_failure);
}

static int open_pipes(struct pipes *p, const struct child *cmd, int log_fd)
{
	int want_out = cmd->out || cmd->on_line || log_fd >= 0;
	int want_err = !cmd->err_to_out && (cmd->err || log_fd >= 0);

	if ((want_out && pipe2(p->out, O_CLOEXEC)) || (want_err && pipe2(p->err, O_CLOEXEC)) ||
	    (cmd->in && pipe2(p->in, O_CLOEXEC)) || pipe2(p->exec, O_CLOEXEC))
		return error("cannot create pipe: %s", strerror(errno));
	return 0;
}

/* Fork and exec; on return the child is in its group and registered. */
static int child_start(struct run *r, struct pipes *p)
{
	struct child *cmd = r->cmd;
	sigset_t block, old;
	ssize_t n;
	size_t i;
	int err;

	if (open_pipes(p, cmd, r->log))
		return -1;
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(forwarded); i++)
		sigaddset(&block, forwarded[i]);
	/* A signal between fork() and group_add() would miss the child. */
	pthread_sigmask(SIG_BLOCK, &block, &old);
	fflush(NULL);
	/* an editor takes the terminal only from a mkseries in its foreground */
	cmd->took_tty = cmd->terminal && isatty(0) && tcgetpgrp(0) == getpgrp();
	r->pid = fork();
	if (!r->pid)
		child_exec(cmd, p, &old);
	err = errno;
	if (r->pid > 0) {
		if (cmd->terminal)
			terminal_children++;
		setpgid(r->pid, r->pid);
		if (cmd->took_tty)
			give_terminal(r->pid);
		r->target = -r->pid;
		if (group_add(r->target))
			warning("more than %d children at once: '%s' is not tracked", MAX_GROUPS,
				cmd->argv.v[0]);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r->pid < 0)
		return error("cannot fork: %s", strerror(err));
	/* Keep our ends; the child's ends must close here for EOF to come. */
	r->out = p->out[0], p->out[0] = -1;
	r->err = p->err[0], p->err[0] = -1;
	r->in = p->in[1], p->in[1] = -1;
	close_pair(p->out);
	close_pair(p->err);
	close_pair(p->in);
	close(p->exec[1]);
	p->exec[1] = -1;
	/* The exec pipe closes when exec succeeds; an errno in it means it did not. */
	while ((n = read(p->exec[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	if (n == sizeof(err))
		cmd->exec_errno = err;
	if (r->in >= 0) {
		fcntl(r->in, F_SETFL, O_NONBLOCK);
		if (!r->in_len)
			r->in = (close(r->in), -1);
	}
	return 0;
}

/* Hand each complete line of buf to on_line. */
static void feed_lines(struct run *r, const char *buf, size_t n)
{
	struct strbuf *pending = &r->pending;
	size_t start = 0, i;

	strbuf_add(pending, buf, n);
	for (i = 0; i < pending->len; i++) {
		if (pending->buf[i] != '\n')
			continue;
		pending->buf[i] = '\0';
		if (i > start && pending->buf[i - 1] == '\r')
			pending->buf[i - 1] = '\0';
		r->cmd->on_line(r->cmd->data, pending->buf + start);
		start = i + 1;
	}
	if (start) {
		memmove(pending->buf, pending->buf + start, pending->len - start);
		strbuf_setlen(pending, pending->len - start);
	}
}

static void read_some(struct run *r, int *fd, struct strbuf *to, int lines)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		*fd = (close(*fd), -1);
		return;
	}
	if (to)
		strbuf_add(to, buf, n);
	/* A log that cannot be written (full disk) is given up, not the child. */
	if (r->log >= 0 && write_in_full(r->log, buf, n))
		r->log = (close(r->log), -1);
	if (lines && r->cmd->on_line)
		feed_lines(r, buf, n);
}

static void write_some(struct run *r)
{
	ssize_t w = write(r->in, r->cmd->in + r->in_off, r->in_len - r->in_off);

	if (w > 0)
		r->in_off += w;
	if ((w < 0 && errno != EAGAIN && errno != EINTR) || r->in_off == r->in_len)
		r->in = (close(r->in), -1);
}

/* Start or finish ending the child: timeout, on_tick, a signal to mkseries. */
static void check_stop(struct run *r)
{
	struct child *cmd = r->cmd;
	double now = mono_seconds();

	if (r->kill_at) {
		/* Once the leader is gone, what is left of its group goes at once. */
		if (now >= r->kill_at || r->reaped)
			kill(r->target, SIGKILL);
		return;
	}
	if (pending_signal) {
		/* The handler has passed the signal on already. */
		r->kill_at = now + KILL_GRACE;
		return;
	}
	if (r->deadline && now >= r->deadline)
		cmd->timed_out = 1;
	else if (cmd->on_tick && !r->reaped && cmd->on_tick(cmd->data))
		cmd->killed = 1;
	else
		return;
	kill(r->target, SIGTERM);
	r->kill_at = now + KILL_GRACE;
}

static void try_reap(struct run *r)
{
	pid_t w = waitpid(r->pid, &r->status, WNOHANG);

	if (w == r->pid || (w < 0 && errno == ECHILD))
		r->reaped = 1;
}

/* Feed and read the child until it has exited and its output is closed. */
static void pump(struct run *r)
{
	while (r->out >= 0 || r->err >= 0 || r->in >= 0 || !r->reaped) {
		struct pollfd pfd[3];
		int n = 0, i;

		if (r->out >= 0)
			pfd[n++] = (struct pollfd){ r->out, POLLIN, 0 };
		if (r->err >= 0)
			pfd[n++] = (struct pollfd){ r->err, POLLIN, 0 };
		if (r->in >= 0)
			pfd[n++] = (struct pollfd){ r->in, POLLOUT, 0 };
		if (!n) {
			/* Only the exit is left to wait for: look often at first, then less. */
			poll(NULL, 0, r->nap_ms);
			r->nap_ms = r->nap_ms < 50 ? r->nap_ms * 2 : 50;
		} else if (poll(pfd, n, 100) > 0) {
			for (i = 0; i < n; i++) {
				if (!pfd[i].revents)
					continue;
				if (pfd[i].fd == r->out)
					read_some(r, &r->out, r->cmd->out, 1);
				else if (pfd[i].fd == r->err)
					read_some(r, &r->err, r->cmd->err, 0);
				else
					write_some(r);
			}
		}
		if (!r->reaped)
			try_reap(r);
		check_stop(r);
	}
	if (r->pending.len && r->cmd->on_line) {
		strbuf_addch(&r->pending, '\n');
		feed_lines(r, "", 0);
	}
}

int child_run(struct child *cmd)
{
	struct run r = { .cmd = cmd, .out = -1, .err = -1, .in = -1, .log = -1,
			 .pending = STRBUF_INIT, .nap_ms = 1 };
	struct pipes p = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
	struct sigaction old_pipe;
	int ret = -1;

	if (!cmd->argv.nr)
		BUG("child_run() without argv");
	cmd->timed_out = cmd->killed = cmd->exec_errno = 0;
	runcmd_setup();
	r.in_len = cmd->in ? strlen(cmd->in) : 0;
	if (cmd->log_path) {
		r.log = open(cmd->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (r.log < 0)
			return error("cannot open log '%s': %s", cmd->log_path, strerror(errno));
	}
	/* A child that exits without reading its input must not kill us with SIGPIPE. */
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, &old_pipe);
	if (child_start(&r, &p))
		goto cleanup;
	if (cmd->timeout_sec)
		r.deadline = mono_seconds() + cmd->timeout_sec;
	pump(&r);
	group_remove(r.target);
	if (cmd->took_tty)
		give_terminal(getpgrp());
	if (cmd->terminal)
		terminal_children--;
	ret = WIFEXITED(r.status) ? WEXITSTATUS(r.status) :
	      WIFSIGNALED(r.status) ? 128 + WTERMSIG(r.status) : 255;
cleanup:
	sigaction(SIGPIPE, &old_pipe, NULL);
	close_pair(p.out);
	close_pair(p.err);
	close_pair(p.in);
	close_pair(p.exec);
	if (r.log >= 0)
		close(r.log);
	strbuf_release(&r.pending);
	if (pending_signal)
		die_of_signal(pending_signal);
	return ret;
}

char *program_version(const char *program, const char *fallback)
{
	struct child c = CHILD_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const struct strbuf *said;
	char *ret;
	int status;

	strvec_pushl(&c.argv, program, "--version", NULL);
	strvec_push(&c.env, "LC_ALL=C");
	/*
	 * Apart: the two pipes are read as data comes, so one buffer for
	 * both would put a warning first one time and after the next.
	 */
	c.out = &out;
	c.err = &err;
	c.timeout_sec = 30;
	status = child_run(&c);
	child_release(&c);
	said = out.len ? &out : &err;
	if (status || !said->len)
		ret = xstrdup(fallback);
	else
		ret = xstrndup(said->buf, strcspn(said->buf, "\n"));
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

char *program_path(const char *program)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;

	if (strchr(program, '/'))
		return access(program, X_OK) ? NULL : xstrdup(program);
	while (path && *path) {
		const char *colon = strchrnul(path, ':');

		strbuf_reset(&sb);
		strbuf_add(&sb, path, colon - path);
		strbuf_addf(&sb, "/%s", program);
		if (!access(sb.buf, X_OK))
			return strbuf_detach(&sb, NULL);
		path = *colon ? colon + 1 : colon;
	}
	strbuf_release(&sb);
	return NULL;
}

int program_on_path(const char *program)
{
	char *path = program_path(program);

	free(path);
	return path != NULL;
}
