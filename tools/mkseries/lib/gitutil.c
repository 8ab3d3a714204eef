/* lib/gitutil.c: libgit2 error reporting, repository opening, locking, ref updates, and a tree diff that skips what is the same. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/gitutil.h"
#include "lib/util.h"

void gitutil_init(void)
{
	static int done;

	if (!done) {
		git_libgit2_init();
		done = 1;
	}
}

int gitutil_set_opt(enum gitutil_opt opt, int on)
{
	static const git_libgit2_opt_t names[] = {
		[GITUTIL_CACHING] = GIT_OPT_ENABLE_CACHING,
		[GITUTIL_STRICT_HASH] = GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION,
		[GITUTIL_STRICT_CREATION] = GIT_OPT_ENABLE_STRICT_OBJECT_CREATION,
	};
	/* libgit2's defaults: every one on. */
	static int now[] = { 1, 1, 1 };
	int was;

	if ((size_t)opt >= ARRAY_SIZE(names))
		BUG("unknown libgit2 option %d", opt);
	was = now[opt];
	if (git_libgit2_opts(names[opt], on) < 0)
		BUG("libgit2 refused option %d", opt);
	now[opt] = on;
	return was;
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

int gitutil_error(int gerr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	git_vreport(1, gerr, fmt, ap);
	va_end(ap);
	return -1;
}

void gitutil_warning(int gerr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	git_vreport(0, gerr, fmt, ap);
	va_end(ap);
}

char *blob_hash_hex(const void *data, size_t len)
{
	git_oid oid;

	/* Hashing memory fails only when libgit2 cannot allocate. */
	if (git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB) < 0)
		BUG("cannot hash %zu bytes", len);
	return xstrdup(git_oid_tostr_s(&oid));
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
			return gitutil_error(err, "cannot create repository '%s'", path);
		return 0;
	}
	if (err == GIT_ENOTFOUND)
		return error_code(MKS_ENOTFOUND, "'%s' is not a git repository", path);
	if (err < 0)
		return gitutil_error(err, "cannot open repository '%s'", path);
	return 0;
}

/* A temporary object not written to for this long is left over, not being written. */
#define TMP_OBJECT_STALE 60

/*
 * libgit2 writes a loose object to objects/tmp_object_git2_XXXXXX, then
 * renames it; a mkseries killed meanwhile (an import of a 1.5 GB tree
 * writes 80,000 of them) leaves the file behind. Under the repository
 * lock no mkseries is writing one; another libgit2 program might be, so
 * only those untouched for a minute go.
 */
static void remove_stale_tmp_objects(git_repository *repo)
{
	char *dir = path_join(git_repository_path(repo), "objects");
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);

	while (d && (de = readdir(d))) {
		struct stat st;
		char *p;

		if (!starts_with(de->d_name, "tmp_object_git2_"))
			continue;
		p = path_join(dir, de->d_name);
		if (!lstat(p, &st) && S_ISREG(st.st_mode) && now - st.st_mtime >= TMP_OBJECT_STALE &&
		    unlink(p) && errno != ENOENT)
			warning("cannot remove '%s', left by an interrupted write: %s", p,
				strerror(errno));
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
}

/* What the holder of lock file fd wrote into it, trimmed; whether there is anything. */
static int read_holder_once(struct strbuf *holder, int fd)
{
	strbuf_reset(holder);
	if (lseek(fd, 0, SEEK_SET) || strbuf_read_fd(holder, fd))
		return 0;
	strbuf_rtrim(holder);
	return holder->len > 0;
}

/*
 * The pid the holder of lock file fd wrote into it. It writes it just
 * after taking the lock: a reader in between finds the file empty (or
 * truncated), so it looks again for up to half a second.
 */
static void read_holder(struct strbuf *holder, int fd)
{
	int tries;

	for (tries = 0; tries < 20 && !read_holder_once(holder, fd); tries++)
		usleep(25000);
}

