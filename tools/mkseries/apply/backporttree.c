/* apply/backporttree.c: the backport loop's work tree: checked out once, brought to each next patch's tree path by path, read back as git add -A would, and removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply/backport.h"
#include "apply/wtscan.h"
#include "lib/fs.h"
#include "lib/gitutil.h"

/* libgit2's initialisers leave trailing fields to C's zeroing, as they mean to. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const git_worktree_add_options worktree_add_init = GIT_WORKTREE_ADD_OPTIONS_INIT;
#pragma GCC diagnostic pop

/*
 * Make directory `rel` of the fresh tree at `root` (an open directory)
 * and those above it that `*made` (the directory made last) does not
 * already start with. Each is created, or must be a directory already:
 * never a link. `*made` becomes `rel`.
 */
static int checkout_dirs(int root, struct strbuf *made, const char *rel, size_t len)
{
	struct stat st;
	size_t i, common = 0;

	/* the longest leading run of whole components the two share */
	for (i = 0; i < len && i < made->len && rel[i] == made->buf[i]; i++)
		if (rel[i] == '/')
			common = i + 1;
	if (i == len && (made->len == len || made->buf[len] == '/'))
		common = len + 1;
	else if (i == made->len && i < len && rel[i] == '/')
		common = i + 1;	/* a directory below the one made last */
	for (i = common; i <= len; i++) {
		if (i < len && rel[i] != '/')
			continue;
		strbuf_reset(made);
		strbuf_add(made, rel, i);
		if (mkdirat(root, made->buf, 0777) && (errno != EEXIST ||
		    fstatat(root, made->buf, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))) {
			error("cannot make directory '%s' of the work tree: %s", shown(made->buf),
			      errno == EEXIST ? "a file or link of the tree is in the way" :
			      strerror(errno));
			strbuf_reset(made);
			return -1;
		}
	}
	strbuf_reset(made);
	strbuf_add(made, rel, len);
	return 0;
}

/* Whether `rel` is a path checkout may write: relative, no empty, ".", ".." or ".git" part. */
static int checkout_path_ok(const char *rel)
{
	const char *p = rel, *slash;

	if (!*rel || *rel == '/')
		return 0;
	for (; *p; p = *slash ? slash + 1 : slash) {
		size_t n;

		slash = strchr(p, '/');
		if (!slash)
			slash = p + strlen(p);
		n = (size_t)(slash - p);
		if (!n || (n == 1 && *p == '.') || (n == 2 && !memcmp(p, "..", 2)) ||
		    (n == 4 && !strncasecmp(p, ".git", 4)))
			return 0;
	}
	return 1;
}

/* Write file, link or executable `e` of the tree at `root` (`path`); its stat data in *st. */
static int checkout_file(int root, git_odb *odb, const git_index_entry *e, const char *path,
			 struct stat *st)
{
	git_odb_object *obj = NULL;
	int fd, err, ret = 0;

