/* model.c: load and check the kit: series.yaml and kernels/<branch>.yaml. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>
#include <git2.h>

#include "arch.h"
#include "gitutil.h"

#include "model.h"
#include "util.h"

/* One pass over a kit: how the user names its directory, and the errors so far. */
struct loader {
	struct kit *kit;
	char *prefix;		/* "" for ".", else "dir/": prepended to file names in messages */
	int errors;
};

/* One YAML file being read. */
struct yfile {
	struct loader *ld;
	char *name;		/* as shown in messages */
	yaml_document_t doc;
	int loaded;		/* doc holds a document to delete */
};

static const char *const top_keys[] = { "series", "verdicts", NULL };

enum { S_ID, S_TITLE, S_LINK, S_MSGID, S_REQUIRES, S_PATCHES, S_FIXUPS, S_BRANCHES, S_CLAIMS,
       S_NR };
static const char *const series_keys[] = {
	"id", "title", "link", "message-id", "requires", "patches", "fixups", "branches", "claims",
	NULL
};

enum { P_FILE, P_UPSTREAM, P_SUBJECT, P_LINK, P_BRANCHES, P_FIXES, P_SQUASH, P_NR };
static const char *const patch_keys[] = { "file", "upstream", "subject", "link", "branches", NULL };
static const char *const fixup_keys[] = {
	"file", "upstream", "subject", "link", "branches", "fixes", "squash", NULL
};

/* Decision keys, in the order of the kinds they map to (see decision_kind_of). */
static const char *const series_decision_keys[] = { "apply", "skip", "present", "patches", NULL };
static const char *const patch_decision_keys[] = { "apply", "skip", "present", "file", NULL };

enum { K_NAME, K_DEFAULT, K_SOURCE, K_ARCH, K_CONFIG, K_BOOT, K_VARIANTS, K_VERDICTS, K_CLAIMS,
       K_CROSS, K_IMAGE, K_DECISIONS, K_NR };
static const char *const kernel_keys[] = {
	"name", "default", "source", "arch", "config", "boot", "variants", "verdicts", "claims",
	"cross", "image", "decisions", NULL
};
enum { V_WITHOUT, V_NOTE, V_EXPECT_FAIL, V_CLAIMS, V_WITH, V_NR };
static const char *const variant_keys[] = { "without", "note", "expect-fail", "claims", "with", NULL };
enum { SRC_DEBIAN, SRC_GIT, SRC_TARBALL, SRC_NR };
static const char *const source_keys[] = { "debian", "git", "tarball", NULL };
static const char *const debian_keys[] = { "package", "suite", NULL };
static const char *const git_keys[] = { "repo", "ref", "release", NULL };
enum { C_BASE, C_FRAGMENTS, C_NR };
static const char *const config_keys[] = { "base", "fragments", NULL };
enum { B_QEMU, B_MACHINE, B_CPU, B_MEMORY, B_CPUS, B_CMDLINE, B_ACCEL, B_BOOT_TIMEOUT,
       B_RUN_TIMEOUT, B_TCG_CLOCK, B_BOOTS, B_CONSOLE, B_NR };
static const char *const boot_keys[] = {
	"qemu", "machine", "cpu", "memory", "cpus", "cmdline", "accel", "boot-timeout",
	"run-timeout", "tcg-clock", "boots", "console", NULL
};

/* Make targets that wait for a human; a build must never run them. */
static const char *const interactive_targets[] = {
	"config", "menuconfig", "nconfig", "xconfig", "gconfig", "oldconfig", NULL
};

__attribute__((format(printf, 3, 4)))
static void report(struct yfile *f, int line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* error() escapes what the kit's text holds; a newline must not start a line of its own. */
	error("%s:%d: %s", f->name, line, shown(sb.buf));
	strbuf_release(&sb);
	f->ld->errors++;
}

static int line_of(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

static yaml_node_t *node_at(struct yfile *f, int index)
{
	return yaml_document_get_node(&f->doc, index);
}

static const char *text_of(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A plain scalar that YAML reads as null: `key:`, `key: ~`, `key: null`. */
static int is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	v = text_of(n);
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

static int absent(const yaml_node_t *n)
{
	return !n || is_null(n);
}

static const char *kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return is_null(n) ? "an empty value" : "a string";
	case YAML_SEQUENCE_NODE:
		return "a sequence";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

static void join_keys(struct strbuf *sb, const char *const *keys)
{
	size_t i;

	for (i = 0; keys[i]; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", keys[i]);
}

/* The text of scalar `n`, or NULL (reported) when it is not one `want` can be. */
static const char *scalar(struct yfile *f, yaml_node_t *n, const char *key, const char *want)
{
	if (n->type != YAML_SCALAR_NODE) {
		report(f, line_of(n), "'%s' must be %s, not %s", key, want, kind_name(n));
		return NULL;
	}
	if (strlen(text_of(n)) != n->data.scalar.length) {
		report(f, line_of(n), "'%s' contains a NUL byte", key);
		return NULL;
	}
	return text_of(n);
}

/*
 * Copy the one-line string `n` into *out, replacing what was there.
 * Absent, null and "" leave *out alone. Returns -1 (reported) on a
 * value of the wrong type.
 */
static int get_str(struct yfile *f, yaml_node_t *n, const char *key, char **out)
{
	const char *v, *p;

	if (absent(n))
		return 0;
	v = scalar(f, n, key, "a string");
	if (!v)
		return -1;
	for (p = v; *p; p++) {
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
			report(f, line_of(n), "'%s' must be a single line of text", key);
			return -1;
		}
	}
	if (!*v)
		return 0;
	free(*out);
	*out = xstrdup(v);
	return 0;
}

/* A required string; `owner` names what lacks it, at `line`, when the key is absent. */
static void need_str(struct yfile *f, yaml_node_t *n, const char *key, int line,
		     const char *owner, char **out)
{
	if (!n) {
		report(f, line, "%s has no '%s'", owner, key);
		return;
	}
	if (get_str(f, n, key, out))
		return;
	if (!*out)
		report(f, line_of(n), "'%s' must not be empty", key);
}

static int get_bool(struct yfile *f, yaml_node_t *n, const char *key, int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "YES",
					   "on", "On", "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "NO",
					  "off", "Off", "OFF", NULL };
	const char *v;
	size_t i;

	if (absent(n))
		return 0;
	v = scalar(f, n, key, "true or false");
	if (!v)
		return -1;
	for (i = 0; yes[i]; i++) {
		if (!strcmp(v, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcmp(v, no[i])) {
			*out = 0;
			return 0;
		}
	}
	report(f, line_of(n), "'%s' must be true or false, not '%s'", key, v);
	return -1;
}

/* Decimal digits only, at most 9 of them (no overflow). Returns -1 otherwise. */
static int parse_digits(const char *v, size_t len, unsigned *out)
{
	unsigned n = 0;
	size_t i;

	if (!len || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)v[i]))
			return -1;
		n = n * 10 + (v[i] - '0');
	}
	*out = n;
	return 0;
}

static int get_uint(struct yfile *f, yaml_node_t *n, const char *key, unsigned min,
		    unsigned max, unsigned *out)
{
	const char *v;
	unsigned u;

	if (absent(n))
		return 0;
	v = scalar(f, n, key, "a number");
	if (!v)
		return -1;
	if (parse_digits(v, strlen(v), &u)) {
		report(f, line_of(n), "'%s' must be a number, not '%s'", key, v);
		return -1;
	}
	if (u < min || u > max) {
		report(f, line_of(n), "'%s' must be between %u and %u, not %u", key, min, max, u);
		return -1;
	}
	*out = u;
	return 0;
}

/* The key of a mapping pair, or NULL (reported) when it is not a string or repeats. */
static const char *key_text(struct yfile *f, yaml_node_t *map, yaml_node_pair_t *pair)
{
	yaml_node_t *k = node_at(f, pair->key);
	yaml_node_pair_t *p;

	if (k->type != YAML_SCALAR_NODE) {
		report(f, line_of(k), "a key must be a string, not %s", kind_name(k));
		return NULL;
	}
	if (strlen(text_of(k)) != k->data.scalar.length) {
		report(f, line_of(k), "a key contains a NUL byte");
		return NULL;
	}
	for (p = map->data.mapping.pairs.start; p < pair; p++) {
		yaml_node_t *o = node_at(f, p->key);

		if (o->type == YAML_SCALAR_NODE && !strcmp(text_of(o), text_of(k))) {
			report(f, line_of(k), "duplicate key '%s' (first at line %d)", text_of(k),
			       line_of(o));
			return NULL;
		}
	}
	return text_of(k);
}

/*
 * Sort the pairs of mapping `map` into out[] by `keys` (NULL-terminated;
 * out[i] is the value of keys[i], or NULL). Unknown and repeated keys are
 * reported and skipped. Returns -1 (reported) when `map` is no mapping.
 */
static int map_fields(struct yfile *f, yaml_node_t *map, const char *what,
		      const char *const *keys, yaml_node_t **out)
{
	yaml_node_pair_t *pair;
	size_t i;

	for (i = 0; keys[i]; i++)
		out[i] = NULL;
	if (map->type != YAML_MAPPING_NODE) {
		report(f, line_of(map), "%s must be a mapping, not %s", what, kind_name(map));
		return -1;
	}
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *k = key_text(f, map, pair);

		if (!k)
			continue;
		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i]) {
			struct strbuf sb = STRBUF_INIT;

			join_keys(&sb, keys);
			report(f, line_of(node_at(f, pair->key)), "unknown key '%s' in %s (allowed: %s)",
			       k, what, sb.buf);
			strbuf_release(&sb);
			continue;
		}
		out[i] = node_at(f, pair->value);
	}
	return 0;
}

/*
 * The items of sequence `n` in a new array (caller frees), or NULL with
 * *nr = 0 when absent or wrong (reported). With `one_ok`, a single
 * scalar stands for a sequence of one.
 */
static yaml_node_t **seq_nodes(struct yfile *f, yaml_node_t *n, const char *key, int one_ok,
			       size_t *nr)
{
	yaml_node_item_t *item;
	yaml_node_t **v;

	*nr = 0;
	if (absent(n))
		return NULL;
	if (one_ok && n->type == YAML_SCALAR_NODE) {
		v = xcalloc(1, sizeof(*v));
		v[(*nr)++] = n;
		return v;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		report(f, line_of(n), "'%s' must be a sequence, not %s", key, kind_name(n));
		return NULL;
	}
	v = xcalloc(n->data.sequence.items.top - n->data.sequence.items.start, sizeof(*v));
	for (item = n->data.sequence.items.start; item < n->data.sequence.items.top; item++)
		v[(*nr)++] = node_at(f, *item);
	return v;
}

static int is_hex_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return !s[n] && n >= 8 && n <= 40;
}

/* Two upstream ids name the same commit when one abbreviates the other. */
static int same_commit(const char *a, const char *b)
{
	size_t n = strlen(a) < strlen(b) ? strlen(a) : strlen(b);

	return !strncasecmp(a, b, n);
}

static int valid_series_id(const char *s)
{
	if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s))
		return 0;
	return !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-")];
}

/* Branch names end up in ref names and file names: keep them plain. */
static int valid_branch_name(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return 0;
	if (strstr(s, "..") || ends_with(s, ".") || ends_with(s, ".lock"))
		return 0;
	return !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")];
}

