/* kit/yaml.c: reading the kit's YAML files: scalars, keys, sequences, paths and names, every error at file:line. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "kit/model.h"
#include "kit/load.h"
#include "lib/util.h"

void yfile_report(struct yfile *f, int line, const char *fmt, ...)
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

int ynode_line(const yaml_node_t *n)
{
	return (int)n->start_mark.line + 1;
}

yaml_node_t *yfile_node(struct yfile *f, int index)
{
	return yaml_document_get_node(&f->doc, index);
}

const char *ynode_text(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A plain scalar that YAML reads as null: `key:`, `key: ~`, `key: null`. */
static int ynode_is_null(const yaml_node_t *n)
{
	const char *v;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	v = ynode_text(n);
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

int ynode_absent(const yaml_node_t *n)
{
	return !n || ynode_is_null(n);
}

const char *ynode_kind_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return ynode_is_null(n) ? "an empty value" : "a string";
	case YAML_SEQUENCE_NODE:
		return "a sequence";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

void join_keys(struct strbuf *sb, const char *const *keys)
{
	size_t i;

	for (i = 0; keys[i]; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", keys[i]);
}

/* The text of scalar `n`, or NULL (reported) when it is not one `want` can be. */
const char *yfile_scalar(struct yfile *f, yaml_node_t *n, const char *key, const char *want)
{
	if (n->type != YAML_SCALAR_NODE) {
		yfile_report(f, ynode_line(n), "'%s' must be %s, not %s", key, want, ynode_kind_name(n));
		return NULL;
	}
	if (strlen(ynode_text(n)) != n->data.scalar.length) {
		yfile_report(f, ynode_line(n), "'%s' contains a NUL byte", key);
		return NULL;
	}
	return ynode_text(n);
}

/*
 * Copy the one-line string `n` into *out, replacing what was there.
 * Absent, null and "" leave *out alone. Returns -1 (reported) on a
 * value of the wrong type.
 */
int yfile_get_str(struct yfile *f, yaml_node_t *n, const char *key, char **out)
{
	const char *v, *p;

	if (ynode_absent(n))
		return 0;
	v = yfile_scalar(f, n, key, "a string");
	if (!v)
		return -1;
	for (p = v; *p; p++) {
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) {
			yfile_report(f, ynode_line(n), "'%s' must be a single line of text", key);
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
void yfile_need_str(struct yfile *f, yaml_node_t *n, const char *key, int line,
		    const char *owner, char **out)
{
	if (!n) {
		yfile_report(f, line, "%s has no '%s'", owner, key);
		return;
	}
	if (yfile_get_str(f, n, key, out))
		return;
	if (!*out)
		yfile_report(f, ynode_line(n), "'%s' must not be empty", key);
}

int yfile_get_bool(struct yfile *f, yaml_node_t *n, const char *key, int *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "YES",
					   "on", "On", "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "NO",
					  "off", "Off", "OFF", NULL };
	const char *v;
	size_t i;

	if (ynode_absent(n))
		return 0;
	v = yfile_scalar(f, n, key, "true or false");
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
	yfile_report(f, ynode_line(n), "'%s' must be true or false, not '%s'", key, v);
	return -1;
}

/* Decimal digits only, at most 9 of them (no overflow). Returns -1 otherwise. */
int parse_digits(const char *v, size_t len, unsigned *out)
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

int yfile_get_uint(struct yfile *f, yaml_node_t *n, const char *key, unsigned min,
		   unsigned max, unsigned *out)
{
	const char *v;
	unsigned u;

	if (ynode_absent(n))
		return 0;
	v = yfile_scalar(f, n, key, "a number");
	if (!v)
		return -1;
	if (parse_digits(v, strlen(v), &u)) {
		yfile_report(f, ynode_line(n), "'%s' must be a number, not '%s'", key, v);
		return -1;
	}
	if (u < min || u > max) {
		yfile_report(f, ynode_line(n), "'%s' must be between %u and %u, not %u", key, min, max, u);
		return -1;
	}
	*out = u;
	return 0;
}

/* The key of a mapping pair, or NULL (reported) when it is not a string or repeats. */
const char *yfile_key_text(struct yfile *f, yaml_node_t *map, yaml_node_pair_t *pair)
{
	yaml_node_t *k = yfile_node(f, pair->key);
	yaml_node_pair_t *p;

	if (k->type != YAML_SCALAR_NODE) {
		yfile_report(f, ynode_line(k), "a key must be a string, not %s", ynode_kind_name(k));
		return NULL;
	}
	if (strlen(ynode_text(k)) != k->data.scalar.length) {
		yfile_report(f, ynode_line(k), "a key contains a NUL byte");
		return NULL;
	}
	for (p = map->data.mapping.pairs.start; p < pair; p++) {
		yaml_node_t *o = yfile_node(f, p->key);

		if (o->type == YAML_SCALAR_NODE && !strcmp(ynode_text(o), ynode_text(k))) {
			yfile_report(f, ynode_line(k), "duplicate key '%s' (first at line %d)", ynode_text(k),
				     ynode_line(o));
			return NULL;
		}
	}
	return ynode_text(k);
}

/*
 * Sort the pairs of mapping `map` into out[] by `keys` (NULL-terminated;
 * out[i] is the value of keys[i], or NULL). Unknown and repeated keys are
 * reported and skipped. Returns -1 (reported) when `map` is no mapping.
 */
int yfile_map_fields(struct yfile *f, yaml_node_t *map, const char *what,
		     const char *const *keys, yaml_node_t **out)
{
	yaml_node_pair_t *pair;
	size_t i;

	for (i = 0; keys[i]; i++)
		out[i] = NULL;
	if (map->type != YAML_MAPPING_NODE) {
		yfile_report(f, ynode_line(map), "%s must be a mapping, not %s", what, ynode_kind_name(map));
		return -1;
	}
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *k = yfile_key_text(f, map, pair);

		if (!k)
			continue;
		for (i = 0; keys[i] && strcmp(keys[i], k); i++)
			;
		if (!keys[i]) {
			struct strbuf sb = STRBUF_INIT;

			join_keys(&sb, keys);
			yfile_report(f, ynode_line(yfile_node(f, pair->key)), "unknown key '%s' in %s (allowed: %s)",
				     k, what, sb.buf);
			strbuf_release(&sb);
			continue;
		}
		out[i] = yfile_node(f, pair->value);
	}
	return 0;
}

/*
 * The items of sequence `n` in a new array (caller frees), or NULL with
 * *nr = 0 when absent or wrong (reported). With `one_ok`, a single
 * scalar stands for a sequence of one.
 */
yaml_node_t **yfile_seq_nodes(struct yfile *f, yaml_node_t *n, const char *key, int one_ok,
			      size_t *nr)
{
	yaml_node_item_t *item;
	yaml_node_t **v;

	*nr = 0;
	if (ynode_absent(n))
		return NULL;
	if (one_ok && n->type == YAML_SCALAR_NODE) {
		v = xcalloc(1, sizeof(*v));
		v[(*nr)++] = n;
		return v;
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		yfile_report(f, ynode_line(n), "'%s' must be a sequence, not %s", key, ynode_kind_name(n));
		return NULL;
	}
	v = xcalloc(n->data.sequence.items.top - n->data.sequence.items.start, sizeof(*v));
	for (item = n->data.sequence.items.start; item < n->data.sequence.items.top; item++)
		v[(*nr)++] = yfile_node(f, *item);
	return v;
}

int is_hex_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdefABCDEF");

	return !s[n] && n >= 8 && n <= 40;
}

/* Two upstream ids name the same commit when one abbreviates the other. */
int same_commit(const char *a, const char *b)
{
	size_t n = strlen(a) < strlen(b) ? strlen(a) : strlen(b);

	return !strncasecmp(a, b, n);
}

int valid_series_id(const char *s)
{
	if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s))
		return 0;
	return !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789._-")];
}

