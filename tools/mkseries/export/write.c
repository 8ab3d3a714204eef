/* export/write.c: write an exported series as mails, a Debian quilt series or RPM patches, all or nothing. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export/export.h"
#include "lib/gitutil.h"
#include "lib/runcmd.h"

/* The end of the line at s: its newline, or the end of the string. */
static const char *line_end(const char *s)
{
	const char *e = strchr(s, '\n');

	return e ? e : s + strlen(s);
}

/* git format-patch's longest subject part of a file name (after "NNNN-"). */
#define SLUG_MAX 52

static int write_one(const char *dir, const char *rel, const struct strbuf *data,
		     struct strvec *files)
{
	char *path = path_join(dir, rel), *slash = strrchr(path, '/');
	int ret = 0;

	*slash = '\0';
	if (mkdir_p(path, 0777))
		ret = error("cannot create '%s': %s", path, strerror(errno));
	*slash = '/';
	if (!ret && write_file_atomic(path, data->buf, data->len))
		ret = error("cannot write '%s': %s", path, strerror(errno));
	if (!ret && files)
		strvec_push(files, rel);
	free(path);
	return ret;
}

/* The number of s's first patch file: 1 unless --start-number said otherwise. */
static size_t first_number(const struct export_series *s)
{
	return s->first ? s->first : 1;
}

/* "0003-mm-optimize-mremap-by-PTE-batching.patch" */
static char *numbered_name(const struct export_patch *p, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%04zu-", n);
	export_subject_slug(&sb, p->subject, SLUG_MAX);
	strbuf_addstr(&sb, ".patch");
	return strbuf_detach(&sb, NULL);
}

/* The value of the first trailer-like line "Key: value" of body, or NULL. Caller frees. */
static char *body_field(const char *body, const char *key)
{
	const char *line = body;
	size_t klen = strlen(key);

	while (*line) {
		const char *eol = line_end(line);

		if ((size_t)(eol - line) > klen + 1 && !strncasecmp(line, key, klen) &&
		    line[klen] == ':') {
			const char *v = line + klen + 1;

			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			return xstrndup(v, eol - v);
		}
		line = *eol ? eol + 1 : eol;
	}
	return NULL;
}

/* body as a DEP-3 long description: each line indented, empty lines " .". */
static void add_folded(struct strbuf *sb, const char *body)
{
	struct strbuf b = STRBUF_INIT;
	const char *line;

	strbuf_addstr(&b, body);
	strbuf_rtrim(&b);
	line = b.buf;
	while (b.len && *line) {
		const char *eol = line_end(line);

		if (eol == line)
			strbuf_addstr(sb, " .\n");
		else
			strbuf_addf(sb, " %.*s\n", (int)(eol - line), line);
		line = *eol ? eol + 1 : eol;
	}
	strbuf_release(&b);
}

/* A patch for debian/patches: DEP-3 headers, "---", the diffstat and the diff. */
static void dep3_patch(struct strbuf *sb, const struct export_patch *p)
{
	char *bug = body_field(p->body, "Closes"), *link = body_field(p->body, "Link");
	time_t t = (time_t)p->commit_when.time + (time_t)p->commit_when.offset * 60;
	char day[16];
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d", &tm);
	strbuf_addf(sb, "Description: %s\n", p->subject);
	add_folded(sb, p->body);
	strbuf_addf(sb, "Author: %s <%s>\n", p->author_name, p->author_email);
	if (p->upstream) {
		strbuf_addf(sb, "Origin: upstream, https://git.kernel.org/linus/%s\n", p->upstream);
		if (p->applied_upstream)
			strbuf_addf(sb, "Applied-Upstream: %s, https://git.kernel.org/linus/%s\n",
				    p->applied_upstream, p->upstream);
	} else {
		strbuf_addstr(sb, "Origin: vendor\n");
	}
	if (bug)
		strbuf_addf(sb, "Bug: %s\n", bug);
	if (link)
		strbuf_addf(sb, "Link: %s\n", link);
	strbuf_addf(sb, "Forwarded: %s\n", p->upstream ? "not-needed" : "no");
	strbuf_addf(sb, "Last-Update: %s\n---\n%s\n%s", day, p->stat, p->diff);
	free(bug);
	free(link);
}

/*
 * "bugfix/all/<slug>.patch" for a fix (a Fixes: or Cc: stable trailer),
 * else "features/all/<slug>.patch": where Debian's kernel team files
 * backports in debian/patches. A name taken already gets "-2", "-3".
 */
