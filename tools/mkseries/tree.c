/* tree.c: the kernel repository, and importing a tree into it from git, Debian or a tarball. */
#define _GNU_SOURCE
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/odb_backend.h>

#include "gitutil.h"
#include "tree.h"
#include "treecheck.h"
#include "util.h"

#define SIG_NAME "mkseries"
#define SIG_EMAIL "mkseries@invalid"

/* ------------------------------------------------------------------ */
/* Paths */

static char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return path_join(xdg, "mkseries");
	if (home && *home)
		return xstrfmt("%s/.cache/mkseries", home);
	return NULL;
}

/* kernel_repo_path(), and whether it is mkseries' own repository under the cache. */
static int repo_path_of(char **out, int *own, const struct kit *kit,
			const struct kernel_branch *b, const char *repo_opt)
{
	char *cache = NULL;

	*out = NULL;
	*own = 0;
	if (repo_opt && *repo_opt) {
		*out = xstrdup(repo_opt);
		return 0;
	}
	if (b && b->source.kind == SOURCE_GIT) {
		/* A repository the user's environment names: say which file and variable. */
		if ((!b->source.repo || b->source.repo_var) && kernel_source_check(b))
			return MKS_ECONFIG;
		*out = kit_file(kit, b->source.repo);
		return 0;
	}
	*own = 1;
	cache = cache_dir();
	if (!cache)
		return error("cannot tell where the kernel repository goes: "
			     "neither XDG_CACHE_HOME nor HOME is set (use --repo DIR)");
	*out = path_join(cache, "linux.git");
	free(cache);
	return 0;
}

int kernel_repo_path(char **out, const struct kit *kit, const struct kernel_branch *b,
		     const char *repo_opt)
{
	int own;

	return repo_path_of(out, &own, kit, b, repo_opt);
}

/*
 * Make git log every ref update in `repo` (core.logAllRefUpdates=always
 * in its own config). The refs are right without a log: a failure (two
 * mkseries writing the config at once) is a warning.
 */
static void log_all_ref_updates(git_repository *repo, const char *path)
{
	git_config *cfg = NULL, *local = NULL;
	git_buf value = { 0 };
	int err;

	err = git_repository_config(&cfg, repo);
	if (!err)
		err = git_config_open_level(&local, cfg, GIT_CONFIG_LEVEL_LOCAL);
	if (!err && (git_config_get_string_buf(&value, local, "core.logAllRefUpdates") < 0 ||
		     strcasecmp(value.ptr, "always")))
		err = git_config_set_string(local, "core.logAllRefUpdates", "always");
	if (err < 0)
		gitutil_warning(err, "cannot turn on the reflog of '%s'; ref updates go unlogged",
				   path);
	git_buf_dispose(&value);
	git_config_free(local);
	git_config_free(cfg);
}

int kernel_repo_open(git_repository **out, const struct kit *kit, const struct kernel_branch *b,
		     const char *repo_opt, int create)
{
	char *path = NULL;
	int own, ret;

	*out = NULL;
	ret = repo_path_of(&path, &own, kit, b, repo_opt);
	if (!ret && !path)
		ret = -1;
	if (!ret)
		ret = repo_open(out, path, create);
	if (!ret && own)
		log_all_ref_updates(*out, path);
	free(path);
	return ret;
}

const char *tree_base_refname(const struct kernel_branch *b)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	strbuf_addf(&sb, "refs/tags/mkseries/base/%s", b->name);
	return sb.buf;
}

/* The history of a branch's imports: refs/mkseries-imports/<branch>/<n>, n from 1. */
static char *import_history_ref(const struct kernel_branch *b, size_t n)
{
	return xstrfmt("refs/mkseries-imports/%s/%zu", b->name, n);
}

/* Number of imports recorded for b. */
static size_t import_history_len(git_repository *repo, const struct kernel_branch *b)
{
	size_t n = 0;

	for (;;) {
		char *name = import_history_ref(b, n + 1);
		git_oid id;
		int have = git_reference_name_to_id(&id, repo, name) == 0;

		free(name);
		if (!have)
			break;
		n++;
	}
	git_error_clear();
	return n;
}

/* Keep base tag `tag` of b in the history, unless it is the last one there. */
static int import_history_add(git_repository *repo, const struct kernel_branch *b,
			      const git_oid *tag)
{
	size_t n = import_history_len(repo, b);
	git_reference *ref = NULL;
	char *name;
	git_oid last;
	int err, ret = 0;

	if (n) {
		name = import_history_ref(b, n);
		err = git_reference_name_to_id(&last, repo, name);
		free(name);
		if (!err && git_oid_equal(&last, tag))
			return 0;
	}
	name = import_history_ref(b, n + 1);
	err = git_reference_create(&ref, repo, name, tag, 0, "mkseries import");
	if (err < 0)
		ret = gitutil_error(err, "cannot write '%s'", name);
	git_reference_free(ref);
	free(name);
	return ret;
}

int tree_import_log(struct strbuf *out, git_repository *repo, const struct kernel_branch *b)
{
	size_t n = import_history_len(repo, b), i;

	for (i = n; i >= 1; i--) {
		char *name = import_history_ref(b, i);
		git_object *obj = NULL;
		git_tag *tag = NULL;
		git_oid id;
		const char *msg, *src;

		if (git_reference_name_to_id(&id, repo, name) < 0 ||
		    git_object_lookup(&obj, repo, &id, GIT_OBJECT_ANY) < 0) {
			git_error_clear();
			strbuf_addf(out, "%zu %s: unreadable\n", i, name);
			free(name);
			continue;
		}
		if (git_object_type(obj) == GIT_OBJECT_TAG) {
			tag = (git_tag *)obj;
			msg = git_tag_message(tag);
			src = msg ? strstr(msg, "source: ") : NULL;
			strbuf_addf(out, "%zu %s ", i, oid_short(git_tag_target_id(tag)));
			if (src) {
				src += strlen("source: ");
				strbuf_add(out, src, strcspn(src, "\n"));
			}
			strbuf_addf(out, "%s\n", i == n ? " (current)" : "");
		} else {
			strbuf_addf(out, "%zu %s%s\n", i, oid_short(&id), i == n ? " (current)" : "");
		}
		git_object_free(obj);
		free(name);
	}
	return (int)n;
}

