/* apply.h: apply one diff to a tree in memory, touching only the paths it names. */
#ifndef MKSERIES_APPLY_H
#define MKSERIES_APPLY_H

#include <git2.h>
#include "util.h"

/*
 * Check every path a diff names (old and new side, renames, copies):
 * refuse absolute paths, "..", ".git" components, empty or NUL-bearing
 * names. Returns 0 or MKS_EUNSAFE with the reason appended to `why`.
 */
int diff_check_paths(const char *diff, size_t len, struct strbuf *why);

/*
 * Apply `diff` (git-style unified diff text) onto `base` and write the
 * resulting tree to *out. Only the paths the diff names are loaded and
 * rewritten: cost follows the patch, not the tree. Returns:
 *   0              applied; *out set
 *   MKS_EAPPLYFAIL does not apply; `report` names the file and hunk and
 *                  shows the hunk and what the tree has there
 *   MKS_EUNSAFE    a path reaches outside the tree; `report` says which
 *   -1             other failures (message printed)
 * Nothing is written to any ref.
 */
int apply_diff(git_oid *out, git_repository *repo, const git_oid *base,
	       const char *diff, size_t len, struct strbuf *report);

/*
 * Whether the change of `diff` is already in tree `base`: the diff does
 * not apply forward but applies in reverse. Returns 1, 0, or -1.
 */
int apply_is_present(git_repository *repo, const git_oid *base, const char *diff, size_t len);

#endif
