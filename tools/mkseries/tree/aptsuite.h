/* tree/aptsuite.h: the tree module's use of apt, confined to a private directory per suite. */
#ifndef MKSERIES_APTSUITE_H
#define MKSERIES_APTSUITE_H

#include "lib/util.h"

/*
 * The apt sources (deb822) that fetch from `suite`: every Debian archive
 * entry of <root>/etc/apt/sources.list and sources.list.d/ *.list|*.sources
 * for the system's codename (<root>/etc/os-release), with that codename
 * replaced by `suite` (bookworm-security -> S-security), URIs and
 * Signed-By kept. `root` is "" for this system. looked_in gets one
 * "URI SUITE" per place. MKS_ENOTFOUND when no entry qualifies.
 */
int tree_apt_sources(struct strbuf *out, struct strvec *looked_in, const char *root,
		     const char *suite);

/*
 * Make the private apt directory `aptdir` of one suite (its sources,
 * as tree_apt_sources() wrote them, lists, caches and an empty status)
 * and the download directory `debs`. Returns 0 or -1 (printed).
 */
int apt_prepare(const char *aptdir, const char *debs, const struct strbuf *sources);

/*
 * Refresh the suite's package lists and set *version (caller frees) to
 * the version of `package` apt would fetch. MKS_ENOTFOUND, printed with
 * the places looked in and apt's own errors, when the suite lacks it.
 */
int apt_candidate(char **version, const char *aptdir, const char *package,
		  const char *suite, const struct strvec *looked_in);

/*
 * Download package=version into `debs` unless it is there already; *deb
 * (caller frees) names the file. Returns 0 or -1 (printed).
 */
int apt_download(char **deb, const char *aptdir, const char *debs, const char *package,
		 const char *version);

/*
 * The root whose /etc/apt and /etc/os-release name the mirror: "" for
 * this system, or $MKSERIES_APT_ROOT (for tests: a fake /etc).
 */
const char *tree_apt_root(void);

/*
 * Whether `uri` (a "URI SUITE" place of tree_apt_sources()) answers for
 * `suite` within `timeout` seconds: apt's own helper fetches its
 * dists/SUITE/InRelease, through apt's proxy settings. Returns 0, or -1
 * with *why saying what apt said (nothing printed).
 */
int apt_suite_reachable(struct strbuf *why, const char *uri, const char *suite,
			unsigned timeout);

/* Append the blank-separated words of s to sv. */
void apt_split_words(struct strvec *sv, const char *s);

#endif
