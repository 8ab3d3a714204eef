/* build.c: build a variant of a branch: materialise its tree, merge the config fragments, make bzImage. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "build.h"
#include "select.h"
#include "gitutil.h"
#include "tree.h"

const char *const build_variants[] = { "base", "kit", NULL };

int variant_known(const char *variant)
{
	size_t i;

	for (i = 0; build_variants[i]; i++)
		if (!strcmp(variant, build_variants[i]))
			return 1;
	return 0;
}

int variant_name_ok(const char *variant)
{
	if (!islower((unsigned char)*variant) && !isdigit((unsigned char)*variant))
		return 0;
	return !variant[strspn(variant, "abcdefghijklmnopqrstuvwxyz0123456789-")];
}

static int branch_has_variant(const struct kernel_branch *b, const char *variant)
{
	return variant_known(variant) || branch_find_variant(b, variant);
}

static void known_variants(struct strbuf *sb, struct kernel_branch *const *sel, size_t nr)
{
	struct strvec seen = STRVEC_INIT;
	size_t i, j, k;

	for (i = 0; build_variants[i]; i++)
		strvec_push(&seen, build_variants[i]);
	for (i = 0; i < nr; i++)
		for (j = 0; j < sel[i]->nr_variants; j++) {
			for (k = 0; k < seen.nr && strcmp(seen.v[k], sel[i]->variants[j].name); k++)
				;
			if (k == seen.nr)
				strvec_push(&seen, sel[i]->variants[j].name);
		}
	for (i = 0; i < seen.nr; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", seen.v[i]);
	strvec_clear(&seen);
}

int variant_resolve(git_oid *out, char **refname, struct strbuf *why, git_repository *repo,
		    const struct kit *kit, const struct kernel_branch *b, const char *variant)
{
	git_object *obj = NULL;
	int err;

	*refname = NULL;
	if (!strcmp(variant, "base")) {
		*refname = xstrdup(tree_base_refname(b));
		err = tree_base(out, repo, b);
		if (err == MKS_ENOTFOUND)
			strbuf_addf(why, "not imported (no %s): run mkseries import --branch %s",
				    *refname, b->name);
		return err;
	}
	if (!strcmp(variant, "kit") || branch_find_variant(b, variant)) {
		*refname = kit_refname(kit, b, variant);
	} else {
		struct strbuf known = STRBUF_INIT;
		struct kernel_branch *one = (struct kernel_branch *)b;

		known_variants(&known, &one, 1);
		err = error_code(MKS_ECONFIG, "unknown variant '%s' of '%s' (known: %s)", variant,
				 b->name, known.buf);
		strbuf_release(&known);
		return err;
	}
	err = git_revparse_single(&obj, repo, *refname);
	if (err == GIT_ENOTFOUND) {
		strbuf_addf(why, "no applied branch %s: run mkseries apply --branch %s", *refname,
			    b->name);
		return MKS_ENOTFOUND;
	}
	if (err >= 0) {
		git_object *commit = NULL;

		err = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
		if (err >= 0)
			git_oid_cpy(out, git_object_id(commit));
		git_object_free(commit);
	}
	git_object_free(obj);
	if (err < 0)
		return gitutil_error(err, "cannot read '%s'", *refname);
	return 0;
}

int variants_select(struct strvec *out, const struct strvec *given)
{
	size_t i, j;

	if (!given->nr) {
		for (i = 0; build_variants[i]; i++)
			strvec_push(out, build_variants[i]);
		return 0;
	}
	for (i = 0; i < given->nr; i++) {
		if (!variant_name_ok(given->v[i]))
			return error_code(MKS_ECONFIG, "unknown variant '%s' (base, kit, or one a kernels/<branch>.yaml declares)",
					  given->v[i]);
		for (j = 0; j < out->nr; j++)
			if (!strcmp(out->v[j], given->v[i]))
				break;
		if (j == out->nr)
			strvec_push(out, given->v[i]);
	}
	return 0;
}

int variants_check(const struct strvec *given, struct kernel_branch *const *sel, size_t nr)
{
	size_t i, j;

	for (i = 0; i < given->nr; i++) {
		struct strbuf known = STRBUF_INIT;

		for (j = 0; j < nr && !branch_has_variant(sel[j], given->v[i]); j++)
			;
		if (j < nr)
			continue;
		known_variants(&known, sel, nr);
		error("unknown variant '%s' (known: %s)", given->v[i], known.buf);
		strbuf_release(&known);
		return MKS_ECONFIG;
	}
	return 0;
}

void variants_of_branch(struct strvec *out, const struct kernel_branch *b,
			const struct strvec *given)
{
	size_t i, j;

	if (!given || !given->nr) {
		for (i = 0; build_variants[i]; i++)
			strvec_push(out, build_variants[i]);
		for (i = 0; i < b->nr_variants; i++)
			strvec_push(out, b->variants[i].name);
		return;
	}
	for (i = 0; i < given->nr; i++) {
		if (!branch_has_variant(b, given->v[i]))
			continue;
		for (j = 0; j < out->nr && strcmp(out->v[j], given->v[i]); j++)
			;
		if (j == out->nr)
			strvec_push(out, given->v[i]);
	}
}

int workdir_lock(struct workdir_lock *lk, const char *workdir)
{
	char *path = path_join(workdir, "lock");
	int ret = 0;

	if (mkdir_p(workdir, 0755)) {
		ret = error("cannot create '%s': %s", workdir, strerror(errno));
		goto cleanup;
	}
	lk->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lk->fd < 0) {
		ret = error("cannot open '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	if (flock(lk->fd, LOCK_EX | LOCK_NB)) {
		ret = error_code(MKS_ELOCKED, "'%s' is in use by another mkseries (lock %s)",
				 workdir, path);
		close(lk->fd);
		lk->fd = -1;
	}
cleanup:
	free(path);
	return ret;
}

void workdir_unlock(struct workdir_lock *lk)
{
	if (lk->fd >= 0)
		close(lk->fd);
	lk->fd = -1;
}

char *mks_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return path_join(xdg, "mkseries");
	if (home && *home)
		return xstrfmt("%s/.cache/mkseries", home);
	return xstrdup("/tmp/mkseries-cache");
}

/* `path` made absolute, with "." and ".." components folded away. Caller frees. */
static char *absolute_path(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char cwd[4096];
	const char *p;

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		strbuf_addstr(&sb, cwd);
	for (p = path; *p;) {
		const char *slash = strchrnul(p, '/');
		size_t n = slash - p;

		if (n == 2 && !strncmp(p, "..", 2)) {
			char *last = strrchr(sb.buf, '/');

			strbuf_setlen(&sb, last ? (size_t)(last - sb.buf) : 0);
		} else if (n && !(n == 1 && *p == '.')) {
			strbuf_addch(&sb, '/');
			strbuf_add(&sb, p, n);
		}
		p = *slash ? slash + 1 : slash;
	}
	if (!sb.len)
		strbuf_addch(&sb, '/');
	return strbuf_detach(&sb, NULL);
}

