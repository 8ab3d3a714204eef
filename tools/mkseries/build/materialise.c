/* build/materialise.c: write a commit's tree into a directory, writing only what differs from last time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/gitutil.h"
#include "build/materialise.h"
#include "lib/util.h"

/*
 * The manifest, "<dir>.manifest":
 *
 *	mkseries-manifest 1 <tree id>
 *	<mode octal> <blob id> <size> <mtime sec> <mtime nsec> <path>
 *	...
 *
 * one line per file or symlink, sorted by path (strcmp order).
 */
#define MANIFEST_MAGIC "mkseries-manifest 1 "

enum { ENTRY_KEEP = 0, ENTRY_TOUCHED, ENTRY_GONE };

struct mf_entry {
	char *path;
	git_oid oid;
	unsigned mode;		/* git's: 0100644, 0100755, 0120000 */
	long long size;
	long long mtime_sec;
	long mtime_nsec;
	int state;
};

struct manifest {
	git_oid tree;
	struct mf_entry *e;
	size_t nr, alloc;
};

struct writer {
	git_repository *repo;
	const char *dir;
	struct manifest *mf;
	struct materialise_stats *st;
	struct strbuf path;	/* scratch: dir + "/" + relative path */
	int careful;		/* the directory holds an older tree: check what is in the way */
	int collect;		/* walk_cb only lists the files (a full write shares them out) */
	int err;
};

static void manifest_release(struct manifest *mf)
{
	size_t i;

	for (i = 0; i < mf->nr; i++)
		free(mf->e[i].path);
	free(mf->e);
	mf->e = NULL;
	mf->nr = mf->alloc = 0;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct mf_entry *)a)->path, ((const struct mf_entry *)b)->path);
}

static struct mf_entry *manifest_find(struct manifest *mf, const char *path)
{
	struct mf_entry key = { .path = (char *)path };

	return bsearch(&key, mf->e, mf->nr, sizeof(*mf->e), entry_cmp);
}

static struct mf_entry *manifest_add(struct manifest *mf, const char *path)
{
	struct mf_entry *e;

	ALLOC_GROW(mf->e, mf->nr + 1, mf->alloc);
	e = &mf->e[mf->nr++];
	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	return e;
}

static char *manifest_path(const char *dir, const char *suffix)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, dir);
	while (sb.len > 1 && sb.buf[sb.len - 1] == '/')
		strbuf_setlen(&sb, sb.len - 1);
	strbuf_addstr(&sb, suffix);
	return strbuf_detach(&sb, NULL);
}

/* Parse a manifest; any damage makes it unusable (returns -1, no message). */
static int manifest_parse(struct manifest *mf, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *eol;
	char hex[GIT_OID_HEXSZ + 1];

	if (len < strlen(MANIFEST_MAGIC) + GIT_OID_HEXSZ + 1 || !starts_with(buf, MANIFEST_MAGIC))
		return -1;
	p += strlen(MANIFEST_MAGIC);
	memcpy(hex, p, GIT_OID_HEXSZ);
	hex[GIT_OID_HEXSZ] = '\0';
	if (git_oid_fromstr(&mf->tree, hex) || p[GIT_OID_HEXSZ] != '\n')
		return -1;
	p += GIT_OID_HEXSZ + 1;
	for (; p < end; p = eol + 1) {
		struct mf_entry *e;
		unsigned long mode;
		long long size, sec;
		long nsec;
		char *q;
		const char *path;

		eol = memchr(p, '\n', end - p);
		if (!eol)
			return -1;
		mode = strtoul(p, &q, 8);
		if (*q != ' ' || eol - q < GIT_OID_HEXSZ + 2)
			return -1;
		memcpy(hex, q + 1, GIT_OID_HEXSZ);
		if (q[1 + GIT_OID_HEXSZ] != ' ')
			return -1;
		q += 2 + GIT_OID_HEXSZ;
		size = strtoll(q, &q, 10);
		if (*q != ' ')
			return -1;
		sec = strtoll(q + 1, &q, 10);
		if (*q != ' ')
			return -1;
		nsec = strtol(q + 1, &q, 10);
		if (*q != ' ' || q + 1 >= eol)
			return -1;
		path = q + 1;
		e = manifest_add(mf, "");
		free(e->path);
		e->path = xstrndup(path, eol - path);
		if (git_oid_fromstr(&e->oid, hex))
			return -1;
		e->mode = mode;
		e->size = size;
		e->mtime_sec = sec;
		e->mtime_nsec = nsec;
	}
	/* It was written sorted; sort anyway so a hand-edited one cannot break lookups. */
	qsort(mf->e, mf->nr, sizeof(*mf->e), entry_cmp);
	return 0;
}