/* Branch names end up in ref names and file names: keep them plain. */
int valid_branch_name(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return 0;
	if (strstr(s, "..") || ends_with(s, ".") || ends_with(s, ".lock"))
		return 0;
	return !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")];
}

/* mm-regress names its cases with lowercase letters, digits and '_'. */
int valid_case_name(const char *s)
{
	return *s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_")];
}

const char *skip_dot_slash(const char *s)
{
	while (s[0] == '.' && s[1] == '/')
		for (s += 2; *s == '/'; s++)
			;
	return s;
}

const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

/*
 * A path named by the kit must stay inside it and exist, as a directory
 * when `want_dir`, else as a file. Returns -1 (reported) otherwise.
 */
int check_kit_path(struct yfile *f, int line, const char *what, const char *path,
		   int want_dir)
{
	const char *p;
	char *full = NULL;
	struct stat st;
	int ret = -1;

	if (path[0] == '/') {
		yfile_report(f, line, "%s '%s' must be relative to the kit directory", what, path);
		goto cleanup;
	}
	for (p = path; *p; p = strchrnul(p, '/'), p += !!*p) {
		if (p[0] == '.' && p[1] == '.' && (!p[2] || p[2] == '/')) {
			yfile_report(f, line, "%s '%s' must stay inside the kit directory", what, path);
			goto cleanup;
		}
	}
	full = path_join(f->ld->kit->dir, path);
	if (stat(full, &st)) {
		yfile_report(f, line, "%s '%s' does not exist", what, path);
		goto cleanup;
	}
	if (want_dir && !S_ISDIR(st.st_mode)) {
		yfile_report(f, line, "%s '%s' is not a directory", what, path);
		goto cleanup;
	}
	if (!want_dir && !S_ISREG(st.st_mode)) {
		yfile_report(f, line, "%s '%s' is not a file", what, path);
		goto cleanup;
	}
	ret = 0;
cleanup:
	free(full);
	return ret;
}