	if ((err = git_odb_read(&obj, odb, &e->id)) < 0)
		return gitutil_error(err, "cannot read '%s' to check it out", shown(e->path));
	if (e->mode == GIT_FILEMODE_LINK) {
		char *target = xstrndup(git_odb_object_data(obj), git_odb_object_size(obj));

		if (symlinkat(target, root, e->path) ||
		    fstatat(root, e->path, st, AT_SYMLINK_NOFOLLOW))
			ret = error("cannot make link '%s' in '%s': %s", shown(e->path), path,
				    strerror(errno));
		free(target);
	} else {
		fd = openat(root, e->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
		if (fd < 0 || write_in_full(fd, git_odb_object_data(obj), git_odb_object_size(obj)) ||
		    fstat(fd, st))
			ret = error("cannot write '%s' in '%s': %s", shown(e->path), path,
				    strerror(errno));
		if (fd >= 0 && close(fd) && !ret)
			ret = error("cannot write '%s' in '%s': %s", shown(e->path), path,
				    strerror(errno));
	}
	git_odb_object_free(obj);
	return ret;
}

/*
 * What tree the worktree's index holds, kept beside it in
 * "mkseries-index-tree": "mkseries-index-tree 1 <index checksum>
 * <tree>\n", written after each write of the index here. libgit2 knows
 * an index's tree only from its tree cache, and once a path was added
 * it writes the tree and then reads every tree of it to make the cache
 * again (some 6,000 loose objects for a kernel), where the loop knows
 * the answer. The record is believed only while the index's checksum is
 * the one recorded: git add, git commit or git reset in the tree write
 * a new index, and the tree is then asked of libgit2 again. (The
 * checksum is git_index_checksum()'s, which libgit2 1.5 keeps without
 * a replacement; it is the file's own trailing hash.)
 */
#define INDEX_TREE_NAME "mkseries-index-tree"
#define INDEX_TREE_MAGIC INDEX_TREE_NAME " 1"

static int index_tree_record(git_repository *wt, git_index *index, const git_oid *tree)
{
	char sum[GIT_OID_HEXSZ + 1], id[GIT_OID_HEXSZ + 1];
	char *path = xstrfmt("%s" INDEX_TREE_NAME, git_repository_path(wt));
	char *line = xstrfmt(INDEX_TREE_MAGIC " %s %s\n",
			     git_oid_tostr(sum, sizeof(sum), git_index_checksum(index)),
			     git_oid_tostr(id, sizeof(id), tree));
	int ret = 0;

	if (write_file_atomic(path, line, strlen(line)))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	free(line);
	free(path);
	return ret;
}

/* 1 with the tree in *out when the record is of `index` as it was read or written, else 0. */
static int index_tree_recorded(git_oid *out, git_repository *wt, git_index *index)
{
	char *path = xstrfmt("%s" INDEX_TREE_NAME, git_repository_path(wt));
	char sum[GIT_OID_HEXSZ + 1], id[GIT_OID_HEXSZ + 1], buf[128];
	git_oid recorded;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ok;

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	free(path);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	ok = sscanf(buf, INDEX_TREE_MAGIC " %40[0-9a-f] %40[0-9a-f]", sum, id) == 2 &&
	     strlen(sum) == GIT_OID_HEXSZ && strlen(id) == GIT_OID_HEXSZ &&
	     !git_oid_fromstr(&recorded, sum) && git_oid_equal(&recorded, git_index_checksum(index)) &&
	     !git_oid_fromstr(out, id);
	git_error_clear();
	return ok;
}

/*
 * Write every file of `tree` into the empty directory `path` and make
 * the worktree's index that tree with each file's stat data, as `git
 * checkout` does: one pass in index order, each blob read once, each
 * file created with O_EXCL beneath directories made here (no link is
 * followed), and no lookup of what is not there to find.
 */
static int checkout_files(git_repository *wt, git_tree *tree, const char *path)
{
	git_index *index = NULL;
	git_odb *odb = NULL;
	struct strbuf made = STRBUF_INIT, rel = STRBUF_INIT;
	size_t i, n;
	int root, err, ret = 0;

	root = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	/*
	 * A new index, not one read from disk: libgit2 takes every entry
	 * newer than the index it read as racily clean and hashes it again
	 * when writing.
	 */
	strbuf_addf(&rel, "%sindex", git_repository_path(wt));
	if (unlink(rel.buf) && errno != ENOENT) {
		ret = error("cannot remove '%s': %s", rel.buf, strerror(errno));
		goto cleanup;
	}
	if ((err = git_repository_index(&index, wt)) < 0 ||
	    (err = git_index_read_tree(index, tree)) < 0 ||
	    (err = git_repository_odb(&odb, wt)) < 0) {
		ret = gitutil_error(err, "cannot read the tree to check out into '%s'", path);
		goto cleanup;
	}
	/*
	 * The blobs come from a tree of this repository: as git checkout,
	 * read them without hashing each again (libgit2 does by default).
	 */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	n = git_index_entrycount(index);
	for (i = 0; i < n && !ret; i++) {
		const git_index_entry *e = git_index_get_byindex(index, i);
		const char *slash;
		struct stat st;

		strbuf_reset(&rel);
		strbuf_addstr(&rel, e->path);
		if (!checkout_path_ok(rel.buf)) {
			ret = error("refusing to check out '%s': not a path beneath the tree",
				    shown(rel.buf));
			break;
		}
		slash = strrchr(rel.buf, '/');
		if (slash && checkout_dirs(root, &made, rel.buf, (size_t)(slash - rel.buf))) {
			ret = -1;
			break;
		}
		if (e->mode == GIT_FILEMODE_COMMIT) {
			/* a submodule: an empty directory, as git leaves it */
			if (mkdirat(root, rel.buf, 0777))
				ret = error("cannot make '%s' in '%s': %s", shown(rel.buf), path,
					    strerror(errno));
			continue;
		}
		if ((ret = checkout_file(root, odb, e, path, &st)))
			break;
		test_crash_point("checking-out");
		/*
		 * The stat data goes into the entry in place: git_index_add()
		 * would drop the tree cache git_index_read_tree() made, and
		 * the first write-tree in the loop would then hash and look
		 * up every directory and file again. Path, id and mode, which
		 * the index is sorted and cached by, stay as they are.
		 */
		wtscan_entry_stat((git_index_entry *)e, &st);
	}
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	if (!ret && (err = git_index_write(index)) < 0)
		ret = gitutil_error(err, "cannot write the index of '%s'", path);
	/* every file of the new tree is the index's: the next scan reads no directory */
	if (!ret)
		ret = index_tree_record(wt, index, git_tree_id(tree)) || wtscan_mark(wt);
cleanup:
	strbuf_release(&rel);
	strbuf_release(&made);
	git_odb_free(odb);
	git_index_free(index);
	close(root);
	return ret;
}

/*
 * Check out commit `onto` of `repo` as a git worktree `name` at `path`
 * (a new directory), on branch `refname` created there; the
 * repository's own HEAD, index and working tree are not touched.
 */
static int backport_worktree_add(git_repository *repo, const char *name, const char *path,
			  const char *refname, const git_oid *onto)
{
	git_worktree_add_options opts = worktree_add_init;
	git_reference *ref = NULL;
	git_worktree *wt = NULL;
	git_repository *wtrepo = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	int err, ret = 0;

	if ((err = git_commit_lookup(&commit, repo, onto)) < 0 ||
	    (err = git_commit_tree(&tree, commit)) < 0) {
		ret = gitutil_error(err, "cannot read commit %s", oid_short(onto));
		goto cleanup;
	}
	if ((err = git_reference_create(&ref, repo, refname, onto, 1,
					"mkseries backport: the tree to work in")) < 0) {
		ret = gitutil_error(err, "cannot create '%s'", refname);
		goto cleanup;
	}
	/*
	 * libgit2's checkout looks up every path of the tree in the empty
	 * directory first (minutes on a kernel tree): the worktree is
	 * registered with nothing checked out, and its files and index
	 * are written here in one pass.
	 */
	opts.ref = ref;
	opts.checkout_options.checkout_strategy = GIT_CHECKOUT_NONE;
	if ((err = git_worktree_add(&wt, repo, name, path, &opts)) < 0 ||
	    (err = git_repository_open_from_worktree(&wtrepo, wt)) < 0) {
		ret = gitutil_error(err, "cannot check out %s into '%s'", oid_short(onto), path);
		goto cleanup;
	}
	ret = checkout_files(wtrepo, tree, path);
cleanup:
	git_repository_free(wtrepo);
	git_worktree_free(wt);
	git_reference_free(ref);
	git_tree_free(tree);
	git_commit_free(commit);
	return ret;
}

/*
 * Remove directory `name` below the open directory `at` and everything
 * in it, by the type readdir gives (a stat only when it gives none), and
 * no link followed: what `rm -rf` does, relative to each directory.
 */
static int remove_dir_at(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ret = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (!(d = fdopendir(fd))) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		int isdir = de->d_type == DT_DIR;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
				if (errno != ENOENT)
					ret = -1;
				continue;
			}
			isdir = S_ISDIR(st.st_mode);
		}
		if (isdir ? remove_dir_at(fd, de->d_name) :
		    (unlinkat(fd, de->d_name, 0) && errno != ENOENT))
			ret = -1;
		else if (!isdir)
			test_crash_point("removing");
	}
	closedir(d);
	if (unlinkat(at, name, AT_REMOVEDIR) && errno != ENOENT)
		ret = -1;
	return ret;
}

