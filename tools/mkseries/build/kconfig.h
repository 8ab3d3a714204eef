/* build/kconfig.h: config fragments: parse, apply to a .config, check what stuck. */
#ifndef MKSERIES_KCONFIG_H
#define MKSERIES_KCONFIG_H

#include <stddef.h>

#include "lib/util.h"

/*
 * One option set by a config fragment. `name` lacks the CONFIG_ prefix;
 * `value` is "n" for "# CONFIG_X is not set", else the text after '='
 * exactly as written (y, m, 42, 0x10, "a string").
 */
struct kconfig_opt {
	char *name;
	char *value;
	char *file;	/* the fragment, as named to the user */
	int line;
};

/* Options in order; a later line for the same name replaces an earlier one. */
struct kconfig_frag {
	struct kconfig_opt *opts;
	size_t nr, alloc;
};
#define KCONFIG_FRAG_INIT { NULL, 0, 0 }

/*
 * Parse fragment text. Blank lines and comments are ignored; any other
 * line must be CONFIG_NAME=VALUE or "# CONFIG_NAME is not set". Errors
 * are printed as FILE:LINE: message; parsing goes on, and MKS_ECONFIG is
 * returned at the end when there was any.
 */
int kconfig_frag_parse(struct kconfig_frag *f, const char *file, const char *buf, size_t len);
/* Read and parse `path`; `display` is how messages name it. */
int kconfig_frag_load(struct kconfig_frag *f, const char *path, const char *display);
void kconfig_frag_release(struct kconfig_frag *f);

/* The .config text `config` with f's options applied: replaced where present, appended else. */
void kconfig_apply(struct strbuf *out, const char *config, const struct kconfig_frag *f);

/*
 * Check that what f asks for is what .config text `config` has. An "n"
 * is met by "# CONFIG_X is not set" and by no line at all. Every option
 * that is not met is described in `missing` ("CONFIG_X=y (FILE:LINE):
 * is not set"), unless `defined` says the tree does not define X at all:
 * then it goes to `absent` instead (either may be NULL to drop them).
 * `defined` may be NULL (every symbol counts as defined). Returns the
 * number of entries added to `missing`.
 */
size_t kconfig_check(struct strvec *missing, struct strvec *absent, const char *config,
		     const struct kconfig_frag *f,
		     int (*defined)(void *data, const char *name), void *data);

/*
 * Symbols that the Kconfig files of source tree `src` define ("config X",
 * "menuconfig X"), looking under arch/<srcarch>/ only for arch/. Sorted.
 */
int kconfig_symbols(struct strvec *out, const char *src, const char *srcarch);
/* For kconfig_check(): `data` is a sorted strvec from kconfig_symbols(). */
int kconfig_symbol_defined(void *data, const char *name);

#endif
