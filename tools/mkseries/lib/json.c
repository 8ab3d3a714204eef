/*
 * json.c: the one JSON reader and writer of mkseries: reports, plans and
 * fixups are written, cell reports read back, through here.
 *
 * Our own rather than jansson or json-c: what is written must stay byte
 * for byte what mkseries has always written (two-space indentation,
 * numbers as %.10g, every string cleaned of what is not valid UTF-8 or
 * could drive a terminal, by the same strbuf_add_shown() the text output
 * uses), which those libraries' dump options do not give; what is read
 * needs the line each value starts on for "FILE:LINE:" messages, which
 * jansson keeps only for errors. Both fit in a few hundred lines without
 * another package to install.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

/* ------------------------------------------------------------------ */
/* Writing */

/* s cleaned and quoted as a JSON string, appended to sb. */
static void jw_str_raw(struct strbuf *sb, const char *s)
{
	struct strbuf c = STRBUF_INIT;
	const char *p;

	strbuf_add_shown(&c, s, strlen(s), SHOWN_LINES);
	strbuf_addch(sb, '"');
	for (p = c.buf; *p; p++) {
		switch (*p) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		default:
			strbuf_addch(sb, *p);
		}
	}
	strbuf_addch(sb, '"');
	strbuf_release(&c);
}

/* Start a member: comma, newline, indentation and, inside an object, the key. */
static void jw_key(struct jw *w, const char *key)
{
	if (w->depth) {
		if (!w->first[w->depth])
			strbuf_addch(w->sb, ',');
		w->first[w->depth] = 0;
		strbuf_addch(w->sb, '\n');
		strbuf_addchars(w->sb, ' ', 2 * w->depth);
	}
	if (key) {
		jw_str_raw(w->sb, key);
		strbuf_addstr(w->sb, ": ");
	}
}

void jw_open(struct jw *w, const char *key, char bracket)
{
	jw_key(w, key);
	strbuf_addch(w->sb, bracket);
	if (w->depth + 1 >= (int)ARRAY_SIZE(w->first))
		BUG("JSON nested too deep");
	w->first[++w->depth] = 1;
}

void jw_close(struct jw *w, char bracket)
{
	int empty = w->first[w->depth];

	w->depth--;
	if (!empty) {
		strbuf_addch(w->sb, '\n');
		strbuf_addchars(w->sb, ' ', 2 * w->depth);
	}
	strbuf_addch(w->sb, bracket);
	if (!w->depth)
		strbuf_addch(w->sb, '\n');
}

void jw_string(struct jw *w, const char *key, const char *value)
{
	jw_key(w, key);
	if (value)
		jw_str_raw(w->sb, value);
	else
		strbuf_addstr(w->sb, "null");
}

void jw_number(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	if (isnan(v) || isinf(v))
		strbuf_addstr(w->sb, "null");
	else
		strbuf_addf(w->sb, "%.10g", v);
}

void jw_count(struct jw *w, const char *key, size_t v)
{
	jw_key(w, key);
	strbuf_addf(w->sb, "%zu", v);
}

void jw_bool(struct jw *w, const char *key, int v)
{
	jw_key(w, key);
	strbuf_addstr(w->sb, v ? "true" : "false");
}

void jw_strings(struct jw *w, const char *key, const char *const *v, size_t nr)
{
	size_t i;

	jw_open(w, key, '[');
	for (i = 0; i < nr; i++)
		jw_string(w, NULL, v[i]);
	jw_close(w, ']');
}

/* ------------------------------------------------------------------ */
/* Reading: a tree of values, with the line each starts on */

struct jparser {
	const char *file;
	const char *p, *end;
	int line;
	int depth;
	char near[16];		/* what jnear() last described */
};

#define JSON_MAX_DEPTH 64

void jval_release(struct jval *v)
{
	size_t i;

	for (i = 0; i < v->nr; i++) {
		jval_release(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	memset(v, 0, sizeof(*v));
}

__attribute__((format(printf, 2, 3)))
static int jerror(struct jparser *jp, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	error("%s:%d: %s", jp->file, jp->line, sb.buf);
	strbuf_release(&sb);
	return MKS_ECONFIG;
}

static void jskip_ws(struct jparser *jp)
{
	while (jp->p < jp->end) {
		char c = *jp->p;

		if (c == '\n')
			jp->line++;
		else if (c != ' ' && c != '\t' && c != '\r')
			break;
		jp->p++;
	}
}

/* What stands at the parser's position, for a message; valid until the next call. */
static const char *jnear(struct jparser *jp)
{
	if (jp->p >= jp->end)
		return "the end of the file";
	if ((unsigned char)*jp->p < 0x20 || (unsigned char)*jp->p >= 0x7f)
		snprintf(jp->near, sizeof(jp->near), "byte 0x%02x", (unsigned char)*jp->p);
	else
		snprintf(jp->near, sizeof(jp->near), "'%c'", *jp->p);
	return jp->near;
}

static void utf8_put(struct strbuf *sb, unsigned cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, 0xc0 | (cp >> 6));
		strbuf_addch(sb, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, 0xe0 | (cp >> 12));
		strbuf_addch(sb, 0x80 | ((cp >> 6) & 0x3f));
		strbuf_addch(sb, 0x80 | (cp & 0x3f));
	} else {
		strbuf_addch(sb, 0xf0 | (cp >> 18));
		strbuf_addch(sb, 0x80 | ((cp >> 12) & 0x3f));
		strbuf_addch(sb, 0x80 | ((cp >> 6) & 0x3f));
		strbuf_addch(sb, 0x80 | (cp & 0x3f));
	}
}

