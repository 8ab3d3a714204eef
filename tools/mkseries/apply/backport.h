/* apply/backport.h: the backporter's loop: a patch that does not apply, worked out in a git worktree (backporttree.c: that work tree) and recorded as the branch's backport. */
#ifndef MKSERIES_BACKPORT_H
#define MKSERIES_BACKPORT_H

#include <git2.h>

#include "kit/model.h"
#include "lib/gitutil.h"
#include "patches/mail.h"
#include "lib/util.h"

/* How each file of a patch came into the work tree. */
enum backport_how {
	BACKPORT_APPLIED = 1,	/* the file's part of the patch applied as it is */
	BACKPORT_MERGED,	/* three-way merge of the patch's blobs, no conflict */
	BACKPORT_CONFLICT,	/* three-way merge with conflict markers left in the file */
	BACKPORT_PARTIAL,	/* some hunks applied, the others in <file>.rej */
};

struct backport_file {
	char *path;		/* in the tree */
	enum backport_how how;
	size_t hunks, rejected;	/* PARTIAL: hunks in the patch, hunks left in .rej */
	/*
	 * PARTIAL: the hunks applied away from where the patch puts them,
	 * "hunk 2 at offset +3 lines, ..."; else NULL. Owned. (Hunks apply
	 * with their whole context or not at all: there is no fuzz.)
	 */
	char *moved;
	/*
	 * The file's reject file: <path>.rej unless the tree already had a
	 * file of that name (then <path>.mkseries.rej, and a number after
	 * that); its report is the same name plus ".why". PARTIAL: the
	 * loop's rejected hunks are there; else a reject the user made
	 * there (patch(1)) is what backport_leftovers() looks for. Owned.
	 */
	char *rej;
	/* CONFLICT: the conflict-marker-size the loop wrote its markers with */
	unsigned markers;
	/*
	 * The blob the loop left in the work tree for the file (zero: none,
	 * the file absent), when wrote_known: what the resolution is
	 * compared with (backport_note()).
	 */
	git_oid wrote;
	int wrote_known;
};

struct backport_result {
	struct backport_file *files;
	size_t nr, alloc;
};

void backport_result_release(struct backport_result *r);
/* Whether any file needs the user: a conflict or a rejected hunk. */
int backport_result_needs_work(const struct backport_result *r);
const char *backport_how_name(enum backport_how how);

/*
 * Apply `diff` into the checked-out directory `dir`, whose files are
 * those of commit tree `onto`, as well as it can, file by file: as it is
 * when it applies; else by a three-way merge (git_merge_file, labels
 * "tree" and "upstream patch") when the blobs of the file's `index` line
 * are in `repo`; else hunk by hunk, every hunk that applies applied and
 * the others written to <file>.rej, with the report of why each failed
 * ("expects / the tree has") in <file>.rej.why. Only files the diff names
 * are written. Returns 0 with `r` filled, MKS_EUNSAFE (a path reaching
 * outside the tree, named in `report`) or -1 (printed).
 */
int backport_apply_in_tree(struct backport_result *r, struct strbuf *report, git_repository *repo,
			   const git_oid *onto, const char *dir, const char *diff, size_t len);

/*
 * Make the loop's work tree at `path` (worktree `name`, on branch
 * `refname`) commit `onto`'s tree for the next patch. A work tree kept
 * from the last stop is brought there as git am does: only the paths
 * whose index entry is not `onto`'s, or whose file differs from the
 * index (edits, deletions, new files that are not ignored, or that
 * .gitignore hides with their directory), are written or removed; the
 * others keep their files (inode, mtime) and stat data, files a
 * pattern of their own hides (a build's objects) stay; the index
 * becomes `onto`'s tree and the branch moves to `onto`. *touched is the
 * number of paths so written or removed. With no work tree there (or
 * one that cannot be read), the work tree is checked out whole
 * (*touched -1). `synced`, when not NULL: the index
 * backport_worktree_tree() read the work tree into and handed back,
 * with nothing written in the tree since; the work tree is then not
 * scanned again, nor the index read again (the caller still owns it).
 * Returns 0 or -1 (printed).
 */
int backport_worktree_checkout(long *touched, git_repository *repo, const char *name,
			       const char *path, const char *refname, const git_oid *onto,
			       git_index *synced);

/*
 * Remove worktree `name` (its directory and its administrative files)
 * and branch `refname`. What is already gone is not an error.
 */
int backport_worktree_remove(git_repository *repo, const char *name, const char *path,
			     const char *refname);

/*
 * The tree of the worktree at `path` as it is on disk (tracked files as
 * edited, new files that are not ignored, deleted files gone): what
 * `git add -A && git write-tree` there gives, plus the files of `r`
 * (may be NULL) that are there, taken as `git add -f` takes them: the
 * loop wrote them. When `ignored` is not NULL, the other new files
 * .gitignore hides with their directory (Debian's rule hiding the
 * whole top level: any new file there) are named there, one line each
 * (the first ten), and their number is returned; they are not in the
 * tree, nor are new files hidden by a pattern of their own (`*.o`), as
 * with git add -A. Writes the worktree's index (and beside it the
 * record of its tree, so that the next read needs no tree of libgit2's
 * cache); nothing else. When `kept` is not NULL and this succeeds, the
 * index is handed back there, for backport_worktree_checkout() (the
 * caller frees it). Returns that number, or -1 (printed).
 */
int backport_worktree_tree(git_oid *out, const char *path, const struct backport_result *r,
			   struct strbuf *ignored, git_index **kept);

/*
 * What is left to do in the tree at `dir`: the reject files (and their
 * .why reports) the loop wrote beside the files `r` touched. Each is appended to `left` as one line; returns
 * their number. Conflict markers are backport_new_markers()'s.
 */