int backport_worktree_remove(git_repository *repo, const char *name, const char *path,
			     const char *refname)
{
	git_worktree_prune_options popts = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
	git_worktree *wt = NULL;
	git_reference *ref = NULL;
	git_transaction *tx = NULL;
	int err, ret = 0;

	char *admin = xstrfmt("%sworktrees/%s", git_repository_commondir(repo), name);

	if (remove_dir_at(AT_FDCWD, path))
		ret = error("cannot remove '%s': %s", path, strerror(errno));
	if (git_worktree_lookup(&wt, repo, name) == 0) {
		popts.flags = GIT_WORKTREE_PRUNE_VALID | GIT_WORKTREE_PRUNE_LOCKED;
		if ((err = git_worktree_prune(wt, &popts)) < 0)
			ret = gitutil_error(err, "cannot remove worktree '%s'", name);
	}
	git_error_clear();
	/*
	 * A loop killed while its tree was removed leaves the registration
	 * half there, which libgit2 may no longer look up: git worktree
	 * prune's job, done here so the next loop can add the tree again.
	 */
	if (!ret && dir_exists(admin) && !dir_exists(path) && remove_tree(admin))
		ret = error("cannot remove the stale worktree registration '%s': %s", admin,
			    strerror(errno));
	/* a transaction, not git_reference_delete(): the crash tests stop it with the lock held */
	if (git_reference_lookup(&ref, repo, refname) == 0) {
		if ((err = git_transaction_new(&tx, repo)) >= 0 &&
		    (err = git_transaction_lock_ref(tx, refname)) >= 0) {
			test_crash_point("branch-locked");
			if ((err = git_transaction_remove(tx, refname)) >= 0)
				err = git_transaction_commit(tx);
		}
		if (err < 0)
			ret = err == GIT_ELOCKED ? ref_locked_error(repo, refname) :
			      gitutil_error(err, "cannot delete '%s'", refname);
	}
	git_error_clear();
	git_transaction_free(tx);
	free(admin);
	git_reference_free(ref);
	git_worktree_free(wt);
	return ret;
}