/* A variant name is part of a ref and of file names in the work directory. */
static int valid_variant_name(const char *s)
{
	if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s))
		return 0;
	return !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-")];
}

/* mm-regress names its cases with lowercase letters, digits and '_'. */
static int valid_case_name(const char *s)
{
	return *s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_")];
}

static const char *skip_dot_slash(const char *s)
{
	while (s[0] == '.' && s[1] == '/')
		for (s += 2; *s == '/'; s++)
			;
	return s;
}

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/*
 * A path named by the kit must stay inside it and exist, as a directory
 * when `want_dir`, else as a file. Returns -1 (reported) otherwise.
 */
static int check_kit_path(struct yfile *f, int line, const char *what, const char *path,
			  int want_dir)
{
	const char *p;
	char *full = NULL;
	struct stat st;
	int ret = -1;

	if (path[0] == '/') {
		report(f, line, "%s '%s' must be relative to the kit directory", what, path);
		goto cleanup;
	}
	for (p = path; *p; p = strchrnul(p, '/'), p += !!*p) {
		if (p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/')) {
			report(f, line, "%s '%s' must stay inside the kit directory", what, path);
			goto cleanup;
		}
	}
	full = path_join(f->ld->kit->dir, path);
	if (stat(full, &st)) {
		report(f, line, "%s '%s' does not exist", what, path);
		goto cleanup;
	}
	if (want_dir && !S_ISDIR(st.st_mode)) {
		report(f, line, "%s '%s' is not a directory", what, path);
		goto cleanup;
	}
	if (!want_dir && !S_ISREG(st.st_mode)) {
		report(f, line, "%s '%s' is not a file", what, path);
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(full);
	return ret;
}

/* An absolute path for `path`: kept when absolute, ~-expanded, else under the kit. */
static char *kit_abspath(struct yfile *f, int line, const char *path)
{
	const char *rest, *home = NULL;
	struct passwd *pw;
	char *user = NULL, *ret = NULL;

	if (path[0] == '/')
		return xstrdup(path);
	if (path[0] != '~')
		return path_join(f->ld->kit->dir, skip_dot_slash(path));
	rest = strchrnul(path, '/');
	if (rest == path + 1) {
		home = getenv("HOME");
		if (!home || !*home) {
			pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : NULL;
		}
	} else {
		user = xstrndup(path + 1, rest - path - 1);
		pw = getpwnam(user);
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home) {
		report(f, line, "cannot expand '%s': no such user", path);
		goto cleanup;
	}
	while (*rest == '/')
		rest++;
	ret = *rest ? path_join(home, rest) : xstrdup(home);
cleanup:
	free(user);
	return ret;
}

static void parse_error(struct yfile *f, yaml_parser_t *parser, const char *input)
{
	int line = (int)parser->problem_mark.line + 1;
	const char *problem = parser->problem ? parser->problem : "cannot parse";
	size_t i;

	if (parser->error == YAML_READER_ERROR) {
		/* The reader only knows the byte offset. */
		line = 1;
		for (i = 0; i < parser->problem_offset && input[i]; i++)
			line += input[i] == '\n';
	}
	if (parser->context)
		report(f, line, "invalid YAML: %s (%s at line %d)", problem, parser->context,
		       (int)parser->context_mark.line + 1);
	else
		report(f, line, "invalid YAML: %s", problem);
}

/*
 * Anchors and aliases would let one node stand in many places (and a
 * small file expand into a huge kit): every node must have one parent.
 */
static int check_aliases(struct yfile *f)
{
	size_t nr = f->doc.nodes.top - f->doc.nodes.start, i;
	unsigned char *seen = xcalloc(nr + 1, 1);
	int ret = 0;

	seen[1] = 1;	/* the root */
	for (i = 0; i < nr && !ret; i++) {
		yaml_node_t *n = f->doc.nodes.start + i;

		if (n->type == YAML_MAPPING_NODE) {
			yaml_node_pair_t *p;

			for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
				if (seen[p->key]++ || seen[p->value]++)
					ret = -1;
		} else if (n->type == YAML_SEQUENCE_NODE) {
			yaml_node_item_t *it;

			for (it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++)
				if (seen[*it]++)
					ret = -1;
		}
		if (ret)
			report(f, line_of(n), "YAML aliases are not supported");
	}
	free(seen);
	return ret;
}

/*
 * Deeper than any kit needs (the schema goes about 8 levels down), and
 * shallow enough that libyaml, which slows down with every level (a
 * 100,000-level file took 192 s to load), never gets far.
 */
#define MAX_YAML_DEPTH 64

/*
 * Refuse text nested deeper than MAX_YAML_DEPTH, at the line where it
 * goes too deep, before loading it: the events are read only up to
 * there. A syntax error is left to the loader to report.
 */
static int check_depth(struct yfile *f, const struct strbuf *buf)
{
	yaml_parser_t parser;
	int depth = 0, ret = 0, done = 0;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf->buf, buf->len);
	while (!done && !ret) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev))
			break;
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > MAX_YAML_DEPTH) {
				report(f, (int)ev.start_mark.line + 1, "nested deeper than %d levels",
				       MAX_YAML_DEPTH);
				ret = -1;
			}
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ret;
}

/* Read and parse `rel` (relative to the kit) into f->doc. Returns the root, or NULL (reported). */
static yaml_node_t *yfile_load(struct yfile *f, struct loader *ld, const char *rel)
{
	struct strbuf buf = STRBUF_INIT;
	yaml_parser_t parser;
	yaml_document_t extra;
	yaml_node_t *root = NULL;
	char *path = path_join(ld->kit->dir, rel);

	f->ld = ld;
	f->name = xstrfmt("%s%s", ld->prefix, rel);
	if (strbuf_read_file(&buf, path) < 0) {
		error("cannot read '%s': %s", f->name, strerror(errno));
		ld->errors++;
		free(path);
		strbuf_release(&buf);
		return NULL;
	}
	free(path);
	if (check_depth(f, &buf)) {
		strbuf_release(&buf);
		return NULL;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf.buf, buf.len);
	if (!yaml_parser_load(&parser, &f->doc)) {
		parse_error(f, &parser, buf.buf);
		goto cleanup;
	}
	f->loaded = 1;
	root = yaml_document_get_root_node(&f->doc);
	if (!root) {
		report(f, 1, "the file is empty");
		goto cleanup;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		parse_error(f, &parser, buf.buf);
		root = NULL;
		goto cleanup;
	}
	if (yaml_document_get_root_node(&extra)) {
		report(f, line_of(yaml_document_get_root_node(&extra)),
		       "more than one YAML document");
		root = NULL;
	}
	yaml_document_delete(&extra);
	if (root && check_aliases(f))
		root = NULL;
cleanup:
	yaml_parser_delete(&parser);
	strbuf_release(&buf);
	return root;
}