/* An absolute path for `path`: kept when absolute, ~-expanded, else under the kit. */
char *kit_abspath(struct yfile *f, int line, const char *path)
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
		yfile_report(f, line, "cannot expand '%s': no such user", path);
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
		yfile_report(f, line, "invalid YAML: %s (%s at line %d)", problem, parser->context,
			     (int)parser->context_mark.line + 1);
	else
		yfile_report(f, line, "invalid YAML: %s", problem);
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
			yfile_report(f, ynode_line(n), "YAML aliases are not supported");
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
 * A kit is plain data: an explicit tag (`!!python/object:os.system`,
 * `!custom`) asks a loader to build something else, and an anchor
 * (`&name`) is there only for aliases, which are refused. Neither is
 * let through silently: a file that has one is not the file it seems.
 */
static int check_tag_anchor(struct yfile *f, const yaml_event_t *ev)
{
	const yaml_char_t *tag = NULL, *anchor = NULL;
	int line = (int)ev->start_mark.line + 1;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		tag = ev->data.scalar.tag;
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
		tag = ev->data.sequence_start.tag;
		anchor = ev->data.sequence_start.anchor;
		break;
	case YAML_MAPPING_START_EVENT:
		tag = ev->data.mapping_start.tag;
		anchor = ev->data.mapping_start.anchor;
		break;
	default:
		return 0;
	}
	if (tag) {
		yfile_report(f, line, "YAML tags are not supported ('%s'): a kit is plain data",
			     shown((const char *)tag));
		return -1;
	}
	if (anchor) {
		yfile_report(f, line, "YAML anchors are not supported ('&%s')",
			     shown((const char *)anchor));
		return -1;
	}
	return 0;
}

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
		if (!ret)
			ret = check_tag_anchor(f, &ev);
		switch (ev.type) {
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (++depth > MAX_YAML_DEPTH) {
				yfile_report(f, (int)ev.start_mark.line + 1, "nested deeper than %d levels",
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
yaml_node_t *yfile_load(struct yfile *f, struct loader *ld, const char *rel)
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
		yfile_report(f, 1, "the file is empty");
		goto cleanup;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		parse_error(f, &parser, buf.buf);
		root = NULL;
		goto cleanup;
	}
	if (yaml_document_get_root_node(&extra)) {
		yfile_report(f, ynode_line(yaml_document_get_root_node(&extra)),
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

void yfile_release(struct yfile *f)
{
	if (f->loaded)
		yaml_document_delete(&f->doc);
	free(f->name);
	memset(f, 0, sizeof(*f));
}