/* "86691" -> "86,691" into buf (at least 32 bytes). */
static const char *thousands_to(char *buf, size_t n)
{
	char tmp[32];
	size_t len, i, o = 0;

	snprintf(tmp, sizeof(tmp), "%zu", n);
	len = strlen(tmp);
	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}
#define thousands(n) thousands_to((char[32]){ 0 }, (n))

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

/*
 * Normalise an archive path into sb: "./" and empty components dropped,
 * a trailing slash removed. Absolute paths, ".." and ".git" components
 * are refused: a hostile archive must not name anything outside its tree
 * or smuggle in repository metadata.
 */
#define MAX_DEPTH 1000

static int refuse(const char *label, const char *path, const char *why)
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
		return refuse(label, path, "an absolute path");
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t len = end - p;

		if ((len == 2 && !memcmp(p, "..", 2)))
			return refuse(label, path, "'..' leads outside the tree");
		if (len && !(len == 1 && *p == '.')) {
			if (++depth > MAX_DEPTH)
				return refuse(label, path, "nested too deep");
			if (sb->len)
				strbuf_addch(sb, '/');
			strbuf_add(sb, p, len);
		}
		p = *end ? end + 1 : end;
	}
	reason = sb->len ? treecheck_path(sb->buf, sb->len) : NULL;
	return reason ? refuse(label, path, reason) : 0;
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
struct progress {
	const char *label;
	int on;
	int shown;
	double last;
};

