/* tree/tarimport.c: reading a tarball, or the kernel source tarball inside a .deb, into a git tree. */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/odb_backend.h>

#include "lib/gitutil.h"
#include "tree/tarimport.h"
#include "lib/progress.h"
#include "lib/treecheck.h"
#include "lib/util.h"

/* ------------------------------------------------------------------ */
/* An in-memory directory tree of the archive's files */

#define MODE_DIR 0040000
#define MODE_FILE 0100644
#define MODE_EXEC 0100755
#define MODE_LINK 0120000

struct tnode {
	char *path;		/* normalised full path inside the archive */
	size_t path_len;
	const char *name;	/* the last component, inside path */
	struct tnode **kids;	/* directories only */
	size_t nr_kids, alloc_kids;
	struct tnode *parent;
	unsigned mode;
	char *link;		/* a hard link's target path, until resolved */
	int dead;		/* replaced by a later entry of the same path */
	git_oid oid;
};

struct ftree {
	struct tnode root;
	struct tnode **all;	/* every node but root, for freeing */
	size_t nr_all, alloc_all;
	struct tnode **slots;	/* open-addressing map: path -> live node */
	size_t nr_slots, used;
	time_t newest;
};

static void ftree_init(struct ftree *ft)
{
	memset(ft, 0, sizeof(*ft));
	ft->root.path = xstrdup("");
	ft->root.name = ft->root.path;
	ft->root.mode = MODE_DIR;
	ft->nr_slots = 1 << 12;
	ft->slots = xcalloc(ft->nr_slots, sizeof(*ft->slots));
}

static void ftree_release(struct ftree *ft)
{
	size_t i;

	for (i = 0; i < ft->nr_all; i++) {
		free(ft->all[i]->path);
		free(ft->all[i]->kids);
		free(ft->all[i]->link);
		free(ft->all[i]);
	}
	free(ft->all);
	free(ft->slots);
	free(ft->root.path);
	free(ft->root.kids);
	memset(ft, 0, sizeof(*ft));
}

static size_t path_hash(const char *p, size_t len)
{
	size_t h = 14695981039346656037ULL;

	while (len--) {
		h ^= (unsigned char)*p++;
		h *= 1099511628211ULL;
	}
	return h;
}

static struct tnode **ftree_slot(struct ftree *ft, const char *path, size_t len)
{
	size_t i = path_hash(path, len) & (ft->nr_slots - 1);

	for (;; i = (i + 1) & (ft->nr_slots - 1)) {
		struct tnode *n = ft->slots[i];

		if (!n || (n->path_len == len && !memcmp(n->path, path, len)))
			return &ft->slots[i];
	}
}

static struct tnode *ftree_lookup(struct ftree *ft, const char *path, size_t len)
{
	if (!len)
		return &ft->root;
	return *ftree_slot(ft, path, len);
}

static void ftree_grow(struct ftree *ft)
{
	struct tnode **old = ft->slots;
	size_t i, nr = ft->nr_slots;

	ft->nr_slots *= 2;
	ft->slots = xcalloc(ft->nr_slots, sizeof(*ft->slots));
	for (i = 0; i < nr; i++)
		if (old[i])
			*ftree_slot(ft, old[i]->path, old[i]->path_len) = old[i];
	free(old);
}

static struct tnode *ftree_new(struct ftree *ft, struct tnode *parent, const char *path,
			       size_t len, unsigned mode)
{
	struct tnode *n = xcalloc(1, sizeof(*n));
	const char *slash;

	n->path = xstrndup(path, len);
	n->path_len = len;
	slash = strrchr(n->path, '/');
	n->name = slash ? slash + 1 : n->path;
	n->mode = mode;
	n->parent = parent;
	ALLOC_GROW(ft->all, ft->nr_all + 1, ft->alloc_all);
	ft->all[ft->nr_all++] = n;
	ALLOC_GROW(parent->kids, parent->nr_kids + 1, parent->alloc_kids);
	parent->kids[parent->nr_kids++] = n;
	if (2 * (ft->used + 1) > ft->nr_slots)
		ftree_grow(ft);
	*ftree_slot(ft, path, len) = n;
	ft->used++;
	return n;
}

