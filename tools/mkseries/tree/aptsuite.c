/* tree/aptsuite.c: fetching a Debian package from another suite of the mirror /etc/apt names. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree/aptsuite.h"
#include "lib/progress.h"
#include "lib/runcmd.h"
#include "lib/util.h"

struct apt_para {
	struct strvec names;	/* field names, in order */
	struct strvec values;	/* their full text, continuation lines included */
};

static void para_clear(struct apt_para *p)
{
	strvec_clear(&p->names);
	strvec_clear(&p->values);
}

static const char *para_get(const struct apt_para *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->names.nr; i++)
		if (!strcasecmp(p->names.v[i], name))
			return p->values.v[i];
	return NULL;
}

/* The requested suite for one of the system's suites, or NULL when it is not the system's. */
static char *map_suite(const char *suite, const char *codename, const char *want)
{
	size_t len = strlen(codename);

	if (strncmp(suite, codename, len) || (suite[len] && suite[len] != '-'))
		return NULL;
	return xstrfmt("%s%s", want, suite + len);
}

/* Split on blanks into sv. */
void apt_split_words(struct strvec *sv, const char *s)
{
	while (*s) {
		size_t len;

		s += strspn(s, " \t\n");
		len = strcspn(s, " \t\n");
		if (len) {
			char *w = xstrndup(s, len);

			strvec_push(sv, w);
			free(w);
		}
		s += len;
	}
}

/*
 * Write one deb822 paragraph for an entry of the system's archive, its
 * suites mapped to the requested one. Fields other than Types, Suites
 * and Enabled are kept as they are (Signed-By may hold a whole key).
 */
static void emit_para(struct strbuf *out, struct strvec *looked_in, const struct apt_para *p,
		      const char *codename, const char *want)
{
	struct strvec suites = STRVEC_INIT, mapped = STRVEC_INIT, uris = STRVEC_INIT,
		      types = STRVEC_INIT;
	const char *enabled = para_get(p, "Enabled");
	size_t i, j;
	int has_deb = 0;

	apt_split_words(&types, para_get(p, "Types") ? para_get(p, "Types") : "");
	for (i = 0; i < types.nr; i++)
		has_deb |= !strcmp(types.v[i], "deb");
	if (!has_deb || (enabled && !strncasecmp(enabled + strspn(enabled, " \t"), "no", 2)))
		goto cleanup;
	apt_split_words(&suites, para_get(p, "Suites") ? para_get(p, "Suites") : "");
	for (i = 0; i < suites.nr; i++) {
		char *m = map_suite(suites.v[i], codename, want);
		int dup = 0;

		if (!m)
			continue;
		for (j = 0; j < mapped.nr; j++)
			dup |= !strcmp(mapped.v[j], m);
		if (!dup)
			strvec_push(&mapped, m);
		free(m);
	}
	apt_split_words(&uris, para_get(p, "URIs") ? para_get(p, "URIs") : "");
	if (!mapped.nr || !uris.nr)
		goto cleanup;
	if (out->len)
		strbuf_addch(out, '\n');
	strbuf_addstr(out, "Types: deb\n");
	for (i = 0; i < p->names.nr; i++) {
		const char *name = p->names.v[i];

		if (!strcasecmp(name, "Types") || !strcasecmp(name, "Suites") ||
		    !strcasecmp(name, "Enabled"))
			continue;
		strbuf_addf(out, "%s:%s\n", name, p->values.v[i]);
	}
	strbuf_addstr(out, "Suites:");
	for (i = 0; i < mapped.nr; i++)
		strbuf_addf(out, " %s", mapped.v[i]);
	strbuf_addch(out, '\n');
	for (i = 0; i < uris.nr; i++)
		for (j = 0; j < mapped.nr; j++)
			strvec_pushf(looked_in, "%s %s", uris.v[i], mapped.v[j]);
cleanup:
	strvec_clear(&suites);
	strvec_clear(&mapped);
	strvec_clear(&uris);
	strvec_clear(&types);
}

static void para_add(struct apt_para *p, const char *name, const char *value)
{
	strvec_push(&p->names, name);
	strvec_pushf(&p->values, " %s", value);
}

