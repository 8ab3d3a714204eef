/* gitutil.c: libgit2 error reporting, repository opening, locking and ref updates. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "gitutil.h"
#include "util.h"

void gitutil_init(void)
{
	static int done;

	if (!done) {
		git_libgit2_init();
		done = 1;
	}
}

/* "<what>: <libgit2's message>", as an error or a warning. */
static void git_vreport(int as_error, int gerr, const char *fmt, va_list ap)
{
	const git_error *e = git_error_last();
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	if (e && e->message)
		strbuf_addf(&sb, ": %s", e->message);
	else
		strbuf_addf(&sb, " (libgit2 error %d)", gerr);
	if (as_error)
		error("%s", sb.buf);
	else
		warning("%s", sb.buf);
	strbuf_release(&sb);
}

int git_error_report(int gerr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	git_vreport(1, gerr, fmt, ap);
	va_end(ap);
	return -1;
}

void git_warning_report(int gerr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	git_vreport(0, gerr, fmt, ap);
	va_end(ap);
}

int repo_open(git_repository **out, const char *path, int create)
{
	int err;

	*out = NULL;
	err = git_repository_open_ext(out, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (err == GIT_ENOTFOUND && create) {
		if (mkdir_p(path, 0755))
			return error("cannot create '%s': %s", path, strerror(errno));
		err = git_repository_init(out, path, 1);
		if (err < 0)
			return git_error_report(err, "cannot create repository '%s'", path);
		return 0;
	}
	if (err == GIT_ENOTFOUND)
		return error_code(MKS_ENOTFOUND, "'%s' is not a git repository", path);
	if (err < 0)
		return git_error_report(err, "cannot open repository '%s'", path);
	return 0;
}

int repo_lock(struct repo_lock *lk, git_repository *repo)
{
	char *path = path_join(git_repository_path(repo), "mkseries.lock");
	struct strbuf holder = STRBUF_INIT;
	char pid[32];
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = error("cannot open lock '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		strbuf_read_fd(&holder, fd);
		strbuf_rtrim(&holder);
		ret = error_code(MKS_ELOCKED,
				 "'%s' is locked by another mkseries (pid %s); wait for it to finish",
				 git_repository_path(repo), holder.len ? holder.buf : "unknown");
		close(fd);
		goto cleanup;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, strlen(pid), 0) < 0)
		{ /* the pid is only a hint for the message above */ }
	lk->fd = fd;
cleanup:
	strbuf_release(&holder);
	free(path);
	return ret;
}

void repo_unlock(struct repo_lock *lk)
{
	if (lk->fd >= 0) {
		flock(lk->fd, LOCK_UN);
		close(lk->fd);
	}
	lk->fd = -1;
}

int ref_update(git_repository *repo, const char *refname, const git_oid *target,
	       const git_oid *expected, int force, const char *log_message)
{
	git_reference *ref = NULL;
	int err;

	if (expected)
		err = git_reference_create_matching(&ref, repo, refname, target, 1, expected,
						    log_message);
	else
		err = git_reference_create(&ref, repo, refname, target, force, log_message);
	git_reference_free(ref);
	if (err == GIT_EMODIFIED || err == GIT_EEXISTS)
		return error("cannot update '%s': it was changed by someone else meanwhile",
			     refname);
	if (err < 0)
		return git_error_report(err, "cannot update '%s'", refname);
	return 0;
}

int backporter_signature(git_signature **out, git_repository *repo)
{
	int err = git_signature_default(out, repo);

	if (err == GIT_ENOTFOUND)
		return error("who are you? set user.name and user.email with git config: "
			     "mkseries signs off backports in your name");
	if (err < 0)
		return git_error_report(err, "cannot read user.name/user.email");
	return 0;
}

const char *oid_short(const git_oid *oid)
{
	static char buf[GIT_OID_HEXSZ + 1];

	git_oid_tostr(buf, 13, oid);
	return buf;
}