/* The directory node for path[0..len), made along with its parents when missing. */
static int ftree_dir(struct tnode **out, struct ftree *ft, const char *path, size_t len,
		     const char *label)
{
	struct tnode *n = ftree_lookup(ft, path, len), *parent = NULL;
	size_t plen = len;
	int ret;

	if (n) {
		if (n->mode != MODE_DIR)
			return error("'%s': '%s' is both a file and a directory", label,
				     shown(n->path));
		*out = n;
		return 0;
	}
	while (plen && path[plen - 1] != '/')
		plen--;
	ret = ftree_dir(&parent, ft, path, plen ? plen - 1 : 0, label);
	if (ret)
		return ret;
	*out = ftree_new(ft, parent, path, len, MODE_DIR);
	return 0;
}

/* A file node for `path` (NUL-terminated); a later entry of the same path replaces it. */
static int ftree_file(struct tnode **out, struct ftree *ft, const char *path, unsigned mode,
		      const char *label)
{
	size_t len = strlen(path), plen = len, i;
	struct tnode *parent = NULL, *old = ftree_lookup(ft, path, len), *n;
	int ret;

	while (plen && path[plen - 1] != '/')
		plen--;
	ret = ftree_dir(&parent, ft, path, plen ? plen - 1 : 0, label);
	if (ret)
		return ret;
	if (!old) {
		*out = ftree_new(ft, parent, path, len, mode);
		return 0;
	}
	if (old->mode == MODE_DIR)
		return error("'%s': '%s' is both a directory and a file", label, shown(path));
	/* Extraction would overwrite: keep the last one. */
	n = xcalloc(1, sizeof(*n));
	n->path = xstrdup(path);
	n->path_len = len;
	n->name = n->path + (old->name - old->path);
	n->mode = mode;
	n->parent = parent;
	ALLOC_GROW(ft->all, ft->nr_all + 1, ft->alloc_all);
	ft->all[ft->nr_all++] = n;
	for (i = 0; i < parent->nr_kids; i++)
		if (parent->kids[i] == old)
			parent->kids[i] = n;
	*ftree_slot(ft, path, len) = n;
	old->dead = 1;
	*out = n;
	return 0;
}

#define MAX_DEPTH 1000

int import_refuse(const char *label, const char *path, const char *why)
{
	return error_code(MKS_EUNSAFE, "'%s': refusing entry '%s': %s", label, shown(path),
			  why);
}

/*
 * Normalise an archive path into sb: "./" and empty components dropped,
 * a trailing slash removed. Absolute paths and ".." are refused, and the
 * result is held to the rules of a patch's paths (treecheck_path(): no
 * .git in any spelling, no control character): a hostile archive must
 * not name anything outside its tree or smuggle in repository metadata;
 * nor nest deep enough to exhaust the stack of the recursive tree walks.
 */
static int normalise_path(struct strbuf *sb, const char *path, const char *label)
{
	const char *p = path, *reason;
	size_t depth = 0;

	strbuf_reset(sb);
	if (*path == '/')
		return import_refuse(label, path, "an absolute path");
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t len = end - p;

		if ((len == 2 && !memcmp(p, "..", 2)))
			return import_refuse(label, path, "'..' leads outside the tree");
		if (len && !(len == 1 && *p == '.')) {
			if (++depth > MAX_DEPTH)
				return import_refuse(label, path, "nested too deep");
			if (sb->len)
				strbuf_addch(sb, '/');
			strbuf_add(sb, p, len);
		}
		p = *end ? end + 1 : end;
	}
	reason = sb->len ? treecheck_path(sb->buf, sb->len) : NULL;
	return reason ? import_refuse(label, path, reason) : 0;
}

/* ------------------------------------------------------------------ */
/* Writing blobs on other threads, so decompression, hashing and zlib overlap */

struct blob_job {
	git_oid *dst;
	char *data;
	size_t len;
};

#define MAX_WRITERS 4

struct blob_writer {
	pthread_t threads[MAX_WRITERS];
	git_odb *odbs[MAX_WRITERS];	/* one per thread: nothing shared in libgit2 */
	git_odb *reader_odb;		/* the reader's own, for the entries it streams */
	size_t nr_threads;		/* 0: the reader writes inline with odbs[0] */
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct blob_job *ring;
	size_t cap, head, nr;
	size_t bytes, max_bytes;
	int closing;
	int failed;			/* under lock */
	char *errmsg;			/* the first failure, under lock */
};

