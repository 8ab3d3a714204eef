/* lib/treecheck.c: what a path or a .gitmodules must be before mkseries writes it into a tree (git fsck's rules). */
#include <ctype.h>
#include <string.h>

#include "lib/treecheck.h"

/* Length of a code point HFS+ ignores when comparing names (git's is_hfs_dotgit), or 0. */
static size_t hfs_ignorable(const unsigned char *s, size_t n)
{
	if (n < 3)
		return 0;
	if (s[0] == 0xe2 && s[1] == 0x80 &&
	    ((s[2] >= 0x8c && s[2] <= 0x8f) || (s[2] >= 0xaa && s[2] <= 0xae)))
		return 3;
	if (s[0] == 0xe2 && s[1] == 0x81 && s[2] >= 0xaa && s[2] <= 0xaf)
		return 3;
	if (s[0] == 0xef && s[1] == 0xbb && s[2] == 0xbf)
		return 3;
	return 0;
}

/*
 * A path component as the filesystems that fold names see it: HFS+
 * ignorable code points dropped, cut at an NTFS stream (':'), lower
 * case, trailing dots and spaces removed. Returns its length in canon
 * (at most `size`), or size + 1 when it is longer than any name asked.
 */
static size_t canonical_name(char *canon, size_t size, const char *c, size_t n)
{
	size_t i = 0, k = 0, skip, trail = 0;

	while (i < n) {
		char ch;

		if ((skip = hfs_ignorable((const unsigned char *)c + i, n - i))) {
			i += skip;
			continue;
		}
		if (c[i] == ':')
			break;	/* an NTFS stream name follows */
		ch = tolower((unsigned char)c[i++]);
		if (ch == '.' || ch == ' ')
			trail++;
		else
			trail = 0;
		if (k < size)
			canon[k] = ch;
		k++;
	}
	k -= trail;
	return k > size ? size + 1 : k;
}

/* An 8.3 short name: `prefix` then "~" and a digit from 1 to `last`. */
static int is_short_name(const char *canon, size_t k, const char *prefix, char last)
{
	size_t p = strlen(prefix);

	return k == p + 2 && !memcmp(canon, prefix, p) && canon[p] == '~' && canon[p + 1] >= '1' &&
	       canon[p + 1] <= last;
}

static int is_dotgit(const char *c, size_t n)
{
	char canon[8];
	size_t k = canonical_name(canon, sizeof(canon), c, n);

	return (k == 4 && !memcmp(canon, ".git", 4)) || is_short_name(canon, k, "git", '1');
}

int treecheck_is_gitmodules(const char *c, size_t n)
{
	char canon[16];
	size_t k = canonical_name(canon, sizeof(canon), c, n);

	/* git's is_ntfs_dotgitmodules(): "gitmod~1".."gitmod~4", or the hashed "gi7eba~N". */
	return (k == 11 && !memcmp(canon, ".gitmodules", 11)) ||
	       is_short_name(canon, k, "gitmod", '4') || is_short_name(canon, k, "gi7eba", '9');
}

