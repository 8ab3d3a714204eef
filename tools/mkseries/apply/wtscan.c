/* apply/wtscan.c: what a work tree has otherwise than its index, found as git status finds it, without reading what cannot have changed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apply/wtscan.h"
#include "lib/gitutil.h"
#include "lib/util.h"

/*
 * The record of the last scan, in the worktree's git directory: a
 * first line "mkseries-wtscan 1 <seconds> <nanoseconds>" (when the scan
 * began), then the directories that held new files then, each ended by
 * a NUL ("" is the top).
 */
#define RECORD_NAME "mkseries-wtscan"
#define RECORD_MAGIC "mkseries-wtscan 1"
/*
 * A directory changed this long before the record's time is read all
 * the same: file times come from a coarse clock that may lag the one
 * the record takes.
 */
#define SLACK_SECONDS 2
/* lstat()s a thread takes at least, as git's preload_index() has it */
#define PER_THREAD 2000
#define MAX_THREADS 8

enum verdict { SAME, DIFFERS, TO_HASH, GONE, LSTAT_FAILED };

struct scan {
	git_repository *wt;
	git_index *index;
	unsigned flags;
	int root;			/* the work tree, open */
	const git_index_entry **entries;	/* stage 0, not gitlinks */
	size_t nr;
	struct stat *st;		/* of each entry */
	unsigned char *verdict;		/* of each entry */
	struct strvec dirs;		/* the directories tracked files are in, sorted; "" first */
	struct stat *dst;		/* of each directory; st_mode 0 when not a directory now */
	struct timespec index_time;	/* of the index file: entries as new are racily clean */
	struct timespec since;		/* the last scan's time, less the slack; 0: none */
	struct strvec was_dirty;	/* the directories the last scan found new files in, sorted */
	struct strvec dirty;		/* those this scan finds new files in */
	struct wtscan *out;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int has(const struct strvec *sorted, const char *s)
{
	return sorted->nr && bsearch(&s, sorted->v, sorted->nr, sizeof(*sorted->v), cmp_str);
}

/* Whether `rel` is a directory tracked files are in and is still a directory (read on its own). */
static int tracked_dir_now(const struct scan *s, const char *rel)
{
	const char **at = s->dirs.nr ? bsearch(&rel, s->dirs.v, s->dirs.nr, sizeof(*s->dirs.v),
					       cmp_str) : NULL;

	return at && s->dst[at - s->dirs.v].st_mode;
}

static int ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static char *record_path(git_repository *wt)
{
	return xstrfmt("%s%s", git_repository_path(wt), RECORD_NAME);
}

/* The last scan's record, if there is a readable one; else a scan of every directory. */
static void record_read(struct scan *s)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = record_path(s->wt), *p, *end;
	long long sec;
	long nsec;

	if (strbuf_read_file(&sb, path) < 0 ||
	    sscanf(sb.buf, RECORD_MAGIC " %lld %ld", &sec, &nsec) != 2 || !(p = strchr(sb.buf, '\n')))
		goto done;
	s->since.tv_sec = (time_t)(sec - SLACK_SECONDS);
	s->since.tv_nsec = nsec;
	for (p++, end = sb.buf + sb.len; p < end; p += strlen(p) + 1)
		strvec_push(&s->was_dirty, p);
	if (s->was_dirty.nr)
		qsort(s->was_dirty.v, s->was_dirty.nr, sizeof(*s->was_dirty.v), cmp_str);
done:
	strbuf_release(&sb);
	free(path);
}

static int record_write(git_repository *wt, const struct timespec *when, const struct strvec *dirty)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = record_path(wt);
	size_t i;
	int ret = 0;

	strbuf_addf(&sb, RECORD_MAGIC " %lld %ld\n", (long long)when->tv_sec, (long)when->tv_nsec);
	for (i = 0; dirty && i < dirty->nr; i++)
		strbuf_add(&sb, dirty->v[i], strlen(dirty->v[i]) + 1);
	if (write_file_atomic(path, sb.buf, sb.len))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	strbuf_release(&sb);
	free(path);
	return ret;
}

int wtscan_mark(git_repository *wt)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return record_write(wt, &now, NULL);
}