/* A deb822 .sources file. */
static void parse_deb822(struct strbuf *out, struct strvec *looked_in, const char *text,
			 const char *codename, const char *want)
{
	struct apt_para p = { STRVEC_INIT, STRVEC_INIT };
	const char *line = text;

	while (*line) {
		const char *end = strchrnul(line, '\n'), *colon;
		size_t len = end - line;

		if (len == strspn(line, " \t\r") || !*line) {
			if (p.names.nr)
				emit_para(out, looked_in, &p, codename, want);
			para_clear(&p);
		} else if (*line == '#') {
			/* a comment */
		} else if ((*line == ' ' || *line == '\t') && p.values.nr) {
			/* a continuation line: append to the last field */
			char *v = xstrfmt("%s\n%.*s", p.values.v[p.values.nr - 1], (int)len, line);

			free((char *)p.values.v[p.values.nr - 1]);
			p.values.v[p.values.nr - 1] = v;
		} else if ((colon = memchr(line, ':', len))) {
			char *name = xstrndup(line, colon - line);
			char *value = xstrndup(colon + 1, end - colon - 1);
			size_t vlen = strlen(value);

			while (vlen && (value[vlen - 1] == '\r' || value[vlen - 1] == ' '))
				value[--vlen] = '\0';
			strvec_push(&p.names, name);
			strvec_push(&p.values, value);
			free(name);
			free(value);
		}
		line = *end ? end + 1 : end;
	}
	if (p.names.nr)
		emit_para(out, looked_in, &p, codename, want);
	para_clear(&p);
}