struct writer_arg {
	struct blob_writer *w;
	git_odb *odb;
};

#define WRITER_RING 4096
#define WRITER_BYTES (64u << 20)

/* Returns a message (caller frees) on failure, else NULL. */
static char *write_blob(git_odb *odb, struct blob_job *job)
{
	int err = git_odb_write(job->dst, odb, job->data, job->len, GIT_OBJECT_BLOB);
	const git_error *e;

	if (err >= 0)
		return NULL;
	e = git_error_last();
	return xstrfmt("cannot write a blob: %s",
		       e && e->message ? e->message : "unknown libgit2 error");
}

static void *writer_main(void *arg)
{
	struct writer_arg *wa = arg;
	struct blob_writer *w = wa->w;
	git_odb *odb = wa->odb;

	free(wa);
	for (;;) {
		struct blob_job job;
		char *msg = NULL;
		int failed;

		pthread_mutex_lock(&w->lock);
		while (!w->nr && !w->closing)
			pthread_cond_wait(&w->more, &w->lock);
		if (!w->nr) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		job = w->ring[w->head];
		w->head = (w->head + 1) % w->cap;
		w->nr--;
		failed = w->failed;
		pthread_mutex_unlock(&w->lock);

		if (!failed)
			msg = write_blob(odb, &job);
		free(job.data);

		pthread_mutex_lock(&w->lock);
		w->bytes -= job.len;
		if (msg && !w->failed) {
			w->failed = 1;
			w->errmsg = msg;
			msg = NULL;
		}
		pthread_cond_broadcast(&w->room);
		pthread_mutex_unlock(&w->lock);
		free(msg);
	}
}

/*
 * An object database of repo's objects directory whose loose objects are
 * written at zlib's fastest level without fsync (libgit2's default level
 * costs more than everything else for a 1.5 GB tree; a lost import is
 * simply redone). Packs are consulted so that existing objects are not
 * written again.
 */
static int fast_odb(git_odb **out, git_repository *repo)
{
	git_odb_backend *loose = NULL, *pack = NULL;
	char *objects = path_join(git_repository_path(repo), "objects");
	int err;

	*out = NULL;
	err = git_odb_new(out);
	if (!err)
		err = git_odb_backend_loose(&loose, objects, 1, 0, 0, 0);
	if (!err) {
		err = git_odb_add_backend(*out, loose, 2);
		if (err < 0)
			loose->free(loose);
	}
	if (!err)
		err = git_odb_backend_pack(&pack, objects);
	if (!err) {
		err = git_odb_add_backend(*out, pack, 1);
		if (err < 0)
			pack->free(pack);
	}
	free(objects);
	if (err < 0) {
		git_odb_free(*out);
		*out = NULL;
		return gitutil_error(err, "cannot open the object database of '%s'",
					git_repository_path(repo));
	}
	return 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_WRITERS ? MAX_WRITERS : (int)n;
}

static int writer_start(struct blob_writer *w, git_repository *repo)
{
	int i, want = online_cpus(), ret;

	memset(w, 0, sizeof(*w));
	w->cap = WRITER_RING;
	w->max_bytes = WRITER_BYTES;
	w->ring = xcalloc(w->cap, sizeof(*w->ring));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->room, NULL);
	for (i = 0; i < want; i++) {
		ret = fast_odb(&w->odbs[i], repo);
		if (ret)
			return ret;
	}
	ret = fast_odb(&w->reader_odb, repo);
	if (ret)
		return ret;
	for (i = 0; i < want; i++) {
		struct writer_arg *wa = xmalloc(sizeof(*wa));

		wa->w = w;
		wa->odb = w->odbs[i];
		if (pthread_create(&w->threads[i], NULL, writer_main, wa)) {
			free(wa);
			break;	/* fewer threads, or none: the reader writes inline */
		}
		w->nr_threads++;
	}
	return 0;
}