/* What lstat() data `st` says of index entry `e`, as git's ie_match_stat() (core.checkStat default). */
static enum verdict judge(const struct scan *s, const git_index_entry *e, const struct stat *st)
{
	struct timespec mtime = { e->mtime.seconds, e->mtime.nanoseconds };

	if (S_ISDIR(st->st_mode))
		return GONE;
	if (e->mode == GIT_FILEMODE_LINK ? !S_ISLNK(st->st_mode) : !S_ISREG(st->st_mode))
		return DIFFERS;
	if (S_ISREG(st->st_mode) &&
	    !(st->st_mode & S_IXUSR) != (e->mode != GIT_FILEMODE_BLOB_EXECUTABLE))
		return DIFFERS;
	if (e->file_size != (uint32_t)st->st_size)
		return DIFFERS;
	if (e->mtime.seconds != (int32_t)st->st_mtim.tv_sec ||
	    e->mtime.nanoseconds != (uint32_t)st->st_mtim.tv_nsec ||
	    e->ctime.seconds != (int32_t)st->st_ctim.tv_sec ||
	    e->ctime.nanoseconds != (uint32_t)st->st_ctim.tv_nsec ||
	    e->ino != (uint32_t)st->st_ino || e->uid != (uint32_t)st->st_uid ||
	    e->gid != (uint32_t)st->st_gid)
		return TO_HASH;
	/* written in the same tick as the index: the index cannot tell a later change */
	return ts_before(&mtime, &s->index_time) ? SAME : TO_HASH;
}

struct slice {
	struct scan *s;
	size_t from, to;	/* of entries, then of directories after them */
};

static void *lstat_slice(void *arg)
{
	struct slice *sl = arg;
	struct scan *s = sl->s;
	size_t i;

	for (i = sl->from; i < sl->to; i++) {
		if (i < s->nr) {
			if (fstatat(s->root, s->entries[i]->path, &s->st[i], AT_SYMLINK_NOFOLLOW))
				s->verdict[i] = errno == ENOENT || errno == ENOTDIR ? GONE : LSTAT_FAILED;
			else
				s->verdict[i] = judge(s, s->entries[i], &s->st[i]);
		} else {
			const char *d = s->dirs.v[i - s->nr];
			struct stat *st = &s->dst[i - s->nr];

			if (fstatat(s->root, *d ? d : ".", st, AT_SYMLINK_NOFOLLOW) ||
			    !S_ISDIR(st->st_mode))
				st->st_mode = 0;
		}
	}
	return NULL;
}

/* lstat() every entry and directory, in threads when there are many. */
static void lstat_all(struct scan *s)
{
	size_t total = s->nr + s->dirs.nr, n, t;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct slice slices[MAX_THREADS];
	pthread_t threads[MAX_THREADS];
	int started[MAX_THREADS] = { 0 };

	n = total / PER_THREAD;
	if (cpus > 0 && n > (size_t)cpus)
		n = (size_t)cpus;
	n = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
	for (t = 0; t < n; t++) {
		slices[t].s = s;
		slices[t].from = total * t / n;
		slices[t].to = total * (t + 1) / n;
		if (t)
			started[t] = !pthread_create(&threads[t], NULL, lstat_slice, &slices[t]);
		if (t && !started[t])
			lstat_slice(&slices[t]);
	}
	lstat_slice(&slices[0]);
	for (t = 1; t < n; t++)
		if (started[t])
			pthread_join(threads[t], NULL);
}

static void add_change(struct wtscan *out, const char *path, enum wtscan_how how)
{
	ALLOC_GROW(out->v, out->nr + 1, out->alloc);
	out->v[out->nr].path = xstrdup(path);
	out->v[out->nr].how = how;
	out->nr++;
}