/* deb822 field names for the options of one-line entries. */
static const char *option_field(const char *key)
{
	static const char *const map[][2] = {
		{ "arch", "Architectures" }, { "lang", "Languages" }, { "target", "Targets" },
		{ "signed-by", "Signed-By" }, { "trusted", "Trusted" }, { "pdiffs", "PDiffs" },
		{ "by-hash", "By-Hash" }, { "check-valid-until", "Check-Valid-Until" },
		{ "allow-insecure", "Allow-Insecure" }, { "allow-weak", "Allow-Weak" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(key, map[i][0]))
			return map[i][1];
	return NULL;
}

/* A one-line sources.list file: "deb [opts] URI SUITE COMPONENT...". */
static void parse_one_line(struct strbuf *out, struct strvec *looked_in, const char *text,
			   const char *codename, const char *want)
{
	const char *line = text;

	while (*line) {
		const char *end = strchrnul(line, '\n');
		char *l = xstrndup(line, end - line), *hash, *s, *close;
		struct strvec words = STRVEC_INIT, opts = STRVEC_INIT;
		struct apt_para p = { STRVEC_INIT, STRVEC_INIT };
		struct strbuf comps = STRBUF_INIT;
		size_t i;

		line = *end ? end + 1 : end;
		hash = strchr(l, '#');
		if (hash)
			*hash = '\0';
		s = l + strspn(l, " \t");
		if (strncmp(s, "deb", 3) || (s[3] != ' ' && s[3] != '\t'))
			goto next;
		s += 3;
		s += strspn(s, " \t");
		if (*s == '[') {
			close = strchr(s, ']');
			if (!close)
				goto next;
			*close = '\0';
			apt_split_words(&opts, s + 1);
			s = close + 1;
		}
		apt_split_words(&words, s);
		if (words.nr < 2)
			goto next;
		para_add(&p, "Types", "deb");
		para_add(&p, "URIs", words.v[0]);
		para_add(&p, "Suites", words.v[1]);
		for (i = 2; i < words.nr; i++)
			strbuf_addf(&comps, "%s%s", i > 2 ? " " : "", words.v[i]);
		if (comps.len)
			para_add(&p, "Components", comps.buf);
		for (i = 0; i < opts.nr; i++) {
			const char *eq = strchr(opts.v[i], '=');
			char *key, *val, *c;
			const char *field;

			if (!eq)
				continue;
			key = xstrndup(opts.v[i], eq - opts.v[i]);
			val = xstrdup(eq + 1);
			for (c = val; *c; c++)
				if (*c == ',')
					*c = ' ';
			field = option_field(key);
			if (field)
				para_add(&p, field, val);
			free(key);
			free(val);
		}
		emit_para(out, looked_in, &p, codename, want);
next:
		para_clear(&p);
		strvec_clear(&words);
		strvec_clear(&opts);
		strbuf_release(&comps);
		free(l);
	}
}

static int os_codename(char **out, const char *root)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xstrfmt("%s/etc/os-release", root);
	const char *p;
	int ret = 0;

	*out = NULL;
	if (strbuf_read_file(&sb, path)) {
		ret = error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	for (p = sb.buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v;
		size_t len;

		if (!skip_prefix(p, "VERSION_CODENAME=", &v))
			continue;
		if (*v == '"' || *v == '\'')
			v++;
		len = strcspn(v, "\"'\n");
		if (len)
			*out = xstrndup(v, len);
		break;
	}
	if (!*out)
		ret = error("'%s' names no VERSION_CODENAME: cannot tell which apt entries "
			    "are this system's Debian archive", path);
cleanup:
	strbuf_release(&sb);
	free(path);
	return ret;
}

int tree_apt_sources(struct strbuf *out, struct strvec *looked_in, const char *root,
		     const char *suite)
{
	struct strbuf text = STRBUF_INIT;
	struct strvec files = STRVEC_INIT;
	char *codename = NULL, *path = NULL, *dir = NULL;
	DIR *d = NULL;
	struct dirent *de;
	size_t i;
	int ret;

	strbuf_reset(out);
	ret = os_codename(&codename, root);
	if (ret)
		goto cleanup;
	path = xstrfmt("%s/etc/apt/sources.list", root);
	if (file_exists(path))
		strvec_push(&files, path);
	dir = xstrfmt("%s/etc/apt/sources.list.d", root);
	d = opendir(dir);
	if (d) {
		struct strvec names = STRVEC_INIT;

		while ((de = readdir(d)))
			if (ends_with(de->d_name, ".list") || ends_with(de->d_name, ".sources"))
				strvec_push(&names, de->d_name);
		qsort(names.v, names.nr, sizeof(*names.v), strp_cmp);
		for (i = 0; i < names.nr; i++)
			strvec_pushf(&files, "%s/%s", dir, names.v[i]);
		strvec_clear(&names);
	}
	for (i = 0; i < files.nr; i++) {
		strbuf_reset(&text);
		if (strbuf_read_file(&text, files.v[i])) {
			warning("cannot read '%s': %s", files.v[i], strerror(errno));
			continue;
		}
		if (ends_with(files.v[i], ".sources"))
			parse_deb822(out, looked_in, text.buf, codename, suite);
		else
			parse_one_line(out, looked_in, text.buf, codename, suite);
	}
	if (!out->len)
		ret = error_code(MKS_ENOTFOUND,
				 "no Debian archive for '%s' in %s/etc/apt/sources.list or "
				 "sources.list.d: cannot derive suite '%s'",
				 codename, root, suite);
cleanup:
	if (d)
		closedir(d);
	strbuf_release(&text);
	strvec_clear(&files);
	free(codename);
	free(path);
	free(dir);
	return ret;
}

/* apt-get/apt-cache confined to our own lists, caches and sources. */
static void apt_command(struct child *cmd, const char *prog, const char *aptdir)
{
	strvec_push(&cmd->argv, prog);
	strvec_pushf(&cmd->argv, "-oDir::Etc::SourceList=%s/mkseries.sources", aptdir);
	/* An empty directory of our own: apt warns about a missing one. */
	strvec_pushf(&cmd->argv, "-oDir::Etc::SourceParts=%s/empty.d", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::State::Lists=%s/lists", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::Cache=%s/cache", aptdir);
	/* Nothing installed: the candidate is the suite's newest version. */
	strvec_pushf(&cmd->argv, "-oDir::State::status=%s/status", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::Etc::Preferences=%s/preferences", aptdir);
	strvec_pushf(&cmd->argv, "-oDir::Etc::PreferencesParts=%s/empty.d", aptdir);
	strvec_push(&cmd->argv, "-oAcquire::Languages=none");
}

/* The file apt-get download names "<pkg>_<version, ':' as %3a>_<arch>.deb". */
static char *find_deb(const char *dir, const char *package, const char *version)
{
	struct strbuf prefix = STRBUF_INIT;
	struct dirent *de;
	char *found = NULL;
	const char *v;
	DIR *d;

	strbuf_addf(&prefix, "%s_", package);
	for (v = version; *v; v++) {
		if (*v == ':')
			strbuf_addstr(&prefix, "%3a");
		else
			strbuf_addch(&prefix, *v);
	}
	strbuf_addch(&prefix, '_');
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (starts_with(de->d_name, prefix.buf) && ends_with(de->d_name, ".deb")) {
			found = path_join(dir, de->d_name);
			break;
		}
	if (d)
		closedir(d);
	strbuf_release(&prefix);
	return found;
}

static void join_looked_in(struct strbuf *sb, const struct strvec *looked_in)
{
	size_t i;

	for (i = 0; i < looked_in->nr; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", looked_in->v[i]);
}

/* Only apt's own complaints, for a message. */
static void apt_errors(struct strbuf *sb, const char *output)
{
	const char *line = output;
	int said = 0;

	while (*line) {
		const char *end = strchrnul(line, '\n');

		if (starts_with(line, "E: ")) {
			if (!said++)
				strbuf_addstr(sb, "\napt-get update said:");
			strbuf_addf(sb, "\n  %.*s", (int)(end - line), line);
		}
		line = *end ? end + 1 : end;
	}
}

static int ensure_dir(const char *path)
{
	if (mkdir_p(path, 0755))
		return error("cannot create '%s': %s", path, strerror(errno));
	return 0;
}

/* The private apt directory of one suite: its sources, lists, caches, an empty status. */
int apt_prepare(const char *aptdir, const char *debs, const struct strbuf *sources)
{
	static const char *const dirs[] = { "lists/partial", "cache/archives/partial", "empty.d" };
	char *path = NULL;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(dirs); i++) {
		path = path_join(aptdir, dirs[i]);
		ret = ensure_dir(path);
		free(path);
	}
	if (!ret)
		ret = ensure_dir(debs);
	if (ret)
		return ret;
	path = path_join(aptdir, "mkseries.sources");
	if (write_file_atomic(path, sources->buf, sources->len))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	free(path);
	path = path_join(aptdir, "status");
	if (!ret && !file_exists(path) && write_file_atomic(path, "", 0))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	free(path);
	return ret;
}

/* Refresh the suite's package lists, and learn the version apt would fetch. */
int apt_candidate(char **version, const char *aptdir, const char *package,
			 const char *suite, const struct strvec *looked_in)
{
	struct child upd = CHILD_INIT, pol = CHILD_INIT;
	struct strbuf upd_out = STRBUF_INIT, pol_out = STRBUF_INIT, msg = STRBUF_INIT;
	const char *p;
	int status, ret = 0;

	*version = NULL;
	apt_command(&upd, "apt-get", aptdir);
	strvec_pushl(&upd.argv, "-q", "update", NULL);
	upd.out = &upd_out;
	upd.err_to_out = 1;
	/* A derived suite may not exist (sid-security): judge by the package. */
	status = child_run(&upd);
	if (status < 0) {
		ret = -1;
		goto cleanup;
	}

	apt_command(&pol, "apt-cache", aptdir);
	strvec_pushl(&pol.argv, "policy", package, NULL);
	pol.out = &pol_out;
	pol.err_to_out = 1;
	if (child_run(&pol) < 0) {
		ret = -1;
		goto cleanup;
	}
	p = strstr(pol_out.buf, "Candidate:");
	if (p) {
		p += strlen("Candidate:");
		p += strspn(p, " \t");
		if (strncmp(p, "(none)", 6) && strcspn(p, " \t\n"))
			*version = xstrndup(p, strcspn(p, " \t\n"));
	}
	if (!*version) {
		strbuf_addf(&msg, "package '%s' not found in suite '%s' (looked in: ", package,
			    suite);
		join_looked_in(&msg, looked_in);
		strbuf_addch(&msg, ')');
		if (status)
			apt_errors(&msg, upd_out.buf);
		ret = error_code(MKS_ENOTFOUND, "%s", msg.buf);
	}
cleanup:
	child_release(&upd);
	child_release(&pol);
	strbuf_release(&upd_out);
	strbuf_release(&pol_out);
	strbuf_release(&msg);
	return ret;
}

/* The size apt's lists give package=version, in bytes; 0 when they do not say. */
static unsigned long long apt_size(const char *aptdir, const char *package, const char *version)
{
	struct child c = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	unsigned long long size = 0;
	const char *p;

	apt_command(&c, "apt-cache", aptdir);
	strvec_pushl(&c.argv, "show", "--no-all-versions", NULL);
	strvec_pushf(&c.argv, "%s=%s", package, version);
	c.out = &out;
	if (!child_run(&c) && (p = strstr(out.buf, "\nSize: ")))
		size = strtoull(p + 7, NULL, 10);
	child_release(&c);
	strbuf_release(&out);
	return size;
}

/* A download under way: how much of it is in its directory. */
struct download {
	struct progress line;
	const char *dir, *package;
	unsigned long long size;
	double start;
};

static unsigned long long dir_bytes(const char *dir)
{
	unsigned long long n = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		char *path = path_join(dir, de->d_name);
		struct stat st;

		if (!lstat(path, &st) && S_ISREG(st.st_mode))
			n += st.st_size;
		free(path);
	}
	if (d)
		closedir(d);
	return n;
}

static int download_tick(void *data)
{
	struct download *dl = data;
	double mib = 1024.0 * 1024;

	if (progress_too_soon(&dl->line))
		return 0;
	if (dl->size)
		progress_show(&dl->line, 0, "downloading %s: %.0f of %.0f MiB, %s", dl->package,
			      dir_bytes(dl->dir) / mib, dl->size / mib,
			      format_duration(mono_seconds() - dl->start));
	else
		progress_show(&dl->line, 0, "downloading %s: %.0f MiB, %s", dl->package,
			      dir_bytes(dl->dir) / mib, format_duration(mono_seconds() - dl->start));
	return 0;
}

/* Download package=version into debs/ (unless there already) and name the file. */
int apt_download(char **deb, const char *aptdir, const char *debs, const char *package,
			const char *version)
{
	struct child dl = CHILD_INIT;
	struct download pg = { PROGRESS_INIT, NULL, NULL, 0, 0 };
	struct strbuf err = STRBUF_INIT;
	char *tmp = NULL, *got = NULL, *name;
	int status, ret = 0;

	*deb = find_deb(debs, package, version);
	if (*deb)
		return 0;
	tmp = xstrfmt("%s/.download-%ld", debs, (long)getpid());
	remove_tree(tmp);
	ret = ensure_dir(tmp);
	if (ret)
		goto cleanup;
	temp_path_add(tmp);
	progress_init(&pg.line, 1, 0.5);
	pg.dir = tmp;
	pg.package = package;
	pg.start = mono_seconds();
	if (pg.line.enabled) {
		pg.size = apt_size(aptdir, package, version);
		if (pg.size)
			fprintf(stderr, "downloading %s %s (%.0f MiB)\n", package, version,
				pg.size / (1024.0 * 1024));
		else
			fprintf(stderr, "downloading %s %s\n", package, version);
		dl.on_tick = download_tick;
		dl.data = &pg;
	}
	apt_command(&dl, "apt-get", aptdir);
	strvec_pushl(&dl.argv, "-q", "download", NULL);
	strvec_pushf(&dl.argv, "%s=%s", package, version);
	dl.dir = tmp;
	dl.out = &err;
	dl.err_to_out = 1;
	status = child_run(&dl);
	progress_clear(&pg.line);
	if (status) {
		strbuf_rtrim(&err);
		ret = error("apt-get download '%s=%s' failed (exit status %d):\n%s", package,
			    version, status, err.buf);
		goto cleanup;
	}
	got = find_deb(tmp, package, version);
	if (!got) {
		ret = error("apt-get download '%s=%s' left no .deb in '%s'", package, version,
			    tmp);
		goto cleanup;
	}
	name = path_join(debs, strrchr(got, '/') + 1);
	if (rename(got, name)) {
		ret = error("cannot move '%s' to '%s': %s", got, name, strerror(errno));
		free(name);
		goto cleanup;
	}
	*deb = name;
cleanup:
	if (tmp) {
		remove_tree(tmp);
		temp_path_done(tmp);
	}
	child_release(&dl);
	strbuf_release(&err);
	free(tmp);
	free(got);
	return ret;
}

const char *tree_apt_root(void)
{
	const char *root = getenv("MKSERIES_APT_ROOT");

	return root ? root : "";
}

int apt_suite_reachable(struct strbuf *why, const char *uri, const char *suite,
			unsigned timeout)
{
	struct child c = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *tmpdir = getenv("TMPDIR");
	char *dest = xstrfmt("%s/mkseries-reach-%ld", tmpdir && *tmpdir ? tmpdir : "/tmp",
			     (long)getpid());
	int status, ret = 0;

	strvec_pushl(&c.argv, "/usr/lib/apt/apt-helper", NULL);
	strvec_pushf(&c.argv, "-oAcquire::http::Timeout=%u", timeout);
	strvec_pushf(&c.argv, "-oAcquire::https::Timeout=%u", timeout);
	strvec_pushl(&c.argv, "-oAcquire::Retries=0", "download-file", NULL);
	strvec_pushf(&c.argv, "%s%sdists/%s/InRelease", uri, ends_with(uri, "/") ? "" : "/",
		     suite);
	strvec_push(&c.argv, dest);
	strvec_push(&c.env, "LC_ALL=C");
	c.out = &out;
	c.err_to_out = 1;
	/* Past the timeout apt is still resolving or retrying: that is an answer too. */
	c.timeout_sec = timeout + 5;
	temp_path_add(dest);
	status = child_run(&c);
	if (status) {
		const char *e = strstr(out.buf, "E: ");
		struct strbuf line = STRBUF_INIT;

		if (e)
			strbuf_add(&line, e + 3, strcspn(e + 3, "\n"));
		else if (c.timed_out)
			strbuf_addf(&line, "no answer in %u s", timeout + 5);
		else
			strbuf_addf(&line, "apt-helper exited with status %d", status);
		strbuf_add_shown(why, line.buf, line.len, 0);
		strbuf_release(&line);
		ret = -1;
	}
	unlink(dest);
	temp_path_done(dest);
	child_release(&c);
	strbuf_release(&out);
	free(dest);
	return ret;
}
