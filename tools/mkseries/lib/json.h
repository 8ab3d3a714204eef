/* lib/json.h: the one JSON reader and writer of mkseries (see json.c for why our own). */
#ifndef MKSERIES_JSON_H
#define MKSERIES_JSON_H

#include <stddef.h>

#include "lib/util.h"

/*
 * A writer into sb: members on their own lines, indented two spaces a
 * level, a newline after the outermost value. Start it as
 * { sb, 0, { 0 } }. Every string is cleaned as strbuf_add_shown() with
 * SHOWN_LINES does (bytes that are not UTF-8 and control characters
 * become visible escapes) before it is quoted, so the output is valid
 * UTF-8 JSON whatever the input.
 */
struct jw {
	struct strbuf *sb;
	int depth;
	int first[32];
};

/* Open an object ('{') or array ('['); `key` NULL inside an array or at the top. */
void jw_open(struct jw *w, const char *key, char bracket);
void jw_close(struct jw *w, char bracket);
/* A string member; NULL is written as null. */
void jw_string(struct jw *w, const char *key, const char *value);
/* A number (%.10g); NaN and infinities are written as null. */
void jw_number(struct jw *w, const char *key, double v);
void jw_count(struct jw *w, const char *key, size_t v);
void jw_bool(struct jw *w, const char *key, int v);
/* An array of the nr strings of v (a strvec's, or any list of names). */
void jw_strings(struct jw *w, const char *key, const char *const *v, size_t nr);

enum jtype { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct jval {
	enum jtype type;
	int line;
	int boolean;
	double number;
	char *str;
	struct jval *items;	/* ARRAY elements, OBJECT values */
	char **keys;		/* OBJECT */
	size_t nr, alloc;
};

/*
 * Parse the whole of buf (len bytes; a UTF-8 byte order mark is allowed)
 * into *root, nested at most 64 deep. buf must be valid UTF-8 and no
 * object may name a key twice. Returns 0, or MKS_ECONFIG after printing
 * "file:line: ..." with *root left empty.
 */
int json_parse(struct jval *root, const char *file, const char *buf, size_t len);
void jval_release(struct jval *v);
/* Member `key` of obj; NULL when obj is not an object or has no such member. */
const struct jval *json_get(const struct jval *obj, const char *key);

#endif