static void yfile_release(struct yfile *f)
{
	if (f->loaded)
		yaml_document_delete(&f->doc);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

/* ------------------------------------------------------------------ */
/* Performance claims and verdict settings (README, "Verdicts") */

enum { CL_METRIC, CL_BETTER, CL_WORSE, CL_ABOVE, CL_BELOW, CL_THAN, CL_WHY, CL_NR };
static const char *const claim_keys[] = {
	"metric", "better", "worse", "above", "below", "than", "why", NULL
};
static const char *const verdicts_keys[] = { "threshold", NULL };

/* Whose claims are checked: it decides what `than` may name. */
enum claim_owner { OWNER_SERIES, OWNER_BRANCH, OWNER_VARIANT };

/* "20%", "12.5%": decimal digits, an optional fraction, then '%'. Returns -1 otherwise. */
static int parse_percent(const char *v, double *out)
{
	size_t n = strspn(v, "0123456789"), frac = 0;

	if (!n || n > 9)
		return -1;
	if (v[n] == '.') {
		frac = strspn(v + n + 1, "0123456789");
		if (!frac || frac > 6)
			return -1;
		frac++;
	}
	if (strcmp(v + n + frac, "%"))
		return -1;
	*out = strtod(v, NULL);
	return 0;
}

/* A decimal number, as strtod() reads it, finite and nothing after it. */
static int parse_number(const char *v, double *out)
{
	char *end;
	double d;

	if (!*v || isspace((unsigned char)*v))
		return -1;
	errno = 0;
	d = strtod(v, &end);
	if (errno || *end || end == v || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

/* "CASE.NAME": an mm-regress case and one of its metrics, both [a-z0-9_]+. */
static int split_metric(const char *v, char **case_name, char **metric)
{
	const char *dot = strchr(v, '.');
	char *c, *m;

	if (!dot)
		return -1;
	c = xstrndup(v, dot - v);
	m = xstrdup(dot + 1);
	if (!valid_case_name(c) || !valid_case_name(m)) {
		free(c);
		free(m);
		return -1;
	}
	*case_name = c;
	*metric = m;
	return 0;
}

static void parse_claim(struct yfile *f, yaml_node_t *n, struct kit_claim *c)
{
	static const enum claim_kind kinds[] = {
		[CL_BETTER] = CLAIM_BETTER, [CL_WORSE] = CLAIM_WORSE,
		[CL_ABOVE] = CLAIM_ABOVE, [CL_BELOW] = CLAIM_BELOW,
	};
	yaml_node_t *v[CL_NR];
	const char *text;
	char *metric = NULL;
	int k, which = -1;

	c->line = c->than_line = line_of(n);
	if (map_fields(f, n, "a claim", claim_keys, v))
		return;
	if (!v[CL_METRIC])
		report(f, c->line, "a claim needs a 'metric' (CASE.NAME, as in realloc_rate.calls_per_sec)");
	else if (!get_str(f, v[CL_METRIC], "metric", &metric) &&
		 (!metric || split_metric(metric, &c->case_name, &c->metric)))
		report(f, line_of(v[CL_METRIC]),
		       "'metric' must be CASE.NAME, an mm-regress case and one of its metrics (as in realloc_rate.calls_per_sec), not '%s'",
		       metric ? metric : "");
	free(metric);
	for (k = CL_BETTER; k <= CL_BELOW; k++) {
		if (!v[k])
			continue;
		if (which >= 0) {
			report(f, line_of(v[k]),
			       "a claim takes one of better, worse, above or below, not both '%s' and '%s'",
			       claim_keys[which], claim_keys[k]);
			continue;
		}
		which = k;
	}
	if (which < 0) {
		report(f, c->line, "a claim needs one of better, worse (N%%, against another cell), above or below (a value)");
		return;
	}
	c->kind = kinds[which];
	text = scalar(f, v[which], claim_keys[which], which <= CL_WORSE ? "a percentage" : "a number");
	if (!text) {
		;
	} else if (which <= CL_WORSE) {
		if (parse_percent(text, &c->value))
			report(f, line_of(v[which]), "'%s' must be a percentage like 20%%, not '%s'",
			       claim_keys[which], text);
		else if (c->value > 1000)
			report(f, line_of(v[which]), "'%s' must be between 0%% and 1000%%, not '%s'",
			       claim_keys[which], text);
	} else if (parse_number(text, &c->value)) {
		report(f, line_of(v[which]), "'%s' must be a number (in the metric's unit), not '%s'",
		       claim_keys[which], text);
	}
	if (v[CL_THAN]) {
		c->than_line = line_of(v[CL_THAN]);
		if (which > CL_WORSE)
			report(f, c->than_line, "'than' goes with better or worse, not with '%s'",
			       claim_keys[which]);
		else if (!get_str(f, v[CL_THAN], "than", &c->than) && !c->than)
			report(f, c->than_line, "'than' must not be empty");
	}
	if (which <= CL_WORSE && !c->than)
		c->than = xstrdup("base");
	get_str(f, v[CL_WHY], "why", &c->why);
}

/* `claims:`, a sequence of claims, into a new array. */
static void parse_claims(struct yfile *f, yaml_node_t *n, struct kit_claim **out, size_t *nr)
{
	yaml_node_t **items;
	size_t count, i;

	items = seq_nodes(f, n, "claims", 0, &count);
	if (count)
		*out = xcalloc(count, sizeof(**out));
	for (i = 0; i < count; i++)
		parse_claim(f, items[i], &(*out)[(*nr)++]);
	free(items);
}

static int any_branch_has_variant(const struct kit *kit, const char *name)
{
	size_t i;

	for (i = 0; i < kit->nr_branches; i++)
		if (branch_find_variant(&kit->branches[i], name))
			return 1;
	return 0;
}

static void add_variant_names(struct strbuf *sb, const struct kernel_branch *b, const char *self)
{
	size_t i;

	for (i = 0; i < b->nr_variants; i++)
		if (!self || strcmp(b->variants[i].name, self))
			strbuf_addf(sb, ", %s", b->variants[i].name);
}

/*
 * What `than` may name: base, or a declared variant (of any branch for
 * a series, of its own branch otherwise); a variant's claims may also
 * name the kit. The cell a claim is checked on is never its own `than`.
 */
static void check_claims_than(struct yfile *f, const struct kit_claim *c, size_t nr,
			      enum claim_owner owner, const struct kernel_branch *b, const char *self)
{
	struct strbuf known = STRBUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++) {
		const char *than = c[i].than;

		if (!than || !strcmp(than, "base"))
			continue;
		if (!strcmp(than, "kit")) {
			if (owner == OWNER_SERIES)
				report(f, c[i].than_line,
				       "a series' claims are checked on the kit: 'than: kit' compares it with itself (base, or a declared variant)");
			else if (owner == OWNER_BRANCH)
				report(f, c[i].than_line,
				       "a kernel file's claims are checked on its kit: 'than: kit' compares it with itself (base, or one of its variants)");
			continue;
		}
		if (owner == OWNER_VARIANT && !strcmp(than, self)) {
			report(f, c[i].than_line, "variant '%s' cannot be compared with itself", self);
			continue;
		}
		if (owner == OWNER_SERIES ? any_branch_has_variant(f->ld->kit, than) :
		    branch_find_variant(b, than) != NULL)
			continue;
		strbuf_reset(&known);
		if (owner == OWNER_SERIES) {
			strbuf_addstr(&known, "base, or a variant a kernel file declares");
		} else {
			strbuf_addstr(&known, owner == OWNER_VARIANT ? "base, kit" : "base");
			add_variant_names(&known, b, self);
		}
		report(f, c[i].than_line, "unknown cell '%s' in 'than' (%s)", than, known.buf);
	}
	strbuf_release(&known);
}

/* `verdicts: { threshold: N% }`, in series.yaml or a kernel file. */
static void parse_verdicts(struct yfile *f, yaml_node_t *n, double *threshold)
{
	yaml_node_t *v[2];
	const char *text;
	double t;

	if (absent(n) || map_fields(f, n, "'verdicts'", verdicts_keys, v) || absent(v[0]))
		return;
	text = scalar(f, v[0], "threshold", "a percentage");
	if (!text)
		return;
	if (parse_percent(text, &t))
		report(f, line_of(v[0]), "'threshold' must be a percentage like 5%%, not '%s'", text);
	else if (t <= 0 || t > 100)
		report(f, line_of(v[0]), "'threshold' must be more than 0%% and at most 100%%, not '%s'",
		       text);
	else
		*threshold = t;
}

static void claims_free(struct kit_claim *c, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(c[i].case_name);
		free(c[i].metric);
		free(c[i].than);
		free(c[i].why);
	}
	free(c);
}

double kit_threshold_pct(const struct kit *kit, const struct kernel_branch *b)
{
	if (b && b->threshold_pct > 0)
		return b->threshold_pct;
	return kit->threshold_pct;
}

char *kit_claim_text(const struct kit_claim *c)
{
	const char *case_name = c->case_name ? c->case_name : "?";
	const char *metric = c->metric ? c->metric : "?";

	switch (c->kind) {
	case CLAIM_BETTER:
	case CLAIM_WORSE:
		return xstrfmt("%s.%s %s by %g%% than %s", case_name, metric,
			       c->kind == CLAIM_BETTER ? "better" : "worse", c->value,
			       c->than ? c->than : "base");
	case CLAIM_ABOVE:
	case CLAIM_BELOW:
		return xstrfmt("%s.%s %s %g", case_name, metric,
			       c->kind == CLAIM_ABOVE ? "above" : "below", c->value);
	}
	return xstrfmt("%s.%s", case_name, metric);
}

static void parse_decision(struct yfile *f, yaml_node_t *v, const char *branch,
			   const char *const *keys, struct decision *d)
{
	static const enum decision_kind kinds[] = {
		DECISION_APPLY, DECISION_SKIP, DECISION_PRESENT, 0
	};
	struct strbuf allowed = STRBUF_INIT;
	yaml_node_pair_t *pair;
	yaml_node_t *val;
	const char *k;
	size_t i;

	join_keys(&allowed, keys);
	if (v->type != YAML_MAPPING_NODE ||
	    v->data.mapping.pairs.top - v->data.mapping.pairs.start != 1) {
		report(f, line_of(v), "decision for '%s' must be a mapping with one key (one of: %s)",
		       branch, allowed.buf);
		goto cleanup;
	}
	pair = v->data.mapping.pairs.start;
	k = key_text(f, v, pair);
	if (!k)
		goto cleanup;
	for (i = 0; keys[i] && strcmp(keys[i], k); i++)
		;
	if (!keys[i]) {
		report(f, line_of(node_at(f, pair->key)),
		       "unknown decision '%s' for '%s' (allowed: %s)", k, branch, allowed.buf);
		goto cleanup;
	}
	/* The fourth key is the path kind of its level. */
	d->kind = kinds[i] ? kinds[i] : keys == patch_decision_keys ? DECISION_FILE : DECISION_PATCHES;
	val = node_at(f, pair->value);
	switch (d->kind) {
	case DECISION_APPLY:
		get_str(f, val, k, &d->reason);
		break;
	case DECISION_SKIP:
	case DECISION_PRESENT:
		if (!get_str(f, val, k, &d->reason) && !d->reason)
			report(f, line_of(val), "'%s' for '%s' needs a reason", k, branch);
		break;
	case DECISION_PATCHES:
	case DECISION_FILE:
		if (get_str(f, val, k, &d->path))
			break;
		if (!d->path)
			report(f, line_of(val), "'%s' for '%s' needs a path", k, branch);
		else if (d->kind == DECISION_PATCHES)
			check_kit_path(f, line_of(val), "patches directory", d->path, 1);
		else
			check_kit_path(f, line_of(val), "patch file", d->path, 0);
		break;
	}
cleanup:
	strbuf_release(&allowed);
}

/* `branches:` of a series or a patch: branch name -> { kind: value }. */
static void parse_decisions(struct yfile *f, yaml_node_t *map, const char *const *keys,
			    struct decision **out, size_t *nr)
{
	struct loader *ld = f->ld;
	yaml_node_pair_t *pair;

	if (absent(map))
		return;
	if (map->type != YAML_MAPPING_NODE) {
		report(f, line_of(map), "'branches' must be a mapping of branch names to decisions, not %s",
		       kind_name(map));
		return;
	}
	*out = xcalloc(map->data.mapping.pairs.top - map->data.mapping.pairs.start, sizeof(**out));
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *name = key_text(f, map, pair);
		struct decision *d;

		if (!name)
			continue;
		d = &(*out)[(*nr)++];
		d->branch = xstrdup(name);
		d->line = line_of(node_at(f, pair->key));
		if (!kit_find_branch(ld->kit, name))
			report(f, d->line, "unknown branch '%s' (no %skernels/%s.yaml)", name,
			       ld->prefix, name);
		else if (kit_find_branch(ld->kit, name)->decisions)
			report(f, d->line, "branch '%s' takes its decisions from '%s' (%skernels/%s.yaml:%d): decide there",
			       name, kit_find_branch(ld->kit, name)->decisions, ld->prefix, name,
			       kit_find_branch(ld->kit, name)->decisions_line);
		parse_decision(f, node_at(f, pair->value), name, keys, d);
	}
}

static void parse_patch(struct yfile *f, yaml_node_t *node, struct kit_patch *p)
{
	const char *what = p->is_fixup ? "a fixup" : "a patch";
	yaml_node_t *v[P_NR];
	size_t i;

	p->line = line_of(node);
	if (map_fields(f, node, what, p->is_fixup ? fixup_keys : patch_keys, v))
		return;
	if (!get_str(f, v[P_FILE], "file", &p->file) && p->file &&
	    check_kit_path(f, line_of(v[P_FILE]), "patch file", p->file, 0)) {
		free(p->file);
		p->file = NULL;
	}
	if (!get_str(f, v[P_UPSTREAM], "upstream", &p->upstream) && p->upstream) {
		if (!is_hex_id(p->upstream)) {
			report(f, line_of(v[P_UPSTREAM]),
			       "invalid upstream id '%s' (expected 8 to 40 hex digits)", p->upstream);
			free(p->upstream);
			p->upstream = NULL;
		} else {
			for (i = 0; p->upstream[i]; i++)
				p->upstream[i] = tolower((unsigned char)p->upstream[i]);
		}
	}
	get_str(f, v[P_SUBJECT], "subject", &p->subject);
	get_str(f, v[P_LINK], "link", &p->link);
	if (absent(v[P_FILE]) && absent(v[P_UPSTREAM]))
		report(f, p->line, "%s needs a 'file' or an 'upstream' id", what);
	else if (absent(v[P_FILE]) && !p->subject)
		report(f, v[P_SUBJECT] ? line_of(v[P_SUBJECT]) : p->line,
		       "%s without a 'file' needs a 'subject'", what);
	if (p->is_fixup) {
		if (!v[P_FIXES]) {
			report(f, p->line, "a fixup needs 'fixes' (the upstream id or file it fixes)");
		} else {
			p->fixes_line = line_of(v[P_FIXES]);
			if (!get_str(f, v[P_FIXES], "fixes", &p->fixes) && !p->fixes)
				report(f, p->fixes_line, "'fixes' must not be empty");
		}
		get_bool(f, v[P_SQUASH], "squash", &p->squash);
	}
	parse_decisions(f, v[P_BRANCHES], patch_decision_keys, &p->decisions, &p->nr_decisions);
}

/* Fill the entries array `*arr` from sequence `n` (the patches or the fixups of s). */
static void parse_patches(struct yfile *f, yaml_node_t *n, struct kit_series *s, int is_fixup,
			  struct kit_patch **arr, size_t *nr)
{
	yaml_node_t **items;
	size_t count, i;

