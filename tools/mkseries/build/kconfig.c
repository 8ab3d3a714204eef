/* build/kconfig.c: config fragments: parse them, apply them to a .config, check which options took. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/kconfig.h"

static int is_symbol_char(int c)
{
	return isupper(c) || isdigit(c) || c == '_' || islower(c);
}

/* Length of the symbol name at p (after "CONFIG_"), 0 when none. */
static size_t symbol_len(const char *p)
{
	size_t n = 0;

	while (is_symbol_char((unsigned char)p[n]))
		n++;
	return n;
}

static void frag_set(struct kconfig_frag *f, const char *name, size_t nlen, const char *value,
		     size_t vlen, const char *file, int line)
{
	struct kconfig_opt *o = NULL;
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (strlen(f->opts[i].name) == nlen && !strncmp(f->opts[i].name, name, nlen))
			o = &f->opts[i];
	if (o) {
		free(o->value);
		free(o->file);
	} else {
		ALLOC_GROW(f->opts, f->nr + 1, f->alloc);
		o = &f->opts[f->nr++];
		o->name = xstrndup(name, nlen);
	}
	o->value = xstrndup(value, vlen);
	o->file = xstrdup(file);
	o->line = line;
}

int kconfig_frag_parse(struct kconfig_frag *f, const char *file, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int line = 0, bad = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p), *s, *e;
		size_t n;

		if (!eol)
			eol = end;
		line++;
		s = p;
		e = eol;
		p = eol + 1;
		while (s < e && isspace((unsigned char)*s))
			s++;
		while (e > s && isspace((unsigned char)e[-1]))
			e--;
		if (s == e)
			continue;
		if (e - s > 9 && !strncmp(s, "# CONFIG_", 9)) {
			const char *name = s + 9;

			n = symbol_len(name);
			if (n && (size_t)(e - (name + n)) == strlen(" is not set") &&
			    !strncmp(name + n, " is not set", e - (name + n))) {
				frag_set(f, name, n, "n", 1, file, line);
				continue;
			}
		}
		if (*s == '#')
			continue;
		if (e - s > 7 && !strncmp(s, "CONFIG_", 7)) {
			const char *name = s + 7;

			n = symbol_len(name);
			if (n && name[n] == '=' && name + n + 1 < e) {
				const char *v = name + n + 1;

				/* A string value must be one quoted string. */
				if (*v != '"' || (e - v >= 2 && e[-1] == '"')) {
					frag_set(f, name, n, v, e - v, file, line);
					continue;
				}
			}
		}
		error("%s:%d: not a config line: '%.*s'", file, line, (int)(e - s), s);
		bad++;
	}
	return bad ? MKS_ECONFIG : 0;
}

int kconfig_frag_load(struct kconfig_frag *f, const char *path, const char *display)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (strbuf_read_file(&sb, path)) {
		ret = error_code(MKS_ECONFIG, "cannot read config fragment '%s': %s", display,
				 strerror(errno));
		strbuf_release(&sb);
		return ret;
	}
	ret = kconfig_frag_parse(f, display, sb.buf, sb.len);
	strbuf_release(&sb);
	return ret;
}

void kconfig_frag_release(struct kconfig_frag *f)
{
	size_t i;

	for (i = 0; i < f->nr; i++) {
		free(f->opts[i].name);
		free(f->opts[i].value);
		free(f->opts[i].file);
	}
	free(f->opts);
	f->opts = NULL;
	f->nr = f->alloc = 0;
}

/* The symbol a .config line sets or unsets, and its length; NULL for other lines. */
static const char *config_line_symbol(const char *line, size_t len, size_t *nlen,
				      const char **value, size_t *vlen)
{
	const char *name;

	if (len > 7 && !strncmp(line, "CONFIG_", 7)) {
		name = line + 7;
		*nlen = symbol_len(name);
		if (!*nlen || name[*nlen] != '=')
			return NULL;
		*value = name + *nlen + 1;
		*vlen = line + len - *value;
		return name;
	}
	if (len > 9 && !strncmp(line, "# CONFIG_", 9)) {
		name = line + 9;
		*nlen = symbol_len(name);
		if (!*nlen || (size_t)(line + len - (name + *nlen)) != strlen(" is not set") ||
		    strncmp(name + *nlen, " is not set", strlen(" is not set")))
			return NULL;
		*value = "n";
		*vlen = 1;
		return name;
	}
	return NULL;
}

static const struct kconfig_opt *frag_find(const struct kconfig_frag *f, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (strlen(f->opts[i].name) == n && !strncmp(f->opts[i].name, name, n))
			return &f->opts[i];
	return NULL;
}

static void add_opt_line(struct strbuf *out, const struct kconfig_opt *o)
{
	if (!strcmp(o->value, "n"))
		strbuf_addf(out, "# CONFIG_%s is not set\n", o->name);
	else
		strbuf_addf(out, "CONFIG_%s=%s\n", o->name, o->value);
}