/*
 * The index of the work tree `wt`, read from its file without `wt` as
 * its owner: libgit2 then leaves alone what an owned index does on each
 * write, a diff of every entry written in the index's own second
 * against the work tree (the scans here hash those entries instead:
 * wtscan.c), and it may be handed from one step of the loop to the
 * next. NULL (libgit2's error set) when it cannot be read.
 */
static git_index *worktree_index(git_repository *wt)
{
	char *file = xstrfmt("%sindex", git_repository_path(wt));
	git_index *index = NULL;

	if (git_index_open(&index, file) < 0)
		index = NULL;
	free(file);
	return index;
}

/*
 * git add of file `rel` into the index of the work tree `wt` that has
 * no owner: hashed as git add hashes it (through the filters its
 * attributes name), with its mode and stat data. 0 or libgit2's error.
 */
static int index_add_file(git_index *index, git_repository *wt, const char *rel)
{
	git_index_entry e = { 0 };
	char *abs = path_join(git_repository_workdir(wt), rel);
	struct stat st;
	int err = 0;

	if (lstat(abs, &st)) {
		git_error_set_str(GIT_ERROR_OS, strerror(errno));
		err = -1;
	}
	free(abs);
	if (err || (err = git_blob_create_from_workdir(&e.id, wt, rel)) < 0)
		return err;
	wtscan_entry_stat(&e, &st);
	e.mode = S_ISLNK(st.st_mode) ? GIT_FILEMODE_LINK :
		 st.st_mode & S_IXUSR ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	e.path = rel;
	return git_index_add(index, &e);
}

/*
 * The files the loop wrote are the patch's: taken as `git add -f` takes
 * them, whatever .gitignore says (Debian's trees ignore every new file),
 * each added to `added`. Those the backporter removed since are left to
 * the diff.
 */
static int add_loop_files(git_index *index, git_repository *wt, const struct backport_result *r,
			  struct strvec *added)
{
	struct stat st;
	size_t i;
	int err;

	for (i = 0; r && i < r->nr; i++) {
		const char *file = r->files[i].path;
		char *abs;
		int there;

		if (git_index_get_bypath(index, file, 0))
			continue;	/* tracked: the diff sees its changes */
		abs = path_join(git_repository_workdir(wt), file);
		there = !lstat(abs, &st) && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
		free(abs);
		if (!there)
			continue;
		if ((err = index_add_file(index, wt, file)) < 0)
			return gitutil_error(err, "cannot take '%s' of the work tree '%s'",
					     shown(file), git_repository_workdir(wt));
		strvec_push(added, file);
	}
	return 0;
}

