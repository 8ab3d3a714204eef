/* tree/clone.h: mkseries' own repository for a git source, beside the user's clone it reads. */
#ifndef MKSERIES_TREE_CLONE_H
#define MKSERIES_TREE_CLONE_H

#include <git2.h>
#include "lib/util.h"

/*
 * A git source names a clone of the user's ($MKSERIES_LINUX_STABLE):
 * mkseries never writes there. Its base tags, applied branches, the
 * backport loop's branch and work tree, its lock and reflogs live in a
 * bare repository of its own under the cache, one per clone:
 * $XDG_CACHE_HOME/mkseries/clones/<name>-<hash>.git, <name> the clone's
 * directory and <hash> the first 8 hex digits of the blob id of the
 * real path of its git directory (as kit ids are made). Its
 * objects/info/alternates names the clone's objects directory, so the
 * clone's history is read in place, never copied; what mkseries writes
 * (its commits, tags, the trees of backports) goes into its own objects.
 */
#define CLONE_OWN_DIR "clones"

/*
 * The path of mkseries' repository for the clone at `clone_path`
 * (*out) and the clone's objects directory (*objects); both the
 * caller's. Opens the clone to read where its git directory is and
 * writes nothing. Returns 0, MKS_ECONFIG when the clone is not there
 * or is no repository (the message starts with `label` and names
 * `ref`, what the clone should have), or -1.
 */
int clone_own_path(char **out, char **objects, const char *clone_path, const char *label,
		   const char *ref);

/*
 * Open mkseries' repository at `path` (made bare when missing) with
 * `objects` as its one alternate, written when it names another. *out
 * is the caller's. Returns 0 or -1.
 */
int clone_own_open(git_repository **out, const char *path, const char *objects);

/*
 * The clone mkseries' repository at `own` serves (its alternate without
 * "/objects" and "/.git"), for gc. MKS_ENOTFOUND when it names none.
 */
int clone_own_source(struct strbuf *out, const char *own);

#endif