void kconfig_apply(struct strbuf *out, const char *config, const struct kconfig_frag *f)
{
	const char *p = config;
	char *done = xcalloc(f->nr ? f->nr : 1, 1);
	size_t i;

	while (*p) {
		const char *eol = strchrnul(p, '\n'), *name, *value;
		size_t nlen, vlen;
		const struct kconfig_opt *o = NULL;

		name = config_line_symbol(p, eol - p, &nlen, &value, &vlen);
		if (name)
			o = frag_find(f, name, nlen);
		if (o) {
			if (!done[o - f->opts])
				add_opt_line(out, o);
			done[o - f->opts] = 1;
		} else {
			strbuf_add(out, p, eol - p);
			strbuf_addch(out, '\n');
		}
		p = *eol ? eol + 1 : eol;
	}
	for (i = 0; i < f->nr; i++)
		if (!done[i])
			add_opt_line(out, &f->opts[i]);
	free(done);
}

/* What .config says of `name`: its value, "n" when unset or absent. Caller frees. */
static char *config_value(const char *config, const char *name)
{
	const char *p = config;
	size_t want = strlen(name);

	while (*p) {
		const char *eol = strchrnul(p, '\n'), *sym, *value;
		size_t nlen, vlen;

		sym = config_line_symbol(p, eol - p, &nlen, &value, &vlen);
		if (sym && nlen == want && !strncmp(sym, name, nlen))
			return xstrndup(value, vlen);
		p = *eol ? eol + 1 : eol;
	}
	return NULL;
}

size_t kconfig_check(struct strvec *missing, struct strvec *absent, const char *config,
		     const struct kconfig_frag *f,
		     int (*defined)(void *data, const char *name), void *data)
{
	size_t i, nr = 0;

	for (i = 0; i < f->nr; i++) {
		const struct kconfig_opt *o = &f->opts[i];
		char *got = config_value(config, o->name);
		int want_n = !strcmp(o->value, "n");

		if (want_n ? (!got || !strcmp(got, "n")) : (got && !strcmp(got, o->value))) {
			free(got);
			continue;
		}
		if (defined && !defined(data, o->name)) {
			if (absent)
				strvec_pushf(absent, "CONFIG_%s (%s:%d)", o->name, o->file, o->line);
			free(got);
			continue;
		}
		nr++;
		if (missing && want_n)
			strvec_pushf(missing, "# CONFIG_%s is not set (%s:%d): is %s", o->name,
				     o->file, o->line, got);
		else if (missing && (!got || !strcmp(got, "n")))
			strvec_pushf(missing, "CONFIG_%s=%s (%s:%d): is not set", o->name, o->value,
				     o->file, o->line);
		else if (missing)
			strvec_pushf(missing, "CONFIG_%s=%s (%s:%d): is %s", o->name, o->value,
				     o->file, o->line, got);
		free(got);
	}
	return nr;
}

/* Add the symbols defined in one Kconfig file. */
static void kconfig_scan_file(struct strvec *out, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if (strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return;
	}
	for (p = sb.buf; *p;) {
		const char *eol = strchrnul(p, '\n'), *s = p;

		while (s < eol && (*s == ' ' || *s == '\t'))
			s++;
		if (skip_prefix(s, "config", &s) || skip_prefix(s, "menuconfig", &s)) {
			if (*s == ' ' || *s == '\t') {
				size_t n;

				while (*s == ' ' || *s == '\t')
					s++;
				n = symbol_len(s);
				if (n && s + n <= eol) {
					char *name = xstrndup(s, n);

					strvec_push(out, name);
					free(name);
				}
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	strbuf_release(&sb);
}

/* Scan a directory for Kconfig files; in arch/ (`in_arch`) only srcarch's directory counts. */
static void kconfig_scan_dir(struct strvec *out, struct strbuf *path, const char *srcarch,
			     int depth, int in_arch)
{
	DIR *d = opendir(path->buf);
	struct dirent *de;
	size_t len = path->len;

	if (!d)
		return;
	while ((de = readdir(d))) {
		int is_dir = de->d_type == DT_DIR;

		if (de->d_name[0] == '.')
			continue;
		strbuf_setlen(path, len);
		strbuf_addf(path, "/%s", de->d_name);
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			is_dir = !lstat(path->buf, &st) && S_ISDIR(st.st_mode);
		}
		if (is_dir) {
			if (in_arch && (!srcarch || strcmp(de->d_name, srcarch)))
				continue;
			kconfig_scan_dir(out, path, srcarch, depth + 1,
					 depth == 0 && !strcmp(de->d_name, "arch"));
		} else if (starts_with(de->d_name, "Kconfig")) {
			kconfig_scan_file(out, path->buf);
		}
	}
	strbuf_setlen(path, len);
	closedir(d);
}

int kconfig_symbols(struct strvec *out, const char *src, const char *srcarch)
{
	struct strbuf path = STRBUF_INIT;

	if (!dir_exists(src))
		return error("no source tree at '%s'", src);
	strbuf_addstr(&path, src);
	kconfig_scan_dir(out, &path, srcarch, 0, 0);
	strbuf_release(&path);
	qsort(out->v, out->nr, sizeof(*out->v), strp_cmp);
	return 0;
}

int kconfig_symbol_defined(void *data, const char *name)
{
	const struct strvec *syms = data;

	return bsearch(&name, syms->v, syms->nr, sizeof(*syms->v), strp_cmp) != NULL;
}