/* Queue data (owned by the writer from now on) to become the blob *dst. */
static int writer_push(struct blob_writer *w, git_oid *dst, char *data, size_t len)
{
	struct blob_job job = { dst, data, len };
	int failed;

	if (!w->nr_threads) {
		char *msg = w->failed ? NULL : write_blob(w->odbs[0], &job);

		free(data);
		if (msg) {
			w->failed = 1;
			w->errmsg = msg;
		}
		return w->failed ? -1 : 0;
	}
	pthread_mutex_lock(&w->lock);
	while (!w->failed && (w->nr == w->cap || (w->nr && w->bytes + len > w->max_bytes)))
		pthread_cond_wait(&w->room, &w->lock);
	failed = w->failed;
	if (!failed) {
		w->ring[(w->head + w->nr) % w->cap] = job;
		w->nr++;
		w->bytes += len;
		pthread_cond_signal(&w->more);
	}
	pthread_mutex_unlock(&w->lock);
	if (failed)
		free(data);
	return failed ? -1 : 0;
}

/* Wait for every queued blob; returns -1 (printed) when one could not be written. */
static int writer_finish(struct blob_writer *w)
{
	size_t i;
	int ret;

	pthread_mutex_lock(&w->lock);
	w->closing = 1;
	pthread_cond_broadcast(&w->more);
	pthread_mutex_unlock(&w->lock);
	for (i = 0; i < w->nr_threads; i++)
		pthread_join(w->threads[i], NULL);
	w->nr_threads = 0;
	ret = w->failed ? error("%s", w->errmsg ? w->errmsg : "cannot write a blob") : 0;
	for (i = 0; i < MAX_WRITERS; i++)
		git_odb_free(w->odbs[i]);
	git_odb_free(w->reader_odb);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->more);
	pthread_cond_destroy(&w->room);
	free(w->ring);
	free(w->errmsg);
	memset(w, 0, sizeof(*w));
	return ret;
}

/* ------------------------------------------------------------------ */
/* Reading a tar archive into blobs and an in-memory tree */

/* On a terminal, a count of files read, from the first half second on. */
struct tar_progress {
	struct progress line;
	const char *label;
	int shown;
	unsigned long long bytes;	/* of the files read so far */
};

static void tar_progress_init(struct tar_progress *pg, const char *label)
{
	progress_init(&pg->line, 1, 0.5);
	pg->line.drawn = mono_seconds();	/* nothing for the first half second */
	pg->label = label;
	pg->shown = 0;
	pg->bytes = 0;
}

static void tar_progress_show(struct tar_progress *pg, size_t files, int done)
{
	double mib = pg->bytes / (1024.0 * 1024);

	if (!done)
		pg->shown |= progress_show(&pg->line, 0, "%s: %s files, %.0f MiB", pg->label,
					   thousands(files), mib);
	else if (pg->shown)
		progress_done(&pg->line, "%s: %s files, %.0f MiB", pg->label, thousands(files),
			      mib);
}

/*
 * Entries of this size or more go straight from the archive into the
 * object database, a buffer at a time: memory stays bounded whatever the
 * archive holds (a 3 GiB entry needed 3 GB read whole). Smaller ones are
 * read whole and hashed on the writer threads.
 */
#define STREAM_MIN (16u << 20)
#define STREAM_BUF (1u << 20)

/*
 * The current entry's data, less than STREAM_MIN bytes, into a fresh
 * buffer the caller owns; a sparse entry's trailing hole as zeros.
 */
static int read_entry_data(char **out, size_t *out_len, struct archive *a,
			   struct archive_entry *e, const char *label, const char *path)
{
	size_t alloc, len = 0;
	char *buf;

	*out = NULL;
	*out_len = 0;
	/* The header's size is a hint: a hostile one must not make us allocate 1 TB. */
	alloc = archive_entry_size_is_set(e) && archive_entry_size(e) >= 0 ?
		(size_t)archive_entry_size(e) + 1 : 8192;
	if (alloc > (64u << 20))
		alloc = 64u << 20;
	buf = xmalloc(alloc);
	for (;;) {
		la_ssize_t n;

		if (len == alloc) {
			alloc *= 2;
			buf = xrealloc(buf, alloc);
		}
		n = archive_read_data(a, buf + len, alloc - len);
		if (n < 0) {
			free(buf);
			return error("'%s': cannot read '%s': %s", label, shown(path),
				     archive_error_string(a));
		}
		if (!n)
			break;
		len += n;
		if (len >= STREAM_MIN) {
			free(buf);
			return error("'%s': '%s' holds more than its header says", label,
				     shown(path));
		}
	}
	if (archive_entry_sparse_count(e) && archive_entry_size_is_set(e) &&
	    (la_int64_t)len < archive_entry_size(e)) {
		size_t size = archive_entry_size(e);

		buf = xrealloc(buf, size + 1);
		memset(buf + len, 0, size - len);
		len = size;
	}
	*out = buf;
	*out_len = len;
	return 0;
}