	items = seq_nodes(f, n, is_fixup ? "fixups" : "patches", 0, &count);
	if (!count) {
		free(items);
		return;
	}
	*arr = xcalloc(count, sizeof(**arr));
	for (i = 0; i < count; i++) {
		struct kit_patch *p = &(*arr)[(*nr)++];

		p->series = s;
		p->is_fixup = is_fixup;
		p->index = (int)i + 1;
		parse_patch(f, items[i], p);
	}
	free(items);
}

static void parse_message_id(struct yfile *f, yaml_node_t *n, struct kit_series *s)
{
	char *v = NULL;
	size_t len;

	if (get_str(f, n, "message-id", &v) || !v)
		return;
	len = strlen(v);
	if (len >= 2 && v[0] == '<' && v[len - 1] == '>') {
		memmove(v, v + 1, len - 2);
		v[len - 2] = '\0';
	}
	if (!*v || v[0] == '-' || v[strcspn(v, " \t<>")]) {
		report(f, line_of(n), "invalid message-id '%s'", text_of(n));
		free(v);
		return;
	}
	s->message_id = v;
}

static void parse_series(struct yfile *f, yaml_node_t *node, struct kit_series *s)
{
	yaml_node_t *v[S_NR], **items;
	char *owner = NULL;
	size_t n, i;

	s->line = line_of(node);
	if (map_fields(f, node, "a series", series_keys, v))
		return;
	if (!v[S_ID]) {
		report(f, s->line, "a series needs an 'id'");
	} else if (!get_str(f, v[S_ID], "id", &s->id)) {
		if (!s->id)
			report(f, line_of(v[S_ID]), "'id' must not be empty");
		else if (!valid_series_id(s->id))
			report(f, line_of(v[S_ID]),
			       "invalid series id '%s' (lowercase letters, digits, '.', '_' and '-', starting with a letter or digit)",
			       s->id);
		s->id_line = line_of(v[S_ID]);
	}
	owner = s->id ? xstrfmt("series '%s'", s->id) : xstrdup("the series");
	need_str(f, v[S_TITLE], "title", s->line, owner, &s->title);
	get_str(f, v[S_LINK], "link", &s->link);
	parse_message_id(f, v[S_MSGID], s);

	items = seq_nodes(f, v[S_REQUIRES], "requires", 1, &n);
	if (n) {
		s->requires = xcalloc(n, sizeof(*s->requires));
		s->requires_line = xcalloc(n, sizeof(*s->requires_line));
	}
	for (i = 0; i < n; i++) {
		char *r = NULL;

		if (get_str(f, items[i], "requires", &r))
			continue;
		if (!r) {
			report(f, line_of(items[i]), "'requires' names an empty series id");
			continue;
		}
		s->requires_line[s->nr_requires] = line_of(items[i]);
		s->requires[s->nr_requires++] = r;
	}
	free(items);

	if (absent(v[S_PATCHES]))
		report(f, v[S_PATCHES] ? line_of(v[S_PATCHES]) : s->line, "%s has no patches", owner);
	parse_patches(f, v[S_PATCHES], s, 0, &s->patches, &s->nr_patches);
	if (v[S_PATCHES] && v[S_PATCHES]->type == YAML_SEQUENCE_NODE && !s->nr_patches)
		report(f, line_of(v[S_PATCHES]), "%s has no patches", owner);
	parse_patches(f, v[S_FIXUPS], s, 1, &s->fixups, &s->nr_fixups);
	parse_decisions(f, v[S_BRANCHES], series_decision_keys, &s->decisions, &s->nr_decisions);
	parse_claims(f, v[S_CLAIMS], &s->claims, &s->nr_claims);
	check_claims_than(f, s->claims, s->nr_claims, OWNER_SERIES, NULL, NULL);
	free(owner);
}

static int cmp_series_by_id(const void *a, const void *b)
{
	const struct kit_series *x = *(const struct kit_series *const *)a;
	const struct kit_series *y = *(const struct kit_series *const *)b;
	int c = strcmp(x->id, y->id);

	return c ? c : (x < y ? -1 : x > y);
}

/*
 * Sort the series by id (kit->by_id) and report each id used again, at
 * its first use: one sort instead of comparing every pair, which took
 * minutes on a kit of 100,000 series.
 */
static void index_series(struct yfile *f, struct kit *kit)
{
	size_t i, first = 0;

	kit->by_id = xcalloc(kit->nr_series + 1, sizeof(*kit->by_id));
	for (i = 0; i < kit->nr_series; i++)
		if (kit->series[i].id)
			kit->by_id[kit->nr_by_id++] = &kit->series[i];
	qsort(kit->by_id, kit->nr_by_id, sizeof(*kit->by_id), cmp_series_by_id);
	for (i = 1; i < kit->nr_by_id; i++) {
		const struct kit_series *s = kit->by_id[i], *o = kit->by_id[first];

		if (strcmp(s->id, o->id)) {
			first = i;
			continue;
		}
		report(f, s->id_line, "duplicate series id '%s' (first at %s:%d)", s->id, f->name,
		       o->id_line);
	}
}

static void load_series(struct loader *ld, struct yfile *f)
{
	struct kit *kit = ld->kit;
	yaml_node_t *root, *top[3], **items;
	size_t n, i;

	root = yfile_load(f, ld, "series.yaml");
	if (!root)
		return;
	if (map_fields(f, root, "series.yaml", top_keys, top))
		return;
	parse_verdicts(f, top[1], &kit->threshold_pct);
	if (!top[0]) {
		report(f, line_of(root), "series.yaml has no 'series'");
		return;
	}
	items = seq_nodes(f, top[0], "series", 0, &n);
	if (n)
		kit->series = xcalloc(n, sizeof(*kit->series));
	for (i = 0; i < n; i++)
		parse_series(f, items[i], &kit->series[kit->nr_series++]);
	free(items);
	index_series(f, kit);
}

/*
 * A git repo written "$VAR", "${VAR}" or either followed by "/sub":
 * a linux-stable clone each user keeps somewhere else. An unset VAR is
 * no error here; kernel_source_check() says so when the branch is used.
 */
static void parse_repo_var(struct yfile *f, int line, const char *repo, struct kernel_source *src)
{
	const char *p = repo + 1, *rest;
	char *name, *path;
	const char *val;
	size_t n;

	if (*p == '{') {
		p++;
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		rest = p[n] == '}' ? p + n + 1 : NULL;
	} else {
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		rest = p + n;
	}
	if (!n || isdigit((unsigned char)*p) || !rest || (*rest && *rest != '/')) {
		report(f, line, "'repo' '%s' must be a path, or $VAR or ${VAR} (an environment variable naming a directory) with an optional /path after it",
		       repo);
		return;
	}
	name = xstrndup(p, n);
	src->repo_var = name;
	val = getenv(name);
	if (!val || !*val)
		return;
	while (*rest == '/')
		rest++;
	path = *rest ? path_join(val, rest) : xstrdup(val);
	src->repo = kit_abspath(f, line, path);
	free(path);
}

static void parse_source(struct yfile *f, yaml_node_t *root, yaml_node_t *n,
			 struct kernel_source *src)
{
	yaml_node_t *v[SRC_NR], *sub[2];
	int count = 0, i, which = -1;

	if (!n) {
		report(f, line_of(root), "missing 'source' (one of: debian, git, tarball)");
		return;
	}
	if (map_fields(f, n, "'source'", source_keys, v))
		return;
	for (i = 0; i < SRC_NR; i++) {
		if (!v[i])
			continue;
		if (count++) {
			report(f, line_of(v[i]), "'source' must have only one of: debian, git, tarball");
			return;
		}
		which = i;
	}
	if (which < 0) {
		report(f, line_of(n), "'source' needs one of: debian, git, tarball");
		return;
	}
	switch (which) {
	case SRC_DEBIAN:
		src->kind = SOURCE_DEBIAN;
		if (map_fields(f, v[which], "'debian'", debian_keys, sub))
			return;
		need_str(f, sub[0], "package", line_of(v[which]), "'debian'", &src->package);
		need_str(f, sub[1], "suite", line_of(v[which]), "'debian'", &src->suite);
		/* Both reach apt on its command line. */
		if (src->package && src->package[0] == '-')
			report(f, line_of(sub[0]), "invalid package name '%s'", src->package);
		if (src->suite && src->suite[0] == '-')
			report(f, line_of(sub[1]), "invalid suite name '%s'", src->suite);
		break;
	case SRC_GIT: {
		yaml_node_t *gv[3];
		char *repo = NULL;

		src->kind = SOURCE_GIT;
		if (map_fields(f, v[which], "'git'", git_keys, gv))
			return;
		src->repo_line = src->ref_line = src->release_line = line_of(v[which]);
		need_str(f, gv[0], "repo", line_of(v[which]), "'git'", &repo);
		need_str(f, gv[1], "ref", line_of(v[which]), "'git'", &src->ref);
		if (gv[0])
			src->repo_line = line_of(gv[0]);
		if (gv[1])
			src->ref_line = line_of(gv[1]);
		if (repo && repo[0] == '$')
			parse_repo_var(f, src->repo_line, repo, src);
		else if (repo)
			src->repo = kit_abspath(f, src->repo_line, repo);
		free(repo);
		if (src->ref && src->ref[0] == '-')
			report(f, src->ref_line, "invalid ref '%s'", src->ref);
		if (gv[2]) {
			src->release_line = line_of(gv[2]);
			if (!get_str(f, gv[2], "release", &src->release) && !src->release)
				report(f, src->release_line, "'release' must not be empty");
			else if (src->release && src->release[0] == '-')
				report(f, src->release_line, "invalid release '%s'", src->release);
		}
		break;
	}
	case SRC_TARBALL: {
		char *path = NULL;

		src->kind = SOURCE_TARBALL;
		need_str(f, v[which], "tarball", line_of(n), "'source'", &path);
		if (path)
			src->tarball = kit_abspath(f, line_of(v[which]), path);
		free(path);
		break;
	}
	}
}

static void parse_config(struct yfile *f, yaml_node_t *n, struct kernel_branch *b)
{
	yaml_node_t *v[C_NR], **items;
	size_t nr, i;

	if (absent(n) || map_fields(f, n, "'config'", config_keys, v))
		return;
	if (v[C_BASE] && !get_str(f, v[C_BASE], "base", &b->config_base)) {
		const char *base = b->config_base;
		int target = !!*base;

		for (i = 0; base[i]; i++)
			if (!islower((unsigned char)base[i]) && !isdigit((unsigned char)base[i]) &&
			    base[i] != '_')
				target = 0;
		if (target && ends_with(base, "config")) {
			for (i = 0; interactive_targets[i]; i++)
				if (!strcmp(base, interactive_targets[i]))
					report(f, line_of(v[C_BASE]),
					       "config base '%s' is an interactive make target (use tinyconfig, defconfig, allnoconfig...)",
					       base);
		} else {
			b->config_base_is_file = 1;
			check_kit_path(f, line_of(v[C_BASE]), "config base", base, 0);
		}
	}
	items = seq_nodes(f, v[C_FRAGMENTS], "fragments", 1, &nr);
	if (nr)
		b->fragments = xcalloc(nr, sizeof(*b->fragments));
	for (i = 0; i < nr; i++) {
		char *frag = NULL;

		if (get_str(f, items[i], "fragments", &frag) || !frag)
			continue;
		check_kit_path(f, line_of(items[i]), "config fragment", frag, 0);
		b->fragments[b->nr_fragments++] = frag;
	}
	free(items);
}

