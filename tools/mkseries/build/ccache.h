/* build/ccache.h: how a build's compiles go through ccache and distcc: the user's settings first, the kit's next, mkseries's own last. */
#ifndef MKSERIES_CCACHE_H
#define MKSERIES_CCACHE_H

#include "kit/model.h"
#include "lib/util.h"

/*
 * What make's environment gets so that ccache (and distcc behind it)
 * does what the user and the kit asked. Settings are read with
 * `ccache -p`, which names where each one comes from; mkseries sets a
 * ccache setting only where ccache reports its default:
 *
 * - cache_dir: mkseries's own cache directory (<cache>/ccache) when
 *   cache_dir is ccache's default and no ccache.conf sets anything
 *   (CCACHE_DIR would make ccache read another ccache.conf and drop the
 *   user's); otherwise ccache's own answer stands.
 * - remote_storage: the kit's `build: ccache-remote:` when the user
 *   named none (CCACHE_REMOTE_STORAGE or their ccache.conf).
 * - depend_mode: on, so that a miss does not run the preprocessor a
 *   second time (kbuild passes -Wp,-MMD, which depend mode reads).
 * - base_dir is left alone: it would change the kernel's __FILE__ strings
 *   (see ccache.c). Machines share results when their work directories
 *   have the same path.
 * - prefix_command: distcc, when distcc hosts are named (DISTCC_HOSTS,
 *   else the kit's `build: distcc:`); `jobs` is then what those hosts
 *   take (`distcc -j`).
 */
struct ccache_plan {
	int enabled;		/* ccache is on PATH */
	struct strvec env;	/* NAME=VALUE for make's environment */
	struct strbuf log;	/* "# ccache: ..." lines for the build log, each ending in '\n' */
	unsigned jobs;		/* make -j that distcc's hosts take; 0 without distcc */
};
#define CCACHE_PLAN_INIT { 0, STRVEC_INIT, STRBUF_INIT, 0 }

/*
 * Decide how branch b uses ccache and distcc.
 * Returns 0, or MKS_ECONFIG after printing when ccache rejects the
 * user's settings, or when distcc hosts are named and distcc (or ccache,
 * which runs it) is not installed.
 */
int ccache_plan_make(struct ccache_plan *cp, const struct kernel_branch *b);
void ccache_plan_release(struct ccache_plan *cp);


/* s with the user:password of a URL ("redis://:pw@host") shown as "***": for logs. Caller frees. */
char *redact_url(const char *s);

#endif