/* Append `n` zero bytes to stream st: a sparse entry's hole. */
static int stream_zeros(git_odb_stream *st, const char *zeros, la_int64_t n)
{
	while (n > 0) {
		size_t k = n < STREAM_BUF ? (size_t)n : STREAM_BUF;
		int err = git_odb_stream_write(st, zeros, k);

		if (err < 0)
			return err;
		n -= k;
	}
	return 0;
}

/*
 * Stream the current entry e into the blob *out, a block at a time as
 * libarchive hands them out; holes of a sparse entry (libarchive 3.6
 * leaves out a trailing one) are written as the zeros they stand for.
 */
static int stream_entry(git_oid *out, git_odb *odb, struct archive *a, struct archive_entry *e,
			const char *label, const char *path)
{
	la_int64_t size = archive_entry_size(e), total = 0;
	git_odb_stream *st = NULL;
	char *zeros = xcalloc(1, STREAM_BUF);
	int err = 0, ret = 0;

	err = git_odb_open_wstream(&st, odb, (git_object_size_t)size, GIT_OBJECT_BLOB);
	for (; err >= 0;) {
		const void *block;
		size_t n;
		la_int64_t offset;
		int r = archive_read_data_block(a, &block, &n, &offset);

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			ret = error("'%s': cannot read '%s': %s", label, shown(path),
				    archive_error_string(a));
			goto cleanup;
		}
		if (offset < total || offset > size || (la_int64_t)n > size - offset) {
			ret = error("'%s': '%s' holds data beyond the %lld bytes its header says",
				    label, shown(path), (long long)size);
			goto cleanup;
		}
		err = stream_zeros(st, zeros, offset - total);
		if (err >= 0)
			err = git_odb_stream_write(st, block, n);
		total = offset + n;
	}
	if (err >= 0 && total < size) {
		if (!archive_entry_sparse_count(e)) {
			ret = error("'%s': '%s' holds %lld bytes, not the %lld its header says", label,
				    shown(path), (long long)total, (long long)size);
			goto cleanup;
		}
		err = stream_zeros(st, zeros, size - total);
	}
	if (err >= 0)
		err = git_odb_stream_finalize_write(out, st);
	if (err < 0)
		ret = gitutil_error(err, "'%s': cannot write '%s'", label, shown(path));
cleanup:
	git_odb_stream_free(st);
	free(zeros);
	return ret;
}

static const char *entry_path(struct archive_entry *e)
{
	const char *p = archive_entry_pathname(e);

	return p ? p : archive_entry_pathname_utf8(e);
}