/*
 * Whether a new file .gitignore hides is hidden with its directory (as
 * Debian's rule hiding the top level hides mm/, tracked files and all):
 * there git add -A would drop any new file, a source file as well as a
 * build's, so the user is asked. A file hidden by a pattern of its own in a directory
 * that is not (`*.o`) is left out, as git add -A leaves it. A file at
 * the top level is asked about: nothing tells the two apart there.
 */
static int hidden_with_dir(git_repository *wt, const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ignored = 1;

	if (!slash)
		return 1;
	dir = xstrfmt("%.*s/", (int)(slash - path), path);
	if (git_ignore_path_is_ignored(&ignored, wt, dir) < 0)
		ignored = 1;	/* cannot tell: ask rather than drop */
	git_error_clear();
	free(dir);
	return ignored;
}

/* At most this many hidden files are named one by one. */
#define IGNORED_NAMED 10

/*
 * Whether git_tree_create_updated() can make `u` on `base` as the index
 * would: each path it sets is a file in `base` or new beneath
 * directories (no file becomes a directory or the other way round,
 * which it does not support), each path it removes a file there.
 */
static int updates_plain(git_tree *base, const git_tree_update *u, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *p = u[i].path, *slash;
		git_tree_entry *e = NULL;
		int err = git_tree_entry_bypath(&e, base, p), blob = 0;

		if (!err)
			blob = git_tree_entry_type(e) == GIT_OBJECT_BLOB;
		git_tree_entry_free(e);
		git_error_clear();
		if (!err && blob)
			continue;
		if (err != GIT_ENOTFOUND || u[i].action != GIT_TREE_UPDATE_UPSERT)
			return 0;
		for (slash = strchr(p, '/'); slash; slash = strchr(slash + 1, '/')) {
			char *dir = xstrndup(p, (size_t)(slash - p));
			int tree = 0;

			e = NULL;
			err = git_tree_entry_bypath(&e, base, dir);
			if (!err)
				tree = git_tree_entry_type(e) == GIT_OBJECT_TREE;
			git_tree_entry_free(e);
			git_error_clear();
			free(dir);
			if (err == GIT_ENOTFOUND)
				break;
			if (!tree)
				return 0;
		}
	}
	return 1;
}

/*
 * The tree of `index` in *out, which is the tree `base` (what the index
 * held when read) with each of `paths` as the index has it now or gone:
 * only the trees above those paths are read and written. 0, or 1 when
 * that cannot be done so (a file became a directory or the other way
 * round): the caller then asks libgit2.
 */
static int index_tree_updated(git_oid *out, git_repository *wt, git_index *index,
			      const git_oid *base, const struct strvec *paths)
{
	git_tree_update *u = xcalloc(paths->nr ? paths->nr : 1, sizeof(*u));
	git_tree *tree = NULL;
	size_t i;
	int ret = 1;

	for (i = 0; i < paths->nr; i++) {
		const git_index_entry *e = git_index_get_bypath(index, paths->v[i], 0);

		u[i].path = paths->v[i];
		u[i].action = e ? GIT_TREE_UPDATE_UPSERT : GIT_TREE_UPDATE_REMOVE;
		if (e) {
			git_oid_cpy(&u[i].id, &e->id);
			u[i].filemode = (git_filemode_t)e->mode;
		}
	}
	if (!git_tree_lookup(&tree, wt, base) && updates_plain(tree, u, paths->nr) &&
	    !git_tree_create_updated(out, wt, tree, paths->nr, u))
		ret = 0;
	git_error_clear();
	git_tree_free(tree);
	free(u);
	return ret;
}

int backport_worktree_tree(git_oid *out, const char *path, const struct backport_result *r,
			   struct strbuf *ignored, git_index **kept)
{
	struct wtscan scan = { 0 };
	struct strvec touched = STRVEC_INIT;
	git_repository *wt = NULL;
	git_index *index = NULL;
	git_oid base;
	size_t i, pass, nr_ignored = 0;
	int err, ret = 0, known;