static void parse_memory(struct yfile *f, yaml_node_t *n, unsigned *out)
{
	const char *v, *unit;
	unsigned u, mult = 1;

	if (absent(n))
		return;
	v = scalar(f, n, "memory", "a number");
	if (!v)
		return;
	unit = v + strspn(v, "0123456789");
	if (!strcasecmp(unit, "g") || !strcasecmp(unit, "gib"))
		mult = 1024;
	else if (*unit && strcasecmp(unit, "m") && strcasecmp(unit, "mib"))
		unit = NULL;
	if (!unit || parse_digits(v, unit - v, &u)) {
		report(f, line_of(n), "'memory' must be MiB as a number, or a size like 512M or 2G, not '%s'",
		       v);
		return;
	}
	if (u > 1048576 / mult || u * mult < 64) {
		report(f, line_of(n), "'memory' must be between 64M and 1024G, not '%s'", v);
		return;
	}
	*out = u * mult;
}

static void parse_boot(struct yfile *f, yaml_node_t *n, struct kernel_boot *boot)
{
	yaml_node_t *v[B_NR];

	if (absent(n) || map_fields(f, n, "'boot'", boot_keys, v))
		return;
	get_str(f, v[B_QEMU], "qemu", &boot->qemu);
	get_str(f, v[B_MACHINE], "machine", &boot->machine);
	get_str(f, v[B_CPU], "cpu", &boot->cpu);
	parse_memory(f, v[B_MEMORY], &boot->memory_mb);
	get_uint(f, v[B_CPUS], "cpus", 1, 1024, &boot->cpus);
	get_str(f, v[B_CMDLINE], "cmdline", &boot->cmdline);
	if (!get_str(f, v[B_CONSOLE], "console", &boot->console) && boot->console &&
	    (!isalpha((unsigned char)*boot->console) ||
	     boot->console[strspn(boot->console, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,")]))
		report(f, line_of(v[B_CONSOLE]),
		       "'console' must be a device name such as ttyS0 or ttyAMA0, not '%s'",
		       boot->console);
	if (!get_str(f, v[B_ACCEL], "accel", &boot->accel) && strcmp(boot->accel, "auto") &&
	    strcmp(boot->accel, "kvm") && strcmp(boot->accel, "tcg"))
		report(f, line_of(v[B_ACCEL]), "'accel' must be auto, kvm or tcg, not '%s'",
		       boot->accel);
	get_uint(f, v[B_BOOT_TIMEOUT], "boot-timeout", 1, 7 * 86400, &boot->boot_timeout);
	get_uint(f, v[B_RUN_TIMEOUT], "run-timeout", 1, 7 * 86400, &boot->run_timeout);
	if (!get_str(f, v[B_TCG_CLOCK], "tcg-clock", &boot->tcg_clock) &&
	    strcmp(boot->tcg_clock, "instructions") && strcmp(boot->tcg_clock, "host"))
		report(f, line_of(v[B_TCG_CLOCK]), "'tcg-clock' must be instructions or host, not '%s'",
		       boot->tcg_clock);
	get_uint(f, v[B_BOOTS], "boots", 1, 100, &boot->boots);
}

/* The kit entries a variant's `without` or `with` (`key`) names, as written. */
static void parse_variant_entries(struct yfile *f, yaml_node_t *n, const char *key,
				  const struct kernel_variant *v, char ***names, int **lines,
				  struct kit_patch ***patches, size_t *count)
{
	yaml_node_t **items;
	size_t nr, i;

	if (!n)
		return;
	items = seq_nodes(f, n, key, 1, &nr);
	if (!nr && (absent(n) || n->type == YAML_SEQUENCE_NODE))
		report(f, line_of(n), "'%s' of variant '%s' names no kit entry", key, v->name);
	if (nr) {
		*names = xcalloc(nr, sizeof(**names));
		*lines = xcalloc(nr, sizeof(**lines));
		*patches = xcalloc(nr, sizeof(**patches));
	}
	for (i = 0; i < nr; i++) {
		char *w = NULL;

		if (get_str(f, items[i], key, &w))
			continue;
		if (!w) {
			report(f, line_of(items[i]), "'%s' of variant '%s' has an empty entry", key,
			       v->name);
			continue;
		}
		(*lines)[*count] = line_of(items[i]);
		(*names)[(*count)++] = w;
	}
	free(items);
}

/* One variant: `without` or `with` (one at least), `note`, `expect-fail`, `claims`. */
static void parse_variant(struct yfile *f, yaml_node_t *n, struct kernel_variant *v)
{
	yaml_node_t *fields[V_NR], **items;
	size_t nr, i, j;

	if (map_fields(f, n, "a variant", variant_keys, fields))
		return;
	if (!fields[V_WITHOUT] && !fields[V_WITH])
		report(f, v->line, "variant '%s' has no 'without' (the kit entries it leaves out) "
		       "nor 'with' (patches the kit skips that it applies)", v->name);
	parse_variant_entries(f, fields[V_WITHOUT], "without", v, &v->without, &v->without_line,
			      &v->without_patch, &v->nr_without);
	parse_variant_entries(f, fields[V_WITH], "with", v, &v->with, &v->with_line,
			      &v->with_patch, &v->nr_with);
	get_str(f, fields[V_NOTE], "note", &v->note);
	items = seq_nodes(f, fields[V_EXPECT_FAIL], "expect-fail", 1, &nr);
	if (nr)
		v->expect_fail = xcalloc(nr, sizeof(*v->expect_fail));
	for (i = 0; i < nr; i++) {
		char *c = NULL;

		if (get_str(f, items[i], "expect-fail", &c) || !c)
			continue;
		if (!valid_case_name(c)) {
			report(f, line_of(items[i]),
			       "invalid case name '%s' in 'expect-fail' of variant '%s' (mm-regress cases are named with lowercase letters, digits and '_')",
			       c, v->name);
			free(c);
			continue;
		}
		for (j = 0; j < v->nr_expect_fail && strcmp(v->expect_fail[j], c); j++)
			;
		if (j < v->nr_expect_fail) {
			report(f, line_of(items[i]), "variant '%s' expects '%s' to fail twice", v->name, c);
			free(c);
			continue;
		}
		v->expect_fail[v->nr_expect_fail++] = c;
	}
	free(items);
	parse_claims(f, fields[V_CLAIMS], &v->claims, &v->nr_claims);
}

/* `variants:` of a kernel file: name -> { without, note, expect-fail }, in file order. */
static void parse_variants(struct yfile *f, yaml_node_t *map, struct kernel_branch *b)
{
	yaml_node_pair_t *pair;

	if (absent(map))
		return;
	if (map->type != YAML_MAPPING_NODE) {
		report(f, line_of(map), "'variants' must be a mapping of variant names to what each leaves out, not %s",
		       kind_name(map));
		return;
	}
	b->variants = xcalloc(map->data.mapping.pairs.top - map->data.mapping.pairs.start,
			      sizeof(*b->variants));
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *name = key_text(f, map, pair);
		struct kernel_variant *v;

		if (!name)
			continue;
		v = &b->variants[b->nr_variants++];
		v->name = xstrdup(name);
		v->line = line_of(node_at(f, pair->key));
		if (!strcmp(name, "base") || !strcmp(name, "kit"))
			report(f, v->line, "variant name '%s' is taken (base and kit are every branch's own)",
			       name);
		else if (!valid_variant_name(name))
			report(f, v->line, "invalid variant name '%s' (lowercase letters, digits and '-', starting with a letter or digit)",
			       name);
		parse_variant(f, node_at(f, pair->value), v);
	}
}

/* The `than` of the kernel file's claims and of its variants', once every variant is known. */
static void check_branch_claims(struct yfile *f, const struct kernel_branch *b)
{
	size_t i;

	check_claims_than(f, b->claims, b->nr_claims, OWNER_BRANCH, b, NULL);
	for (i = 0; i < b->nr_variants; i++)
		check_claims_than(f, b->variants[i].claims, b->variants[i].nr_claims, OWNER_VARIANT,
				  b, b->variants[i].name);
}

/* A path inside make's O= directory: relative, without "..", of ordinary characters. */
static int valid_image_path(const char *s)
{
	return *s && *s != '/' && !strstr(s, "..") && !ends_with(s, "/") &&
	       !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/-")];
}

/* cross, image and decisions: what the architecture of a branch changes beyond `arch`. */
static void parse_arch_keys(struct yfile *f, yaml_node_t **v, struct kernel_branch *b)
{
	if (!get_str(f, v[K_CROSS], "cross", &b->cross) && b->cross &&
	    (!ends_with(b->cross, "-") || *b->cross == '-' ||
	     b->cross[strspn(b->cross, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+-")]))
		report(f, line_of(v[K_CROSS]),
		       "'cross' must be a compiler prefix ending in '-', such as aarch64-linux-gnu-, not '%s'",
		       b->cross);
	if (!get_str(f, v[K_IMAGE], "image", &b->image) && b->image && !valid_image_path(b->image))
		report(f, line_of(v[K_IMAGE]),
		       "'image' must be a path inside the build directory, such as arch/arm64/boot/Image, not '%s'",
		       b->image);
	if (!get_str(f, v[K_DECISIONS], "decisions", &b->decisions) && b->decisions) {
		b->decisions_line = line_of(v[K_DECISIONS]);
		if (!strcmp(b->decisions, b->name)) {
			free(b->decisions);
			b->decisions = NULL;
		}
	}
}

/* What the kernel file left unsaid about booting comes from its architecture. */
static void boot_defaults(struct kernel_boot *boot, const struct arch_info *a)
{
	if (!a)
		a = arch_find("x86_64");
	if (!boot->qemu)
		boot->qemu = xstrdup(a->qemu);
	if (!boot->machine && a->qemu_machine)
		boot->machine = xstrdup(a->qemu_machine);
	if (!boot->cpu && a->qemu_cpu)
		boot->cpu = xstrdup(a->qemu_cpu);
	if (!boot->console)
		boot->console = xstrdup(a->console);
}

static void load_kernel(struct loader *ld, struct kernel_branch *b, const char *file)
{
	struct yfile f = { 0 };
	yaml_node_t *root, *v[K_NR];
	char *name = NULL;

	b->name = xstrndup(file, strlen(file) - strlen(".yaml"));
	b->path = xstrfmt("kernels/%s", file);
	b->arch = xstrdup("x86_64");
	b->config_base = xstrdup("defconfig");
	b->is_default = 1;
	b->boot.memory_mb = 2048;
	b->boot.cpus = 2;
	b->boot.boot_timeout = 300;
	b->boot.run_timeout = 900;
	b->boot.accel = xstrdup("auto");
	b->boot.tcg_clock = xstrdup("instructions");
	b->boot.boots = 2;

	root = yfile_load(&f, ld, b->path);
	if (!root)
		goto cleanup;
	b->line = line_of(root);
	if (!valid_branch_name(b->name))
		report(&f, 1, "invalid branch name '%s' (letters, digits, '.', '_' and '-')", b->name);
	if (map_fields(&f, root, "a kernel file", kernel_keys, v))
		goto cleanup;
	if (!v[K_NAME])
		report(&f, b->line, "missing 'name' (expected '%s')", b->name);
	else if (!get_str(&f, v[K_NAME], "name", &name) && (!name || strcmp(name, b->name)))
		report(&f, line_of(v[K_NAME]), "name '%s' does not match the file name (expected '%s')",
		       name ? name : "", b->name);
	get_bool(&f, v[K_DEFAULT], "default", &b->is_default);
	parse_source(&f, root, v[K_SOURCE], &b->source);
	if (!get_str(&f, v[K_ARCH], "arch", &b->arch) && !arch_find(b->arch))
		report(&f, line_of(v[K_ARCH]), "unknown arch '%s' (known: %s)", b->arch,
		       arch_names());
	parse_arch_keys(&f, v, b);
	parse_config(&f, v[K_CONFIG], b);
	parse_boot(&f, v[K_BOOT], &b->boot);
	boot_defaults(&b->boot, arch_find(b->arch));
	parse_variants(&f, v[K_VARIANTS], b);
	parse_verdicts(&f, v[K_VERDICTS], &b->threshold_pct);
	parse_claims(&f, v[K_CLAIMS], &b->claims, &b->nr_claims);
	check_branch_claims(&f, b);
cleanup:
	free(name);
	yfile_release(&f);
}

/* Numbers compare as numbers, so 5.10 < 6.1 < 6.12 < 7.2; a shorter name sorts first. */
static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			la = strspn(a, "0123456789");
			lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			if (strncmp(a, b, la))
				return strncmp(a, b, la);
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b) {
			if (!*a || *a == '.')
				return -1;
			if (!*b || *b == '.')
				return 1;
			return (unsigned char)*a - (unsigned char)*b;
		}
		a++;
		b++;
	}
	return 0;
}

static int cmp_branch(const void *a, const void *b)
{
	const struct kernel_branch *x = a, *y = b;

	return version_cmp(x->name, y->name);
}

static void load_kernels(struct loader *ld)
{
	struct kit *kit = ld->kit;
	struct strvec names = STRVEC_INIT;
	char *dir = path_join(kit->dir, "kernels");
	struct dirent *de;
	DIR *d;
	size_t i;

	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT) {
			error("cannot read '%skernels': %s", ld->prefix, strerror(errno));
			ld->errors++;
		}
		goto cleanup;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && ends_with(de->d_name, ".yaml"))
			strvec_push(&names, de->d_name);
	closedir(d);
	if (!names.nr)
		goto cleanup;
	qsort(names.v, names.nr, sizeof(*names.v), strp_cmp);
	kit->branches = xcalloc(names.nr, sizeof(*kit->branches));
	for (i = 0; i < names.nr; i++)
		load_kernel(ld, &kit->branches[kit->nr_branches++], names.v[i]);
	qsort(kit->branches, kit->nr_branches, sizeof(*kit->branches), cmp_branch);
cleanup:
	strvec_clear(&names);
	free(dir);
}

/* Every patch and fixup of the kit, in order: each series' patches, then its fixups. */
struct entries {
	struct kit_patch **v;
	size_t nr;
	size_t *base;		/* per series: index of its first entry */
};

static void entries_init(struct entries *e, const struct kit *kit)
{
	size_t i, j, total = 0;

	for (i = 0; i < kit->nr_series; i++)
		total += kit->series[i].nr_patches + kit->series[i].nr_fixups;
	e->v = xcalloc(total, sizeof(*e->v));
	e->base = xcalloc(kit->nr_series, sizeof(*e->base));
	e->nr = 0;
	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		e->base[i] = e->nr;
		for (j = 0; j < s->nr_patches; j++)
			e->v[e->nr++] = &s->patches[j];
		for (j = 0; j < s->nr_fixups; j++)
			e->v[e->nr++] = &s->fixups[j];
	}
}

static size_t entry_index(const struct entries *e, const struct kit *kit, const struct kit_patch *p)
{
	const struct kit_series *s = p->series;
	size_t i = e->base[s - kit->series];

	return p->is_fixup ? i + s->nr_patches + (p - s->fixups) : i + (p - s->patches);
}

static void entries_release(struct entries *e)
{
	free(e->v);
	free(e->base);
}

/* Entries `what` names (upstream abbreviation or file), in kit order, in a new array. */
static size_t match_entries(const struct kit *kit, const char *what, struct kit_patch ***out)
{
	const char *path = skip_dot_slash(what);
	int hex = is_hex_id(what);
	size_t i, j, nr = 0, alloc = 0;

	*out = NULL;
	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		for (j = 0; j < s->nr_patches + s->nr_fixups; j++) {
			struct kit_patch *p = j < s->nr_patches ? &s->patches[j] :
				&s->fixups[j - s->nr_patches];

			if ((hex && p->upstream && same_commit(p->upstream, what)) ||
			    (p->file && (!strcmp(skip_dot_slash(p->file), path) ||
					 !strcmp(base_name(p->file), path)))) {
				ALLOC_GROW(*out, nr + 1, alloc);
				(*out)[nr++] = p;
			}
		}
	}
	return nr;
}

