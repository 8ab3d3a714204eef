/* lib/treecheck.h: what a path or a .gitmodules must be before mkseries writes it into a tree (git fsck's rules). */
#ifndef MKSERIES_TREECHECK_H
#define MKSERIES_TREECHECK_H

#include <stddef.h>
#include "lib/util.h"

/*
 * Why `path` (n bytes, components separated by '/') must not be written
 * into a tree, or NULL when it may: empty, absolute, a control character
 * or NUL byte, an empty, "." or ".." component, or a component naming
 * .git in any spelling a filesystem folds to it (case, trailing dots and
 * spaces, NTFS streams and the 8.3 name git~1, HFS+ ignorable code
 * points). Patches (apply.c) and imported archives (tree.c) both use it.
 */
const char *treecheck_path(const char *path, size_t n);

/* Whether path component c[0..n) names .gitmodules in any of those spellings. */
int treecheck_is_gitmodules(const char *c, size_t n);

/*
 * Check the text of a .gitmodules as `git fsck` does (gitmodulesName,
 * gitmodulesUrl, gitmodulesPath, gitmodulesUpdate): a submodule name
 * that is empty or has a ".." component, a url or path that could be
 * taken for an option ("-..."), a url holding a newline once
 * %-decoded, a relative url climbing out to "../:" or "..//", an
 * http(s) or ftp(s) url without a host, an update that runs a command
 * ("!..."). Stricter than git where it cannot tell: text that does not
 * parse as git config, or more than 1 MiB, is refused too. Returns 0,
 * or -1 with "line N: why" appended to `why`.
 */
int treecheck_gitmodules(const char *buf, size_t len, struct strbuf *why);

/* The largest .gitmodules treecheck_gitmodules() reads. */
#define TREECHECK_GITMODULES_MAX (1u << 20)

#endif