size_t backport_leftovers(struct strbuf *left, const struct backport_result *r, const char *dir);

/* Remove the reject files and reports the loop wrote for `r` (may be NULL) in the tree at `dir`. */
void backport_remove_rejects(const char *dir, const struct backport_result *r);

/* Whether `path` is a reject file or report the loop wrote for `r` (may be NULL): backport_leftovers() names those. */
int backport_is_loop_rej(const struct backport_result *r, const char *path);

/*
 * Conflict markers left in the work tree `wt_path`, whose tree is
 * `wt_tree`, on lines the file did not have in commit `onto` (the tree
 * the loop checked out): a complete triple `<<<<<<<` / `=======` /
 * `>>>>>>>` (a `|||||||` base section allowed, labels or none) at the
 * file's conflict-marker-size attribute (7 by default) anywhere, and in
 * the files `r` merged with conflicts also any single line of the
 * loop's own markers (`<<<<<<< tree`, `>>>>>>> upstream patch`). A lone
 * `=======` (an reST underline) is not one. Files named in `accepted`
 * (may be NULL) are not looked at: the backporter said their markers
 * are meant. One line "<path>:<line>: conflict marker left" a file in
 * `left`, the path pushed to `paths` (may be NULL); returns the number
 * of such files, or -1 (printed).
 */
int backport_new_markers(struct strbuf *left, struct strvec *paths, git_repository *repo,
			 const git_oid *onto, const git_oid *wt_tree, const char *wt_path,
			 const struct backport_result *r, const struct strvec *accepted);

/*
 * The first line of `buf` (1-based; 0: none) that backport_new_markers()
 * refuses at marker size `size`: the first line of a complete triple one
 * of whose marker lines is added, or an added line of the loop's own
 * markers at `loop_size` (0: the loop wrote none). added[i] says whether
 * line i (1-based, i <= nr_lines) is new; NULL: every line is. Pure.
 */
size_t backport_marker_at(const char *buf, size_t len, unsigned size, const unsigned char *added,
			  size_t nr_lines, unsigned loop_size);

/* The conflict-marker-size attribute of `path` in the work tree `wt` (7 when unset). */
unsigned backport_marker_size(git_repository *wt, const char *path);

/*
 * The work tree at `wt_path` opened for its attributes only (NULL when
 * it cannot be): they are read from its .gitattributes files, as git
 * reads them in a work tree, and never from its index, whose 86,000
 * entries libgit2 would otherwise parse for the first lookup. A
 * .gitattributes the work tree lacks then counts as absent.
 */
git_repository *backport_attr_repo(const char *wt_path);

/*
 * The name of the branch backport of upstream entry `p` with subject
 * `subject` in directory `dir` (relative to kit directory `kit_dir`):
 * "<dir>/NNNN-<id12>-<subject as format-patch writes it>.patch", NNNN
 * one more than the highest number there. Caller frees.
 */
char *backport_file_name(const char *kit_dir, const char *dir, const struct kit_patch *p,
			 const char *subject);

/* Commit onto's tree, tree `tree` and the files that differ between them, for the loop's checks. */
struct backport_diff {
	git_commit *onto;
	git_tree *old, *new;
	struct tree_delta diff;
};

/* Open d; -1 (printed: "cannot compare WHAT with ONTO") when one cannot be read. */
int backport_diff_open(struct backport_diff *d, git_repository *repo, const git_oid *onto,
		       const git_oid *tree, const char *what);
void backport_diff_free(struct backport_diff *d);

/*
 * What the resolution did to each file, for the bracketed note: the
 * files of the patch (`r`), each compared in the recorded tree `final`
 * with the tree of commit `onto` the loop checked out and with what the
 * loop left in the work tree for it: " <path> (<what>)" appended to
 * `note` for each that did not go in as the patch has it: "dropped"
 * (as the tree had it), "merged three-way", "conflict resolved",
 * "rejected hunks redone", "<n> of <m> hunks dropped" (the rejected
 * ones left out), "redone" (changed after the loop wrote it); and
 * "added: not in the patch" for a file the patch does not name. Returns
 * 0 or -1 (printed).
 */
int backport_note(struct strbuf *note, git_repository *repo, const git_oid *onto,
		  const git_oid *final, const struct backport_result *r);

/*
 * Insert the bracketed note into `message` (a stable_message()): in the
 * trailer block just before the last sign-off of `email` (the
 * backporter), as stable kernels carry them; without such a sign-off,
 * as a paragraph of its own before the trailer block. stable_message()
 * keeps the trailer block as written, notes too, so applying the file
 * again keeps it there. Returns a new string.
 */
char *backport_add_note(const char *message, const char *note, const char *email);

/*
 * Replay a recorded backport whose diff no longer applies onto tree
 * `base` (the branch's base moved: a new point release): for each file,
 * a three-way merge between the blobs its `index` line names (the tree
 * the backport was written for, and the backport's result), and base's
 * blob. Only when every file merges cleanly is the result written, as a
 * tree to *out, and the files merged appended to `files` (may be NULL),
 * comma-separated. Returns 0, MKS_EAPPLYFAIL (a conflict, a blob not in
 * the repository, a file created, deleted or renamed) or -1 (printed).
 */
int backport_replay(git_oid *out, git_repository *repo, const git_oid *base, const char *diff,
		    size_t len, struct strbuf *files);

/*
 * The upstream id a backport of mail `m` (kit entry `p`) names, in full
 * as stable commits do: completed from the commit the mail was written
 * from or from `repo` when either has it. Warns when it stays
 * abbreviated, and of a Fixes: id of fewer than 12 digits. NULL when
 * there is none. Caller frees.
 */
char *backport_upstream_id(git_repository *repo, const struct mail_patch *m,
			   const struct kit_patch *p);

#endif