static const char *sid(const struct kit_series *s)
{
	return s->id ? s->id : "?";
}

static void check_requires(struct yfile *f)
{
	struct kit *kit = f->ld->kit;
	size_t i, r, q;

	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		for (r = 0; r < s->nr_requires; r++) {
			struct kit_series *t = kit_find_series(kit, s->requires[r]);

			for (q = 0; q < r && strcmp(s->requires[q], s->requires[r]); q++)
				;
			if (q < r)
				report(f, s->requires_line[r], "series '%s' requires '%s' twice",
				       sid(s), s->requires[r]);
			else if (!t)
				report(f, s->requires_line[r], "series '%s' requires unknown series '%s'",
				       sid(s), s->requires[r]);
			else if (t == s)
				report(f, s->requires_line[r], "series '%s' requires itself", sid(s));
		}
	}
}

/* Depth-first over requires; state 1 is "on the path", 2 "done". */
static void requires_dfs(struct yfile *f, size_t i, unsigned char *state, size_t *path,
			 size_t depth)
{
	struct kit *kit = f->ld->kit;
	struct kit_series *s = &kit->series[i];
	size_t r, k;

	state[i] = 1;
	path[depth] = i;
	for (r = 0; r < s->nr_requires; r++) {
		struct kit_series *t = kit_find_series(kit, s->requires[r]);
		size_t j;

		if (!t || t == s)
			continue;
		j = t - kit->series;
		if (state[j] == 1) {
			struct strbuf sb = STRBUF_INIT;

			for (k = 0; path[k] != j; k++)
				;
			for (; k <= depth; k++)
				strbuf_addf(&sb, "%s -> ", sid(&kit->series[path[k]]));
			strbuf_addstr(&sb, sid(t));
			report(f, s->requires_line[r], "requires cycle: %s", sb.buf);
			strbuf_release(&sb);
		} else if (!state[j]) {
			requires_dfs(f, j, state, path, depth + 1);
		}
	}
	state[i] = 2;
}

static void check_requires_cycles(struct yfile *f)
{
	struct kit *kit = f->ld->kit;
	unsigned char *state = xcalloc(kit->nr_series + 1, 1);
	size_t *path = xcalloc(kit->nr_series + 1, sizeof(*path));
	size_t i;

	for (i = 0; i < kit->nr_series; i++)
		if (!state[i])
			requires_dfs(f, i, state, path, 0);
	free(path);
	free(state);
}

/* Whether series `from` requires `to`, directly or through others. */
static int series_requires(const struct kit *kit, const struct kit_series *from,
			   const struct kit_series *to)
{
	unsigned char *seen = xcalloc(kit->nr_series + 1, 1);
	size_t *stack = xcalloc(kit->nr_series + 1, sizeof(*stack));
	size_t top = 0, r;
	int found = 0;

	stack[top++] = from - kit->series;
	seen[from - kit->series] = 1;
	while (top && !found) {
		const struct kit_series *s = &kit->series[stack[--top]];

		for (r = 0; r < s->nr_requires && !found; r++) {
			const struct kit_series *t = kit_find_series(kit, s->requires[r]);

			if (!t)
				continue;
			if (t == to)
				found = 1;
			else if (!seen[t - kit->series]) {
				seen[t - kit->series] = 1;
				stack[top++] = t - kit->series;
			}
		}
	}
	free(stack);
	free(seen);
	return found;
}

/* The kit's entries sorted by upstream id, by file and by file name, to find them by name. */
struct upstream_index {
	const struct entries *e;
	size_t *pos;		/* entries with an upstream id: sorted by id, then in kit order */
	size_t nr;
	char lens[41];		/* lens[n]: some id has n digits */
	size_t *by_path, *by_base;	/* entries with a file: by skip_dot_slash(), by base_name() */
	size_t nr_files;
};

static const struct entries *cmp_upstream_entries;

static int cmp_upstream(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(cmp_upstream_entries->v[x]->upstream, cmp_upstream_entries->v[y]->upstream);

	return c ? c : (x < y ? -1 : x > y);
}

/* The first position in ix whose id is exactly key[0..len), or ix->nr. */
static size_t upstream_find(const struct upstream_index *ix, const char *key, size_t len)
{
	size_t lo = 0, hi = ix->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *id = ix->e->v[ix->pos[mid]]->upstream;
		int c = strncmp(id, key, len);

		if (!c && id[len])
			c = 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ix->nr) {
		const char *id = ix->e->v[ix->pos[lo]]->upstream;

		if (!strncmp(id, key, len) && !id[len])
			return lo;
	}
	return ix->nr;
}

static int cmp_path(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(skip_dot_slash(cmp_upstream_entries->v[x]->file),
		       skip_dot_slash(cmp_upstream_entries->v[y]->file));

	return c ? c : (x < y ? -1 : x > y);
}

static int cmp_base(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(base_name(cmp_upstream_entries->v[x]->file),
		       base_name(cmp_upstream_entries->v[y]->file));

	return c ? c : (x < y ? -1 : x > y);
}

static void upstream_index_init(struct upstream_index *ix, const struct entries *e)
{
	size_t j;

	memset(ix, 0, sizeof(*ix));
	ix->e = e;
	ix->pos = xcalloc(e->nr + 1, sizeof(*ix->pos));
	ix->by_path = xcalloc(e->nr + 1, sizeof(*ix->by_path));
	ix->by_base = xcalloc(e->nr + 1, sizeof(*ix->by_base));
	for (j = 0; j < e->nr; j++) {
		if (e->v[j]->upstream) {
			ix->pos[ix->nr++] = j;
			ix->lens[strlen(e->v[j]->upstream)] = 1;	/* 8 to 40: is_hex_id() */
		}
		if (e->v[j]->file) {
			ix->by_path[ix->nr_files] = ix->by_base[ix->nr_files] = j;
			ix->nr_files++;
		}
	}
	cmp_upstream_entries = e;
	qsort(ix->pos, ix->nr, sizeof(*ix->pos), cmp_upstream);
	qsort(ix->by_path, ix->nr_files, sizeof(*ix->by_path), cmp_path);
	qsort(ix->by_base, ix->nr_files, sizeof(*ix->by_base), cmp_base);
}

static void upstream_index_release(struct upstream_index *ix)
{
	free(ix->pos);
	free(ix->by_path);
	free(ix->by_base);
}