	if (!(wt = backport_attr_repo(path))) {
		ret = error("cannot open the work tree '%s'", path);
		goto cleanup;
	}
	if (!(index = worktree_index(wt))) {
		ret = gitutil_error(-1, "cannot read the work tree '%s'", path);
		goto cleanup;
	}
	known = index_tree_recorded(&base, wt, index);
	/*
	 * As git status and git add -A: the files whose stat data differs
	 * from the index are read and hashed, the others are taken as the
	 * index has them; only what changed is updated (deletions first, so
	 * a file may replace a directory or a link). The stat data of files
	 * found unchanged is refreshed too. New files .gitignore hides are
	 * not taken, as git add -A does, but those hidden with their
	 * directory are named in `ignored`.
	 */
	if ((ret = add_loop_files(index, wt, r, &touched)) ||
	    (ret = wtscan_run(&scan, wt, index, WTSCAN_REFRESH | (ignored ? WTSCAN_IGNORED : 0))))
		goto cleanup;
	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < scan.nr && !ret; i++) {
			const struct wtscan_change *c = &scan.v[i];

			if (c->how == WTSCAN_NEW_IGNORED) {
				if (pass && !backport_is_loop_rej(r, c->path) &&
				    hidden_with_dir(wt, c->path) && nr_ignored++ < IGNORED_NAMED)
					strbuf_addf(ignored, "%s: a new file .gitignore hides, "
						    "not recorded\n", shown(c->path));
				continue;
			}
			if ((c->how == WTSCAN_DELETED) != !pass)
				continue;
			err = pass ? index_add_file(index, wt, c->path) :
			      git_index_remove_bypath(index, c->path);
			if (err < 0)
				ret = gitutil_error(err, "cannot take '%s' of the work tree '%s'",
						    shown(c->path), path);
			strvec_push(&touched, c->path);
		}
	}
	if (nr_ignored > IGNORED_NAMED)
		strbuf_addf(ignored, "... and %zu more new files .gitignore hides\n",
			    nr_ignored - IGNORED_NAMED);
	if (!ret && (!known || index_tree_updated(out, wt, index, &base, &touched)) &&
	    (err = git_index_write_tree_to(out, index, wt)) < 0)
		ret = gitutil_error(err, "cannot read the work tree '%s'", path);
	if (!ret && (err = git_index_write(index)) < 0)
		ret = gitutil_error(err, "cannot write the index of '%s'", path);
	if (!ret && !(ret = index_tree_record(wt, index, out)))
		ret = (int)(nr_ignored > INT_MAX ? INT_MAX : nr_ignored);
cleanup:
	strvec_clear(&touched);
	wtscan_release(&scan);
	if (kept && ret >= 0)
		*kept = index;
	else
		git_index_free(index);
	git_repository_free(wt);
	return ret;
}

/* qsort() of a strvec's strings. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The paths a reset of the work tree `wt` (whose index is `index`) to
 * `tree` must touch, sorted and each once, in `paths`: those whose
 * entry in the index is not the tree's (what the last resolution
 * recorded, and the commits the loop made since), and those the work
 * tree has otherwise than the index (edits, deletions, new files; new
 * files .gitignore hides with their directory, which the loop would ask
 * about, but not those a pattern of their own hides: a build's objects
 * stay, as with git am). The scan refreshes the stat data of the
 * index's entries it finds unchanged, in memory; it is left out when
 * `synced` (the index is the work tree already).
 */
static int reset_paths(struct strvec *paths, git_repository *wt, git_index *index, git_tree *tree,
		       int synced)
{
	struct tree_delta staged = { 0 };
	struct wtscan dirty = { 0 };
	git_tree *itree = NULL;
	git_oid iid;
	size_t i, k;
	int err;

	/*
	 * The index as a tree: the record says which when the index is
	 * the one it names (always, unless git wrote the index in a stop),
	 * else libgit2 writes it from its tree cache; then only the
	 * subtrees that differ from `tree` are read (tree_delta_diff()).
	 */
	if ((!index_tree_recorded(&iid, wt, index) &&
	     (err = git_index_write_tree_to(&iid, index, wt)) < 0) ||
	    (err = git_tree_lookup(&itree, wt, &iid)) < 0 ||
	    (err = tree_delta_diff(&staged, wt, tree, itree)) < 0)
		goto fail;
	if (!synced && wtscan_run(&dirty, wt, index, WTSCAN_IGNORED | WTSCAN_REFRESH)) {
		tree_delta_release(&staged);
		git_tree_free(itree);
		return -1;
	}
	for (i = 0; i < staged.nr; i++)
		strvec_push(paths, staged.v[i].old_file.path);
	for (i = 0; i < dirty.nr; i++) {
		if (dirty.v[i].how == WTSCAN_NEW_IGNORED && !hidden_with_dir(wt, dirty.v[i].path))
			continue;
		strvec_push(paths, dirty.v[i].path);
	}
	wtscan_release(&dirty);
	tree_delta_release(&staged);
	git_tree_free(itree);
	if (paths->nr)
		qsort(paths->v, paths->nr, sizeof(*paths->v), cmp_str);
	for (i = k = 0; i < paths->nr; i++) {
		if (k && !strcmp(paths->v[k - 1], paths->v[i])) {
			free((char *)paths->v[i]);
			continue;
		}
		paths->v[k++] = paths->v[i];
	}
	paths->nr = k;
	return 0;
fail:
	git_tree_free(itree);
	return gitutil_error(err, "cannot compare the work tree '%s' with the next tree",
			     git_repository_workdir(wt));
}

