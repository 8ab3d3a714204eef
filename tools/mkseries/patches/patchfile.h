/* patches/patchfile.h: commits written as git format-patch files into the kit. */
#ifndef MKSERIES_PATCHFILE_H
#define MKSERIES_PATCHFILE_H

#include <git2.h>

/* git format-patch's file name for a commit: "0001-mm-batch-ptes.patch" (caller frees). */
char *patch_file_name(unsigned number, const char *subject);

/*
 * Write commit `oid` of `repo` as git format-patch would (From, Date and
 * Subject headers, the message, a diffstat and the diff), to
 * <kit_dir>/<file> when `file` is set, else to
 * <kit_dir>/<dir>/<patch_file_name(number)>. An existing file is an
 * error ("<path> exists; use --force to overwrite") unless `force`.
 * *rel is set to the path written, relative to the kit (caller frees).
 * The file is written beneath `kit_dir` only: a symbolic link on the way
 * below it, or as the file itself, is refused (fs.h). Returns 0 or -1
 * (printed).
 */
int patch_write_commit(char **rel, git_repository *repo, const git_oid *oid, const char *kit_dir,
		       const char *file, const char *dir, unsigned number, int force);

/* The highest NNNN of the NNNN-*.patch files in a directory; 0 when none or no directory. */
unsigned patch_dir_last_number(const char *path);

#endif
