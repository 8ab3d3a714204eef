/* tree/clone.c: mkseries' own repository for a git source: the user's clone read through objects/info/alternates, never written. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/gitutil.h"
#include "tree/clone.h"
#include "lib/util.h"

/* The clone's common git directory, real and without a trailing slash; NULL when unreadable. */
static char *clone_gitdir(git_repository *clone)
{
	char *dir = realpath(git_repository_commondir(clone), NULL);

	if (!dir)
		error("cannot tell where the objects of '%s' are", git_repository_commondir(clone));
	return dir;
}

/* "<name>-<first 8 hex digits of the blob id of gitdir>.git", as kit ids are made. */
static char *own_name(const char *gitdir)
{
	struct strbuf sb = STRBUF_INIT;
	char *name = xstrdup(gitdir), *base;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;

	if (ends_with(name, "/.git"))
		name[strlen(name) - strlen("/.git")] = '\0';
	else if (ends_with(name, ".git") && strlen(name) > strlen(".git"))
		name[strlen(name) - strlen(".git")] = '\0';
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	for (; *base && sb.len < 40; base++)
		strbuf_addch(&sb, isalnum((unsigned char)*base) || *base == '_' || *base == '-' ?
				  *base : '-');
	if (!sb.len)
		strbuf_addstr(&sb, "clone");
	if (git_odb_hash(&oid, gitdir, strlen(gitdir), GIT_OBJECT_BLOB) < 0)
		BUG("cannot hash '%s'", gitdir);
	strbuf_addf(&sb, "-%.8s.git", git_oid_tostr(hex, sizeof(hex), &oid));
	free(name);
	return strbuf_detach(&sb, NULL);
}

int clone_own_path(char **out, char **objects, const char *clone_path, const char *label,
		   const char *ref)
{
	git_repository *clone = NULL;
	char *cache = NULL, *gitdir = NULL, *name = NULL;
	int err, ret = 0;

	*out = *objects = NULL;
	if (!dir_exists(clone_path))
		return error_code(MKS_ECONFIG, "%s: the git source's repository '%s' does not exist "
				  "(repo: names a clone that has '%s'); nothing was created",
				  label, shown(clone_path), shown(ref));
	err = git_repository_open_ext(&clone, clone_path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
	if (err == GIT_ENOTFOUND)
		return error_code(MKS_ECONFIG, "%s: the git source's repository '%s' is a directory "
				  "but no git repository (repo: names a clone that has '%s'); "
				  "nothing was created", label, shown(clone_path), shown(ref));
	if (err < 0)
		return gitutil_error(err, "cannot open repository '%s'", clone_path);
	if (!(gitdir = clone_gitdir(clone))) {
		ret = -1;
		goto cleanup;
	}
	if (!(cache = mks_cache_dir())) {
		ret = error("cannot tell where mkseries' repository for '%s' goes: "
			    "neither XDG_CACHE_HOME nor HOME is set (use --repo DIR)", clone_path);
		goto cleanup;
	}
	name = own_name(gitdir);
	*out = xstrfmt("%s/%s/%s", cache, CLONE_OWN_DIR, name);
	*objects = path_join(gitdir, "objects");
cleanup:
	git_repository_free(clone);
	free(cache);
	free(gitdir);
	free(name);
	return ret;
}

/* Whether `repo`'s alternates file names exactly `objects`. */
static int alternates_current(const char *file, const char *objects)
{
	struct strbuf sb = STRBUF_INIT;
	int same;

	same = !strbuf_read_file(&sb, file);
	strbuf_rtrim(&sb);
	same = same && !strcmp(sb.buf, objects);
	strbuf_release(&sb);
	return same;
}

int clone_own_open(git_repository **out, const char *path, const char *objects)
{
	char *file = NULL, *line = NULL;
	int ret;

	if ((ret = repo_open(out, path, 1)))
		return ret;
	file = xstrfmt("%sobjects/info/alternates", git_repository_path(*out));
	if (alternates_current(file, objects))
		goto cleanup;
	/* libgit2 reads the alternates when it opens the object database: open again */
	line = xstrfmt("%s\n", objects);
	if (write_file_atomic(file, line, strlen(line))) {
		ret = error("cannot write '%s': %s", file, strerror(errno));
		goto cleanup;
	}
	git_repository_free(*out);
	*out = NULL;
	ret = repo_open(out, path, 0);
cleanup:
	if (ret) {
		git_repository_free(*out);
		*out = NULL;
	}
	free(file);
	free(line);
	return ret;
}

int clone_own_source(struct strbuf *out, const char *own)
{
	char *file = path_join(own, "objects/info/alternates");
	int ret = 0;

	strbuf_reset(out);
	if (strbuf_read_file(out, file))
		ret = MKS_ENOTFOUND;
	strbuf_rtrim(out);
	if (!ret && ends_with(out->buf, "/objects"))
		strbuf_setlen(out, out->len - strlen("/objects"));
	if (!ret && ends_with(out->buf, "/.git"))
		strbuf_setlen(out, out->len - strlen("/.git"));
	free(file);
	return ret;
}
