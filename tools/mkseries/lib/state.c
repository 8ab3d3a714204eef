/* lib/state.c: key=value state files: read, query, change, write atomically. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/state.h"

int state_read(struct state *s, const char *path)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	char *p, *eol;
	int ret = 0;

	if (strbuf_read_regular(&sb, path, STATE_FILE_MAX, "a state file may hold", &why)) {
		if (errno != ENOENT)
			ret = error("cannot read state file '%s': %s; mkseries writes its state "
				    "files itself, as regular files of a few KiB: move this one away",
				    path, why.buf);
		goto cleanup;
	}
	/*
	 * Pushed as they come, not through state_set(): a hostile file of a
	 * million keys must not cost a million searches. state_index()
	 * looks from the end, so that a key given twice reads as its last
	 * line, as before.
	 */
	for (p = sb.buf; *p; p = eol + 1) {
		eol = strchrnul(p, '\n');
		if (eol > p && memchr(p, '=', eol - p)) {
			char *kv = xstrndup(p, eol - p), *q;

			for (q = kv; *q; q++)
				if (*q == '\r')
					*q = ' ';
			strvec_push(&s->kv, kv);
			free(kv);
		}
		if (!*eol)
			break;
	}
cleanup:
	strbuf_release(&why);
	strbuf_release(&sb);
	return ret;
}

static ssize_t state_index(const struct state *s, const char *key)
{
	size_t i, n = strlen(key);

	for (i = s->kv.nr; i-- > 0;)
		if (!strncmp(s->kv.v[i], key, n) && s->kv.v[i][n] == '=')
			return i;
	return -1;
}

const char *state_get(const struct state *s, const char *key)
{
	ssize_t i = state_index(s, key);

	return i < 0 ? NULL : s->kv.v[i] + strlen(key) + 1;
}

void state_set(struct state *s, const char *key, const char *value)
{
	ssize_t i = state_index(s, key);
	char *kv = xstrfmt("%s=%s", key, value ? value : ""), *p;

	for (p = kv; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	if (i < 0) {
		strvec_push(&s->kv, kv);
		free(kv);
		return;
	}
	free((char *)s->kv.v[i]);
	s->kv.v[i] = kv;
}

void state_vsetf(struct state *s, const char *key, const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	state_set(s, key, sb.buf);
	strbuf_release(&sb);
}

void state_setf(struct state *s, const char *key, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	state_vsetf(s, key, fmt, ap);
	va_end(ap);
}

int state_write(const struct state *s, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	size_t i;
	int ret = 0;

	if (slash) {
		*slash = '\0';
		if (*dir && mkdir_p(dir, 0755))
			ret = error("cannot create '%s': %s", dir, strerror(errno));
	}
	for (i = 0; !ret && i < s->kv.nr; i++)
		strbuf_addf(&sb, "%s\n", s->kv.v[i]);
	if (!ret && write_file_atomic(path, sb.buf, sb.len))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	strbuf_release(&sb);
	free(dir);
	return ret;
}

void state_release(struct state *s)
{
	strvec_clear(&s->kv);
}