/* The directories above removed file `rel` that it left empty go, as git removes them. */
static void remove_emptied(const char *path, const char *rel)
{
	struct strbuf why = STRBUF_INIT;
	char *p = xstrdup(rel), *slash;

	while ((slash = strrchr(p, '/'))) {
		*slash = '\0';
		strbuf_reset(&why);
		if (fs_rmdir_beneath(path, p, &why) != 1)
			break;
	}
	strbuf_release(&why);
	free(p);
}

/*
 * Make each of `paths` in the work tree at `path` what `tree` has
 * (removed when it has no file there): removals first, so that a file
 * may take the place of a directory and the other way round; each
 * write beneath `path` only (fs.h). A path the tree has as a
 * directory is left to the files below it.
 */
static int reset_files(const char *path, git_repository *wt, git_tree *tree,
		       const struct strvec *paths)
{
	struct strbuf why = STRBUF_INIT;
	size_t i;
	int pass, err, ret = 0;

	for (pass = 0; pass < 2 && !ret; pass++) {
		for (i = 0; i < paths->nr && !ret; i++) {
			const char *rel = paths->v[i];
			git_tree_entry *e = NULL;
			git_blob *blob = NULL;
			int blob_there;

			err = git_tree_entry_bypath(&e, tree, rel);
			if (err < 0 && err != GIT_ENOTFOUND) {
				ret = gitutil_error(err, "cannot read '%s' of the next tree", shown(rel));
				break;
			}
			git_error_clear();
			blob_there = e && git_tree_entry_type(e) == GIT_OBJECT_BLOB;
			strbuf_reset(&why);
			if (!pass && !blob_there && !(e && git_tree_entry_type(e) == GIT_OBJECT_TREE)) {
				if (fs_unlink_beneath(path, rel, &why))
					ret = error("cannot remove '%s' in '%s': %s", shown(rel), path,
						    why.buf);
				else
					remove_emptied(path, rel);
			} else if (pass && blob_there) {
				if ((err = git_blob_lookup(&blob, wt, git_tree_entry_id(e))) < 0)
					ret = gitutil_error(err, "cannot read '%s'", shown(rel));
				else if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) {
					char *target = xstrndup(git_blob_rawcontent(blob),
								(size_t)git_blob_rawsize(blob));

					ret = fs_symlink_beneath(path, rel, target, &why);
					free(target);
				} else {
					ret = fs_write_beneath(path, rel, git_blob_rawcontent(blob),
							       (size_t)git_blob_rawsize(blob),
							       git_tree_entry_filemode(e) ==
							       GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644,
							       0, &why);
				}
				if (ret && why.len)
					ret = error("cannot write '%s' in '%s': %s", shown(rel), path,
						    why.buf);
				test_crash_point("resetting");
			}
			git_blob_free(blob);
			git_tree_entry_free(e);
		}
	}
	strbuf_release(&why);
	return ret;
}

/*
 * Make the work tree's index `index` (read from its file, without the
 * repository as owner) `tree`, as reset_files() made `paths`: each of
 * them removed from it or given the tree's blob and the stat data of
 * the file written now; every other entry is already the tree's
 * (reset_paths()), stat data and all. No tree is read here: the record
 * written after it names `tree` as the index's (index_tree_record()).
 * Written through index.lock, as git does: a kill leaves the old index
 * or the new one. Without an owner, libgit2 does not rediff the entries
 * written in the index's own second (its racy-clean check): the next
 * scan hashes those (wtscan.c).
 */