/* Add to *v the entries of sorted `by` (nr long) whose key(file) is `name`. */
static void add_file_matches(size_t **v, size_t *n, size_t *alloc, const struct entries *e,
			     const size_t *by, size_t nr, const char *(*key)(const char *),
			     const char *name)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(key(e->v[by[mid]]->file), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nr && !strcmp(key(e->v[by[lo]]->file), name); lo++) {
		ALLOC_GROW(*v, *n + 1, *alloc);
		(*v)[(*n)++] = by[lo];
	}
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* match_entries() through the index: the same entries, in kit order, without a scan of them all. */
static size_t index_match(const struct upstream_index *ix, const char *what, struct kit_patch ***out)
{
	const struct entries *e = ix->e;
	const char *path = skip_dot_slash(what);
	size_t *v = NULL, n = 0, alloc = 0, i, k;

	if (is_hex_id(what)) {
		char *w = xstrdup(what);
		size_t len = strlen(w), L, g, lo = 0, hi = ix->nr;

		for (i = 0; w[i]; i++)
			w[i] = tolower((unsigned char)w[i]);
		/* ids that w abbreviates or equals: they start with w */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strncmp(e->v[ix->pos[mid]]->upstream, w, len) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ix->nr && !strncmp(e->v[ix->pos[lo]]->upstream, w, len); lo++) {
			ALLOC_GROW(v, n + 1, alloc);
			v[n++] = ix->pos[lo];
		}
		/* ids abbreviating w */
		for (L = 8; L < len; L++) {
			if (!ix->lens[L])
				continue;
			for (g = upstream_find(ix, w, L);
			     g < ix->nr && !strncmp(e->v[ix->pos[g]]->upstream, w, L) &&
			     !e->v[ix->pos[g]]->upstream[L];
			     g++) {
				ALLOC_GROW(v, n + 1, alloc);
				v[n++] = ix->pos[g];
			}
		}
		free(w);
	}
	add_file_matches(&v, &n, &alloc, e, ix->by_path, ix->nr_files, skip_dot_slash, path);
	add_file_matches(&v, &n, &alloc, e, ix->by_base, ix->nr_files, base_name, path);
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_size);
	*out = NULL;
	for (i = k = 0; i < n; i++)
		if (!i || v[i] != v[i - 1])
			v[k++] = v[i];
	if (k) {
		*out = xcalloc(k, sizeof(**out));
		for (i = 0; i < k; i++)
			(*out)[i] = e->v[v[i]];
	}
	free(v);
	return k;
}

/*
 * Report each entry whose upstream id names the same commit as an earlier
 * one's (one abbreviates the other), naming the earliest. Ids are
 * lowercase (parse_patch()); an abbreviation is a prefix, and only the
 * lengths some id has can be one, so each entry looks up its prefixes of
 * those lengths in the sorted ids instead of comparing every pair (a kit
 * of 100,000 patches took minutes that way).
 */
static void check_upstream_twice(struct yfile *f, const struct entries *e,
				 const struct upstream_index *ixp)
{
	const struct upstream_index ix = *ixp;
	const char *lens = ix.lens;
	size_t *ext_min = NULL, i, j, L;

	/* ext_min[g]: the earliest entry whose id the id at position g abbreviates. */
	ext_min = xcalloc(ix.nr + 1, sizeof(*ext_min));
	for (i = 0; i < ix.nr; i++)
		ext_min[i] = SIZE_MAX;
	for (i = 0; i < ix.nr; i++) {
		const char *id = e->v[ix.pos[i]]->upstream;
		size_t n = strlen(id), g;

		for (L = 8; L < n; L++)
			if (lens[L] && (g = upstream_find(&ix, id, L)) < ix.nr && ix.pos[i] < ext_min[g])
				ext_min[g] = ix.pos[i];
	}
	for (j = 0; j < e->nr; j++) {
		const char *id = e->v[j]->upstream;
		size_t n, g, best = SIZE_MAX;

		if (!id)
			continue;
		n = strlen(id);
		/* Earlier ids equal to or abbreviating this one: the first of each group is the earliest. */
		for (L = 8; L <= n; L++)
			if (lens[L] && (g = upstream_find(&ix, id, L)) < ix.nr && ix.pos[g] < best)
				best = ix.pos[g];
		g = upstream_find(&ix, id, n);
		if (ext_min[g] < best)
			best = ext_min[g];
		if (best < j)
			report(f, e->v[j]->line, "upstream id '%s' is listed twice: %s:%d and :%d",
			       id, f->name, e->v[best]->line, e->v[j]->line);
	}
	free(ext_min);
}

static void resolve_fixes(struct yfile *f, const struct entries *e, const struct upstream_index *ix)
{
	size_t i, k, nr;

	for (i = 0; i < e->nr; i++) {
		struct kit_patch *p = e->v[i], **m = NULL;
		struct strbuf sb = STRBUF_INIT;

		if (!p->is_fixup || !p->fixes)
			continue;
		nr = index_match(ix, p->fixes, &m);
		if (!nr) {
			report(f, p->fixes_line, "fixes '%s' matches no patch of the kit", p->fixes);
		} else if (nr > 1) {
			for (k = 0; k < nr; k++)
				strbuf_addf(&sb, "%s'%s' (line %d)", k ? ", " : "",
					    kit_patch_label(m[k]), m[k]->line);
			report(f, p->fixes_line, "fixes '%s' is ambiguous: it matches %s", p->fixes,
			       sb.buf);
		} else if (m[0] == p) {
			report(f, p->fixes_line, "fixup '%s' fixes itself", kit_patch_label(p));
		} else {
			p->fixes_patch = m[0];
		}
		strbuf_release(&sb);
		free(m);
	}
}

static void check_fixup_cycles(struct yfile *f, const struct entries *e)
{
	struct kit *kit = f->ld->kit;
	size_t i, steps, least;
	struct kit_patch *g;

	for (i = 0; i < e->nr; i++) {
		struct kit_patch *p = e->v[i];
		struct strbuf sb = STRBUF_INIT;

		if (!p->is_fixup)
			continue;
		least = i;
		for (g = p->fixes_patch, steps = 0; g && g->is_fixup && g != p && steps < e->nr;
		     g = g->fixes_patch, steps++)
			if (entry_index(e, kit, g) < least)
				least = entry_index(e, kit, g);
		/* Report each cycle once, from its first entry. */
		if (g != p || least != i)
			continue;
		strbuf_addf(&sb, "'%s'", kit_patch_label(p));
		for (g = p->fixes_patch; g != p; g = g->fixes_patch)
			strbuf_addf(&sb, " -> '%s'", kit_patch_label(g));
		strbuf_addf(&sb, " -> '%s'", kit_patch_label(p));
		report(f, p->fixes_line, "fixup cycle: %s", sb.buf);
		strbuf_release(&sb);
	}
}

static void check_fixup_requires(struct yfile *f, const struct entries *e)
{
	struct kit *kit = f->ld->kit;
	size_t i;

	for (i = 0; i < e->nr; i++) {
		struct kit_patch *p = e->v[i];
		struct kit_series *s = p->series, *t;

		if (!p->is_fixup || !p->fixes_patch)
			continue;
		t = p->fixes_patch->series;
		if (t == s || series_requires(kit, s, t))
			continue;
		report(f, p->fixes_line,
		       "fixup '%s' of series '%s' fixes a patch of series '%s': add '%s' to the requires of '%s'",
		       kit_patch_label(p), sid(s), sid(t), sid(t), sid(s));
	}
}
/*
 * Resolve the entries of a variant's `without` or `with` (`key`) to kit
 * patches: each must match exactly one, once.
 */
static void resolve_variant_entries(struct yfile *kf, const struct kit *kit,
				    const struct kernel_variant *v, const char *key,
				    char **names, const int *lines, struct kit_patch **patches,
				    size_t count)
{
	size_t k, q, nr;

	for (k = 0; k < count; k++) {
		struct kit_patch **m = NULL;
		struct strbuf sb = STRBUF_INIT;

		nr = match_entries(kit, names[k], &m);
		if (!nr) {
			report(kf, lines[k], "variant '%s': %s '%s' matches no patch or fixup of the kit",
			       v->name, key, names[k]);
		} else if (nr > 1) {
			for (q = 0; q < nr; q++)
				strbuf_addf(&sb, "%s'%s' (series.yaml:%d)", q ? ", " : "",
					    kit_patch_label(m[q]), m[q]->line);
			report(kf, lines[k], "variant '%s': %s '%s' is ambiguous: it matches %s",
			       v->name, key, names[k], sb.buf);
		} else {
			for (q = 0; q < k && patches[q] != m[0]; q++)
				;
			if (q < k)
				report(kf, lines[k], "variant '%s' names '%s' twice in '%s' (lines %d and %d)",
				       v->name, kit_patch_label(m[0]), key, lines[q], lines[k]);
			else
				patches[k] = m[0];
		}
		strbuf_release(&sb);
		free(m);
	}
}

/* What each variant names in `without` and `with` must be one entry of the kit, named once. */
static void resolve_variants(struct loader *ld)
{
	struct kit *kit = ld->kit;
	size_t i, j, k, q;

	for (i = 0; i < kit->nr_branches; i++) {
		struct kernel_branch *b = &kit->branches[i];
		/* Messages name the kernel file; nothing is loaded into this one. */
		struct yfile kf;

		memset(&kf, 0, sizeof(kf));
		kf.ld = ld;
		kf.name = xstrfmt("%s%s", ld->prefix, b->path);
		for (j = 0; j < b->nr_variants; j++) {
			struct kernel_variant *v = &b->variants[j];

			resolve_variant_entries(&kf, kit, v, "without", v->without, v->without_line,
						v->without_patch, v->nr_without);
			resolve_variant_entries(&kf, kit, v, "with", v->with, v->with_line,
						v->with_patch, v->nr_with);
			for (k = 0; k < v->nr_with; k++) {
				for (q = 0; q < v->nr_without; q++)
					if (v->with_patch[k] && v->with_patch[k] == v->without_patch[q])
						report(&kf, v->with_line[k],
						       "variant '%s' both leaves out and adds '%s' (line %d)",
						       v->name, kit_patch_label(v->with_patch[k]),
						       v->without_line[q]);
				if (v->with_patch[k] && v->with_patch[k]->is_fixup)
					report(&kf, v->with_line[k],
					       "variant '%s': 'with' names fixup '%s'; only patches can be "
					       "added (a fixup travels with the patch it fixes)",
					       v->name, kit_patch_label(v->with_patch[k]));
			}
		}
		free(kf.name);
	}
}

/*
 * A branch whose `decisions` names another takes that one's decisions
 * from series.yaml: the other must exist, take its own, and series.yaml
 * must not name this one as well.
 */
static void resolve_decisions(struct loader *ld)
{
	struct kit *kit = ld->kit;
	size_t i;

	for (i = 0; i < kit->nr_branches; i++) {
		struct kernel_branch *b = &kit->branches[i];
		const struct kernel_branch *o;
		struct yfile kf;

		if (!b->decisions)
			continue;
		memset(&kf, 0, sizeof(kf));
		kf.ld = ld;
		kf.name = xstrfmt("%s%s", ld->prefix, b->path);
		o = kit_find_branch(kit, b->decisions);
		if (!o)
			report(&kf, b->decisions_line, "decisions: unknown branch '%s' (no %skernels/%s.yaml)",
			       b->decisions, ld->prefix, b->decisions);
		else if (o->decisions)
			report(&kf, b->decisions_line,
			       "decisions: branch '%s' takes its own from '%s'; name '%s' here",
			       o->name, o->decisions, o->decisions);
		free(kf.name);
	}
}