static int manifest_read(struct manifest *mf, const char *dir)
{
	char *path = manifest_path(dir, ".manifest");
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	if (strbuf_read_file(&sb, path))
		goto cleanup;
	ret = manifest_parse(mf, sb.buf, sb.len);
	if (ret)
		manifest_release(mf);
cleanup:
	strbuf_release(&sb);
	free(path);
	return ret;
}

static int manifest_write(struct manifest *mf, const char *dir)
{
	char *path = manifest_path(dir, ".manifest");
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int ret = 0;

	qsort(mf->e, mf->nr, sizeof(*mf->e), entry_cmp);
	strbuf_grow(&sb, mf->nr * 100);
	strbuf_addf(&sb, "%s%s\n", MANIFEST_MAGIC, git_oid_tostr_s(&mf->tree));
	for (i = 0; i < mf->nr; i++) {
		struct mf_entry *e = &mf->e[i];

		if (e->state == ENTRY_GONE)
			continue;
		strbuf_addf(&sb, "%o %s %lld %lld %ld %s\n", e->mode, git_oid_tostr_s(&e->oid),
			    e->size, e->mtime_sec, e->mtime_nsec, e->path);
	}
	if (write_file_atomic(path, sb.buf, sb.len))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	strbuf_release(&sb);
	free(path);
	return ret;
}

static void entry_set_stat(struct mf_entry *e, const struct stat *st)
{
	e->size = st->st_size;
	e->mtime_sec = st->st_mtim.tv_sec;
	e->mtime_nsec = st->st_mtim.tv_nsec;
}

/* Whether what is on disk is still what the manifest says was written. */
static int entry_matches_disk(const struct mf_entry *e, const struct stat *st)
{
	if (e->mode == GIT_FILEMODE_LINK) {
		if (!S_ISLNK(st->st_mode))
			return 0;
	} else {
		if (!S_ISREG(st->st_mode))
			return 0;
		if (!!(st->st_mode & 0100) != (e->mode == GIT_FILEMODE_BLOB_EXECUTABLE))
			return 0;
	}
	return st->st_size == e->size && st->st_mtim.tv_sec == e->mtime_sec &&
	       st->st_mtim.tv_nsec == e->mtime_nsec;
}

/* A tree entry name we are willing to create: no separators, no dot names, no newline. */
static int safe_name(const char *name)
{
	return *name && strcmp(name, ".") && strcmp(name, "..") && !strchr(name, '/') &&
	       !strchr(name, '\n') && strcmp(name, ".git");
}

static int safe_path(const char *path)
{
	const char *p = path;

	if (!*path)
		return 0;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		char *comp = xstrndup(p, n);
		int ok = safe_name(comp);

		free(comp);
		if (!ok)
			return 0;
		p += n;
		if (*p)
			p++;
	}
	return 1;
}

/*
 * Make every directory leading to `rel` (relative to w->dir) a real
 * directory: something else in the way (a file, a symlink left from an
 * older tree) is removed, so nothing is ever written through a symlink.
 */