/* The blob `e`'s file is now, hashed as git add would (filters applied); 0 or -1 (printed). */
static int hash_now(git_oid *oid, const struct scan *s, const git_index_entry *e,
		    const struct stat *st)
{
	int err;

	if (S_ISLNK(st->st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlinkat(s->root, e->path, target, sizeof(target));

		if (n < 0)
			return error("cannot read link '%s': %s", shown(e->path), strerror(errno));
		err = git_odb_hash(oid, target, (size_t)n, GIT_OBJECT_BLOB);
	} else {
		err = git_repository_hashfile(oid, s->wt, e->path, GIT_OBJECT_BLOB, e->path);
	}
	return err < 0 ? gitutil_error(err, "cannot read '%s' of the work tree", shown(e->path)) : 0;
}

void wtscan_entry_stat(git_index_entry *e, const struct stat *st)
{
	e->ctime.seconds = (int32_t)st->st_ctim.tv_sec;
	e->ctime.nanoseconds = (uint32_t)st->st_ctim.tv_nsec;
	e->mtime.seconds = (int32_t)st->st_mtim.tv_sec;
	e->mtime.nanoseconds = (uint32_t)st->st_mtim.tv_nsec;
	e->dev = (uint32_t)st->st_dev;
	e->ino = (uint32_t)st->st_ino;
	e->uid = (uint32_t)st->st_uid;
	e->gid = (uint32_t)st->st_gid;
	e->file_size = (uint32_t)st->st_size;
}

/* The tracked files' part of the answer, from the verdicts. */
static int tracked_changes(struct scan *s)
{
	size_t i;
	git_oid oid;

	for (i = 0; i < s->nr; i++) {
		const git_index_entry *e = s->entries[i];

		switch ((enum verdict)s->verdict[i]) {
		case SAME:
			break;
		case LSTAT_FAILED:
			return error("cannot read '%s' of the work tree: %s", shown(e->path),
				     "lstat failed");
		case GONE:
			add_change(s->out, e->path, WTSCAN_DELETED);
			break;
		case DIFFERS:
			add_change(s->out, e->path, WTSCAN_MODIFIED);
			break;
		case TO_HASH:
			if (hash_now(&oid, s, e, &s->st[i]))
				return -1;
			if (!git_oid_equal(&oid, &e->id))
				add_change(s->out, e->path, WTSCAN_MODIFIED);
			else if (s->flags & WTSCAN_REFRESH)
				/* in place: git_index_add() would drop the index's tree cache */
				wtscan_entry_stat((git_index_entry *)e, &s->st[i]);
			break;
		}
	}
	return 0;
}

static int is_tracked_file(const struct scan *s, const char *rel)
{
	const git_index_entry *e = git_index_get_bypath(s->index, rel, 0);

	return e && e->mode != GIT_FILEMODE_COMMIT;
}

static int read_dir(struct scan *s, const char *dir, int tracked_dir);

/* New entry `rel` (type from readdir, or a stat): a file is reported, a directory read whole. */
static int new_entry(struct scan *s, const char *rel, unsigned char type)
{
	struct stat st;
	int ignored = 0;

	if (type == DT_UNKNOWN) {
		if (fstatat(s->root, rel, &st, AT_SYMLINK_NOFOLLOW))
			return 0;	/* gone since readdir */
		type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG :
		       S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
	}
	if (type == DT_DIR) {
		char *dotgit = xstrfmt("%s/.git", rel);
		int nested = !fstatat(s->root, dotgit, &st, AT_SYMLINK_NOFOLLOW);

		free(dotgit);
		/* a repository of its own, as git status leaves it: not the tree's files */
		return nested ? 0 : read_dir(s, rel, 0);
	}
	if (type != DT_REG && type != DT_LNK)
		return 0;	/* a FIFO, socket or device: git add takes none */
	if (git_ignore_path_is_ignored(&ignored, s->wt, rel) < 0)
		return gitutil_error(-1, "cannot tell whether '%s' is ignored", shown(rel));
	if (!ignored)
		add_change(s->out, rel, WTSCAN_NEW);
	else if (s->flags & WTSCAN_IGNORED)
		add_change(s->out, rel, WTSCAN_NEW_IGNORED);
	return 0;
}

/*
 * Read directory `dir` for what the index does not have: tracked
 * directories below are left to their own reading (`tracked_dir`: this
 * one is one of them), a new directory is read whole.
 */
static int read_dir(struct scan *s, const char *dir, int tracked_dir)
{
	struct strbuf rel = STRBUF_INIT;
	struct dirent *de;
	int fd, ret = 0, found = 0;
	DIR *d;

	fd = openat(s->root, *dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* gone, or not a directory any more: its parent says so */
	if (!(d = fdopendir(fd))) {
		close(fd);
		return error("cannot read directory '%s' of the work tree: %s", shown(dir),
			     strerror(errno));
	}
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (!*dir && !strcmp(de->d_name, ".git")))
			continue;
		strbuf_reset(&rel);
		if (*dir)
			strbuf_addf(&rel, "%s/", dir);
		strbuf_addstr(&rel, de->d_name);
		if (tracked_dir && (tracked_dir_now(s, rel.buf) ||
				    (de->d_type != DT_DIR && is_tracked_file(s, rel.buf))))
			continue;
		found = 1;
		ret = new_entry(s, rel.buf, de->d_type);
	}
	closedir(d);
	if (found && tracked_dir)
		strvec_push(&s->dirty, dir);
	s->out->dirs_read++;
	strbuf_release(&rel);
	return ret;
}

