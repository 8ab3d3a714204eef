/* tree/tree.c: the kernel repository, its base tags and import history, and the import of each kind of source. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tree/aptsuite.h"
#include "tree/clone.h"
#include "lib/gitutil.h"
#include "lib/progress.h"
#include "tree/tarimport.h"
#include "tree/tree.h"
#include "lib/treecheck.h"
#include "tree/workdir.h"
#include "lib/util.h"

#define SIG_NAME "mkseries"
#define SIG_EMAIL "mkseries@invalid"

/* ------------------------------------------------------------------ */
/* Paths */

/*
 * kernel_repo_path(), and whether it is mkseries' own repository under
 * the cache; for a git source, *alternate is the clone's objects
 * directory that repository reads (caller frees), else NULL.
 */
static int repo_path_of(char **out, int *own, char **alternate, const struct kit *kit,
			const struct kernel_branch *b, const char *repo_opt)
{
	char *cache = NULL, *clone = NULL;
	int ret;

	*out = *alternate = NULL;
	*own = 0;
	if (repo_opt && *repo_opt) {
		*out = xstrdup(repo_opt);
		return 0;
	}
	*own = 1;
	if (b && b->source.kind == SOURCE_GIT) {
		/* A repository the user's environment names: say which file and variable. */
		if ((!b->source.repo || b->source.repo_var) && kernel_source_check(b))
			return MKS_ECONFIG;
		clone = kit_file(kit, b->source.repo);
		ret = clone_own_path(out, alternate, clone, b->path, b->source.ref);
		free(clone);
		return ret;
	}
	cache = mks_cache_dir();
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
	char *alternate = NULL;
	int own, ret;

	ret = repo_path_of(out, &own, &alternate, kit, b, repo_opt);
	free(alternate);
	return ret;
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

/*
 * kernel_repo_open() of the repository at `path` (repo_path_of() said
 * it, whether `own`, and the clone it reads). mkseries' repository for
 * a git source is made whenever it is missing: the clone is there
 * (repo_path_of() checked), and the repository is only its view of it.
 */
static int open_at(git_repository **out, const char *path, int own, const char *alternate,
		   int create)
{
	int ret;

	*out = NULL;
	if (alternate)
		ret = clone_own_open(out, path, alternate);
	else
		ret = repo_open(out, path, create);
	if (!ret && own)
		log_all_ref_updates(*out, path);
	return ret;
}

int kernel_repo_open(git_repository **out, const struct kit *kit, const struct kernel_branch *b,
		     const char *repo_opt, int create)
{
	char *path = NULL, *alternate = NULL;
	int own, ret;

	*out = NULL;
	ret = repo_path_of(&path, &own, &alternate, kit, b, repo_opt);
	if (!ret && !path)
		ret = -1;
	if (!ret)
		ret = open_at(out, path, own, alternate, create);
	free(path);
	free(alternate);
	return ret;
}

int kernel_clone_open(git_repository **out, const struct kit *kit, const struct kernel_branch *b,
		      const char *repo_opt)
{
	char *clone = NULL;
	int ret;

	*out = NULL;
	if ((repo_opt && *repo_opt) || !b || b->source.kind != SOURCE_GIT)
		return 0;
	if ((!b->source.repo || b->source.repo_var) && kernel_source_check(b))
		return MKS_ECONFIG;
	clone = kit_file(kit, b->source.repo);
	ret = repo_open(out, clone, 0);
	free(clone);
	return ret;
}

int kernel_repos_open(git_repository **out, struct kernel_repos *rs, const struct kit *kit,
		      const struct kernel_branch *b, const char *repo_opt, unsigned flags)
{
	struct kernel_repo_held *h = NULL;
	char *path = NULL, *alternate = NULL;
	size_t i;
	int own, ret;

	*out = NULL;
	ret = repo_path_of(&path, &own, &alternate, kit, b, repo_opt);
	if (!ret && !path)
		ret = -1;
	if (ret)
		goto cleanup;
	for (i = 0; i < rs->nr && !h; i++)
		if (!strcmp(rs->v[i].path, path))
			h = &rs->v[i];
	if (!h) {
		git_repository *repo;

		if ((ret = open_at(&repo, path, own, alternate, flags & KERNEL_REPO_CREATE)))
			goto cleanup;
		ALLOC_GROW(rs->v, rs->nr + 1, rs->alloc);
		h = &rs->v[rs->nr++];
		h->path = path;
		path = NULL;
		h->repo = repo;
		h->lock.fd = -1;
	}
	if ((flags & KERNEL_REPO_LOCK) && h->lock.fd < 0 && (ret = repo_lock(&h->lock, h->repo)))
		goto cleanup;
	*out = h->repo;
cleanup:
	free(path);
	free(alternate);
	return ret;
}

void kernel_repos_unlock(struct kernel_repos *rs)
{
	size_t i;

	for (i = 0; i < rs->nr; i++)
		repo_unlock(&rs->v[i].lock);
}

void kernel_repos_release(struct kernel_repos *rs)
{
	size_t i;

	kernel_repos_unlock(rs);
	for (i = 0; i < rs->nr; i++) {
		git_repository_free(rs->v[i].repo);
		free(rs->v[i].path);
	}
	free(rs->v);
	rs->v = NULL;
	rs->nr = rs->alloc = 0;
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

/* Whether repo's objects (its alternates among them) hold commit `id`; printing nothing. */
static int has_commit(git_repository *repo, const git_oid *id)
{
	git_commit *c = NULL;
	int have = !git_commit_lookup(&c, repo, id);

	git_commit_free(c);
	git_error_clear();
	return have;
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
		tc->ret = import_refuse(tc->label, tc->path.buf, reason);
		return -1;
	}
	if (git_tree_entry_type(e) == GIT_OBJECT_TREE ||
	    !treecheck_is_gitmodules(name, strlen(name)))
		return 0;
	if (git_tree_entry_filemode(e) == GIT_FILEMODE_LINK) {
		tc->ret = import_refuse(tc->label, tc->path.buf, "a .gitmodules that is a symbolic link");
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
		tc->ret = import_refuse(tc->label, tc->path.buf, tc->why.buf);
	} else if ((err = git_odb_read(&obj, odb, git_tree_entry_id(e))) < 0) {
		tc->ret = gitutil_error(err, "'%s': cannot read '%s'", tc->label, tc->path.buf);
	} else {
		strbuf_addstr(&tc->why, ".gitmodules ");
		if (treecheck_gitmodules(git_odb_object_data(obj), git_odb_object_size(obj),
					 &tc->why))
			tc->ret = import_refuse(tc->label, tc->path.buf, tc->why.buf);
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
	/*
	 * mkseries' repository for the clone reads the clone's objects as
	 * its alternate: the commit is there, nothing to copy. A --repo
	 * elsewhere fetches it.
	 */
	if (!same_repo(repo, src) && !has_commit(repo, &commit)) {
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
	ret = tarimport_tarball(&tree, &nr_files, &newest, repo, abs);
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
		apt_split_words(&words, source);
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
	char *cache = mks_cache_dir(), *aptdir = NULL, *debs = NULL;
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
	ret = tree_apt_sources(&sources, &looked_in, tree_apt_root(), suite);
	if (ret)
		goto cleanup;
	aptdir = xstrfmt("%s/apt/%s", cache, suite);
	debs = path_join(cache, "debs");
	ret = apt_prepare(aptdir, debs, &sources);
	if (ret)
		goto cleanup;
	if (progress_wanted())
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
	ret = tarimport_deb(&tree, &nr_files, &newest, repo, deb, package);
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

/* Open the repository at `path` if there is one, printing nothing. */
static int open_quietly(git_repository **out, const char *path)
{
	struct stat st;

	*out = NULL;
	if (!path || stat(path, &st) || !S_ISDIR(st.st_mode) ||
	    git_repository_open_ext(out, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		git_error_clear();
		return MKS_ENOTFOUND;
	}
	return 0;
}

int tree_base_peek(git_repository **repo, git_oid *out, const struct kit *kit,
		   const struct kernel_branch *b)
{
	struct tree_import_info info = { 0 };
	git_object *obj = NULL, *peeled = NULL;
	char *path = NULL, *source = NULL, *key = NULL, *abs = NULL;
	git_oid old;
	struct stat st;
	int ret = MKS_ENOTFOUND;

	*repo = NULL;
	if (b->source.kind == SOURCE_GIT) {
		/* the variable naming the clone may be unset: that is plan's to say, not ours */
		if (!b->source.repo || (b->source.repo_var && !getenv(b->source.repo_var)))
			return MKS_ENOTFOUND;
		path = kit_file(kit, b->source.repo);
		if (open_quietly(repo, path))
			goto cleanup;
		if (git_revparse_single(&obj, *repo, b->source.ref ? b->source.ref : "HEAD") < 0 ||
		    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
			git_error_clear();
			goto cleanup;
		}
		git_oid_cpy(out, git_object_id(peeled));
		ret = 0;
		goto cleanup;
	}
	/* not a git source: no alternate to free */
	if (repo_path_of(&path, &ret, &key, kit, b, NULL) < 0 || open_quietly(repo, path)) {
		ret = MKS_ENOTFOUND;
		goto cleanup;
	}
	ret = MKS_ENOTFOUND;
	if (b->source.kind == SOURCE_DEBIAN) {
		if (b->source.package && b->source.suite && debian_tag_current(out, &info, *repo, b))
			ret = 0;
	} else if (b->source.kind == SOURCE_TARBALL && b->source.tarball) {
		free(path);
		path = kit_file(kit, b->source.tarball);
		abs = realpath(path, NULL);
		if (abs && !stat(abs, &st)) {
			key = xstrfmt("tarball %s size %lld mtime %lld", abs, (long long)st.st_size,
				      (long long)st.st_mtime);
			base_source(&source, out, &old, *repo, b);
			if (source && !strcmp(source, key))
				ret = 0;
		}
	}
cleanup:
	if (ret) {
		git_repository_free(*repo);
		*repo = NULL;
	}
	tree_import_info_release(&info);
	git_object_free(peeled);
	git_object_free(obj);
	free(path);
	free(source);
	free(key);
	free(abs);
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

const char *tree_import_summary(const struct tree_import_info *info, const git_oid *commit)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	if (info->up_to_date)
		strbuf_addf(&sb, "up to date (%s)", oid_short(commit));
	else
		strbuf_addf(&sb, "imported %s as %s (%s files, %.1f s)",
			    info->what ? shown(info->what) : "?", oid_short(commit),
			    thousands(info->nr_files), info->seconds);
	return sb.buf;
}