static int ensure_parents(struct writer *w, const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = rel, *slash;
	int ret = 0;

	strbuf_addstr(&sb, w->dir);
	while ((slash = strchr(p, '/'))) {
		struct stat st;

		strbuf_addch(&sb, '/');
		strbuf_add(&sb, p, slash - p);
		p = slash + 1;
		if (!lstat(sb.buf, &st) && S_ISDIR(st.st_mode))
			continue;
		if (!w->careful && errno == ENOENT) {
			/* fall through to mkdir */
		} else if (remove_tree(sb.buf) && errno != ENOENT) {
			ret = error("cannot remove '%s': %s", sb.buf, strerror(errno));
			break;
		}
		if (mkdir(sb.buf, 0755) && errno != EEXIST) {
			ret = error("cannot create directory '%s': %s", sb.buf, strerror(errno));
			break;
		}
	}
	strbuf_release(&sb);
	return ret;
}

/* Write blob `oid` as `rel` with git mode `mode`, and record what is on disk in `e`. */
static int write_one(struct writer *w, const char *rel, const git_oid *oid, unsigned mode,
		     struct mf_entry *e)
{
	git_blob *blob = NULL;
	const char *data;
	size_t len;
	struct stat st;
	int fd = -1, ret = 0, err;

	strbuf_reset(&w->path);
	strbuf_addf(&w->path, "%s/%s", w->dir, rel);
	err = git_blob_lookup(&blob, w->repo, oid);
	if (err < 0) {
		ret = gitutil_error(err, "cannot read '%s' (%s)", rel, git_oid_tostr_s(oid));
		goto cleanup;
	}
	data = git_blob_rawcontent(blob);
	len = git_blob_rawsize(blob);

	if (w->careful) {
		if (ensure_parents(w, rel)) {
			ret = -1;
			goto cleanup;
		}
		if (!lstat(w->path.buf, &st) &&
		    (mode == GIT_FILEMODE_LINK || !S_ISREG(st.st_mode)) &&
		    remove_tree(w->path.buf)) {
			ret = error("cannot remove '%s': %s", w->path.buf, strerror(errno));
			goto cleanup;
		}
	}
	if (mode == GIT_FILEMODE_LINK) {
		char *target = xstrndup(data, len);

		if (symlink(target, w->path.buf) || lstat(w->path.buf, &st)) {
			ret = error("cannot create symlink '%s': %s", w->path.buf, strerror(errno));
			free(target);
			goto cleanup;
		}
		free(target);
	} else {
		mode_t m = mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644;

		fd = open(w->path.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, m);
		if (fd < 0 && errno == ENOENT && !ensure_parents(w, rel))
			fd = open(w->path.buf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, m);
		if (fd < 0) {
			ret = error("cannot write '%s': %s", w->path.buf, strerror(errno));
			goto cleanup;
		}
		if (write_in_full(fd, data, len) || (w->careful && fchmod(fd, m)) || fstat(fd, &st)) {
			ret = error("cannot write '%s': %s", w->path.buf, strerror(errno));
			goto cleanup;
		}
		if (!!(st.st_mode & 0100) != (m == 0755) && (fchmod(fd, m) || fstat(fd, &st))) {
			ret = error("cannot change mode of '%s': %s", w->path.buf, strerror(errno));
			goto cleanup;
		}
	}
	git_oid_cpy(&e->oid, oid);
	e->mode = mode;
	e->state = ENTRY_TOUCHED;
	entry_set_stat(e, &st);
	w->st->written++;
cleanup:
	if (fd >= 0 && close(fd) && !ret)
		ret = error("cannot write '%s': %s", w->path.buf, strerror(errno));
	git_blob_free(blob);
	return ret;
}