/* The branch whose series.yaml decisions apply to b: its `decisions`, else its own name. */
const char *branch_decisions(const struct kernel_branch *b)
{
	return b->decisions ? b->decisions : b->name;
}

/* The checks that need the whole kit. */
static void check_kit(struct yfile *f)
{
	struct upstream_index ix;
	struct entries e;

	check_requires(f);
	check_requires_cycles(f);
	entries_init(&e, f->ld->kit);
	upstream_index_init(&ix, &e);
	check_upstream_twice(f, &e, &ix);
	resolve_fixes(f, &e, &ix);
	upstream_index_release(&ix);
	check_fixup_cycles(f, &e);
	check_fixup_requires(f, &e);
	entries_release(&e);
	resolve_variants(f->ld);
	resolve_decisions(f->ld);
}

/* "foo/" for kit dir "foo", "" for "." so that messages name files as the user would. */
static char *display_prefix(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!n || (n == 1 && dir[0] == '.'))
		return xstrdup("");
	if (n == 1 && dir[0] == '/')
		return xstrdup("/");
	return xstrfmt("%.*s/", (int)n, dir);
}

/* See kit_id() in model.h for why the id is made this way. */
static char *make_kit_id(const char *realdir)
{
	struct strbuf sb = STRBUF_INIT;
	const char *base = strrchr(realdir, '/');
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;

	base = base ? base + 1 : realdir;
	for (; *base && sb.len < 40; base++)
		strbuf_addch(&sb, isalnum((unsigned char)*base) || *base == '_' || *base == '-' ?
				  *base : '-');
	if (!sb.len)
		strbuf_addstr(&sb, "kit");
	gitutil_init();
	if (git_odb_hash(&oid, realdir, strlen(realdir), GIT_OBJECT_BLOB) < 0)
		BUG("cannot hash '%s'", realdir);
	git_oid_tostr(hex, sizeof(hex), &oid);
	strbuf_addf(&sb, "-%.8s", hex);
	return strbuf_detach(&sb, NULL);
}

const char *kit_id(const struct kit *kit)
{
	if (!kit->id)
		BUG("kit_id() of a kit that was not loaded");
	return kit->id;
}

char *kit_refname(const struct kit *kit, const struct kernel_branch *b, const char *variant)
{
	/* Variants are not under refs/heads/mkseries/<id>/<branch>, which is a ref itself. */
	if (variant && strcmp(variant, "kit"))
		return xstrfmt("refs/heads/mkseries-variants/%s/%s/%s", kit_id(kit), b->name,
			       variant);
	return xstrfmt("refs/heads/mkseries/%s/%s", kit_id(kit), b->name);
}

int kit_load(struct kit *kit, const char *dir)
{
	struct loader ld = { kit, NULL, 0 };
	struct yfile sf = { 0 };

	memset(kit, 0, sizeof(*kit));
	kit->dir = realpath(dir, NULL);
	if (!kit->dir)
		return error_code(MKS_ECONFIG, "cannot open kit directory '%s': %s", dir,
				  strerror(errno));
	if (!dir_exists(kit->dir)) {
		kit_release(kit);
		return error_code(MKS_ECONFIG, "kit '%s' is not a directory", dir);
	}
	kit->id = make_kit_id(kit->dir);
	ld.prefix = display_prefix(dir);
	load_kernels(&ld);
	load_series(&ld, &sf);
	if (sf.loaded)
		check_kit(&sf);
	yfile_release(&sf);
	free(ld.prefix);
	if (ld.errors) {
		kit_release(kit);
		return MKS_ECONFIG;
	}
	return 0;
}

static void decisions_free(struct decision *d, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(d[i].branch);
		free(d[i].reason);
		free(d[i].path);
	}
	free(d);
}

static void patches_free(struct kit_patch *p, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(p[i].file);
		free(p[i].upstream);
		free(p[i].subject);
		free(p[i].link);
		free(p[i].fixes);
		decisions_free(p[i].decisions, p[i].nr_decisions);
	}
	free(p);
}

void kit_release(struct kit *kit)
{
	size_t i, j;

	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		free(s->id);
		free(s->title);
		free(s->link);
		free(s->message_id);
		for (j = 0; j < s->nr_requires; j++)
			free(s->requires[j]);
		free(s->requires);
		free(s->requires_line);
		patches_free(s->patches, s->nr_patches);
		patches_free(s->fixups, s->nr_fixups);
		decisions_free(s->decisions, s->nr_decisions);
		claims_free(s->claims, s->nr_claims);
	}
	free(kit->series);
	for (i = 0; i < kit->nr_branches; i++) {
		struct kernel_branch *b = &kit->branches[i];

		free(b->name);
		free(b->path);
		free(b->source.repo);
		free(b->source.ref);
		free(b->source.repo_var);
		free(b->source.release);
		free(b->source.package);
		free(b->source.suite);
		free(b->source.tarball);
		free(b->arch);
		free(b->config_base);
		for (j = 0; j < b->nr_fragments; j++)
			free(b->fragments[j]);
		free(b->fragments);
		free(b->cross);
		free(b->image);
		free(b->decisions);
		free(b->boot.console);
		free(b->boot.qemu);
		free(b->boot.machine);
		free(b->boot.cpu);
		free(b->boot.cmdline);
		free(b->boot.accel);
		free(b->boot.tcg_clock);
		for (j = 0; j < b->nr_variants; j++) {
			struct kernel_variant *v = &b->variants[j];
			size_t k;

			free(v->name);
			for (k = 0; k < v->nr_without; k++)
				free(v->without[k]);
			free(v->without);
			free(v->without_line);
			free(v->without_patch);
			for (k = 0; k < v->nr_with; k++)
				free(v->with[k]);
			free(v->with);
			free(v->with_line);
			free(v->with_patch);
			free(v->note);
			for (k = 0; k < v->nr_expect_fail; k++)
				free(v->expect_fail[k]);
			free(v->expect_fail);
			claims_free(v->claims, v->nr_claims);
		}
		free(b->variants);
		claims_free(b->claims, b->nr_claims);
	}
	free(kit->branches);
	free(kit->dir);
	free(kit->id);
	free(kit->by_id);
	memset(kit, 0, sizeof(*kit));
}

struct kit_series *kit_find_series(const struct kit *kit, const char *id)
{
	size_t lo = 0, hi = kit->nr_by_id;

	/* The first in file order of the series named id: the lowest match. */
	while (id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(kit->by_id[mid]->id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return id && lo < kit->nr_by_id && !strcmp(kit->by_id[lo]->id, id) ? kit->by_id[lo] : NULL;
}

char *kit_file(const struct kit *kit, const char *rel)
{
	if (rel[0] == '/' || !kit || !kit->dir)
		return xstrdup(rel);
	return path_join(kit->dir, rel);
}

struct kernel_branch *kit_find_branch(const struct kit *kit, const char *name)
{
	size_t i;

	for (i = 0; name && i < kit->nr_branches; i++)
		if (kit->branches[i].name && !strcmp(kit->branches[i].name, name))
			return &kit->branches[i];
	return NULL;
}

int kernel_source_check(const struct kernel_branch *b)
{
	const struct kernel_source *s = &b->source;
	struct stat st;

	if (s->kind != SOURCE_GIT)
		return 0;
	if (!s->repo && s->repo_var)
		return error_code(MKS_ECONFIG,
				  "%s:%d: branch '%s' takes its tree from the git repository $%s names, and $%s is not set (point it at a linux-stable clone: export %s=~/src/linux-stable)",
				  b->path, s->repo_line, b->name, s->repo_var, s->repo_var, s->repo_var);
	if (!s->repo)
		return error_code(MKS_ECONFIG, "%s:%d: branch '%s' names no git repository",
				  b->path, s->repo_line, b->name);
	if (stat(s->repo, &st) || !S_ISDIR(st.st_mode)) {
		if (s->repo_var)
			return error_code(MKS_ECONFIG,
					  "%s:%d: branch '%s': no git repository at '%s' (from $%s)",
					  b->path, s->repo_line, b->name, s->repo, s->repo_var);
		return error_code(MKS_ECONFIG, "%s:%d: branch '%s': no git repository at '%s'",
				  b->path, s->repo_line, b->name, s->repo);
	}
	return 0;
}

const struct kernel_variant *branch_find_variant(const struct kernel_branch *b, const char *name)
{
	size_t i;

	for (i = 0; name && i < b->nr_variants; i++)
		if (!strcmp(b->variants[i].name, name))
			return &b->variants[i];
	return NULL;
}

int variant_expects_fail(const struct kernel_variant *v, const char *name)
{
	size_t i;

	for (i = 0; v && name && i < v->nr_expect_fail; i++)
		if (!strcmp(v->expect_fail[i], name))
			return 1;
	return 0;
}

char *variant_without_text(const struct kernel_variant *v)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < v->nr_without; i++) {
		const struct kit_patch *p = v->without_patch[i];

		strbuf_addstr(&sb, i ? ", " : "");
		if (!p)
			strbuf_addstr(&sb, v->without[i]);
		else if (p->upstream)
			strbuf_addstr(&sb, p->upstream);
		else
			strbuf_addstr(&sb, kit_patch_label(p));
	}
	return strbuf_detach(&sb, NULL);
}

char *variant_change_text(const struct kernel_variant *v)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (v->nr_without) {
		char *without = variant_without_text(v);

		strbuf_addf(&sb, "without %s", without);
		free(without);
	}
	for (i = 0; i < v->nr_with; i++) {
		const struct kit_patch *p = v->with_patch[i];

		strbuf_addstr(&sb, i ? ", " : sb.len ? "; with " : "with ");
		strbuf_addstr(&sb, p ? kit_patch_label(p) : v->with[i]);
	}
	return strbuf_detach(&sb, NULL);
}

struct kit_patch *kit_find_patch(const struct kit *kit, const char *what, int *ambiguous)
{
	struct kit_patch **m = NULL, *found = NULL;
	size_t nr = what && *what ? match_entries(kit, what, &m) : 0;

	if (ambiguous)
		*ambiguous = nr > 1;
	if (nr == 1)
		found = m[0];
	free(m);
	return found;
}

static const struct decision *find_decision(const struct decision *d, size_t nr,
					    const char *branch)
{
	size_t i;

	for (i = 0; branch && i < nr; i++)
		if (!strcmp(d[i].branch, branch))
			return &d[i];
	return NULL;
}

const struct decision *series_decision(const struct kit_series *s, const char *branch)
{
	return find_decision(s->decisions, s->nr_decisions, branch);
}

const struct decision *patch_decision(const struct kit_patch *p, const char *branch)
{
	return find_decision(p->decisions, p->nr_decisions, branch);
}

const char *kit_patch_label_to(char *buf, size_t size, const struct kit_patch *p)
{
	const struct kit_series *s = p->series;

	if (p->is_fixup)
		snprintf(buf, size, "%s fixup %d/%zu", sid(s), p->index, s->nr_fixups);
	else
		snprintf(buf, size, "%s %d/%zu", sid(s), p->index, s->nr_patches);
	return buf;
}