char *branch_workdir(const struct kit *kit, const char *workdir_opt, const struct kernel_branch *b)
{
	char *root, *ret;

	if (workdir_opt && *workdir_opt) {
		root = absolute_path(workdir_opt);
	} else {
		char *cache = mks_cache_dir();

		root = xstrfmt("%s/work/%s", cache, kit_id(kit));
		free(cache);
	}
	ret = path_join(root, b->name);
	free(root);
	return ret;
}

/* ------------------------------------------------------------------ */
/* State files */

int state_read(struct state *s, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *p, *eol;

	if (strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return errno == ENOENT ? 0 : error("cannot read '%s': %s", path, strerror(errno));
	}
	for (p = sb.buf; *p; p = eol + 1) {
		eol = strchrnul(p, '\n');
		if (eol > p && memchr(p, '=', eol - p)) {
			char *kv = xstrndup(p, eol - p);
			char *eq = strchr(kv, '=');

			*eq = '\0';
			state_set(s, kv, eq + 1);
			free(kv);
		}
		if (!*eol)
			break;
	}
	strbuf_release(&sb);
	return 0;
}

static ssize_t state_index(const struct state *s, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < s->kv.nr; i++)
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

void state_setf(struct state *s, const char *key, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	state_set(s, key, sb.buf);
	strbuf_release(&sb);
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

/* ------------------------------------------------------------------ */
/* Config fragments */

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

/* ------------------------------------------------------------------ */
/* Reading a build log */

/* Whether line starts with "PATH:LINE:" (and an optional "COL:"); *rest is after it. */
static int has_location(const char *line, const char **rest)
{
	const char *p = line;

	while (*p && *p != ':' && *p != ' ')
		p++;
	if (p == line || *p != ':' || !isdigit((unsigned char)p[1]))
		return 0;
	p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p != ':')
		return 0;
	p++;
	if (isdigit((unsigned char)*p)) {
		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ':')
			return 0;
		p++;
	}
	*rest = p;
	return 1;
}