/* Remove `rel` and then every parent directory left empty by it. */
static int remove_one(struct writer *w, const char *rel)
{
	char *path = xstrfmt("%s/%s", w->dir, rel), *slash;
	size_t root = strlen(w->dir);
	int ret = 0;

	if (remove_tree(path) && errno != ENOENT)
		ret = error("cannot remove '%s': %s", path, strerror(errno));
	else
		w->st->removed++;
	while ((slash = strrchr(path, '/')) && (size_t)(slash - path) > root) {
		*slash = '\0';
		if (rmdir(path))
			break;
	}
	free(path);
	return ret;
}

static int walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct writer *w = payload;
	const char *name = git_tree_entry_name(te);
	git_filemode_t mode = git_tree_entry_filemode(te);
	struct strbuf rel = STRBUF_INIT;
	int ret = 0;

	if (!safe_name(name)) {
		w->err = error_code(MKS_EUNSAFE, "refusing to write tree entry '%s%s'", root, name);
		return -1;
	}
	strbuf_addf(&rel, "%s%s", root, name);
	if (mode == GIT_FILEMODE_TREE || mode == GIT_FILEMODE_COMMIT) {
		strbuf_reset(&w->path);
		strbuf_addf(&w->path, "%s/%s", w->dir, rel.buf);
		if (mkdir(w->path.buf, 0755) && errno != EEXIST) {
			w->err = error("cannot create directory '%s': %s", w->path.buf,
				       strerror(errno));
			ret = -1;
		}
		/* A submodule is an empty directory; do not descend into a tree it lacks. */
		if (mode == GIT_FILEMODE_COMMIT && !ret)
			ret = 1;
	} else {
		struct mf_entry *e = manifest_add(w->mf, rel.buf);

		w->st->total++;
		if (w->collect) {
			git_oid_cpy(&e->oid, git_tree_entry_id(te));
			e->mode = mode;
		} else if (write_one(w, rel.buf, git_tree_entry_id(te), mode, e)) {
			w->err = -1;
			ret = -1;
		}
	}
	strbuf_release(&rel);
	return ret;
}

/* One thread of a full write: every step-th file from `first`, with a writer of its own. */
struct full_share {
	pthread_t thread;
	struct writer w;
	struct materialise_stats st;
	git_repository *own;	/* the thread's own repository (libgit2 shares none between threads) */
	size_t first, step;
	int *failed;		/* any thread's failure stops the others */
	int started;
	int ret;
};

#define MAX_WRITERS 4