static int jhex4(struct jparser *jp, unsigned *out)
{
	int i;

	*out = 0;
	if (jp->end - jp->p < 4)
		return jerror(jp, "incomplete \\u escape");
	for (i = 0; i < 4; i++) {
		char c = jp->p[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return jerror(jp, "bad \\u escape");
		*out = *out * 16 + d;
	}
	jp->p += 4;
	return 0;
}

/* At the opening quote. */
static int jstring(struct jparser *jp, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	jp->p++;
	for (;;) {
		unsigned char c;

		if (jp->p >= jp->end) {
			ret = jerror(jp, "unterminated string");
			goto cleanup;
		}
		c = *jp->p++;
		if (c == '"')
			break;
		if (c < 0x20) {
			jp->p--;
			ret = jerror(jp, "control character in a string (%s)", jnear(jp));
			goto cleanup;
		}
		if (c != '\\') {
			strbuf_addch(&sb, c);
			continue;
		}
		if (jp->p >= jp->end) {
			ret = jerror(jp, "unterminated string");
			goto cleanup;
		}
		c = *jp->p++;
		switch (c) {
		case '"': case '\\': case '/':
			strbuf_addch(&sb, c);
			break;
		case 'b': strbuf_addch(&sb, '\b'); break;
		case 'f': strbuf_addch(&sb, '\f'); break;
		case 'n': strbuf_addch(&sb, '\n'); break;
		case 'r': strbuf_addch(&sb, '\r'); break;
		case 't': strbuf_addch(&sb, '\t'); break;
		case 'u': {
			unsigned cp, lo;

			if ((ret = jhex4(jp, &cp)))
				goto cleanup;
			if (cp >= 0xd800 && cp < 0xdc00 && jp->end - jp->p >= 6 && jp->p[0] == '\\' &&
			    jp->p[1] == 'u') {
				const char *save = jp->p;

				jp->p += 2;
				if ((ret = jhex4(jp, &lo)))
					goto cleanup;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					jp->p = save;
			}
			if (!cp) {
				ret = jerror(jp, "\\u0000 in a string");
				goto cleanup;
			}
			/* A lone surrogate is not a character. */
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			utf8_put(&sb, cp);
			break;
		}
		default:
			jp->p--;
			ret = jerror(jp, "bad escape '\\%c' in a string", c >= 0x20 && c < 0x7f ? c : '?');
			goto cleanup;
		}
	}
	*out = strbuf_detach(&sb, NULL);
cleanup:
	strbuf_release(&sb);
	return ret;
}

static int jnumber(struct jparser *jp, double *out)
{
	const char *s = jp->p, *p = s;
	char buf[64];

	if (p < jp->end && *p == '-')
		p++;
	if (p < jp->end && *p == '0') {
		p++;
	} else if (p < jp->end && *p >= '1' && *p <= '9') {
		while (p < jp->end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return jerror(jp, "expected a value, found %s", jnear(jp));
	}
	if (p < jp->end && *p == '.') {
		p++;
		if (p >= jp->end || *p < '0' || *p > '9')
			return jerror(jp, "bad number");
		while (p < jp->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < jp->end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < jp->end && (*p == '+' || *p == '-'))
			p++;
		if (p >= jp->end || *p < '0' || *p > '9')
			return jerror(jp, "bad number");
		while (p < jp->end && *p >= '0' && *p <= '9')
			p++;
	}
	if ((size_t)(p - s) >= sizeof(buf))
		return jerror(jp, "number too long");
	memcpy(buf, s, p - s);
	buf[p - s] = '\0';
	*out = strtod(buf, NULL);
	if (!isfinite(*out))
		return jerror(jp, "number out of range");
	jp->p = p;
	return 0;
}

static int jvalue(struct jparser *jp, struct jval *v);

struct jkey {
	const char *key;
	size_t i;
};

static int jkey_cmp(const void *a, const void *b)
{
	const struct jkey *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/*
 * An object that names a key twice: readers take one of the two and
 * drop the other without a word (RFC 8259 leaves which to them), so a
 * report could show one value and be judged on another. Sorted, not
 * compared pairwise: an object of many keys must not cost their square.
 */
static int jdup_keys(struct jparser *jp, const struct jval *v)
{
	struct jkey *k;
	size_t i;
	int ret = 0;

	if (v->nr < 2)
		return 0;
	k = xcalloc(v->nr, sizeof(*k));
	for (i = 0; i < v->nr; i++) {
		k[i].key = v->keys[i];
		k[i].i = i;
	}
	qsort(k, v->nr, sizeof(*k), jkey_cmp);
	for (i = 1; i < v->nr; i++) {
		if (strcmp(k[i - 1].key, k[i].key))
			continue;
		ret = error_code(MKS_ECONFIG, "%s:%d: key '%s' appears twice in one object (first on line %d)",
				 jp->file, v->items[k[i].i].line, shown(k[i].key),
				 v->items[k[i - 1].i].line);
		break;
	}
	free(k);
	return ret;
}

static int jcontainer(struct jparser *jp, struct jval *v, int object)
{
	char close = object ? '}' : ']';
	int ret;

	if (++jp->depth > JSON_MAX_DEPTH)
		return jerror(jp, "nested deeper than %d levels", JSON_MAX_DEPTH);
	v->type = object ? J_OBJECT : J_ARRAY;
	jp->p++;
	jskip_ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		jp->depth--;
		return 0;
	}
	for (;;) {
		char *key = NULL;

		jskip_ws(jp);
		if (object) {
			if (jp->p >= jp->end || *jp->p != '"')
				return jerror(jp, "expected a key, found %s", jnear(jp));
			if ((ret = jstring(jp, &key)))
				return ret;
			jskip_ws(jp);
			if (jp->p >= jp->end || *jp->p != ':') {
				free(key);
				return jerror(jp, "expected ':', found %s", jnear(jp));
			}
			jp->p++;
		}
		ALLOC_GROW(v->items, v->nr + 1, v->alloc);
		if (object) {
			v->keys = xrealloc(v->keys, v->alloc * sizeof(*v->keys));
			v->keys[v->nr] = key;
		}
		memset(&v->items[v->nr], 0, sizeof(*v->items));
		v->nr++;
		if ((ret = jvalue(jp, &v->items[v->nr - 1])))
			return ret;
		jskip_ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			break;
		}
		return jerror(jp, "expected ',' or '%c', found %s", close, jnear(jp));
	}
	jp->depth--;
	return object ? jdup_keys(jp, v) : 0;
}

static int jword(struct jparser *jp, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(jp->end - jp->p) < n || strncmp(jp->p, word, n))
		return 0;
	jp->p += n;
	return 1;
}

