/* tree.h: kernel trees: where the kernel repository is, and importing a branch's tree into it. */
#ifndef MKSERIES_TREE_H
#define MKSERIES_TREE_H

#include <git2.h>
#include "model.h"

/*
 * The kernel repository for branch `b`: `repo_opt` when given, else the
 * branch's own git repository for git sources, else
 * $XDG_CACHE_HOME/mkseries/linux.git (~/.cache when unset), created bare
 * on first use. *out is owned by the caller.
 */
int kernel_repo_path(char **out, const struct kit *kit, const struct kernel_branch *b,
		     const char *repo_opt);

/* The tag an import writes: refs/tags/mkseries/base/<branch>. Static buffer. */
const char *tree_base_refname(const struct kernel_branch *b);

/*
 * Bring branch b's tree into `repo` and tag it (tree_base_refname()):
 * from a git ref, a Debian linux-source package (apt-get download from
 * the suite named, the mirror taken from /etc/apt), or a tarball.
 * Cached: when the tag already records the same source, returns at once
 * unless `force`. *out is the tagged commit.
 */
int tree_import(git_oid *out, git_repository *repo, const struct kit *kit,
		const struct kernel_branch *b, int force);

/* The commit an earlier import tagged; MKS_ENOTFOUND when never imported. */
int tree_base(git_oid *out, git_repository *repo, const struct kernel_branch *b);

/*
 * Write a tarball's files (gz, xz, bz2 or plain, via libarchive) into
 * repo as a tree: the single top-level directory is stripped, modes and
 * symlinks kept, no .gitignore consulted.
 */
int tree_from_tarball(git_oid *out_tree, git_repository *repo, const char *tarball);

#endif