static void *full_share_run(void *data)
{
	struct full_share *sh = data;
	struct manifest *mf = sh->w.mf;
	size_t i;

	for (i = sh->first; i < mf->nr; i += sh->step) {
		struct mf_entry *e = &mf->e[i];

		if (__atomic_load_n(sh->failed, __ATOMIC_RELAXED))
			break;
		if (write_one(&sh->w, e->path, &e->oid, e->mode, e)) {
			sh->ret = -1;
			__atomic_store_n(sh->failed, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

/*
 * Write every file of the list in up to MAX_WRITERS threads (one per
 * CPU): inflating blobs and copying them into the page cache is CPU
 * work, and a kernel tree is 90,000 files. The directories exist
 * already; each file is one thread's alone.
 */
static int write_listed(struct writer *w)
{
	struct full_share sh[MAX_WRITERS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t i, nr = cpus < 1 ? 1 : cpus > MAX_WRITERS ? MAX_WRITERS : (size_t)cpus;
	int failed = 0, ret = 0;

	if (w->mf->nr < 1024)
		nr = 1;
	memset(sh, 0, sizeof(sh));
	for (i = 0; i < nr; i++) {
		sh[i].w = *w;
		strbuf_init(&sh[i].w.path, 0);
		sh[i].w.st = &sh[i].st;
		sh[i].first = i;
		sh[i].failed = &failed;
	}
	/* Threads after the first open the repository again; failing that, fewer threads. */
	for (i = 1; i < nr; i++) {
		if (git_repository_open(&sh[i].own, git_repository_path(w->repo)) < 0)
			break;
		sh[i].w.repo = sh[i].own;
	}
	nr = i;
	for (i = 0; i < nr; i++)
		sh[i].step = nr;
	for (i = 1; i < nr; i++)
		sh[i].started = !pthread_create(&sh[i].thread, NULL, full_share_run, &sh[i]);
	full_share_run(&sh[0]);
	/* A share whose thread did not start is written here, with its own repository. */
	for (i = 1; i < nr; i++) {
		if (sh[i].started)
			pthread_join(sh[i].thread, NULL);
		else
			full_share_run(&sh[i]);
	}
	for (i = 0; i < MAX_WRITERS; i++) {
		if (sh[i].ret)
			ret = -1;
		w->st->written += sh[i].st.written;
		strbuf_release(&sh[i].w.path);
		git_repository_free(sh[i].own);
	}
	return ret;
}

static int materialise_full(struct writer *w, git_tree *tree)
{
	int err;

	w->st->full = 1;
	if (remove_tree(w->dir) && errno != ENOENT)
		return error("cannot clear '%s': %s", w->dir, strerror(errno));
	if (mkdir_p(w->dir, 0755))
		return error("cannot create '%s': %s", w->dir, strerror(errno));
	w->careful = 0;
	w->collect = 1;
	err = git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, w);
	w->collect = 0;
	if (w->err)
		return w->err;
	if (err < 0)
		return gitutil_error(err, "cannot walk tree %s", git_oid_tostr_s(git_tree_id(tree)));
	return write_listed(w);
}

/* Only blobs and symlinks matter to the manifest; a submodule is a directory. */
static int is_file_mode(unsigned mode)
{
	return mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE ||
	       mode == GIT_FILEMODE_LINK;
}

/* The diff's removals, first, so that a path that turns from file to directory is free. */
static int diff_removals(struct writer *w, git_diff *diff)
{
	size_t i, n = git_diff_num_deltas(diff);

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct mf_entry *e;

		if (d->status != GIT_DELTA_DELETED && d->status != GIT_DELTA_TYPECHANGE)
			continue;
		if (!safe_path(d->old_file.path))
			return error_code(MKS_EUNSAFE, "refusing to remove '%s'", d->old_file.path);
		if (remove_one(w, d->old_file.path))
			return -1;
		e = manifest_find(w->mf, d->old_file.path);
		if (e)
			e->state = ENTRY_GONE;
	}
	return 0;
}

/* The diff's additions and changes; the manifest's first nr_old entries are sorted. */
static int diff_writes(struct writer *w, git_diff *diff, size_t nr_old)
{
	struct manifest *mf = w->mf;
	size_t i, n = git_diff_num_deltas(diff);

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct mf_entry *e;

		if (d->status != GIT_DELTA_ADDED && d->status != GIT_DELTA_MODIFIED &&
		    d->status != GIT_DELTA_TYPECHANGE)
			continue;
		if (!safe_path(d->new_file.path))
			return error_code(MKS_EUNSAFE, "refusing to write '%s'", d->new_file.path);
		if (!is_file_mode(d->new_file.mode)) {
			char *path = xstrfmt("%s/%s", w->dir, d->new_file.path);
			int failed = ensure_parents(w, d->new_file.path) ||
				     (mkdir(path, 0755) && errno != EEXIST);

			free(path);
			if (failed)
				return error("cannot create directory for '%s'", d->new_file.path);
			continue;
		}
		/* Entries added in this loop sit past nr_old, unsorted: search only the old part. */
		e = bsearch(&(struct mf_entry){ .path = (char *)d->new_file.path }, mf->e, nr_old,
			    sizeof(*mf->e), entry_cmp);
		if (!e)
			e = manifest_add(mf, d->new_file.path);
		if (write_one(w, d->new_file.path, &d->new_file.id, d->new_file.mode, e))
			return -1;
	}
	return 0;
}

/* What the diff did not touch must still be as it was written: repair anything else. */
static int repair_untouched(struct writer *w, size_t nr_old)
{
	size_t i;

	for (i = 0; i < nr_old; i++) {
		struct mf_entry *e = &w->mf->e[i];
		struct stat st;

		if (e->state != ENTRY_KEEP)
			continue;
		strbuf_reset(&w->path);
		strbuf_addf(&w->path, "%s/%s", w->dir, e->path);
		if (!lstat(w->path.buf, &st) && entry_matches_disk(e, &st))
			continue;
		if (!safe_path(e->path))
			return error_code(MKS_EUNSAFE, "refusing to write '%s'", e->path);
		if (write_one(w, e->path, &e->oid, e->mode, e))
			return -1;
		w->st->repaired++;
	}
	return 0;
}

static int materialise_diff(struct writer *w, git_tree *old, git_tree *tree)
{
	git_diff *diff = NULL;
	git_diff_options opts;
	size_t i, nr_old = w->mf->nr;
	int ret, err;

	w->careful = 1;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_SKIP_BINARY_CHECK;
	err = git_diff_tree_to_tree(&diff, w->repo, old, tree, &opts);
	if (err < 0)
		return gitutil_error(err, "cannot compare trees");
	ret = diff_removals(w, diff);
	if (!ret)
		ret = diff_writes(w, diff, nr_old);
	if (!ret)
		ret = repair_untouched(w, nr_old);
	for (i = 0; !ret && i < w->mf->nr; i++)
		if (w->mf->e[i].state != ENTRY_GONE)
			w->st->total++;
	git_diff_free(diff);
	return ret;
}

int materialise(git_repository *repo, const git_oid *commit, const char *dir,
		struct materialise_stats *stats)
{
	struct materialise_stats local;
	struct manifest mf = { { { 0 } }, NULL, 0, 0 };
	struct writer w = { .repo = repo, .dir = dir, .mf = &mf, .path = STRBUF_INIT };
	git_object *obj = NULL;
	git_tree *tree = NULL, *old = NULL;
	char *dirty = manifest_path(dir, ".manifest.dirty");
	double start = mono_seconds();
	int ret = 0, err, incremental = 0, strict;

	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	w.st = stats;

	err = git_object_lookup(&obj, repo, commit, GIT_OBJECT_ANY);
	if (err >= 0)
		err = git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE);
	if (err < 0) {
		ret = gitutil_error(err, "cannot find the tree of %s", git_oid_tostr_s(commit));
		goto cleanup;
	}

	if (!file_exists(dirty) && dir_exists(dir) && !manifest_read(&mf, dir) &&
	    git_tree_lookup(&old, repo, &mf.tree) >= 0)
		incremental = 1;
	if (!incremental)
		manifest_release(&mf);

	/* Mark the directory as being changed before the first byte is written. */
	if (mkdir_p(dir, 0755) || write_file_atomic(dirty, "", 0)) {
		ret = error("cannot prepare '%s': %s", dir, strerror(errno));
		goto cleanup;
	}
	/*
	 * The blobs come from our own object database; hashing each one again
	 * as it is read (libgit2's default) costs more than writing it out.
	 */
	strict = gitutil_set_opt(GITUTIL_STRICT_HASH, 0);
	if (incremental)
		ret = materialise_diff(&w, old, tree);
	else
		ret = materialise_full(&w, tree);
	gitutil_set_opt(GITUTIL_STRICT_HASH, strict);
	if (ret)
		goto cleanup;
	git_oid_cpy(&mf.tree, git_tree_id(tree));
	ret = manifest_write(&mf, dir);
	if (ret)
		goto cleanup;
	if (unlink(dirty)) {
		ret = error("cannot remove '%s': %s", dirty, strerror(errno));
		goto cleanup;
	}
cleanup:
	stats->seconds = mono_seconds() - start;
	strbuf_release(&w.path);
	manifest_release(&mf);
	git_tree_free(old);
	git_tree_free(tree);
	git_object_free(obj);
	free(dirty);
	return ret;
}