/* Every entry of archive `a` into ft, the blobs through w. */
static int read_archive(struct ftree *ft, struct blob_writer *w, struct archive *a,
			const char *label, struct tar_progress *pg)
{
	struct strbuf path = STRBUF_INIT, target = STRBUF_INIT;
	struct archive_entry *e;
	size_t files = 0;
	int ret = 0;

	for (;;) {
		struct tnode *n = NULL;
		const char *raw, *hardlink;
		char *data = NULL;
		size_t len = 0;
		int r = archive_read_next_header(a, &e);

		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			ret = error("'%s': %s", label, archive_error_string(a));
			goto cleanup;
		}
		raw = entry_path(e);
		if (!raw) {
			ret = error("'%s': an entry whose name cannot be read", label);
			goto cleanup;
		}
		ret = normalise_path(&path, raw, label);
		if (ret)
			goto cleanup;
		if (!path.len)
			continue;	/* the archive's own "./" */
		if (archive_entry_mtime_is_set(e) && archive_entry_mtime(e) > ft->newest)
			ft->newest = archive_entry_mtime(e);

		hardlink = archive_entry_hardlink(e);
		if (hardlink && !(archive_entry_size_is_set(e) && archive_entry_size(e) > 0)) {
			ret = normalise_path(&target, hardlink, label);
			if (ret)
				goto cleanup;
			ret = ftree_file(&n, ft, path.buf, MODE_FILE, label);
			if (ret)
				goto cleanup;
			n->link = strbuf_detach(&target, NULL);
			files++;
			continue;
		}
		switch (archive_entry_filetype(e)) {
		case AE_IFDIR:
			ret = ftree_dir(&n, ft, path.buf, path.len, label);
			break;
		case AE_IFREG:
			if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0)
				pg->bytes += archive_entry_size(e);
			ret = ftree_file(&n, ft, path.buf,
					 archive_entry_perm(e) & 0111 ? MODE_EXEC : MODE_FILE,
					 label);
			if (!ret && archive_entry_size_is_set(e) &&
			    archive_entry_size(e) >= STREAM_MIN) {
				ret = stream_entry(&n->oid, w->reader_odb, a, e, label, path.buf);
				files++;
				break;
			}
			if (!ret)
				ret = read_entry_data(&data, &len, a, e, label, path.buf);
			if (!ret && writer_push(w, &n->oid, data, len))
				ret = -1; /* reported by writer_finish() */
			files++;
			break;
		case AE_IFLNK:
			raw = archive_entry_symlink(e);
			if (!raw)
				raw = archive_entry_symlink_utf8(e);
			if (!raw) {
				ret = error("'%s': symlink '%s' has no readable target", label,
					    shown(path.buf));
				break;
			}
			ret = ftree_file(&n, ft, path.buf, MODE_LINK, label);
			if (!ret && writer_push(w, &n->oid, xstrdup(raw), strlen(raw)))
				ret = -1;
			files++;
			break;
		default:
			break;	/* devices, fifos and sockets have no place in git */
		}
		if (ret)
			goto cleanup;
		if (!(files & 255))
			tar_progress_show(pg, files, 0);
	}
cleanup:
	strbuf_release(&path);
	strbuf_release(&target);
	return ret;
}

/* Hard links take the blob and mode of the file they name. */
static int resolve_hardlinks(struct ftree *ft, const char *label)
{
	size_t i;

	for (i = 0; i < ft->nr_all; i++) {
		struct tnode *n = ft->all[i], *t = n;
		int hops = 0;

		if (!n->link || n->dead)
			continue;
		while (t && t->link && hops++ < 64)
			t = ftree_lookup(ft, t->link, strlen(t->link));
		if (!t || t->link || t->mode == MODE_DIR)
			return error("'%s': hard link '%s' names '%s', which the archive does not "
				     "hold as a file", label, shown(n->path), shown(n->link));
		n->oid = t->oid;
		n->mode = t->mode;
	}
	for (i = 0; i < ft->nr_all; i++) {
		free(ft->all[i]->link);
		ft->all[i]->link = NULL;
	}
	return 0;
}

/* Write directory n bottom-up; *empty when it holds no file at any depth. */
static int write_dir(git_oid *out, int *empty, git_repository *repo, struct tnode *n)
{
	git_treebuilder *bld = NULL;
	size_t i;
	int err, ret = 0;

	*empty = 1;
	err = git_treebuilder_new(&bld, repo, NULL);
	if (err < 0)
		return gitutil_error(err, "cannot build a tree");
	for (i = 0; i < n->nr_kids; i++) {
		struct tnode *k = n->kids[i];

		if (k->dead)
			continue;
		if (k->mode == MODE_DIR) {
			int kid_empty;

			ret = write_dir(&k->oid, &kid_empty, repo, k);
			if (ret)
				goto cleanup;
			if (kid_empty)
				continue;
		}
		err = git_treebuilder_insert(NULL, bld, k->name, &k->oid, k->mode);
		if (err < 0) {
			ret = gitutil_error(err, "cannot add '%s' to a tree", shown(k->path));
			goto cleanup;
		}
		*empty = 0;
	}
	err = git_treebuilder_write(out, bld);
	if (err < 0)
		ret = gitutil_error(err, "cannot write the tree of '%s'",
				       *n->path ? shown(n->path) : "/");
cleanup:
	git_treebuilder_free(bld);
	return ret;
}

/*
 * Hold every .gitmodules (in any spelling, at any depth) to git fsck's
 * rules: not a symbolic link, and nothing in it a clone would run.
 */