static void progress_show(struct progress *pg, size_t files, int done)
{
	double now;

	if (!pg->on || (done && !pg->shown))
		return;
	now = mono_seconds();
	if (!done && now - pg->last < 0.5)
		return;
	pg->last = now;
	pg->shown = 1;
	fprintf(stderr, "\r%s: %s files%s", pg->label, thousands(files), done ? "\n" : "");
	fflush(stderr);
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
			const char *label, struct progress *pg)
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
			progress_show(pg, files, 0);
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
			ret = refuse(label, n->path, "a .gitmodules that is a symbolic link");
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
			ret = refuse(label, n->path, why.buf);
			break;
		}
		if ((err = git_odb_read(&obj, odb, &n->oid)) < 0) {
			ret = gitutil_error(err, "'%s': cannot read '%s'", label, shown(n->path));
			break;
		}
		strbuf_reset(&why);
		strbuf_addstr(&why, ".gitmodules ");
		if (treecheck_gitmodules(git_odb_object_data(obj), git_odb_object_size(obj), &why))
			ret = refuse(label, n->path, why.buf);
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
	struct progress pg = { label, mks_isatty_stderr(), 0, mono_seconds() };
	struct blob_writer w;
	struct ftree ft;
	int ret;

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
		progress_show(&pg, *nr_files, 1);
	} else if (pg.shown) {
		fputc('\n', stderr);
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

static int tarball_import(git_oid *out_tree, size_t *nr_files, time_t *newest,
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

	return tarball_import(out_tree, &nr_files, &newest, repo, tarball);
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

static int deb_import(git_oid *out_tree, size_t *nr_files, time_t *newest,
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

/* ------------------------------------------------------------------ */
/* apt: fetching a package from another suite of the configured mirror */

struct apt_para {
	struct strvec names;	/* field names, in order */
	struct strvec values;	/* their full text, continuation lines included */
};

static void para_clear(struct apt_para *p)
{
	strvec_clear(&p->names);
	strvec_clear(&p->values);
}

static const char *para_get(const struct apt_para *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->names.nr; i++)
		if (!strcasecmp(p->names.v[i], name))
			return p->values.v[i];
	return NULL;
}

/* The requested suite for one of the system's suites, or NULL when it is not the system's. */
static char *map_suite(const char *suite, const char *codename, const char *want)
{
	size_t len = strlen(codename);

	if (strncmp(suite, codename, len) || (suite[len] && suite[len] != '-'))
		return NULL;
	return xstrfmt("%s%s", want, suite + len);
}

/* Split on blanks into sv. */
static void split_words(struct strvec *sv, const char *s)
{
	while (*s) {
		size_t len;

		s += strspn(s, " \t\n");
		len = strcspn(s, " \t\n");
		if (len) {
			char *w = xstrndup(s, len);

			strvec_push(sv, w);
			free(w);
		}
		s += len;
	}
}

/*
 * Write one deb822 paragraph for an entry of the system's archive, its
 * suites mapped to the requested one. Fields other than Types, Suites
 * and Enabled are kept as they are (Signed-By may hold a whole key).
 */
static void emit_para(struct strbuf *out, struct strvec *looked_in, const struct apt_para *p,
		      const char *codename, const char *want)
{
	struct strvec suites = STRVEC_INIT, mapped = STRVEC_INIT, uris = STRVEC_INIT,
		      types = STRVEC_INIT;
	const char *enabled = para_get(p, "Enabled");
	size_t i, j;
	int has_deb = 0;

	split_words(&types, para_get(p, "Types") ? para_get(p, "Types") : "");
	for (i = 0; i < types.nr; i++)
		has_deb |= !strcmp(types.v[i], "deb");
	if (!has_deb || (enabled && !strncasecmp(enabled + strspn(enabled, " \t"), "no", 2)))
		goto cleanup;
	split_words(&suites, para_get(p, "Suites") ? para_get(p, "Suites") : "");
	for (i = 0; i < suites.nr; i++) {
		char *m = map_suite(suites.v[i], codename, want);
		int dup = 0;

		if (!m)
			continue;
		for (j = 0; j < mapped.nr; j++)
			dup |= !strcmp(mapped.v[j], m);
		if (!dup)
			strvec_push(&mapped, m);
		free(m);
	}
	split_words(&uris, para_get(p, "URIs") ? para_get(p, "URIs") : "");
	if (!mapped.nr || !uris.nr)
		goto cleanup;
	if (out->len)
		strbuf_addch(out, '\n');
	strbuf_addstr(out, "Types: deb\n");
	for (i = 0; i < p->names.nr; i++) {
		const char *name = p->names.v[i];

		if (!strcasecmp(name, "Types") || !strcasecmp(name, "Suites") ||
		    !strcasecmp(name, "Enabled"))
			continue;
		strbuf_addf(out, "%s:%s\n", name, p->values.v[i]);
	}
	strbuf_addstr(out, "Suites:");
	for (i = 0; i < mapped.nr; i++)
		strbuf_addf(out, " %s", mapped.v[i]);
	strbuf_addch(out, '\n');
	for (i = 0; i < uris.nr; i++)
		for (j = 0; j < mapped.nr; j++)
			strvec_pushf(looked_in, "%s %s", uris.v[i], mapped.v[j]);
cleanup:
	strvec_clear(&suites);
	strvec_clear(&mapped);
	strvec_clear(&uris);
	strvec_clear(&types);
}

static void para_add(struct apt_para *p, const char *name, const char *value)
{
	strvec_push(&p->names, name);
	strvec_pushf(&p->values, " %s", value);
}

/* A deb822 .sources file. */
static void parse_deb822(struct strbuf *out, struct strvec *looked_in, const char *text,
			 const char *codename, const char *want)
{
	struct apt_para p = { STRVEC_INIT, STRVEC_INIT };
	const char *line = text;

	while (*line) {
		const char *end = strchrnul(line, '\n'), *colon;
		size_t len = end - line;

		if (len == strspn(line, " \t\r") || !*line) {
			if (p.names.nr)
				emit_para(out, looked_in, &p, codename, want);
			para_clear(&p);
		} else if (*line == '#') {
			/* a comment */
		} else if ((*line == ' ' || *line == '\t') && p.values.nr) {
			/* a continuation line: append to the last field */
			char *v = xstrfmt("%s\n%.*s", p.values.v[p.values.nr - 1], (int)len, line);

			free((char *)p.values.v[p.values.nr - 1]);
			p.values.v[p.values.nr - 1] = v;
		} else if ((colon = memchr(line, ':', len))) {
			char *name = xstrndup(line, colon - line);
			char *value = xstrndup(colon + 1, end - colon - 1);
			size_t vlen = strlen(value);

			while (vlen && (value[vlen - 1] == '\r' || value[vlen - 1] == ' '))
				value[--vlen] = '\0';
			strvec_push(&p.names, name);
			strvec_push(&p.values, value);
			free(name);
			free(value);
		}
		line = *end ? end + 1 : end;
	}
	if (p.names.nr)
		emit_para(out, looked_in, &p, codename, want);
	para_clear(&p);
}

/* deb822 field names for the options of one-line entries. */
static const char *option_field(const char *key)
{
	static const char *const map[][2] = {
		{ "arch", "Architectures" }, { "lang", "Languages" }, { "target", "Targets" },
		{ "signed-by", "Signed-By" }, { "trusted", "Trusted" }, { "pdiffs", "PDiffs" },
		{ "by-hash", "By-Hash" }, { "check-valid-until", "Check-Valid-Until" },
		{ "allow-insecure", "Allow-Insecure" }, { "allow-weak", "Allow-Weak" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(key, map[i][0]))
			return map[i][1];
	return NULL;
}

/* A one-line sources.list file: "deb [opts] URI SUITE COMPONENT...". */
static void parse_one_line(struct strbuf *out, struct strvec *looked_in, const char *text,
			   const char *codename, const char *want)
{
	const char *line = text;

	while (*line) {
		const char *end = strchrnul(line, '\n');
		char *l = xstrndup(line, end - line), *hash, *s, *close;
		struct strvec words = STRVEC_INIT, opts = STRVEC_INIT;
		struct apt_para p = { STRVEC_INIT, STRVEC_INIT };
		struct strbuf comps = STRBUF_INIT;
		size_t i;

		line = *end ? end + 1 : end;
		hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		s = l + strspn(l, " \t");
		if (strncmp(s, "deb", 3) || (s[3] != ' ' && s[3] != '\t'))
			goto next;
		s += 3;
		s += strspn(s, " \t");
		if (*s == '[') {
			close = strchr(s, ']');
			if (!close)
				goto next;
			*close = '\0';
			split_words(&opts, s + 1);
			s = close + 1;
		}
		split_words(&words, s);
		if (words.nr < 2)
			goto next;
		para_add(&p, "Types", "deb");
		para_add(&p, "URIs", words.v[0]);
		para_add(&p, "Suites", words.v[1]);
		for (i = 2; i < words.nr; i++)
			strbuf_addf(&comps, "%s%s", i > 2 ? " " : "", words.v[i]);
		if (comps.len)
			para_add(&p, "Components", comps.buf);
		for (i = 0; i < opts.nr; i++) {
			const char *eq = strchr(opts.v[i], '=');
			char *key, *val, *c;
			const char *field;

			if (!eq)
				continue;
			key = xstrndup(opts.v[i], eq - opts.v[i]);
			val = xstrdup(eq + 1);
			for (c = val; *c; c++)
				if (*c == ',')
					*c = ' ';
			field = option_field(key);
			if (field)
				para_add(&p, field, val);
			free(key);
			free(val);
		}
		emit_para(out, looked_in, &p, codename, want);
next:
		para_clear(&p);
		strvec_clear(&words);
		strvec_clear(&opts);
		strbuf_release(&comps);
		free(l);
	}
}

static int os_codename(char **out, const char *root)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xstrfmt("%s/etc/os-release", root);
	const char *p;
	int ret = 0;

	*out = NULL;
	if (strbuf_read_file(&sb, path)) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	for (p = sb.buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v;
		size_t len;

		if (!skip_prefix(p, "VERSION_CODENAME=", &v))
			continue;
		if (*v == '"' || *v == '\'')
			v++;
		len = strcspn(v, "\"'\n");
		if (len)
			*out = xstrndup(v, len);
		break;
	}
	if (!*out)
		ret = error("'%s' names no VERSION_CODENAME: cannot tell which apt entries "
			    "are this system's Debian archive", path);
cleanup:
	strbuf_release(&sb);
	free(path);
	return ret;
}

int tree_apt_sources(struct strbuf *out, struct strvec *looked_in, const char *root,
		     const char *suite)
{
	struct strbuf text = STRBUF_INIT;
	struct strvec files = STRVEC_INIT;
	char *codename = NULL, *path = NULL, *dir = NULL;
	DIR *d = NULL;
	struct dirent *de;
	size_t i;
	int ret;

	strbuf_reset(out);
	ret = os_codename(&codename, root);
	if (ret)
		goto cleanup;
	path = xstrfmt("%s/etc/apt/sources.list", root);
	if (file_exists(path))
		strvec_push(&files, path);
	dir = xstrfmt("%s/etc/apt/sources.list.d", root);
	d = opendir(dir);
	if (d) {
		struct strvec names = STRVEC_INIT;

		while ((de = readdir(d)))
			if (ends_with(de->d_name, ".list") || ends_with(de->d_name, ".sources"))
				strvec_push(&names, de->d_name);
		qsort(names.v, names.nr, sizeof(*names.v), strp_cmp);
		for (i = 0; i < names.nr; i++)
			strvec_pushf(&files, "%s/%s", dir, names.v[i]);
		strvec_clear(&names);
	}
	for (i = 0; i < files.nr; i++) {
		strbuf_reset(&text);
		if (strbuf_read_file(&text, files.v[i])) {
			warning("cannot read '%s': %s", files.v[i], strerror(errno));
			continue;
		}
		if (ends_with(files.v[i], ".sources"))
			parse_deb822(out, looked_in, text.buf, codename, suite);
		else
			parse_one_line(out, looked_in, text.buf, codename, suite);
	}
	if (!out->len)
		ret = error_code(MKS_ENOTFOUND,
				 "no Debian archive for '%s' in %s/etc/apt/sources.list or "
				 "sources.list.d: cannot derive suite '%s'",
				 codename, root, suite);
cleanup:
	if (d)
		closedir(d);
	strbuf_release(&text);
	strvec_clear(&files);
	free(codename);
	free(path);
	free(dir);
	return ret;
}

/* apt-get/apt-cache confined to our own lists, caches and sources. */
static void apt_command(struct child *cmd, const char *prog, const char *aptdir)
{
	strvec_push(&cmd->argv, prog);
	strvec_pushf(&cmd->argv, "-oDir::Etc::SourceList=%s/mkseries.sources", aptdir);
	/* An empty directory of our own: apt warns about a missing one. */
	strvec_pushf(&cmd->argv, "-oDir::Etc::SourceParts=%s/empty.d", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::State::Lists=%s/lists", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::Cache=%s/cache", aptdir);
	/* Nothing installed: the candidate is the suite's newest version. */
	strvec_pushf(&cmd->argv, "-oDir::State::status=%s/status", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::Etc::Preferences=%s/preferences", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::Etc::PreferencesParts=%s/empty.d", aptdir);
	strvec_push(&cmd->argv, "-oAcquire::Languages=none");
}

/* The file apt-get download names "<pkg>_<version, ':' as %3a>_<arch>.deb". */
static char *find_deb(const char *dir, const char *package, const char *version)
{
	struct strbuf prefix = STRBUF_INIT;
	struct dirent *de;
	char *found = NULL;
	const char *v;
	DIR *d;

	strbuf_addf(&prefix, "%s_", package);
	for (v = version; *v; v++) {
		if (*v == ':')
			strbuf_addstr(&prefix, "%3a");
		else
			strbuf_addch(&prefix, *v);
	}
	strbuf_addch(&prefix, '_');
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (starts_with(de->d_name, prefix.buf) && ends_with(de->d_name, ".deb")) {
			found = path_join(dir, de->d_name);
			break;
		}
	if (d)
		closedir(d);
	strbuf_release(&prefix);
	return found;
}

static void join_looked_in(struct strbuf *sb, const struct strvec *looked_in)
{
	size_t i;

	for (i = 0; i < looked_in->nr; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", looked_in->v[i]);
}

/* Only apt's own complaints, for a message. */
static void apt_errors(struct strbuf *sb, const char *output)
{
	const char *line = output;
	int said = 0;

	while (*line) {
		const char *end = strchrnul(line, '\n');

		if (starts_with(line, "E: ")) {
			if (!said++)
				strbuf_addstr(sb, "\napt-get update said:");
			strbuf_addf(sb, "\n  %.*s", (int)(end - line), line);
		}
		line = *end ? end + 1 : end;
	}
}

static int ensure_dir(const char *path)
{
	if (mkdir_p(path, 0755))
		return error("cannot create '%s': %s", path, strerror(errno));
	return 0;
}

/* The private apt directory of one suite: its sources, lists, caches, an empty status. */
static int apt_prepare(const char *aptdir, const char *debs, const struct strbuf *sources)
{
	static const char *const dirs[] = { "lists/partial", "cache/archives/partial", "empty.d" };
	char *path = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(dirs); i++) {
		path = path_join(aptdir, dirs[i]);
		ret = ensure_dir(path);
		free(path);
	}
	if (!ret)
		ret = ensure_dir(debs);
	if (ret)
		return ret;
	path = path_join(aptdir, "mkseries.sources");
	if (write_file_atomic(path, sources->buf, sources->len))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	free(path);
	path = path_join(aptdir, "status");
	if (!ret && !file_exists(path) && write_file_atomic(path, "", 0))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	free(path);
	return ret;
}

/* Refresh the suite's package lists, and learn the version apt would fetch. */
static int apt_candidate(char **version, const char *aptdir, const char *package,
			 const char *suite, const struct strvec *looked_in)
{
	struct child upd = CHILD_INIT, pol = CHILD_INIT;
	struct strbuf upd_out = STRBUF_INIT, pol_out = STRBUF_INIT, msg = STRBUF_INIT;
	const char *p;
	int status, ret = 0;

	*version = NULL;
	apt_command(&upd, "apt-get", aptdir);
	strvec_pushl(&upd.argv, "-q", "update", NULL);
	upd.out = &upd_out;
	upd.err_to_out = 1;
	/* A derived suite may not exist (sid-security): judge by the package. */
	status = child_run(&upd);
	if (status < 0) {
		ret = -1;
		goto cleanup;
	}

	apt_command(&pol, "apt-cache", aptdir);
	strvec_pushl(&pol.argv, "policy", package, NULL);
	pol.out = &pol_out;
	pol.err_to_out = 1;
	if (child_run(&pol) < 0) {
		ret = -1;
		goto cleanup;
	}
	p = strstr(pol_out.buf, "Candidate:");
	if (p) {
		p += strlen("Candidate:");
		p += strspn(p, " \t");
		if (strncmp(p, "(none)", 6) && strcspn(p, " \t\n"))
			*version = xstrndup(p, strcspn(p, " \t\n"));
	}
	if (!*version) {
		strbuf_addf(&msg, "package '%s' not found in suite '%s' (looked in: ", package,
			    suite);
		join_looked_in(&msg, looked_in);
		strbuf_addch(&msg, ')');
		if (status)
			apt_errors(&msg, upd_out.buf);
		ret = error_code(MKS_ENOTFOUND, "%s", msg.buf);
	}
cleanup:
	child_release(&upd);
	child_release(&pol);
	strbuf_release(&upd_out);
	strbuf_release(&pol_out);
	strbuf_release(&msg);
	return ret;
}

/* Download package=version into debs/ (unless there already) and name the file. */
static int apt_download(char **deb, const char *aptdir, const char *debs, const char *package,
			const char *version)
{
	struct child dl = CHILD_INIT;
	struct strbuf err = STRBUF_INIT;
	char *tmp = NULL, *got = NULL, *name;
	int status, ret = 0;

	*deb = find_deb(debs, package, version);
	if (*deb)
		return 0;
	tmp = xstrfmt("%s/.download-%ld", debs, (long)getpid());
	remove_tree(tmp);
	ret = ensure_dir(tmp);
	if (ret)
		goto cleanup;
	if (mks_isatty_stderr())
		fprintf(stderr, "downloading %s %s\n", package, version);
	apt_command(&dl, "apt-get", aptdir);
	strvec_pushl(&dl.argv, "-q", "download", NULL);
	strvec_pushf(&dl.argv, "%s=%s", package, version);
	dl.dir = tmp;
	dl.out = &err;
	dl.err_to_out = 1;
	status = child_run(&dl);
	if (status) {
		strbuf_rtrim(&err);
		ret = error("apt-get download '%s=%s' failed (exit status %d):\n%s", package,
			    version, status, err.buf);
		goto cleanup;
	}
	got = find_deb(tmp, package, version);
	if (!got) {
		ret = error("apt-get download '%s=%s' left no .deb in '%s'", package, version,
			    tmp);
		goto cleanup;
	}
	name = path_join(debs, strrchr(got, '/') + 1);
	if (rename(got, name)) {
		ret = error("cannot move '%s' to '%s': %s", got, name, strerror(errno));
		free(name);
		goto cleanup;
	}
	*deb = name;
cleanup:
	if (tmp)
		remove_tree(tmp);
	child_release(&dl);
	strbuf_release(&err);
	free(tmp);
	free(got);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The import: source keys, commits and tags */

int tree_base(git_oid *out, git_repository *repo, const struct kernel_branch *b)
{
	git_reference *ref = NULL;
	git_object *obj = NULL;
	int err;

	err = git_reference_lookup(&ref, repo, tree_base_refname(b));
	if (err == GIT_ENOTFOUND)
		return MKS_ENOTFOUND;
	if (err < 0)
		return gitutil_error(err, "cannot read '%s'", tree_base_refname(b));
	err = git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT);
	git_reference_free(ref);
	if (err < 0)
		return gitutil_error(err, "'%s' does not name a commit", tree_base_refname(b));
	git_oid_cpy(out, git_object_id(obj));
	git_object_free(obj);
	return 0;
}

/*
 * What the branch's tag records: *source gets its "source: " line (without
 * the prefix; caller frees) and *commit its target; *old the ref's value.
 * Returns 1 when the tag exists, 0 when not (*source NULL).
 */
static int base_source(char **source, git_oid *commit, git_oid *old, git_repository *repo,
		       const struct kernel_branch *b)
{
	git_reference *ref = NULL;
	git_tag *tag = NULL;
	const char *p;
	int exists = 0;

	*source = NULL;
	if (git_reference_lookup(&ref, repo, tree_base_refname(b)) < 0)
		return 0;
	if (git_reference_type(ref) != GIT_REFERENCE_DIRECT)
		goto cleanup;
	exists = 1;
	git_oid_cpy(old, git_reference_target(ref));
	if (git_tag_lookup(&tag, repo, old) < 0 || git_tag_target_type(tag) != GIT_OBJECT_COMMIT)
		goto cleanup;
	for (p = git_tag_message(tag); p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (skip_prefix(p, "source: ", &p)) {
			*source = xstrndup(p, strcspn(p, "\n"));
			git_oid_cpy(commit, git_tag_target_id(tag));
			break;
		}
cleanup:
	git_tag_free(tag);
	git_reference_free(ref);
	return exists;
}

/* Whether the tag records exactly `key`; see base_source(). */
static int base_is_current(git_oid *commit, git_oid *old, int *exists, git_repository *repo,
			   const struct kernel_branch *b, const char *key)
{
	char *source = NULL;
	int current;

	*exists = base_source(&source, commit, old, repo, b);
	current = source && !strcmp(source, key);
	free(source);
	return current;
}

/* Tag `commit` as the branch's base, recording `key`; atomic against `old`. */
static int write_base_tag(git_repository *repo, const struct kernel_branch *b,
			  const git_oid *commit, git_time_t when, const char *key,
			  const git_oid *old, int force)
{
	git_signature *sig = NULL;
	git_object *target = NULL;
	git_oid tag;
	char *msg = NULL, *name = NULL, *reflog = NULL;
	int err, ret = 0;

	err = git_signature_new(&sig, SIG_NAME, SIG_EMAIL, when, 0);
	if (!err)
		err = git_object_lookup(&target, repo, commit, GIT_OBJECT_COMMIT);
	if (err < 0) {
		ret = gitutil_error(err, "cannot tag the base of '%s'", b->name);
		goto cleanup;
	}
	name = xstrfmt("mkseries/base/%s", b->name);
	msg = xstrfmt("mkseries base for branch %s\n\nsource: %s\n", b->name, key);
	err = git_tag_annotation_create(&tag, repo, name, target, sig, msg);
	if (err < 0) {
		ret = gitutil_error(err, "cannot write tag '%s'", name);
		goto cleanup;
	}
	reflog = xstrfmt("mkseries import: %s", key);
	ret = ref_update(repo, tree_base_refname(b), &tag, old, force, reflog);
	/* the trees recorded backports were written for stay reachable */
	if (!ret)
		ret = import_history_add(repo, b, &tag);
cleanup:
	git_signature_free(sig);
	git_object_free(target);
	free(msg);
	free(name);
	free(reflog);
	return ret;
}

/* A root commit of `tree` whose id depends only on the tree, the date and the message. */
static int write_import_commit(git_oid *out, git_repository *repo, const git_oid *tree_id,
			       git_time_t when, const char *message)
{
	git_signature *sig = NULL;
	git_tree *tree = NULL;
	int err;

	err = git_signature_new(&sig, SIG_NAME, SIG_EMAIL, when, 0);
	if (!err)
		err = git_tree_lookup(&tree, repo, tree_id);
	if (!err)
		err = git_commit_create(out, repo, NULL, sig, sig, NULL, message, tree, 0, NULL);
	git_tree_free(tree);
	git_signature_free(sig);
	if (err < 0)
		return gitutil_error(err, "cannot write the import commit");
	return 0;
}

static int count_blob(const char *root, const git_tree_entry *entry, void *payload)
{
	if (git_tree_entry_type(entry) == GIT_OBJECT_BLOB)
		(*(size_t *)payload)++;
	return 0;
}

/* The files of commit_id's tree, for the import's summary line; 0 (with a warning) when unreadable. */
static size_t count_files(git_repository *repo, const git_oid *commit_id)
{
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	size_t n = 0;
	int err;

	err = git_commit_lookup(&commit, repo, commit_id);
	if (!err)
		err = git_commit_tree(&tree, commit);
	if (!err)
		err = git_tree_walk(tree, GIT_TREEWALK_PRE, count_blob, &n);
	if (err < 0) {
		/* A count of part of the tree would be a wrong number, not a smaller one. */
		gitutil_warning(err, "cannot count the files of %s", oid_short(commit_id));
		n = 0;
	}
	git_tree_free(tree);
	git_commit_free(commit);
	return n;
}

static int same_repo(git_repository *a, git_repository *b)
{
	char *pa = realpath(git_repository_path(a), NULL);
	char *pb = realpath(git_repository_path(b), NULL);
	int same = pa && pb && !strcmp(pa, pb);

	free(pa);
	free(pb);
	return same;
}

/* Bring `ref` (resolved to commit `id`) from the repository at `url` into repo. */
static int fetch_commit(git_repository *repo, git_repository *src, const char *url,
			const char *ref, const git_oid *id, const struct kernel_branch *b)
{
	git_fetch_options opts;
	git_remote *remote = NULL;
	git_reference *full = NULL, *tmp = NULL;
	git_commit *commit = NULL;
	char *spec = NULL, *tmpname = xstrfmt("refs/mkseries/import/%s", b->name);
	char hex[GIT_OID_HEXSZ + 1];
	git_strarray specs;
	int err, ret = 0;

	if (!git_reference_dwim(&full, src, ref))
		spec = xstrfmt("+%s:%s", git_reference_name(full), tmpname);
	else
		spec = xstrfmt("+%s:%s", git_oid_tostr(hex, sizeof(hex), id), tmpname);
	specs.strings = &spec;
	specs.count = 1;
	git_fetch_options_init(&opts, GIT_FETCH_OPTIONS_VERSION);
	opts.update_fetchhead = 0;
	opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	opts.prune = GIT_FETCH_NO_PRUNE;
	err = git_remote_create_anonymous(&remote, repo, url);
	if (!err)
		err = git_remote_fetch(remote, &specs, &opts, "mkseries import");
	if (err < 0) {
		ret = gitutil_error(err, "cannot fetch '%s' from '%s'", ref, url);
		goto cleanup;
	}
	if (git_commit_lookup(&commit, repo, id) < 0) {
		ret = error("fetching '%s' from '%s' did not bring commit %s", ref, url,
			    oid_short(id));
		goto cleanup;
	}
cleanup:
	/* The tag keeps what was fetched; the helper ref is not needed. */
	if (!git_reference_lookup(&tmp, repo, tmpname) && (err = git_reference_delete(tmp)) < 0)
		gitutil_warning(err, "cannot remove the helper ref '%s'", tmpname);
	git_reference_free(tmp);
	git_reference_free(full);
	git_commit_free(commit);
	git_remote_free(remote);
	free(spec);
	free(tmpname);
	return ret;
}

struct git_tree_check {
	git_repository *repo;
	const char *label;
	struct strbuf path, why;
	int ret;
};

static int git_tree_check_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct git_tree_check *tc = payload;
	const char *name = git_tree_entry_name(e), *reason;
	git_odb_object *obj = NULL;
	git_odb *odb = NULL;
	size_t size;
	git_object_t type;
	int err;

	strbuf_reset(&tc->path);
	strbuf_addf(&tc->path, "%s%s", root, name);
	reason = treecheck_path(name, strlen(name));
	if (reason) {
		tc->ret = refuse(tc->label, tc->path.buf, reason);
		return -1;
	}
	if (git_tree_entry_type(e) == GIT_OBJECT_TREE ||
	    !treecheck_is_gitmodules(name, strlen(name)))
		return 0;
	if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) {
		tc->ret = refuse(tc->label, tc->path.buf, "a .gitmodules that is a symbolic link");
		return -1;
	}
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
		return 0;
	strbuf_reset(&tc->why);
	if ((err = git_repository_odb(&odb, tc->repo)) < 0 ||
	    (err = git_odb_read_header(&size, &type, odb, git_tree_entry_id(e))) < 0) {
		tc->ret = gitutil_error(err, "'%s': cannot read '%s'", tc->label, tc->path.buf);
	} else if (size > TREECHECK_GITMODULES_MAX) {
		strbuf_addf(&tc->why, "a .gitmodules of more than %u bytes, too large to check",
			    TREECHECK_GITMODULES_MAX);
		tc->ret = refuse(tc->label, tc->path.buf, tc->why.buf);
	} else if ((err = git_odb_read(&obj, odb, git_tree_entry_id(e))) < 0) {
		tc->ret = gitutil_error(err, "'%s': cannot read '%s'", tc->label, tc->path.buf);
	} else {
		strbuf_addstr(&tc->why, ".gitmodules ");
		if (treecheck_gitmodules(git_odb_object_data(obj), git_odb_object_size(obj),
					 &tc->why))
			tc->ret = refuse(tc->label, tc->path.buf, tc->why.buf);
	}
	git_odb_object_free(obj);
	git_odb_free(odb);
	return tc->ret ? -1 : 0;
}

/*
 * Hold the tree of a git source's commit to the rules an imported
 * archive meets (treecheck.h: no .git in any spelling, no control
 * characters in names, every .gitmodules as git fsck wants it): the
 * repository a kernel file names is input like any tarball, and its
 * tree is what build materialises. Returns 0, MKS_EUNSAFE after
 * printing which entry, or -1.
 */
static int check_git_tree(git_repository *repo, const git_oid *commit, const char *label)
{
	struct git_tree_check tc = { repo, label, STRBUF_INIT, STRBUF_INIT, 0 };
	git_commit *c = NULL;
	git_tree *tree = NULL;
	int err;

	err = git_commit_lookup(&c, repo, commit);
	if (!err)
		err = git_commit_tree(&tree, c);
	if (err < 0)
		tc.ret = gitutil_error(err, "'%s': cannot read its tree", label);
	else if (git_tree_walk(tree, GIT_TREEWALK_PRE, git_tree_check_cb, &tc) < 0 && !tc.ret)
		tc.ret = gitutil_error(-1, "'%s': cannot walk its tree", label);
	git_tree_free(tree);
	git_commit_free(c);
	strbuf_release(&tc.path);
	strbuf_release(&tc.why);
	return tc.ret;
}

static int import_git(git_oid *out, struct tree_import_info *info, git_repository *repo,
		      const struct kit *kit, const struct kernel_branch *b, int force)
{
	git_repository *src = NULL;
	git_object *obj = NULL, *peeled = NULL;
	git_oid commit, old;
	const git_signature *committer;
	char *path = b->source.repo ? kit_file(kit, b->source.repo) : NULL, *abs = NULL, *key = NULL;
	char hex[GIT_OID_HEXSZ + 1], *label = NULL;
	const char *ref = b->source.ref ? b->source.ref : "HEAD";
	int exists, err, ret = 0;

	if (!path)
		return kernel_source_check(b) ? MKS_ECONFIG : error("branch '%s' names no git repository", b->name);
	abs = realpath(path, NULL);
	if (!abs) {
		ret = error("branch '%s': git repository '%s' does not exist", b->name, path);
		goto cleanup;
	}
	ret = repo_open(&src, abs, 0);
	if (ret)
		goto cleanup;
	err = git_revparse_single(&obj, src, ref);
	if (!err)
		err = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (err < 0) {
		ret = gitutil_error(err, "branch '%s': no commit '%s' in '%s'", b->name, ref,
				       abs);
		goto cleanup;
	}
	git_oid_cpy(&commit, git_object_id(peeled));
	key = xstrfmt("git %s %s %s", abs, ref, git_oid_tostr(hex, sizeof(hex), &commit));
	info->what = xstrfmt("%s of %s", ref, abs);
	if (base_is_current(out, &old, &exists, repo, b, key) && !force) {
		info->up_to_date = 1;
		goto cleanup;
	}
	if (!same_repo(repo, src)) {
		ret = fetch_commit(repo, src, abs, ref, &commit, b);
		if (ret)
			goto cleanup;
	}
	label = xstrfmt("%s %s", abs, ref);
	ret = check_git_tree(repo, &commit, label);
	if (ret)
		goto cleanup;
	committer = git_commit_committer((git_commit *)peeled);
	ret = write_base_tag(repo, b, &commit, committer->when.time, key,
			     exists ? &old : NULL, force);
	if (ret)
		goto cleanup;
	git_oid_cpy(out, &commit);
	info->nr_files = count_files(repo, &commit);
cleanup:
	git_object_free(peeled);
	git_object_free(obj);
	git_repository_free(src);
	free(path);
	free(abs);
	free(key);
	free(label);
	return ret;
}

static int import_tarball(git_oid *out, struct tree_import_info *info, git_repository *repo,
			  const struct kit *kit, const struct kernel_branch *b, int force)
{
	char *path = kit_file(kit, b->source.tarball), *abs = NULL, *key = NULL, *msg = NULL;
	const char *base;
	git_oid tree, old;
	struct stat st;
	size_t nr_files;
	time_t newest = 0;
	int exists, ret = 0;

	abs = realpath(path, NULL);
	if (!abs || stat(abs, &st)) {
		ret = error("branch '%s': tarball '%s' does not exist", b->name, path);
		goto cleanup;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = error("branch '%s': tarball '%s' is not a file", b->name, path);
		goto cleanup;
	}
	base = strrchr(abs, '/') + 1;
	info->what = xstrdup(base);
	key = xstrfmt("tarball %s size %lld mtime %lld", abs, (long long)st.st_size,
		      (long long)st.st_mtime);
	if (base_is_current(out, &old, &exists, repo, b, key) && !force) {
		info->up_to_date = 1;
		goto cleanup;
	}
	ret = tarball_import(&tree, &nr_files, &newest, repo, abs);
	if (ret)
		goto cleanup;
	msg = xstrfmt("Import %s\n\nsource: tarball %s\n", base, abs);
	ret = write_import_commit(out, repo, &tree, newest, msg);
	if (!ret)
		ret = write_base_tag(repo, b, out, newest, key, exists ? &old : NULL, force);
	info->nr_files = nr_files;
cleanup:
	free(path);
	free(abs);
	free(key);
	free(msg);
	return ret;
}

/*
 * Without a refresh, a tag recording the same package and suite is
 * current whatever the version: no network for apply and build.
 */
static int debian_tag_current(git_oid *out, struct tree_import_info *info, git_repository *repo,
			      const struct kernel_branch *b)
{
	struct strvec words = STRVEC_INIT;
	char *source = NULL;
	git_oid old;
	int current = 0;

	base_source(&source, out, &old, repo, b);
	if (source)
		split_words(&words, source);
	if (words.nr == 4 && !strcmp(words.v[0], "debian") &&
	    !strcmp(words.v[1], b->source.package) && !strcmp(words.v[3], b->source.suite)) {
		info->what = xstrfmt("%s %s", words.v[1], words.v[2]);
		info->up_to_date = current = 1;
	}
	strvec_clear(&words);
	free(source);
	return current;
}

struct shared_base {
	git_repository *repo;
	const char *key, *self;
	git_oid commit;
	char *from;		/* the branch whose base tag records `key` */
};

static int shared_base_cb(const char *refname, void *payload)
{
	struct shared_base *sb = payload;
	struct kernel_branch other;
	char *source = NULL;
	git_oid old;
	int found;

	memset(&other, 0, sizeof(other));
	other.name = (char *)refname + strlen("refs/tags/mkseries/base/");
	if (!strcmp(other.name, sb->self))
		return 0;
	base_source(&source, &sb->commit, &old, sb->repo, &other);
	found = source && !strcmp(source, sb->key);
	if (found)
		sb->from = xstrdup(other.name);
	free(source);
	return found;
}

/*
 * Another branch's base made from exactly `key` (6.12-arm64 and 6.12
 * share linux-source-6.12): its commit is this branch's base too, so
 * the tarball is neither downloaded nor read again. Returns the other
 * branch's name (caller frees) with *commit set, or NULL.
 */
static char *find_shared_base(git_oid *commit, git_repository *repo, const struct kernel_branch *b,
			      const char *key)
{
	struct shared_base sb;

	memset(&sb, 0, sizeof(sb));
	sb.repo = repo;
	sb.key = key;
	sb.self = b->name;
	if (git_reference_foreach_glob(repo, "refs/tags/mkseries/base/*", shared_base_cb, &sb) <= 0) {
		free(sb.from);
		return NULL;
	}
	git_oid_cpy(commit, &sb.commit);
	return sb.from;
}

static int debian_name_ok(const char *name, const char *allowed)
{
	return name && isalnum((unsigned char)*name) && !name[strspn(name, allowed)] &&
	       !strstr(name, "..");
}

static int import_debian(git_oid *out, struct tree_import_info *info, git_repository *repo,
			 const struct kernel_branch *b, unsigned flags)
{
	int force = flags & TREE_IMPORT_FORCE;
	const char *package = b->source.package, *suite = b->source.suite;
	struct strbuf sources = STRBUF_INIT;
	struct strvec looked_in = STRVEC_INIT;
	char *cache = cache_dir(), *aptdir = NULL, *debs = NULL;
	char *version = NULL, *deb = NULL, *key = NULL, *msg = NULL, *shared = NULL;
	git_oid tree, old;
	size_t nr_files;
	time_t newest = 0;
	int exists, ret = 0;

	/* Both end up in apt's argv and in a path: no options, no slashes. */
	if (!debian_name_ok(package, "abcdefghijklmnopqrstuvwxyz0123456789+.-")) {
		ret = error("branch '%s': '%s' is not a Debian package name", b->name,
			    package ? package : "");
		goto cleanup;
	}
	if (!debian_name_ok(suite, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")) {
		ret = error("branch '%s': '%s' is not a Debian suite name", b->name,
			    suite ? suite : "");
		goto cleanup;
	}
	if (!force && !(flags & TREE_IMPORT_REFRESH) && debian_tag_current(out, info, repo, b))
		goto cleanup;
	if (!cache) {
		ret = error("cannot tell where to cache Debian packages: "
			    "neither XDG_CACHE_HOME nor HOME is set");
		goto cleanup;
	}
	ret = tree_apt_sources(&sources, &looked_in, "", suite);
	if (ret)
		goto cleanup;
	aptdir = xstrfmt("%s/apt/%s", cache, suite);
	debs = path_join(cache, "debs");
	ret = apt_prepare(aptdir, debs, &sources);
	if (ret)
		goto cleanup;
	if (mks_isatty_stderr())
		fprintf(stderr, "%s: asking '%s' for %s\n", b->name, suite, package);
	ret = apt_candidate(&version, aptdir, package, suite, &looked_in);
	if (ret)
		goto cleanup;
	info->what = xstrfmt("%s %s", package, version);
	key = xstrfmt("debian %s %s %s", package, version, suite);
	if (base_is_current(out, &old, &exists, repo, b, key) && !force) {
		info->up_to_date = 1;
		goto cleanup;
	}
	if ((shared = find_shared_base(out, repo, b, key))) {
		git_commit *c = NULL;
		git_time_t when = 0;

		if (!git_commit_lookup(&c, repo, out))
			when = git_commit_time(c);
		git_commit_free(c);
		ret = write_base_tag(repo, b, out, when, key, exists ? &old : NULL, force);
		free(info->what);
		info->what = xstrfmt("%s %s (the tree of %s's import)", package, version, shared);
		info->nr_files = count_files(repo, out);
		goto cleanup;
	}
	ret = apt_download(&deb, aptdir, debs, package, version);
	if (ret)
		goto cleanup;
	ret = deb_import(&tree, &nr_files, &newest, repo, deb, package);
	if (ret)
		goto cleanup;
	msg = xstrfmt("Import %s %s\n\nsource: %s\n", package, version, key);
	ret = write_import_commit(out, repo, &tree, newest, msg);
	if (!ret)
		ret = write_base_tag(repo, b, out, newest, key, exists ? &old : NULL, force);
	info->nr_files = nr_files;
cleanup:
	strbuf_release(&sources);
	strvec_clear(&looked_in);
	free(cache);
	free(aptdir);
	free(debs);
	free(version);
	free(deb);
	free(key);
	free(msg);
	free(shared);
	return ret;
}

void tree_import_info_release(struct tree_import_info *info)
{
	free(info->what);
	memset(info, 0, sizeof(*info));
}

int tree_import_ex(git_oid *out, struct tree_import_info *info, git_repository *repo,
		   const struct kit *kit, const struct kernel_branch *b, unsigned flags)
{
	double start = mono_seconds();
	int force = flags & TREE_IMPORT_FORCE, ret;

	memset(info, 0, sizeof(*info));
	switch (b->source.kind) {
	case SOURCE_GIT:
		ret = import_git(out, info, repo, kit, b, force);
		break;
	case SOURCE_TARBALL:
		ret = import_tarball(out, info, repo, kit, b, force);
		break;
	case SOURCE_DEBIAN:
		ret = import_debian(out, info, repo, b, flags);
		break;
	default:
		ret = error("branch '%s' names no source", b->name);
		break;
	}
	info->seconds = mono_seconds() - start;
	return ret;
}

int tree_import(git_oid *out, git_repository *repo, const struct kit *kit,
		const struct kernel_branch *b, int force)
{
	struct tree_import_info info;
	int ret = tree_import_ex(out, &info, repo, kit, b, force ? TREE_IMPORT_FORCE : 0);

	tree_import_info_release(&info);
	return ret;
}

const char *tree_import_summary(const struct kernel_branch *b, const git_oid *commit,
				const struct tree_import_info *info)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	if (info->up_to_date)
		strbuf_addf(&sb, "%s: up to date (%s)", b->name, oid_short(commit));
	else
		strbuf_addf(&sb, "%s: imported %s as %s (%s files, %.1f s)", b->name,
			    info->what ? shown(info->what) : "?", oid_short(commit),
			    thousands(info->nr_files), info->seconds);
	return sb.buf;
}