/* MKSERIES_LOCK_TIMEOUT: how long to wait for the repository lock, in seconds; -1: for ever. */
static long lock_timeout(void)
{
	const char *v = getenv("MKSERIES_LOCK_TIMEOUT");
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	if (*end || n < 0) {
		warning("MKSERIES_LOCK_TIMEOUT='%s' is not a number of seconds: waiting for ever",
			shown(v));
		return -1;
	}
	return n;
}

/* "pid 4242: mkseries run --all", or "pid 4242", from what the holder wrote. */
static void describe_holder(struct strbuf *out, const struct strbuf *holder)
{
	const char *nl = memchr(holder->buf, '\n', holder->len);

	strbuf_reset(out);
	if (!holder->len) {
		strbuf_addstr(out, "pid unknown");
		return;
	}
	strbuf_addf(out, "pid %.*s", (int)(nl ? nl - holder->buf : (ptrdiff_t)holder->len),
		    holder->buf);
	if (nl && nl[1])
		strbuf_addf(out, ": %s", shown(nl + 1));
}

static void say_waiting(const struct strbuf *who, const char *repo_path, long timeout)
{
	fprintf(stderr, "waiting for another mkseries (%s) to finish with '%s'%s\n", who->buf,
		repo_path, timeout > 0 ? "" : "; Ctrl-C stops waiting");
}

/*
 * Wait for the lock `fd` (held by another mkseries) `timeout` seconds
 * (-1: for ever, 0: not at all), having said whom it waits for; the
 * holder is described in `who`. One that had not written its pid when
 * the wait began is named again once it has. 0 once it is ours, else -1.
 */
static int wait_for_lock(int fd, const char *repo_path, long timeout, struct strbuf *who)
{
	struct strbuf holder = STRBUF_INIT;
	time_t start = time(NULL);
	int known, ret = -1;

	read_holder(&holder, fd);
	known = holder.len > 0;
	describe_holder(who, &holder);
	if (!timeout)
		goto cleanup;
	say_waiting(who, repo_path, timeout);
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (timeout > 0 && time(NULL) - start >= timeout)
			goto cleanup;
		usleep(100000);
		if (!known && (known = read_holder_once(&holder, fd))) {
			describe_holder(who, &holder);
			say_waiting(who, repo_path, timeout);
		}
	}
	ret = 0;
cleanup:
	strbuf_release(&holder);
	return ret;
}

int repo_lock(struct repo_lock *lk, git_repository *repo)
{
	char *path = path_join(git_repository_path(repo), "mkseries.lock");
	struct strbuf who = STRBUF_INIT, me = STRBUF_INIT;
	struct stat st;
	long timeout;
	int fd, ret = 0;

	/* the pid is written into it: never through a link, nor into what is not a file */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		ret = error("cannot use lock '%s': %s", path,
			    fd < 0 && errno == ELOOP ? "it is a symbolic link; remove it" :
			    fd < 0 ? strerror(errno) : "it is not a regular file; remove it");
		if (fd >= 0)
			close(fd);
		goto cleanup;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) &&
	    wait_for_lock(fd, git_repository_path(repo), timeout = lock_timeout(), &who)) {
		ret = error_code(MKS_ELOCKED, "'%s' is locked by another mkseries (%s); %s",
				 git_repository_path(repo), who.buf,
				 timeout > 0 ? "waited MKSERIES_LOCK_TIMEOUT seconds for it" :
				 "wait for it to finish");
		close(fd);
		goto cleanup;
	}
	strbuf_addf(&me, "%ld\n%s\n", (long)getpid(), mks_command_line ? mks_command_line : "");
	if (ftruncate(fd, 0) || pwrite(fd, me.buf, me.len, 0) < 0)
		{ /* the pid is only a hint for the message above */ }
	lk->fd = fd;
	remove_stale_tmp_objects(repo);
cleanup:
	strbuf_release(&who);
	strbuf_release(&me);
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

/*
 * A ref's lock file is there: git or another mkseries is writing it, or
 * one was killed while it did. Name the lock, its age and what to do.
 */