static int check_gitmodules(git_repository *repo, struct ftree *ft, const char *label)
{
	struct strbuf why = STRBUF_INIT;
	git_odb *odb = NULL;
	size_t i;
	int err, ret = 0;

	for (i = 0; i < ft->nr_all && !ret; i++) {
		const struct tnode *n = ft->all[i];
		git_odb_object *obj = NULL;
		size_t size;
		git_object_t type;

		if (n->dead || n->mode == MODE_DIR || !treecheck_is_gitmodules(n->name, strlen(n->name)))
			continue;
		if (n->mode == MODE_LINK) {
			ret = import_refuse(label, n->path, "a .gitmodules that is a symbolic link");
			break;
		}
		if (!odb && (err = git_repository_odb(&odb, repo)) < 0) {
			ret = gitutil_error(err, "cannot open the object database");
			break;
		}
		if ((err = git_odb_read_header(&size, &type, odb, &n->oid)) < 0) {
			ret = gitutil_error(err, "'%s': cannot read '%s'", label, shown(n->path));
			break;
		}
		if (size > TREECHECK_GITMODULES_MAX) {
			strbuf_reset(&why);
			strbuf_addf(&why, "a .gitmodules of more than %u bytes, too large to check",
				    TREECHECK_GITMODULES_MAX);
			ret = import_refuse(label, n->path, why.buf);
			break;
		}
		if ((err = git_odb_read(&obj, odb, &n->oid)) < 0) {
			ret = gitutil_error(err, "'%s': cannot read '%s'", label, shown(n->path));
			break;
		}
		strbuf_reset(&why);
		strbuf_addstr(&why, ".gitmodules ");
		if (treecheck_gitmodules(git_odb_object_data(obj), git_odb_object_size(obj), &why))
			ret = import_refuse(label, n->path, why.buf);
		git_odb_object_free(obj);
	}
	git_odb_free(odb);
	strbuf_release(&why);
	return ret;
}

/* Write ft as a tree, without the single top-level directory when there is one. */
static int ftree_write(git_oid *out, size_t *nr_files, git_repository *repo, struct ftree *ft,
		       const char *label)
{
	struct tnode *top = &ft->root, *only = NULL;
	size_t i, live = 0;
	int empty, ret;

	ret = resolve_hardlinks(ft, label);
	if (!ret)
		ret = check_gitmodules(repo, ft, label);
	if (ret)
		return ret;
	*nr_files = 0;
	for (i = 0; i < ft->nr_all; i++)
		if (!ft->all[i]->dead && ft->all[i]->mode != MODE_DIR)
			(*nr_files)++;
	for (i = 0; i < ft->root.nr_kids; i++) {
		if (ft->root.kids[i]->dead)
			continue;
		live++;
		only = ft->root.kids[i];
	}
	if (live == 1 && only->mode == MODE_DIR)
		top = only;
	ret = write_dir(out, &empty, repo, top);
	if (!ret && empty)
		ret = error("'%s' holds no files", label);
	return ret;
}

/*
 * Read archive `a` (already opened) into repo: the tree in *out_tree, the
 * number of files and the newest mtime for the commit.
 */
static int import_archive(git_oid *out_tree, size_t *nr_files, time_t *newest,
			  git_repository *repo, struct archive *a, const char *label)
{
	struct tar_progress pg;
	struct blob_writer w;
	struct ftree ft;
	int ret;

	tar_progress_init(&pg, label);
	ftree_init(&ft);
	ret = writer_start(&w, repo);
	if (!ret)
		ret = read_archive(&ft, &w, a, label, &pg);
	if (writer_finish(&w))
		ret = -1;
	if (!ret) {
		/*
		 * Every blob was just written: libgit2 need not read each one
		 * back to check it exists (4 s on a kernel tree).
		 */
		int strict = gitutil_set_opt(GITUTIL_STRICT_CREATION, 0);

		ret = ftree_write(out_tree, nr_files, repo, &ft, label);
		gitutil_set_opt(GITUTIL_STRICT_CREATION, strict);
	}
	if (!ret) {
		*newest = ft.newest;
		tar_progress_show(&pg, *nr_files, 1);
	} else {
		progress_clear(&pg.line);
	}
	ftree_release(&ft);
	return ret;
}

static struct archive *tar_reader(void)
{
	struct archive *a = archive_read_new();

