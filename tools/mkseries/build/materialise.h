/* build/materialise.h: write a commit's tree into a directory, touching only what differs. */
#ifndef MKSERIES_MATERIALISE_H
#define MKSERIES_MATERIALISE_H

#include <git2.h>

/*
 * What one materialise did. `full` is set when the whole tree was
 * written (first use, unknown or vanished previous tree, an interrupted
 * earlier run); otherwise only the paths that differ between the
 * previous tree and the new one were touched, plus files found changed
 * on disk (`repaired`: size, mtime or type no longer what was written).
 */
struct materialise_stats {
	int full;
	size_t written;		/* files and symlinks written (added, modified, repaired) */
	size_t removed;		/* files and symlinks removed */
	size_t repaired;	/* of `written`: files that were changed by hand */
	size_t total;		/* files and symlinks in the new tree */
	double seconds;
};

/*
 * Make directory `dir` hold exactly the tree of `commit` (a commit or a
 * tree id) from `repo`. A manifest of what was written (path, blob id,
 * mode, size and mtime) is kept in "<dir>.manifest", replaced atomically
 * at the end; while changes are under way "<dir>.manifest.dirty" exists,
 * so an interrupted run is followed by a full rewrite. Files that did not
 * change keep their mtimes, so make rebuilds only what the change touched.
 * Paths from the tree that would leave `dir` (.., absolute, through a
 * symlink) are refused with MKS_EUNSAFE. `stats` may be NULL.
 * Returns 0, or a negative code after printing.
 */
int materialise(git_repository *repo, const git_oid *commit, const char *dir,
		struct materialise_stats *stats);

#endif