int ref_locked_error(git_repository *repo, const char *refname)
{
	char *lock = xstrfmt("%s%s.lock", git_repository_commondir(repo), refname);
	struct stat st;
	int ret;

	git_error_clear();
	if (!stat(lock, &st))
		ret = error("cannot update '%s': its lock '%s' is there, %lld s old: a git or "
			    "mkseries is writing it, or was killed while it did; if none runs on "
			    "this repository, remove the lock and run again", refname, lock,
			    (long long)(time(NULL) - st.st_mtime));
	else
		ret = error("cannot update '%s': it is locked ('%s'); run again when the git or "
			    "mkseries writing it is done", refname, lock);
	free(lock);
	return ret;
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
	if (err == GIT_ELOCKED)
		return ref_locked_error(repo, refname);
	if (err < 0)
		return gitutil_error(err, "cannot update '%s'", refname);
	return 0;
}

/*
 * The identity of the repository whose objects `repo` borrows (its first
 * objects/info/alternates line): mkseries' own repository for a user's
 * clone has no user.name of its own, and the clone's .git/config may.
 * Read only. GIT_ENOTFOUND when there is none, or it has none either.
 */
static int lender_signature(git_signature **out, git_repository *repo)
{
	char *file = path_join(git_repository_path(repo), "objects/info/alternates");
	struct strbuf sb = STRBUF_INIT;
	git_repository *lender = NULL;
	int err = GIT_ENOTFOUND;
	size_t eol;

	if (!strbuf_read_file(&sb, file)) {
		eol = strcspn(sb.buf, "\n");
		strbuf_setlen(&sb, eol);
		if (ends_with(sb.buf, "/objects"))
			strbuf_setlen(&sb, sb.len - strlen("/objects"));
		if (sb.len && !git_repository_open_ext(&lender, sb.buf,
						      GIT_REPOSITORY_OPEN_NO_SEARCH, NULL))
			err = git_signature_default(out, lender);
	}
	git_repository_free(lender);
	git_error_clear();
	strbuf_release(&sb);
	free(file);
	return err < 0 ? GIT_ENOTFOUND : 0;
}

int backporter_signature(git_signature **out, git_repository *repo)
{
	int err = git_signature_default(out, repo);

	if (err == GIT_ENOTFOUND && !lender_signature(out, repo))
		return 0;
	if (err == GIT_ENOTFOUND) {
		git_config *cfg = NULL;
		git_config_entry *e = NULL;
		int has_name = !git_repository_config_snapshot(&cfg, repo) &&
			       !git_config_get_entry(&e, cfg, "user.name") && *e->value;

		git_config_entry_free(e);
		git_config_free(cfg);
		git_error_clear();
		return error("no user.%s: " GIT_IDENTITY_HOWTO, has_name ? "email" : "name");
	}
	if (err < 0)
		return gitutil_error(err, "cannot read user.name/user.email");
	return 0;
}

const char *oid_short_to(char *buf, const git_oid *oid)
{
	git_oid_tostr(buf, 13, oid);
	return buf;
}

static void delta_add(struct tree_delta *out, git_delta_t status, const char *path,
		      const git_tree_entry *old, const git_tree_entry *new)
{
	git_diff_delta *d;

	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	d = &out->v[out->nr++];
	memset(d, 0, sizeof(*d));
	d->status = status;
	d->nfiles = 2;
	d->old_file.path = d->new_file.path = xstrdup(path);
	if (old) {
		d->old_file.id = *git_tree_entry_id(old);
		d->old_file.mode = (uint16_t)git_tree_entry_filemode(old);
		d->old_file.flags = GIT_DIFF_FLAG_VALID_ID | GIT_DIFF_FLAG_EXISTS;
	}
	if (new) {
		d->new_file.id = *git_tree_entry_id(new);
		d->new_file.mode = (uint16_t)git_tree_entry_filemode(new);
		d->new_file.flags = GIT_DIFF_FLAG_VALID_ID | GIT_DIFF_FLAG_EXISTS;
	}
}