static int jvalue(struct jparser *jp, struct jval *v)
{
	jskip_ws(jp);
	v->line = jp->line;
	if (jp->p >= jp->end)
		return jerror(jp, "expected a value, found the end of the file");
	switch (*jp->p) {
	case '{':
		return jcontainer(jp, v, 1);
	case '[':
		return jcontainer(jp, v, 0);
	case '"':
		v->type = J_STRING;
		return jstring(jp, &v->str);
	}
	if (jword(jp, "null")) {
		v->type = J_NULL;
		return 0;
	}
	if (jword(jp, "true") || jword(jp, "false")) {
		v->type = J_BOOL;
		v->boolean = jp->p[-1] == 'e' && jp->p[-2] == 'u';
		return 0;
	}
	v->type = J_NUMBER;
	return jnumber(jp, &v->number);
}

/*
 * JSON is UTF-8 (RFC 8259). A byte that is not would be shown escaped
 * and compared raw: a name that reads the same as another and is not.
 */
static int jcheck_utf8(struct jparser *jp)
{
	const char *p = jp->p;
	int line = 1;

	while (p < jp->end) {
		size_t n = utf8_char_len(p, jp->end - p);

		if (!n) {
			jp->line = line;
			return jerror(jp, "not valid UTF-8 (byte 0x%02x)", (unsigned char)*p);
		}
		if (*p == '\n')
			line++;
		p += n;
	}
	return 0;
}

int json_parse(struct jval *root, const char *file, const char *buf, size_t len)
{
	struct jparser jp = { .file = file, .p = buf, .end = buf + len, .line = 1 };
	int ret;

	memset(root, 0, sizeof(*root));
	/* A UTF-8 byte order mark is tolerated. */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		jp.p += 3;
	if ((ret = jcheck_utf8(&jp)))
		return ret;
	ret = jvalue(&jp, root);
	if (!ret) {
		jskip_ws(&jp);
		if (jp.p < jp.end)
			ret = jerror(&jp, "unexpected %s after the JSON value", jnear(&jp));
	}
	if (ret)
		jval_release(root);
	return ret;
}

const struct jval *json_get(const struct jval *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != J_OBJECT)
		return NULL;
	for (i = 0; i < obj->nr; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}