char *build_first_error(const char *log, const char *srcdir)
{
	const char *p = log, *linker = NULL, *make = NULL;
	size_t linker_len = 0, make_len = 0, slen = srcdir ? strlen(srcdir) : 0;

	while (*p) {
		const char *eol = strchrnul(p, '\n'), *rest;
		char *line = xstrndup(p, eol - p);

		if (has_location(line, &rest) &&
		    (starts_with(rest, " error: ") || starts_with(rest, " fatal error: "))) {
			const char *shown = line;

			if (slen && !strncmp(line, srcdir, slen) && line[slen] == '/')
				shown += slen + 1;
			rest = xstrdup(shown);
			free(line);
			return (char *)rest;
		}
		if (!linker && (strstr(line, "undefined reference to") ||
				(starts_with(line, "ld: ") && strstr(line, "error"))))
			linker = p, linker_len = eol - p;
		if (!make && strstr(line, "*** ") && starts_with(line, "make"))
			make = p, make_len = eol - p;
		free(line);
		p = *eol ? eol + 1 : eol;
	}
	if (linker)
		return xstrndup(linker, linker_len);
	if (make)
		return xstrndup(make, make_len);
	return NULL;
}

const char *format_duration_to(char *buf, double seconds)
{
	long s = (long)(seconds + 0.5);

	if (s < 60)
		snprintf(buf, 32, "%lds", s);
	else if (s < 3600)
		snprintf(buf, 32, "%ldm%02lds", s / 60, s % 60);
	else
		snprintf(buf, 32, "%ldh%02ldm%02lds", s / 3600, s / 60 % 60, s % 60);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Building a variant */

void build_result_release(struct build_result *r)
{
	free(r->bzimage);
	free(r->log);
	free(r->config_hash);
	free(r->failure);
	free(r->details);
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

/* What the progress line shows and when it was last drawn. */
struct progress {
	const char *label;
	double start, drawn;
	char last[160];
	int changed;
	int enabled;
};

static void progress_draw(struct progress *pg, int force)
{
	struct winsize ws;
	int cols = 80;
	struct strbuf sb = STRBUF_INIT;
	double now = mono_seconds();

	if (!pg->enabled || (!force && !pg->changed && now - pg->drawn < 1))
		return;
	if (!ioctl(2, TIOCGWINSZ, &ws) && ws.ws_col > 20)
		cols = ws.ws_col;
	strbuf_addf(&sb, "%s: building %s", pg->label, format_duration(now - pg->start));
	if (pg->last[0])
		strbuf_addf(&sb, "  %s", shown(pg->last));
	if (sb.len > (size_t)cols - 1)
		strbuf_setlen(&sb, cols - 1);
	fprintf(stderr, "\r\033[K%s", sb.buf);
	fflush(stderr);
	strbuf_release(&sb);
	pg->drawn = now;
	pg->changed = 0;
}

static void progress_clear(struct progress *pg)
{
	if (pg->enabled && pg->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

/* Keep kbuild's "  CC      mm/mremap.o" lines, with the spaces folded. */
static void build_on_line(void *data, const char *line)
{
	struct progress *pg = data;
	const char *p = line;
	size_t n = 0;

	if (line[0] != ' ' || line[1] != ' ' || !isupper((unsigned char)line[2]))
		return;
	while (*p == ' ')
		p++;
	while (*p && n < sizeof(pg->last) - 1) {
		if (*p == ' ') {
			while (p[1] == ' ')
				p++;
		}
		pg->last[n++] = *p++;
	}
	pg->last[n] = '\0';
	pg->changed = 1;
}

static int build_on_tick(void *data)
{
	struct progress *pg = data;

	if (pg->changed && mono_seconds() - pg->drawn < 0.1)
		return 0;
	progress_draw(pg, 0);
	return 0;
}

/* Everything a make run of this variant shares. */
struct make_ctx {
	const char *src, *out, *log;
	const struct arch_info *arch;
	const char *cross;	/* CROSS_COMPILE, "" for the host's own compiler */
	unsigned jobs;
	char *ccache_dir;	/* NULL when ccache is not installed */
	char *timestamp;
	struct progress *pg;
};

static int have_program(const char *name)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	int found = 0;

	while (path && *path && !found) {
		const char *colon = strchrnul(path, ':');

		strbuf_reset(&sb);
		strbuf_add(&sb, path, colon - path);
		strbuf_addf(&sb, "/%s", name);
		found = !access(sb.buf, X_OK);
		path = *colon ? colon + 1 : colon;
	}
	strbuf_release(&sb);
	return found;
}

/* make's ARCH=: the arch's directory, but x86_64 keeps its own name (it picks 64-bit in Kconfig). */
static const char *make_arch(const struct arch_info *a)
{
	return !strcmp(a->name, "x86_64") ? "x86_64" : a->srcarch;
}

/* Run make with the variant's settings and `target`; returns make's exit status or -1. */
static int run_make(struct make_ctx *m, const char *target)
{
	struct child c = CHILD_INIT;
	int status;
	FILE *f;

	strvec_pushl(&c.argv, "make", "-C", m->src, NULL);
	strvec_pushf(&c.argv, "O=%s", m->out);
	/* ARCH= always, so that a tree never guesses from the host. */
	strvec_pushf(&c.argv, "ARCH=%s", make_arch(m->arch));
	if (*m->cross)
		strvec_pushf(&c.argv, "CROSS_COMPILE=%s", m->cross);
	if (m->ccache_dir)
		strvec_pushf(&c.argv, "CC=ccache %sgcc", m->cross);
	if (m->jobs)
		strvec_pushf(&c.argv, "-j%u", m->jobs);
	strvec_push(&c.argv, target);
	strvec_pushl(&c.env, "LC_ALL=C", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", NULL);
	strvec_pushf(&c.env, "KBUILD_BUILD_TIMESTAMP=%s", m->timestamp);
	strvec_pushl(&c.env, "KBUILD_BUILD_USER=mkseries", "KBUILD_BUILD_HOST=mkseries",
		      "KBUILD_BUILD_VERSION=1", NULL);
	if (m->ccache_dir)
		strvec_pushf(&c.env, "CCACHE_DIR=%s", m->ccache_dir);
	c.log_path = m->log;
	c.err_to_out = 1;
	if (m->pg && m->pg->enabled) {
		c.on_line = build_on_line;
		c.on_tick = build_on_tick;
		c.data = m->pg;
	}
	f = fopen(m->log, "a");
	if (f) {
		size_t i;

		fputs("$", f);
		for (i = 0; i < c.env.nr; i++)
			if (strchr(c.env.v[i], '='))
				fprintf(f, " %s", c.env.v[i]);
		for (i = 0; i < c.argv.nr; i++)
			fprintf(f, strchr(c.argv.v[i], ' ') ? " '%s'" : " %s", c.argv.v[i]);
		fputc('\n', f);
		fclose(f);
	}
	status = child_run(&c);
	child_release(&c);
	return status;
}

/* A make target that writes a .config: tinyconfig, defconfig, x86_64_defconfig ... */
static int is_config_target(const char *s)
{
	const char *p;

	if (!ends_with(s, "config") || strlen(s) > 64)
		return 0;
	for (p = s; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

char *compiler_version(const char *cross)
{
	char *gcc = xstrfmt("%sgcc", cross ? cross : "");
	char *v = program_version(gcc, "none");

	free(gcc);
	return v;
}

/*
 * Everything that decides what the build makes besides the commit: the
 * config base, the fragments' text, the make variables (ccache among
 * them) and the compiler.
 */
static int build_inputs(struct strbuf *inputs, struct kconfig_frag *frag, const struct kit *kit,
			const struct kernel_branch *b)
{
	const char *base = b->config_base ? b->config_base : "defconfig";
	char *path = kit_file(kit, base), *compiler = compiler_version(branch_cross(b));
	int ret = 0;
	size_t i;

	strbuf_addf(inputs, "arch %s\ncross %s\nimage %s\nccache %d\ncompiler %s\nbase %s\n",
		    b->arch ? b->arch : "x86_64", branch_cross(b), branch_image(b),
		    have_program("ccache"), compiler, base);
	free(compiler);
	if (!is_config_target(base) || file_exists(path)) {
		struct strbuf sb = STRBUF_INIT;

		if (strbuf_read_file(&sb, path))
			ret = error_code(MKS_ECONFIG,
					 "%s:%d: config base '%s' is neither a file in the kit nor a *config make target",
					 b->path, b->line, base);
		strbuf_addf(inputs, "base-file %zu\n", sb.len);
		strbuf_add(inputs, sb.buf, sb.len);
		strbuf_release(&sb);
	}
	free(path);
	for (i = 0; i < b->nr_fragments; i++) {
		char *fp = kit_file(kit, b->fragments[i]);
		struct strbuf sb = STRBUF_INIT;

		if (strbuf_read_file(&sb, fp)) {
			ret = error_code(MKS_ECONFIG, "%s: cannot read config fragment '%s': %s",
					 b->path, b->fragments[i], strerror(errno));
		} else {
			strbuf_addf(inputs, "fragment %s %zu\n", b->fragments[i], sb.len);
			strbuf_add(inputs, sb.buf, sb.len);
			if (kconfig_frag_parse(frag, b->fragments[i], sb.buf, sb.len))
				ret = MKS_ECONFIG;
		}
		strbuf_release(&sb);
		free(fp);
	}
	return ret;
}

int build_inputs_key(char **out, const struct kit *kit, const struct kernel_branch *b)
{
	struct kconfig_frag frag = KCONFIG_FRAG_INIT;
	struct strbuf inputs = STRBUF_INIT;
	int ret = build_inputs(&inputs, &frag, kit, b);

	*out = ret ? NULL : blob_hash_hex(inputs.buf, inputs.len);
	kconfig_frag_release(&frag);
	strbuf_release(&inputs);
	return ret;
}

const struct arch_info *branch_arch(const struct kernel_branch *b)
{
	const struct arch_info *a = arch_find(b->arch ? b->arch : "x86_64");

	if (!a)
		BUG("branch '%s' has unknown arch '%s' after kit_load()", b->name, b->arch);
	return a;
}

const char *branch_cross(const struct kernel_branch *b)
{
	const struct arch_info *a = branch_arch(b);

	if (b->cross)
		return b->cross;
	return arch_is_host(a) ? "" : a->cross;
}

const char *branch_image(const struct kernel_branch *b)
{
	return b->image ? b->image : branch_arch(b)->image;
}

int branch_check_compiler(const struct kernel_branch *b)
{
	const struct arch_info *a = branch_arch(b);
	const char *cross = branch_cross(b);
	char *gcc;
	int ret = 0;

	if (!*cross)
		return 0;
	gcc = xstrfmt("%sgcc", cross);
	if (!have_program(gcc))
		ret = error_code(MKS_ECONFIG,
				 "%s:%d: cannot build arch %s: no '%s' on PATH (%s: make deps, or apt-get install %s)",
				 b->path, b->line, a->name, gcc,
				 b->cross ? "the kit's cross: prefix" : "Debian's cross compiler",
				 a->cross_packages);
	free(gcc);
	return ret;
}

/* The make target that writes `image`: its last component (bzImage, Image, vmlinux, image). */
static const char *image_target(const char *image)
{
	const char *slash = strrchr(image, '/');

	return slash ? slash + 1 : image;
}

/* Mark res failed with a one-line reason, and keep it in the state file. */
__attribute__((format(printf, 3, 4)))
static void fail(struct build_result *res, struct state *st, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	res->status = BUILD_FAILED;
	free(res->failure);
	res->failure = strbuf_detach(&sb, NULL);
	state_set(st, "status", "failed");
	state_set(st, "failure", res->failure);
}

/* Configure out/: the base config, the fragment's lines, olddefconfig, then the check. */
static int configure(struct build_result *res, struct state *st, struct make_ctx *m,
		     const struct kit *kit, const struct kernel_branch *b,
		     const struct kconfig_frag *frag)
{
	const char *base = b->config_base ? b->config_base : "defconfig";
	char *config_path = path_join(m->out, ".config");
	char *base_file = kit_file(kit, base);
	struct strbuf config = STRBUF_INIT, merged = STRBUF_INIT;
	struct strvec missing = STRVEC_INIT, absent = STRVEC_INIT, syms = STRVEC_INIT;
	struct strbuf before = STRBUF_INIT;
	struct stat before_st;
	int status, ret = 0, had_config;

	/*
	 * The config is made anew every time; when it comes out the same,
	 * its old mtime is put back so that make does not resync and relink.
	 */
	had_config = !stat(config_path, &before_st) && !strbuf_read_file(&before, config_path);
	if (is_config_target(base) && !file_exists(base_file)) {
		status = run_make(m, base);
		if (status) {
			fail(res, st, "make %s failed (exit %d): see %s", base, status, m->log);
			goto cleanup;
		}
	} else {
		struct strbuf sb = STRBUF_INIT;

		if (strbuf_read_file(&sb, base_file) ||
		    write_file_atomic(config_path, sb.buf, sb.len)) {
			ret = error("cannot copy config base '%s' to '%s': %s", base_file,
				    config_path, strerror(errno));
			strbuf_release(&sb);
			goto cleanup;
		}
		strbuf_release(&sb);
	}
	if (strbuf_read_file(&config, config_path)) {
		fail(res, st, "the config base wrote no .config");
		goto cleanup;
	}
	kconfig_apply(&merged, config.buf, frag);
	if (write_file_atomic(config_path, merged.buf, merged.len)) {
		ret = error("cannot write '%s': %s", config_path, strerror(errno));
		goto cleanup;
	}
	status = run_make(m, "olddefconfig");
	strbuf_reset(&config);
	if (status || strbuf_read_file(&config, config_path)) {
		fail(res, st, "make olddefconfig failed (exit %d): see %s", status, m->log);
		goto cleanup;
	}
	if (kconfig_check(NULL, NULL, config.buf, frag, NULL, NULL)) {
		struct strbuf why = STRBUF_INIT;
		size_t i;

		kconfig_symbols(&syms, m->src, m->arch->srcarch);
		kconfig_check(&missing, &absent, config.buf, frag, kconfig_symbol_defined, &syms);
		if (absent.nr) {
			strbuf_addstr(&why, "not in this tree's Kconfig, skipped:");
			for (i = 0; i < absent.nr; i++)
				strbuf_addf(&why, " %s", absent.v[i]);
			res->notes = strbuf_detach(&why, NULL);
			state_set(st, "notes", res->notes);
		}
		if (missing.nr) {
			strbuf_addf(&why, "%zu config option%s did not stick: %s", missing.nr,
				    missing.nr > 1 ? "s" : "", missing.v[0]);
			if (missing.nr > 1)
				strbuf_addf(&why, " (and %zu more)", missing.nr - 1);
			fail(res, st, "%s", why.buf);
			strbuf_reset(&why);
			for (i = 0; i < missing.nr; i++)
				strbuf_addf(&why, "%s%s", i ? "\n" : "", missing.v[i]);
			res->details = strbuf_detach(&why, NULL);
			state_set(st, "details", res->details);
		}
		strbuf_release(&why);
		if (missing.nr)
			goto cleanup;
	}
	res->config_hash = blob_hash_hex(config.buf, config.len);
	state_set(st, "config_hash", res->config_hash);
	if (had_config && before.len == config.len && !memcmp(before.buf, config.buf, config.len)) {
		struct timespec times[2] = { before_st.st_atim, before_st.st_mtim };

		utimensat(AT_FDCWD, config_path, times, 0);
	}
cleanup:
	strbuf_release(&before);
	strvec_clear(&syms);
	strvec_clear(&missing);
	strvec_clear(&absent);
	strbuf_release(&merged);
	strbuf_release(&config);
	free(base_file);
	free(config_path);
	return ret;
}

static char *commit_timestamp(git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	char buf[64];
	time_t t = 0;
	struct tm tm;

	if (git_commit_lookup(&c, repo, commit) >= 0)
		t = git_commit_time(c);
	git_commit_free(c);
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S UTC %Y", &tm);
	return xstrdup(buf);
}

/* Whether state says this exact build is done and its image is still there. */
static int up_to_date(const struct state *st, const char *commit_hex, const char *inputs_hash)
{
	const char *status = state_get(st, "status"), *commit = state_get(st, "commit");
	const char *inputs = state_get(st, "inputs"), *img = state_get(st, "bzimage");
	const char *mtime = state_get(st, "bzimage_mtime");
	struct stat s;

	if (!status || strcmp(status, "ok") || !commit || strcmp(commit, commit_hex) || !inputs ||
	    strcmp(inputs, inputs_hash) || !img || !mtime || stat(img, &s))
		return 0;
	return strtoll(mtime, NULL, 10) == (long long)s.st_mtime;
}

/*
 * A variant built for the first time starts from a copy of base's out
 * directory when base was built with the same config inputs: switching
 * src/ from base rewrites only the files the series changed, with newer
 * mtimes than base's objects, so make recompiles just those and relinks.
 * Returns 1 when seeded; on any failure the variant is built from scratch.
 */
static int seed_from_base(const char *workdir, const char *out, const char *inputs_hash)
{
	char *base_out = path_join(workdir, "out-base");
	char *base_state = path_join(workdir, "state/base.build");
	char *tmp = xstrfmt("%s.seeding", out);
	struct child cp = CHILD_INIT;
	struct state st = STATE_INIT;
	const char *status, *inputs;
	int seeded = 0;

	if (state_read(&st, base_state) || !dir_exists(base_out))
		goto cleanup;
	status = state_get(&st, "status");
	inputs = state_get(&st, "inputs");
	if (!status || strcmp(status, "ok") || !inputs || strcmp(inputs, inputs_hash))
		goto cleanup;
	remove_tree(tmp);
	strvec_pushl(&cp.argv, "cp", "-a", "--reflink=auto", base_out, tmp, NULL);
	if (child_run(&cp) == 0 && !rename(tmp, out))
		seeded = 1;
	else
		remove_tree(tmp);
cleanup:
	child_release(&cp);
	state_release(&st);
	free(tmp);
	free(base_state);
	free(base_out);
	return seeded;
}

int build_variant(struct build_result *res, git_repository *repo, const struct kit *kit,
		  const struct kernel_branch *b, const char *variant, const git_oid *commit,
		  const struct build_opts *opts)
{
	struct kconfig_frag frag = KCONFIG_FRAG_INIT;
	struct strbuf inputs = STRBUF_INIT, sb = STRBUF_INIT;
	struct state st = STATE_INIT;
	struct progress pg = { 0 };
	struct make_ctx m = { 0 };
	char *src = NULL, *out = NULL, *logdir = NULL, *state_path = NULL, *inputs_hash = NULL;
	char commit_hex[GIT_OID_HEXSZ + 1];
	const struct arch_info *arch = branch_arch(b);
	const char *target = image_target(branch_image(b));
	double start = mono_seconds();
	int ret = 0, status, ccache = have_program("ccache"), seeded = 0;
	struct stat s;

	memset(res, 0, sizeof(*res));
	git_oid_tostr(commit_hex, sizeof(commit_hex), commit);
	if ((ret = branch_check_compiler(b)))
		return ret;
	ret = build_inputs(&inputs, &frag, kit, b);
	if (ret)
		goto cleanup;
	inputs_hash = blob_hash_hex(inputs.buf, inputs.len);

	src = path_join(opts->workdir, "src");
	out = xstrfmt("%s/out-%s", opts->workdir, variant);
	logdir = path_join(opts->workdir, "logs");
	state_path = xstrfmt("%s/state/%s.build", opts->workdir, variant);
	res->log = xstrfmt("%s/%s-build.log", logdir, variant);
	res->bzimage = path_join(out, branch_image(b));
	if (strcmp(variant, "base") && !dir_exists(out))
		seeded = seed_from_base(opts->workdir, out, inputs_hash);
	if (mkdir_p(out, 0755) || mkdir_p(logdir, 0755)) {
		ret = error("cannot create '%s': %s", opts->workdir, strerror(errno));
		goto cleanup;
	}
	if ((ret = state_read(&st, state_path)))
		goto cleanup;
	if (!opts->force && up_to_date(&st, commit_hex, inputs_hash)) {
		const char *v;

		res->status = BUILD_UPTODATE;
		res->seconds = (v = state_get(&st, "seconds")) ? strtod(v, NULL) : 0;
		res->config_hash = xstrdup((v = state_get(&st, "config_hash")) ? v : "");
		if ((v = state_get(&st, "notes")))
			res->notes = xstrdup(v);
		goto cleanup;
	}

	state_release(&st);
	state_set(&st, "variant", variant);
	state_set(&st, "branch", b->name);
	state_set(&st, "commit", commit_hex);
	state_set(&st, "inputs", inputs_hash);
	state_set(&st, "log", res->log);
	state_set(&st, "status", "running");
	if (seeded)
		state_set(&st, "seeded", "out-base");
	if ((ret = state_write(&st, state_path)))
		goto cleanup;

	strbuf_addf(&sb, "# mkseries build %s %s %s\n", b->name, variant, commit_hex);
	if (write_file_atomic(res->log, sb.buf, sb.len)) {
		ret = error("cannot write '%s': %s", res->log, strerror(errno));
		goto cleanup;
	}

	pg.label = opts->label ? opts->label : variant;
	pg.start = start;
	pg.enabled = opts->progress;
	if (pg.enabled) {
		snprintf(pg.last, sizeof(pg.last), "writing the source tree");
		progress_draw(&pg, 1);
	}
	if (materialise(repo, commit, src, &res->mat)) {
		fail(res, &st, "cannot write the source tree");
		goto done;
	}
	state_setf(&st, "materialise", "%s %zu written %zu removed %zu repaired in %.2fs",
		   res->mat.full ? "full" : "incremental", res->mat.written, res->mat.removed,
		   res->mat.repaired, res->mat.seconds);

	m.src = src;
	m.out = out;
	m.log = res->log;
	m.arch = arch;
	m.cross = branch_cross(b);
	m.jobs = opts->jobs ? opts->jobs : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	m.timestamp = commit_timestamp(repo, commit);
	m.pg = &pg;
	if (ccache) {
		char *cache = mks_cache_dir();

		m.ccache_dir = path_join(cache, "ccache");
		free(cache);
	}
	pg.last[0] = '\0';
	ret = configure(res, &st, &m, kit, b, &frag);
	if (ret || res->status == BUILD_FAILED)
		goto done;

	status = run_make(&m, target);
	if (status) {
		struct strbuf log = STRBUF_INIT;
		char *first = NULL;

		if (!strbuf_read_file(&log, res->log))
			first = build_first_error(log.buf, src);
		if (first)
			fail(res, &st, "%s", first);
		else
			fail(res, &st, "make %s exited with status %d: see %s", target, status,
			     res->log);
		free(first);
		strbuf_release(&log);
		goto done;
	}
	if (stat(res->bzimage, &s)) {
		fail(res, &st, "make %s succeeded but wrote no %s", target, branch_image(b));
		goto done;
	}
	/* A tree that ignored ARCH= or CROSS_COMPILE= would boot the wrong kernel, or none. */
	strbuf_reset(&sb);
	if (arch_check_image(arch, res->bzimage, &sb)) {
		fail(res, &st, "%s (make ARCH=%s CROSS_COMPILE=%s)", sb.buf, make_arch(arch),
		     m.cross);
		goto done;
	}
	res->status = BUILD_OK;
	state_set(&st, "status", "ok");
	state_set(&st, "bzimage", res->bzimage);
	state_setf(&st, "bzimage_mtime", "%lld", (long long)s.st_mtime);
done:
	progress_clear(&pg);
	res->seconds = mono_seconds() - start;
	state_setf(&st, "seconds", "%.1f", res->seconds);
	state_setf(&st, "finished", "%lld", (long long)time(NULL));
	if (!ret)
		ret = state_write(&st, state_path);
cleanup:
	free(m.ccache_dir);
	free(m.timestamp);
	kconfig_frag_release(&frag);
	strbuf_release(&inputs);
	strbuf_release(&sb);
	state_release(&st);
	free(inputs_hash);
	free(state_path);
	free(logdir);
	free(out);
	free(src);
	return ret;
}

int select_cells(struct kit *kit, struct kernel_branch ***sel, size_t *nr, const char *branch,
		 int all, const struct strvec *given)
{
	struct strvec checked = STRVEC_INIT;
	int ret;

	*sel = NULL;
	*nr = 0;
	ret = variants_select(&checked, given);
	if (!ret)
		ret = kit_open(kit);
	if (!ret)
		ret = select_branches(sel, nr, kit, branch, all, 0);
	if (!ret)
		ret = variants_check(given, *sel, *nr);
	strvec_clear(&checked);
	/* Whatever a helper returned, what the caller gets is one of ours. */
	return ret > 0 ? MKS_ECONFIG : ret;
}
