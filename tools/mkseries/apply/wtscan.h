/* apply/wtscan.h: what a work tree has otherwise than its index, found as git status finds it, without reading what cannot have changed. */
#ifndef MKS_APPLY_WTSCAN_H
#define MKS_APPLY_WTSCAN_H

#include <git2.h>
#include <stddef.h>
#include <sys/stat.h>

enum wtscan_how {
	WTSCAN_MODIFIED,	/* a tracked file whose content, mode or type is not the index's */
	WTSCAN_DELETED,		/* a tracked file not there (or a directory there now) */
	WTSCAN_NEW,		/* a file the index does not have, not ignored */
	WTSCAN_NEW_IGNORED,	/* a file the index does not have, which .gitignore hides */
};

struct wtscan_change {
	char *path;		/* relative to the work tree, as the index spells paths */
	enum wtscan_how how;
};

struct wtscan {
	struct wtscan_change *v;	/* sorted by path */
	size_t nr, alloc;
	size_t dirs_read;		/* directories read for new files: the others could not have any */
};

/* Also report new files .gitignore hides (WTSCAN_NEW_IGNORED). */
#define WTSCAN_IGNORED (1u << 0)
/*
 * Give the index entries of files found unchanged by content, whose stat
 * data was not the index's, the stat data they have now (in memory), so
 * that the next scan need not read them again (git's refresh).
 */
#define WTSCAN_REFRESH (1u << 1)

/*
 * Compare the work tree of `wt` with `index` (stage 0 entries; gitlinks
 * are left out), as git status does: each tracked file is lstat()ed (in
 * threads, as git's preload) and read only when its stat data is not the
 * index's or the index cannot vouch for it (racily clean). New files are
 * looked for only in the directories whose mtime or ctime is not older
 * than the last scan, and in those that held new files then: the last
 * scan's time and those directories are kept in the worktree's git
 * directory (wtscan_mark()); without that, every directory is read.
 * Returns 0 with `out` filled, or -1 (printed). The scan's record is
 * updated on success.
 */
int wtscan_run(struct wtscan *out, git_repository *wt, git_index *index, unsigned flags);
void wtscan_release(struct wtscan *s);

/*
 * Record that the work tree of `wt` has no file its index does not
 * have, as of now: what a fresh checkout knows. 0, or -1 (printed).
 */
int wtscan_mark(git_repository *wt);

/* Give index entry `e` the stat data `st` (lstat()'s of its file), in place, as git's refresh does. */
void wtscan_entry_stat(git_index_entry *e, const struct stat *st);

#endif
