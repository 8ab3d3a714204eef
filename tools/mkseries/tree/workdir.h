/* tree/workdir.h: where a branch's work happens: the cache directory, work directories and their lock. */
#ifndef MKSERIES_WORKDIR_H
#define MKSERIES_WORKDIR_H

#include "kit/model.h"

/*
 * Keep a second mkseries out of a branch's work directory (they would
 * share src/): flock on <workdir>/lock, released on exit.
 */
struct workdir_lock {
	int fd;
	/*
	 * When workdir_lock() failed: what is wrong, in a few words for a
	 * summary ("in use by another mkseries", "a symbolic link,
	 * refused"); the error printed says it in full. Static.
	 */
	const char *why;
};
#define WORKDIR_LOCK_INIT { -1, NULL }
int workdir_lock(struct workdir_lock *lk, const char *workdir);
void workdir_unlock(struct workdir_lock *lk);

/*
 * Work directory of branch b: <root>/<branch>, where root is `workdir_opt`
 * when given (the user chose it for this kit), else <cache>/work/<kit id>
 * (see kit_id(): the cache is shared by every kit). It holds src/ (the one materialised
 * source tree the variants share), out-<variant>/ (make O=),
 * logs/<variant>-build.log, logs/<variant>-console.log and
 * state/<variant>.build, state/<variant>.test. Caller frees. NULL (an
 * error printed) when there is no cache directory and no `workdir_opt`.
 */
char *branch_workdir(const struct kit *kit, const char *workdir_opt, const struct kernel_branch *b);

/* What a branch's work directory holds: its layout is spelled here and nowhere else. */
enum workdir_part {
	WD_LOCK,		/* lock: workdir_lock()'s */
	WD_STATE,		/* state/: the steps' records (record/) */
	WD_SRC,			/* src/: the one materialised source tree the variants share */
	WD_OUT,			/* out-<variant>/: make O= */
	WD_LOGS,		/* logs/ */
	WD_BUILD_LOG,		/* logs/<variant>-build.log */
	WD_CONSOLE_LOG,		/* logs/<variant>-console.log, the first boot's */
	WD_INITRAMFS,		/* initramfs.cpio: mm-regress as /init */
	WD_BACKPORT,		/* backport/: the backport loop's */
};

/* The part's name inside a work directory ("out-kit", "logs/kit-build.log"). Caller frees. */
char *workdir_name(enum workdir_part part, const char *variant);
/* The part's path in `workdir`. Caller frees. */
char *workdir_path(const char *workdir, enum workdir_part part, const char *variant);
/* The variant whose out-<variant>/ an entry named `name` is, or NULL. */
const char *workdir_out_variant(const char *name);

#endif