/* Whether directory i may have gained an entry since the last scan. */
static int dir_changed(const struct scan *s, size_t i)
{
	const struct stat *st = &s->dst[i];

	if (!st->st_mode)
		return 0;
	if (!s->since.tv_sec || has(&s->was_dirty, s->dirs.v[i]))
		return 1;
	return !ts_before(&st->st_mtim, &s->since) || !ts_before(&st->st_ctim, &s->since);
}

/* The entries to scan and the directories they are in, each directory once. */
static void collect(struct scan *s)
{
	size_t i, n = git_index_entrycount(s->index);
	const char *prev = "";

	s->entries = xcalloc(n ? n : 1, sizeof(*s->entries));
	strvec_push(&s->dirs, "");
	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(s->index, i);
		const char *p;

		if (GIT_INDEX_ENTRY_STAGE(e) || e->mode == GIT_FILEMODE_COMMIT)
			continue;
		s->entries[s->nr++] = e;
		/* the index is sorted: a directory's paths are together, after its first */
		for (p = strchr(e->path, '/'); p; p = strchr(p + 1, '/')) {
			size_t len = (size_t)(p - e->path);

			if (!strncmp(prev, e->path, len + 1))
				continue;
			strvec_pushf(&s->dirs, "%.*s", (int)len, e->path);
		}
		prev = e->path;
	}
	qsort(s->dirs.v, s->dirs.nr, sizeof(*s->dirs.v), cmp_str);
}

static int cmp_change(const void *a, const void *b)
{
	return strcmp(((const struct wtscan_change *)a)->path,
		      ((const struct wtscan_change *)b)->path);
}

static void scan_release(struct scan *s)
{
	if (s->root >= 0)
		close(s->root);
	free(s->entries);
	free(s->st);
	free(s->verdict);
	free(s->dst);
	strvec_clear(&s->dirs);
	strvec_clear(&s->was_dirty);
	strvec_clear(&s->dirty);
}

int wtscan_run(struct wtscan *out, git_repository *wt, git_index *index, unsigned flags)
{
	struct scan s = { .wt = wt, .index = index, .flags = flags, .out = out, .root = -1 };
	const char *workdir = git_repository_workdir(wt);
	struct timespec began;
	struct stat ist;
	size_t i;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	clock_gettime(CLOCK_REALTIME, &began);
	if (!workdir || (s.root = open(workdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return error("cannot open the work tree '%s': %s", workdir ? workdir : "(bare)",
			     strerror(errno));
	if (git_index_path(index) && !stat(git_index_path(index), &ist))
		s.index_time = ist.st_mtim;
	record_read(&s);
	collect(&s);
	s.st = xcalloc(s.nr ? s.nr : 1, sizeof(*s.st));
	s.verdict = xcalloc(s.nr ? s.nr : 1, 1);
	s.dst = xcalloc(s.dirs.nr, sizeof(*s.dst));
	lstat_all(&s);
	ret = tracked_changes(&s);
	for (i = 0; !ret && i < s.dirs.nr; i++)
		if (dir_changed(&s, i))
			ret = read_dir(&s, s.dirs.v[i], 1);
	if (!ret)
		ret = record_write(wt, &began, &s.dirty);
	if (out->nr)
		qsort(out->v, out->nr, sizeof(*out->v), cmp_change);
	scan_release(&s);
	if (ret)
		wtscan_release(out);
	return ret;
}

void wtscan_release(struct wtscan *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		free(s->v[i].path);
	free(s->v);
	memset(s, 0, sizeof(*s));
}