static int reset_index(git_repository *wt, git_index *index, git_tree *tree,
		       const struct strvec *paths)
{
	const char *workdir = git_repository_workdir(wt);
	size_t i;
	int pass, err = 0;

	for (pass = 0; pass < 2 && err >= 0; pass++) {
		for (i = 0; i < paths->nr && err >= 0; i++) {
			const char *rel = paths->v[i];
			git_index_entry entry = { 0 };
			git_tree_entry *e = NULL;
			struct stat st;
			char *abs;
			int blob;

			if ((err = git_tree_entry_bypath(&e, tree, rel)) < 0 && err != GIT_ENOTFOUND)
				break;
			blob = e && git_tree_entry_type(e) == GIT_OBJECT_BLOB;
			err = 0;
			if (!pass && !blob) {
				err = git_index_remove_bypath(index, rel);
			} else if (pass && blob) {
				abs = path_join(workdir, rel);
				if (!lstat(abs, &st))
					wtscan_entry_stat(&entry, &st);
				free(abs);
				entry.path = rel;
				entry.mode = git_tree_entry_filemode(e);
				git_oid_cpy(&entry.id, git_tree_entry_id(e));
				err = git_index_add(index, &entry);
			}
			git_tree_entry_free(e);
		}
	}
	if (err >= 0)
		err = git_index_write(index);
	if (err < 0)
		return gitutil_error(err, "cannot write the index of '%s'", workdir);
	return index_tree_record(wt, index, git_tree_id(tree));
}

/*
 * Bring the kept work tree at `path` to commit `onto` as git am does
 * between two patches: only the paths reset_paths() finds are written
 * or removed, the index made `onto`'s tree, the branch `refname` moved
 * to `onto`. The number of paths touched in *touched. 1 when there is
 * no work tree there to keep (nothing done), 0, or -1 (printed).
 */
static int worktree_reset(size_t *touched, git_repository *repo, const char *path,
			  const char *refname, const git_oid *onto, git_index *synced)
{
	struct strvec paths = STRVEC_INIT;
	git_repository *wt = NULL;
	git_index *index = NULL, *read = NULL;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_reference *ref = NULL;
	char *dotgit = path_join(path, ".git");
	int err, ret = 1;

	if (!file_exists(dotgit) || !(wt = backport_attr_repo(path)) ||
	    !git_repository_is_worktree(wt) ||
	    !(index = synced ? synced : (read = worktree_index(wt)))) {
		git_error_clear();
		goto cleanup;
	}
	if ((err = git_commit_lookup(&commit, wt, onto)) < 0 ||
	    (err = git_commit_tree(&tree, commit)) < 0) {
		ret = gitutil_error(err, "cannot read commit %s", oid_short(onto));
		goto cleanup;
	}
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	ret = reset_paths(&paths, wt, index, tree, !!synced) || reset_files(path, wt, tree, &paths) ||
	      reset_index(wt, index, tree, &paths) ? -1 : 0;
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
	if (!ret && (err = git_reference_create(&ref, repo, refname, onto, 1,
						"mkseries backport: the tree to work in")) < 0)
		ret = gitutil_error(err, "cannot move '%s' to %s", refname, oid_short(onto));
	*touched = paths.nr;
cleanup:
	git_reference_free(ref);
	strvec_clear(&paths);
	git_tree_free(tree);
	git_commit_free(commit);
	git_index_free(read);
	git_repository_free(wt);
	free(dotgit);
	return ret;
}

int backport_worktree_checkout(long *touched, git_repository *repo, const char *name,
			       const char *path, const char *refname, const git_oid *onto,
			       git_index *synced)
{
	size_t n = 0;
	int ret = worktree_reset(&n, repo, path, refname, onto, synced);

	*touched = (long)n;
	if (!ret)
		return 0;
	if (ret < 0)
		fprintf(stderr, "checking the work tree out whole instead\n");
	*touched = -1;
	return backport_worktree_remove(repo, name, path, refname) ||
	       backport_worktree_add(repo, name, path, refname, onto) ? -1 : 0;
}