	if (!a)
		die("out of memory");
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_lzip(a);
	archive_read_support_filter_none(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	return a;
}

int tarimport_tarball(git_oid *out_tree, size_t *nr_files, time_t *newest,
			  git_repository *repo, const char *tarball)
{
	struct archive *a = tar_reader();
	int ret;

	if (archive_read_open_filename(a, tarball, 1 << 20) != ARCHIVE_OK) {
		ret = error("cannot read '%s': %s", tarball, archive_error_string(a));
		goto cleanup;
	}
	ret = import_archive(out_tree, nr_files, newest, repo, a, tarball);
cleanup:
	archive_read_free(a);
	return ret;
}

int tree_from_tarball(git_oid *out_tree, git_repository *repo, const char *tarball)
{
	size_t nr_files;
	time_t newest;

	return tarimport_tarball(out_tree, &nr_files, &newest, repo, tarball);
}

/* ------------------------------------------------------------------ */
/* A .deb: an ar archive whose data.tar.* holds usr/src/linux-source-X.tar.* */

/* Feeds an inner archive from the current entry of an outer one, without copies. */
struct nested {
	struct archive *outer;
};

static la_ssize_t nested_read(struct archive *a, void *data, const void **buf)
{
	struct nested *n = data;
	const void *block;
	size_t size;
	la_int64_t off;
	int r = archive_read_data_block(n->outer, &block, &size, &off);

	if (r == ARCHIVE_EOF)
		return 0;
	if (r < ARCHIVE_WARN) {
		archive_set_error(a, EIO, "%s", archive_error_string(n->outer));
		return -1;
	}
	*buf = block;
	return size;
}

static int nested_open(struct archive *inner, struct nested *n, struct archive *outer)
{
	n->outer = outer;
	return archive_read_open(inner, n, NULL, nested_read, NULL);
}

int tarimport_deb(git_oid *out_tree, size_t *nr_files, time_t *newest,
		      git_repository *repo, const char *deb, const char *package)
{
	struct archive *ar = archive_read_new(), *data = NULL, *src = NULL;
	struct nested n1, n2;
	struct archive_entry *e;
	struct strbuf path = STRBUF_INIT;
	char *want = xstrfmt("usr/src/%s.tar", package), *label = NULL;
	int ret = 0, r;

	archive_read_support_format_ar(ar);
	archive_read_support_filter_none(ar);
	if (archive_read_open_filename(ar, deb, 1 << 20) != ARCHIVE_OK) {
		ret = error("cannot read '%s': %s", deb, archive_error_string(ar));
		goto cleanup;
	}
	while ((r = archive_read_next_header(ar, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN)
		if (starts_with(archive_entry_pathname(e), "data.tar"))
			break;
	if (r < ARCHIVE_WARN) {
		ret = error("'%s': %s", deb, archive_error_string(ar));
		goto cleanup;
	}
	if (r == ARCHIVE_EOF) {
		ret = error("'%s' is not a Debian package: it has no data.tar member", deb);
		goto cleanup;
	}
	data = tar_reader();
	if (nested_open(data, &n1, ar) != ARCHIVE_OK) {
		ret = error("'%s': cannot read its data.tar: %s", deb, archive_error_string(data));
		goto cleanup;
	}
	for (;;) {
		r = archive_read_next_header(data, &e);
		if (r == ARCHIVE_EOF) {
			ret = error("'%s' does not hold /%s.*", deb, want);
			goto cleanup;
		}
		if (r < ARCHIVE_WARN) {
			ret = error("'%s': %s", deb, archive_error_string(data));
			goto cleanup;
		}
		if (archive_entry_filetype(e) != AE_IFREG ||
		    normalise_path(&path, entry_path(e), deb))
			continue;
		if (starts_with(path.buf, want) && path.buf[strlen(want)] == '.')
			break;
	}
	label = xstrfmt("%s:/%s", deb, path.buf);
	src = tar_reader();
	if (nested_open(src, &n2, data) != ARCHIVE_OK) {
		ret = error("'%s': %s", label, archive_error_string(src));
		goto cleanup;
	}
	ret = import_archive(out_tree, nr_files, newest, repo, src, label);
cleanup:
	if (src)
		archive_read_free(src);
	if (data)
		archive_read_free(data);
	archive_read_free(ar);
	strbuf_release(&path);
	free(want);
	free(label);
	return ret;
}