/* Two entries of one directory in git's tree order: a tree's name as if it ended in '/'. */
static int entry_cmp(const git_tree_entry *a, const git_tree_entry *b)
{
	const char *na = git_tree_entry_name(a), *nb = git_tree_entry_name(b);
	size_t la = strlen(na), lb = strlen(nb), n = la < lb ? la : lb;
	int c = memcmp(na, nb, n);
	unsigned char ca, cb;

	if (c)
		return c;
	ca = la > n ? (unsigned char)na[n] : git_tree_entry_type(a) == GIT_OBJECT_TREE ? '/' : 0;
	cb = lb > n ? (unsigned char)nb[n] : git_tree_entry_type(b) == GIT_OBJECT_TREE ? '/' : 0;
	return (int)ca - (int)cb;
}

static int tree_walk(struct tree_delta *out, git_repository *repo, const git_tree *a,
		     const git_tree *b, struct strbuf *path);

/* Entry `old` of the one side and `new` of the other (either NULL), at `path`. */
static int entry_walk(struct tree_delta *out, git_repository *repo, const git_tree_entry *old,
		      const git_tree_entry *new, struct strbuf *path)
{
	int old_tree = old && git_tree_entry_type(old) == GIT_OBJECT_TREE;
	int new_tree = new && git_tree_entry_type(new) == GIT_OBJECT_TREE;
	git_tree *ta = NULL, *tb = NULL;
	size_t len = path->len;
	int err = 0;

	strbuf_addstr(path, git_tree_entry_name(old ? old : new));
	if (old_tree || new_tree) {
		/* the same name on both sides is the same kind here: entry_cmp() sees to that */
		if (!(old && new && git_oid_equal(git_tree_entry_id(old), git_tree_entry_id(new)))) {
			strbuf_addch(path, '/');
			if ((!old || (err = git_tree_lookup(&ta, repo, git_tree_entry_id(old))) >= 0) &&
			    (!new || (err = git_tree_lookup(&tb, repo, git_tree_entry_id(new))) >= 0))
				err = tree_walk(out, repo, ta, tb, path);
		}
	} else if (!old || !new) {
		delta_add(out, old ? GIT_DELTA_DELETED : GIT_DELTA_ADDED, path->buf, old, new);
	} else if (!git_oid_equal(git_tree_entry_id(old), git_tree_entry_id(new)) ||
		   git_tree_entry_filemode(old) != git_tree_entry_filemode(new)) {
		delta_add(out, GIT_DELTA_MODIFIED, path->buf, old, new);
	}
	git_tree_free(ta);
	git_tree_free(tb);
	strbuf_setlen(path, len);
	return err;
}

static int tree_walk(struct tree_delta *out, git_repository *repo, const git_tree *a,
		     const git_tree *b, struct strbuf *path)
{
	size_t i = 0, j = 0, na = a ? git_tree_entrycount(a) : 0, nb = b ? git_tree_entrycount(b) : 0;
	int err = 0;

	while (!err && (i < na || j < nb)) {
		const git_tree_entry *ea = i < na ? git_tree_entry_byindex(a, i) : NULL;
		const git_tree_entry *eb = j < nb ? git_tree_entry_byindex(b, j) : NULL;
		int c = !ea ? 1 : !eb ? -1 : entry_cmp(ea, eb);

		err = entry_walk(out, repo, c <= 0 ? ea : NULL, c >= 0 ? eb : NULL, path);
		i += c <= 0;
		j += c >= 0;
	}
	return err;
}

int tree_delta_diff(struct tree_delta *out, git_repository *repo, const git_tree *a,
		    const git_tree *b)
{
	struct strbuf path = STRBUF_INIT;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!(a && b && git_oid_equal(git_tree_id(a), git_tree_id(b))))
		err = tree_walk(out, repo, a, b, &path);
	strbuf_release(&path);
	if (err < 0)
		tree_delta_release(out);
	return err < 0 ? err : 0;
}

void tree_delta_release(struct tree_delta *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free((char *)d->v[i].old_file.path);
	free(d->v);
	memset(d, 0, sizeof(*d));
}