static char *debian_name(const struct export_patch *p, const struct strvec *taken)
{
	struct strbuf sb = STRBUF_INIT;
	char *fixes = body_field(p->body, "Fixes"), *cc = body_field(p->body, "Cc");
	int fix = fixes || (cc && strstr(cc, "stable@"));
	size_t stem, n = 1, i;

	strbuf_addstr(&sb, fix ? "bugfix/all/" : "features/all/");
	stem = sb.len;
	export_subject_slug(&sb, p->subject, SLUG_MAX);
	/*
	 * Not hidden (".patch", ".hidden-x.patch": quilt and ls skip them),
	 * nor taken for an option: no '.' or '-' first. A subject with
	 * nothing left is named by its commit.
	 */
	for (i = stem; i < sb.len && (sb.buf[i] == '.' || sb.buf[i] == '-'); i++)
		;
	memmove(sb.buf + stem, sb.buf + i, sb.len - i + 1);
	strbuf_setlen(&sb, sb.len - (i - stem));
	if (sb.len == stem)
		strbuf_addf(&sb, "patch-%s", oid_short(&p->commit));
	stem = sb.len;
	for (;;) {
		strbuf_setlen(&sb, stem);
		if (n > 1)
			strbuf_addf(&sb, "-%zu", n);
		strbuf_addstr(&sb, ".patch");
		for (i = 0; i < taken->nr && strcmp(taken->v[i], sb.buf); i++)
			;
		if (i == taken->nr)
			break;
		n++;
	}
	free(fixes);
	free(cc);
	return strbuf_detach(&sb, NULL);
}

static int write_mbox(const struct export_series *s, const char *dir,
		      const struct export_cover *cover, struct strvec *files)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int ret = 0;

	export_cover_mail(&sb, s, cover);
	ret = write_one(dir, "0000-cover-letter.patch", &sb, files);
	for (i = 0; !ret && i < s->nr; i++) {
		char *name = numbered_name(&s->v[i], first_number(s) + i);

		strbuf_reset(&sb);
		export_patch_mail(&sb, s, i, s->prefix, s->nr);
		ret = write_one(dir, name, &sb, files);
		free(name);
	}
	strbuf_release(&sb);
	return ret;
}

static int write_quilt(const struct export_series *s, const char *dir, const char *header,
		       struct strvec *files)
{
	struct strbuf sb = STRBUF_INIT, series = STRBUF_INIT;
	struct strvec names = STRVEC_INIT;
	size_t i;
	int ret = 0;

	strbuf_addf(&series, "# %s backports exported by mkseries from %s (%s); apply with -p1\n",
		    s->branch, s->refname, oid_short(&s->tip));
	if (header)
		strbuf_addf(&series, "# %s\n", header);
	for (i = 0; !ret && i < s->nr; i++) {
		char *name = debian_name(&s->v[i], &names);

		strbuf_reset(&sb);
		dep3_patch(&sb, &s->v[i]);
		ret = write_one(dir, name, &sb, files);
		strbuf_addf(&series, "%s\n", name);
		strvec_push(&names, name);
		free(name);
	}
	if (!ret)
		ret = write_one(dir, "series", &series, files);
	strvec_clear(&names);
	strbuf_release(&series);
	strbuf_release(&sb);
	return ret;
}

static int write_rpm(const struct export_series *s, const char *dir, const char *header,
		     struct strvec *files)
{
	struct strbuf sb = STRBUF_INIT, spec = STRBUF_INIT;
	size_t i;
	int ret = 0;

	/* No macro in the comments: rpm expands them even there. */
	strbuf_addf(&spec, "# %s backports exported by mkseries from %s (%s).\n"
			   "# In the spec's preamble; in the prep section autosetup -p1, or\n"
			   "# autopatch -p1 after setup, applies them in this order.\n",
		    s->branch, s->refname, oid_short(&s->tip));
	if (header)
		strbuf_addf(&spec, "# %s\n", header);
	for (i = 0; !ret && i < s->nr; i++) {
		char *name = numbered_name(&s->v[i], first_number(s) + i);

		strbuf_reset(&sb);
		export_patch_mail(&sb, s, i, "PATCH", 0);
		ret = write_one(dir, name, &sb, files);
		strbuf_addf(&spec, "Patch%04zu: %s\n", first_number(s) + i, name);
		free(name);
	}
	if (!ret)
		ret = write_one(dir, "patches.spec", &spec, files);
	strbuf_release(&spec);
	strbuf_release(&sb);
	return ret;
}

/* The first line of dir/name, or NULL when it is no regular file. Caller frees. */
static char *first_line(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(dir, name), *ret = NULL;
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode) && !strbuf_read_file(&sb, path))
		ret = xstrndup(sb.buf, line_end(sb.buf) - sb.buf);
	strbuf_release(&sb);
	free(path);
	return ret;
}

/*
 * The files an earlier export of `branch` as fmt wrote into dir, as its
 * index file lists them (quilt's series, rpm's patches.spec; mbox's
 * numbered mails have none: each is recognised by its own first line),
 * the index file included. 0, or -1 when dir holds no such export.
 */
