/* tree/tarimport.h: the tree module's reading of archives (a tarball, a .deb's source tarball) into git trees. */
#ifndef MKSERIES_TARIMPORT_H
#define MKSERIES_TARIMPORT_H

#include <time.h>
#include <git2.h>

/*
 * Write the files of `tarball` (gz, xz, bz2, zstd, lzip or plain) into
 * repo as a tree (as tree_from_tarball() below): *out_tree,
 * the number of files and the newest mtime, for the import commit.
 * Returns 0, MKS_EUNSAFE for an entry refused (printed), or -1 (printed).
 */
int tarimport_tarball(git_oid *out_tree, size_t *nr_files, time_t *newest,
		      git_repository *repo, const char *tarball);

/*
 * As tarimport_tarball(), for the usr/src/<package>.tar.* inside the
 * data.tar of Debian package `deb`, read as a stream without copies.
 */
int tarimport_deb(git_oid *out_tree, size_t *nr_files, time_t *newest,
		  git_repository *repo, const char *deb, const char *package);

/*
 * Print "'label': refusing entry 'path': why" and return MKS_EUNSAFE:
 * every import refuses a hostile entry with these words.
 */
int import_refuse(const char *label, const char *path, const char *why);

/*
 * Write a tarball's files (gz, xz, bz2 or plain, via libarchive) into
 * repo as a tree: the single top-level directory is stripped, modes and
 * symlinks kept, no .gitignore consulted.
 */
int tree_from_tarball(git_oid *out_tree, git_repository *repo, const char *tarball);

#endif