const char *treecheck_path(const char *p, size_t n)
{
	size_t i, start;

	if (!n)
		return "empty path";
	if (p[0] == '/')
		return "absolute path";
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return "control character in path";
	for (start = 0; start <= n; start = i + 1) {
		const char *comp = p + start;
		size_t clen;

		for (i = start; i < n && p[i] != '/'; i++)
			;
		clen = i - start;
		if (!clen)
			return "empty path component";
		if (clen == 2 && !memcmp(comp, "..", 2))
			return "path leaves the tree";
		if (clen == 1 && comp[0] == '.')
			return "path has a '.' component";
		if (is_dotgit(comp, clen))
			return "path reaches into .git";
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* .gitmodules: a strict reader of git's config syntax */

struct cfg_reader {
	const char *p, *end;
	unsigned line;
	struct strbuf section, subsection, key, value;
	int has_subsection, has_value;
};

static int peek(const struct cfg_reader *r)
{
	if (r->p >= r->end)
		return -1;
	/* git reads "\r\n" as "\n" */
	if (*r->p == '\r' && r->p + 1 < r->end && r->p[1] == '\n')
		return '\n';
	return (unsigned char)*r->p;
}

static int next(struct cfg_reader *r)
{
	int c = peek(r);

	if (c < 0)
		return c;
	r->p += (*r->p == '\r' && c == '\n') ? 2 : 1;
	if (c == '\n')
		r->line++;
	return c;
}

static void skip_blanks(struct cfg_reader *r)
{
	while (peek(r) == ' ' || peek(r) == '\t')
		next(r);
}

static void skip_line(struct cfg_reader *r)
{
	int c;

	while ((c = next(r)) >= 0 && c != '\n')
		;
}

/* "[name]", "[name \"sub\"]" or the old "[name.sub]"; r->p is past '['. */
static const char *read_section(struct cfg_reader *r)
{
	const char *dot;
	int c;

	strbuf_reset(&r->section);
	strbuf_reset(&r->subsection);
	r->has_subsection = 0;
	while ((c = peek(r)) >= 0 && (isalnum(c) || c == '-' || c == '.'))
		strbuf_addch(&r->section, tolower(next(r)));
	if (!r->section.len)
		return "a section without a name";
	if (c == ' ' || c == '\t') {
		skip_blanks(r);
		if (next(r) != '"')
			return "a section name followed by something other than a quoted subsection";
		for (;;) {
			c = next(r);
			if (c < 0 || c == '\n')
				return "an unterminated subsection";
			if (c == '"')
				break;
			if (c == '\\') {
				c = next(r);
				if (c < 0 || c == '\n')
					return "an unterminated subsection";
			}
			strbuf_addch(&r->subsection, c);
		}
		r->has_subsection = 1;
		c = peek(r);
	} else if ((dot = memchr(r->section.buf, '.', r->section.len))) {
		/* "[submodule.Name]": git reads it lower-cased, as "submodule.name" */
		strbuf_add(&r->subsection, dot + 1, r->section.buf + r->section.len - dot - 1);
		strbuf_setlen(&r->section, dot - r->section.buf);
		r->has_subsection = 1;
	}
	if (next(r) != ']')
		return "a section header without its ']'";
	return NULL;
}

/* A value after '=' up to the end of the line, as git's parse_value() reads it. */
static const char *read_value(struct cfg_reader *r)
{
	int quote = 0, c;
	size_t spaces = 0;

	strbuf_reset(&r->value);
	skip_blanks(r);
	for (;;) {
		c = next(r);
		if (c < 0 || c == '\n') {
			if (quote)
				return "an unterminated quote";
			return NULL;
		}
		if (!quote && (c == ';' || c == '#')) {
			skip_line(r);
			return NULL;
		}
		if (!quote && isspace(c)) {
			if (r->value.len)
				spaces++;
			continue;
		}
		for (; spaces; spaces--)
			strbuf_addch(&r->value, ' ');
		if (c == '"') {
			quote = !quote;
			continue;
		}
		if (c != '\\') {
			strbuf_addch(&r->value, c);
			continue;
		}
		c = next(r);
		switch (c) {
		case '\n':
			continue;	/* a continued line */
		case 't':
			strbuf_addch(&r->value, '\t');
			break;
		case 'b':
			strbuf_addch(&r->value, '\b');
			break;
		case 'n':
			strbuf_addch(&r->value, '\n');
			break;
		case '\\':
		case '"':
			strbuf_addch(&r->value, c);
			break;
		default:
			return "a bad escape in a value";
		}
	}
}

/* "key", "key = value"; r->p is at the key's first letter. */
static const char *read_entry(struct cfg_reader *r)
{
	int c;

	strbuf_reset(&r->key);
	r->has_value = 0;
	while ((c = peek(r)) >= 0 && (isalnum(c) || c == '-'))
		strbuf_addch(&r->key, tolower(next(r)));
	skip_blanks(r);
	c = peek(r);
	if (c < 0 || c == '\n' || c == '#' || c == ';') {
		skip_line(r);
		return NULL;	/* a key alone: true */
	}
	if (next(r) != '=')
		return "a key followed by something other than '='";
	r->has_value = 1;
	return read_value(r);
}

/* git's check_submodule_name(): not empty, no ".." between '/' or '\'. */
static int bad_name(const char *name)
{
	const char *p = name;

	if (!*name)
		return 1;
	for (;;) {
		if (p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/' || p[2] == '\\'))
			return 1;
		p = strpbrk(p, "/\\");
		if (!p)
			return 0;
		p++;
	}
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* git's check_submodule_url(), stricter where noted in treecheck.h. */
static const char *bad_url(const char *url)
{
	static const char *const curl[] = { "http", "https", "ftp", "ftps" };
	const char *p, *rest = NULL;
	size_t i;
	int dotdots = 0;

	if (*url == '-')
		return "it could be taken for an option";
	for (p = url; *p; p++) {
		if (*p == '\n' ||
		    (*p == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0 && hex(p[1]) * 16 + hex(p[2]) == '\n'))
			return "it holds a newline";
	}
	if (starts_with(url, "./") || starts_with(url, "../") || starts_with(url, "git://")) {
		for (p = url;;) {
			if (starts_with(p, "../")) {
				dotdots++;
				p += 3;
			} else if (starts_with(p, "./")) {
				p += 2;
			} else {
				break;
			}
		}
		if (dotdots && (*p == ':' || *p == '/'))
			return "it climbs out of its host";
		return NULL;
	}
	/* "https://host/x" or a remote helper's "https::https://host/x" */
	for (i = 0; i < ARRAY_SIZE(curl) && !rest; i++) {
		size_t n = strlen(curl[i]);

		if (!strncmp(url, curl[i], n) && starts_with(url + n, "::"))
			url += n + 2;
		if (!strncmp(url, curl[i], n) && starts_with(url + n, "://"))
			rest = url + n + 3;
	}
	if (rest) {
		const char *host_end = rest + strcspn(rest, "/?#"), *at;

		/* user:password@host */
		for (at = rest; (p = memchr(at, '@', host_end - at)); at = p + 1)
			;
		if (at == host_end || *at == ':')
			return "it names no host";
	}
	return NULL;
}

/* What is wrong with the entry just read, into why; 0 when nothing. */
static int check_entry(struct cfg_reader *r, unsigned line, struct strbuf *why)
{
	const char *v = r->value.buf, *reason = NULL;

	if (strcmp(r->section.buf, "submodule") || !r->has_subsection)
		return 0;
	if (bad_name(r->subsection.buf)) {
		strbuf_addf(why, "line %u: disallowed submodule name '%s': empty, or with a '..' component",
			    line, r->subsection.buf);
		return -1;
	}
	if (!r->has_value)
		return 0;
	if (!strcmp(r->key.buf, "url"))
		reason = bad_url(v);
	else if (!strcmp(r->key.buf, "path") && *v == '-')
		reason = "it could be taken for an option";
	else if (!strcmp(r->key.buf, "update") && *v == '!')
		reason = "it runs a command";
	if (!reason)
		return 0;
	strbuf_addf(why, "line %u: disallowed submodule %s '%s': %s", line, r->key.buf, v, reason);
	return -1;
}

int treecheck_gitmodules(const char *buf, size_t len, struct strbuf *why)
{
	struct cfg_reader r = { buf, buf + len, 1, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT,
				STRBUF_INIT, 0, 0 };
	const char *syntax = NULL;
	int c, have_section = 0, ret = 0;
	unsigned line = 1;

	if (len > TREECHECK_GITMODULES_MAX) {
		strbuf_addf(why, "more than %u bytes: too large to check", TREECHECK_GITMODULES_MAX);
		return -1;
	}
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		r.p += 3;
	while (!syntax && !ret && (c = peek(&r)) >= 0) {
		line = r.line;
		if (c == '\n' || isspace(c)) {
			next(&r);
		} else if (c == '#' || c == ';') {
			skip_line(&r);
		} else if (c == '[') {
			next(&r);
			syntax = read_section(&r);
			have_section = 1;
		} else if (!isalpha(c)) {
			syntax = "text that is not git config";
		} else if (!have_section) {
			syntax = "a key before any section";
		} else if (!(syntax = read_entry(&r))) {
			ret = check_entry(&r, line, why);
		}
	}
	if (syntax) {
		strbuf_addf(why, "line %u: %s", line, syntax);
		ret = -1;
	}
	strbuf_release(&r.section);
	strbuf_release(&r.subsection);
	strbuf_release(&r.key);
	strbuf_release(&r.value);
	return ret;
}