static int earlier_files(struct strvec *files, const char *dir, const char *branch,
			 enum export_format fmt)
{
	const char *index = fmt == EXPORT_QUILT ? "series" : fmt == EXPORT_RPM ? "patches.spec" :
			    "0000-cover-letter.patch";
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	char *path = path_join(dir, index), *line = first_line(dir, index);
	const char *p, *v;
	int ret = -1;

	if (!line || strbuf_read_file(&sb, path))
		goto cleanup;
	if (fmt == EXPORT_MBOX) {
		/* The cover letter's body opens "Backports for 6.12, from" (or " (variant v)"). */
		strbuf_addf(&want, "\nBackports for %s", branch);
		p = strstr(sb.buf, want.buf);
		if (!starts_with(line, "From ") || !p || (p[want.len] != ',' && p[want.len] != ' '))
			goto cleanup;
	} else {
		strbuf_addf(&want, "# %s backports exported by mkseries from ", branch);
		if (!starts_with(line, want.buf))
			goto cleanup;
	}
	strvec_push(files, index);
	for (p = sb.buf; *p; p = *line_end(p) ? line_end(p) + 1 : line_end(p)) {
		size_t len = line_end(p) - p;

		if (fmt == EXPORT_QUILT && len && *p != '#')
			strvec_pushf(files, "%.*s", (int)len, p);
		else if (fmt == EXPORT_RPM && starts_with(p, "Patch") && (v = memchr(p, ':', len)))
			strvec_pushf(files, "%.*s", (int)(line_end(p) - v - 2), v + 2);
	}
	ret = 0;
cleanup:
	strbuf_release(&sb);
	strbuf_release(&want);
	free(line);
	free(path);
	return ret;
}

/* Whether rel, a file found in dir, is one an earlier export wrote (files: what it listed). */
static int export_file(const char *dir, const char *rel, const struct strvec *files,
		       enum export_format fmt)
{
	size_t i;
	char *line;
	int ret;

	for (i = 0; i < files->nr; i++)
		if (!strcmp(files->v[i], rel))
			return 1;
	if (fmt != EXPORT_MBOX || strlen(rel) < 11 || !isdigit(rel[0]) || !isdigit(rel[1]) ||
	    !isdigit(rel[2]) || !isdigit(rel[3]) || rel[4] != '-' || strchr(rel, '/') ||
	    strcmp(rel + strlen(rel) - 6, ".patch"))
		return 0;
	/* A numbered mail: git format-patch's first line. */
	line = first_line(dir, rel);
	ret = line && starts_with(line, "From ") && strlen(line) > 5 + 40 && line[45] == ' ';
	free(line);
	return ret;
}

/*
 * The first entry beneath dir (rel: where we are) that an earlier export
 * did not write: a file it does not list, a link, anything but a file or
 * a directory. NULL when there is none. Caller frees.
 */
static char *foreign_entry(const char *dir, const char *rel, const struct strvec *files,
			   enum export_format fmt)
{
	char *path = *rel ? path_join(dir, rel) : xstrdup(dir), *ret = NULL;
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		ret = xstrdup(*rel ? rel : ".");
	while (d && !ret && (de = readdir(d))) {
		char *sub, *full;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = *rel ? path_join(rel, de->d_name) : xstrdup(de->d_name);
		full = path_join(dir, sub);
		if (lstat(full, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			ret = xstrdup(sub);
		else if (S_ISDIR(st.st_mode))
			ret = foreign_entry(dir, sub, files, fmt);
		else if (!export_file(dir, sub, files, fmt))
			ret = xstrdup(sub);
		free(full);
		free(sub);
	}
	if (d)
		closedir(d);
	free(path);
	return ret;
}

int export_dir_free(const char *dir, const char *branch, enum export_format fmt, int replace)
{
	struct strvec files = STRVEC_INIT;
	struct dirent *de;
	DIR *d = opendir(dir);
	char *foreign = NULL;
	int empty = 1, ret = 0;

	if (!d) {
		if (errno == ENOENT)
			return 1;
		error("cannot export into '%s': %s", dir, strerror(errno));
		return 0;
	}
	while (empty && (de = readdir(d)))
		empty = !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..");
	closedir(d);
	if (empty)
		return 1;
	if (earlier_files(&files, dir, branch, fmt)) {
		error("'%s' is not empty: export into a new or empty directory; --replace replaces "
		      "only an earlier %s export of %s, and this is none (nothing was written)", dir,
		      export_format_name(fmt), branch);
	} else if ((foreign = foreign_entry(dir, "", &files, fmt))) {
		error("'%s' holds an earlier %s export of %s, and '%s', which that export did not "
		      "write: --replace replaces only an export; remove it, or export elsewhere "
		      "(nothing was written)", dir, export_format_name(fmt), branch, foreign);
	} else if (!replace) {
		error("'%s' holds an earlier %s export of %s: replace it with --replace, or export "
		      "elsewhere (nothing was written)", dir, export_format_name(fmt), branch);
	} else {
		ret = 2;
	}
	free(foreign);
	strvec_clear(&files);
	return ret;
}

/* Whether a process `pid` runs (or runs as someone else). */
static int pid_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/*
 * Remove what an export killed before its rename left beside dir: a
 * directory "<dir>.mkseries-<pid>" whose pid runs no more, saying so. A
 * name that is a link, or whose process still runs, is left alone.
 */
static void remove_stale_exports(const char *dir)
{
	char *parent = xstrdup(dir), *slash = strrchr(parent, '/'), *prefix;
	const char *in = ".", *base = dir;
	struct dirent *de;
	DIR *d;

	if (slash) {
		*slash = '\0';
		in = *parent ? parent : "/";
		base = slash + 1;
	}
	prefix = xstrfmt("%s.mkseries-", base);
	d = opendir(in);
	while (d && (de = readdir(d))) {
		const char *digits;
		char *end, *path;
		struct stat st;
		long pid;

		if (!skip_prefix(de->d_name, prefix, &digits) || !*digits)
			continue;
		errno = 0;
		pid = strtol(digits, &end, 10);
		if (*end || errno || pid == (long)getpid() || pid_alive(pid))
			continue;
		path = slash ? path_join(in, de->d_name) : xstrdup(de->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode)) {
			if (remove_tree(path))
				warning("cannot remove '%s', left by an export that was killed (pid %ld): "
					"%s; remove it yourself", path, pid, strerror(errno));
			else
				warning("removed '%s', left by an export that was killed (pid %ld) "
					"before it was renamed into place", path, pid);
		}
		free(path);
	}
	if (d)
		closedir(d);
	free(prefix);
	free(parent);
}

/*
 * Put tmp, the new export, in the place of dir, the earlier one: in one
 * step (the two swapped, then the earlier removed) where the file system
 * can, else dir moved aside first. 0, or -1 (kept).
 */
static int replace_dir(const char *tmp, const char *dir)
{
	char *old;
	int ret = 0;

	if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE)) {
		if (remove_tree(tmp))
			warning("cannot remove '%s', the earlier export: %s", tmp, strerror(errno));
		return 0;
	}
	if (errno != EINVAL && errno != ENOSYS)
		return error("cannot replace '%s' with '%s': %s", dir, tmp, strerror(errno));
	old = xstrfmt("%s.mkseries-old-%ld", dir, (long)getpid());
	remove_tree(old);
	if (rename(dir, old))
		ret = error("cannot move '%s' aside: %s", dir, strerror(errno));
	else if (rename(tmp, dir))
		ret = error("cannot rename '%s' to '%s': %s", tmp, dir, strerror(errno)),
		rename(old, dir);
	else if (remove_tree(old))
		warning("cannot remove '%s', the earlier export: %s", old, strerror(errno));
	free(old);
	return ret;
}

int export_write(const struct export_series *s, enum export_format fmt, const char *dir,
		 const struct export_cover *cover, int replace, struct strvec *files)
{
	char *tmp = NULL;
	int ret = -1, free_dir = export_dir_free(dir, s->branch, fmt, replace);

	if (!free_dir)
		return -1;
	remove_stale_exports(dir);
	tmp = xstrfmt("%s.mkseries-%ld", dir, (long)getpid());
	remove_tree(tmp);
	if (mkdir_p(tmp, 0777)) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		goto cleanup;
	}
	temp_path_add(tmp);
	if (fmt == EXPORT_MBOX)
		ret = write_mbox(s, tmp, cover, files);
	else if (fmt == EXPORT_QUILT)
		ret = write_quilt(s, tmp, cover ? cover->header : NULL, files);
	else
		ret = write_rpm(s, tmp, cover ? cover->header : NULL, files);
	if (ret)
		goto cleanup;
	test_crash_point("export-rename");
	/*
	 * rename(2) replaces an empty directory in one step: no moment
	 * without the user's directory, as an rmdir before it would leave.
	 */
	if (free_dir == 2)
		ret = replace_dir(tmp, dir);
	else if (rename(tmp, dir))
		ret = error("cannot rename '%s' to '%s': %s%s", tmp, dir, strerror(errno),
			    errno == ENOTEMPTY || errno == EEXIST ?
			    " (something wrote into it during the export; nothing was written)" : "");
cleanup:
	if (ret)
		remove_tree(tmp);
	if (tmp)
		temp_path_done(tmp);
	free(tmp);
	return ret;
}
