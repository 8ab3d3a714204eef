/* kit/yamledit.c: add entries to series.yaml by splicing text at places libyaml's marks point to. */
#include <errno.h>
#include <string.h>
#include <yaml.h>

#include "kit/model.h"
#include "lib/util.h"
#include "lib/fs.h"
#include "kit/yamledit.h"

/* A parsed file, with where each line starts so marks turn into byte offsets. */
struct ydoc {
	yaml_document_t doc;
	int loaded;
	const char *text;
	size_t len;
	size_t *lines;			/* byte offset of each line's start */
	size_t nr_lines;
};

/*
 * libyaml counts lines at every YAML line break (\n, \r\n, lone \r, NEL,
 * LS, PS) and columns in characters, not bytes: follow it exactly.
 */
static size_t break_len(const unsigned char *p, size_t left)
{
	if (p[0] == '\n')
		return 1;
	if (p[0] == '\r')
		return left > 1 && p[1] == '\n' ? 2 : 1;
	if (left > 1 && p[0] == 0xc2 && p[1] == 0x85)
		return 2;
	if (left > 2 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
		return 3;
	return 0;
}

static void index_lines(struct ydoc *y)
{
	const unsigned char *t = (const unsigned char *)y->text;
	size_t alloc = 0, i = 0;

	ALLOC_GROW(y->lines, 1, alloc);
	y->lines[y->nr_lines++] = 0;
	while (i < y->len) {
		size_t n = break_len(t + i, y->len - i);

		if (!n) {
			i++;
			continue;
		}
		i += n;
		ALLOC_GROW(y->lines, y->nr_lines + 1, alloc);
		y->lines[y->nr_lines++] = i;
	}
}

static size_t mark_offset(const struct ydoc *y, yaml_mark_t m)
{
	size_t off, col;

	if (m.line >= y->nr_lines)
		return y->len;
	off = y->lines[m.line];
	for (col = 0; col < m.column && off < y->len; col++) {
		/* step over one UTF-8 character */
		off++;
		while (off < y->len && ((unsigned char)y->text[off] & 0xc0) == 0x80)
			off++;
	}
	return off;
}

static void ydoc_release(struct ydoc *y)
{
	if (y->loaded)
		yaml_document_delete(&y->doc);
	free(y->lines);
	memset(y, 0, sizeof(*y));
}

static int ydoc_load(struct ydoc *y, const struct strbuf *text, const char *name)
{
	yaml_parser_t parser;
	int ret = 0;

	memset(y, 0, sizeof(*y));
	y->text = text->buf;
	y->len = text->len;
	if (!yaml_parser_initialize(&parser))
		die("out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text->buf, text->len);
	if (!yaml_parser_load(&parser, &y->doc)) {
		ret = error("%s:%zu: %s", name, parser.problem_mark.line + 1,
			    parser.problem ? parser.problem : "invalid YAML");
	} else {
		y->loaded = 1;
		if (!yaml_document_get_root_node(&y->doc))
			ret = error("%s: the file is empty", name);
	}
	yaml_parser_delete(&parser);
	if (!ret)
		index_lines(y);
	return ret;
}

static yaml_node_t *node(struct ydoc *y, int i)
{
	return yaml_document_get_node(&y->doc, i);
}

static int is_scalar(const yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && !strcmp((const char *)n->data.scalar.value, s);
}

/* The value of `key` in mapping `map` (and its key node), or NULL. */
static yaml_node_t *map_get(struct ydoc *y, yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(y, p->key);

		if (is_scalar(k, key)) {
			if (key_node)
				*key_node = k;
			return node(y, p->value);
		}
	}
	return NULL;
}

static size_t seq_len(const yaml_node_t *n)
{
	return n->data.sequence.items.top - n->data.sequence.items.start;
}

static yaml_node_t *seq_item(struct ydoc *y, yaml_node_t *seq, size_t i)
{
	return node(y, seq->data.sequence.items.start[i]);
}

static int is_flow(const yaml_node_t *n)
{
	return (n->type == YAML_SEQUENCE_NODE && n->data.sequence.style == YAML_FLOW_SEQUENCE_STYLE) ||
	       (n->type == YAML_MAPPING_NODE && n->data.mapping.style == YAML_FLOW_MAPPING_STYLE);
}

static int is_null(const yaml_node_t *n)
{
	const char *v;

	if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

/*
 * Where a node's text ends. A block collection's own end mark sits at
 * the next token, past comments and blank lines that belong to what
 * follows, so take the end of its last leaf instead.
 */
static yaml_mark_t text_end(struct ydoc *y, yaml_node_t *n)
{
	if (n->type == YAML_SEQUENCE_NODE && !is_flow(n) && seq_len(n))
		return text_end(y, seq_item(y, n, seq_len(n) - 1));
	if (n->type == YAML_MAPPING_NODE && !is_flow(n) &&
	    n->data.mapping.pairs.top > n->data.mapping.pairs.start)
		return text_end(y, node(y, n->data.mapping.pairs.top[-1].value));
	return n->end_mark;
}

/* The start of the line after offset `off`, or `off` itself when a line starts there. */
static size_t next_line(const struct ydoc *y, size_t off)
{
	size_t i;

	if (off == 0 || off >= y->len)
		return off >= y->len ? y->len : off;
	if (y->text[off - 1] == '\n' || y->text[off - 1] == '\r')
		return off;
	for (i = 0; i < y->nr_lines; i++)
		if (y->lines[i] > off)
			return y->lines[i];
	return y->len;
}

static yaml_node_t *find_series(struct ydoc *y, const char *name, const char *id)
{
	yaml_node_t *root = yaml_document_get_root_node(&y->doc), *list;
	size_t i;

	list = map_get(y, root, "series", NULL);
	if (!list || list->type != YAML_SEQUENCE_NODE) {
		error("%s: no 'series' list", name);
		return NULL;
	}
	for (i = 0; i < seq_len(list); i++) {
		yaml_node_t *s = seq_item(y, list, i);

		if (is_scalar(map_get(y, s, "id", NULL), id))
			return s;
	}
	error("%s: no series '%s'", name, id);
	return NULL;
}

/* Insert `ins` at `at` in text; a line is ended first when `at` is the end of an unterminated file. */
static void splice(struct strbuf *text, size_t at, const struct strbuf *ins)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_add(&out, text->buf, at);
	if (at && at == text->len && text->buf[at - 1] != '\n')
		strbuf_addch(&out, '\n');
	strbuf_add(&out, ins->buf, ins->len);
	strbuf_add(&out, text->buf + at, text->len - at);
	strbuf_release(text);
	*text = out;
}

/* Insert ins, whole lines, on the line after the text of node n (see text_end()). */
static void insert_below(struct ydoc *y, struct strbuf *text, yaml_node_t *n,
			 const struct strbuf *ins)
{
	splice(text, next_line(y, mark_offset(y, text_end(y, n))), ins);
}

/* The column of a block mapping's first key: where a key added to it lines up. */
static size_t key_column(struct ydoc *y, yaml_node_t *map)
{
	return node(y, map->data.mapping.pairs.start[0].key)->start_mark.column;
}

/* Column of a list's dashes and of its items' keys, relative to its key's column. */
struct list_style {
	size_t dash, item;
};

static void style_of(struct ydoc *y, yaml_node_t *seq, size_t key_col, struct list_style *st)
{
	st->dash = 2;
	st->item = 4;
	if (!seq || seq->type != YAML_SEQUENCE_NODE || is_flow(seq) || !seq_len(seq))
		return;
	if (seq->start_mark.column >= key_col)
		st->dash = seq->start_mark.column - key_col;
	if (seq_item(y, seq, 0)->start_mark.column > seq->start_mark.column)
		st->item = seq_item(y, seq, 0)->start_mark.column - key_col;
	else
		st->item = st->dash + 2;
}

/*
 * "key: value" and a newline, after *indent spaces (then item_col for the
 * next member: only the first stands right after the dash).
 */
static void add_member(struct strbuf *sb, size_t *indent, size_t item_col, const char *key,
		       const char *value, void (*add_value)(struct strbuf *, const char *))
{
	strbuf_addchars(sb, ' ', *indent);
	*indent = item_col;
	strbuf_addf(sb, "%s: ", key);
	add_value(sb, value);
	strbuf_addch(sb, '\n');
}

/* A list item's dash at dash_col, its first member to start at item_col. */
static void add_dash(struct strbuf *sb, size_t dash_col, size_t item_col)
{
	strbuf_addchars(sb, ' ', dash_col);
	strbuf_addch(sb, '-');
	strbuf_addchars(sb, ' ', item_col > dash_col + 1 ? item_col - dash_col - 1 : 1);
}

static void format_entries(struct strbuf *sb, size_t dash_col, size_t item_col,
			   const struct yaml_fixup_entry *e, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		size_t indent = 0;	/* the first member stands on the dash's line */

		add_dash(sb, dash_col, item_col);

		if (e[i].file)
			add_member(sb, &indent, item_col, "file", e[i].file, yaml_scalar);
		add_member(sb, &indent, item_col, "upstream", e[i].upstream, yaml_scalar);
		add_member(sb, &indent, item_col, "subject", e[i].subject, yaml_quote);
		add_member(sb, &indent, item_col, "fixes", e[i].fixes, yaml_scalar);
	}
}

/* Load `text` and find series `id` in it; NULL (printed) when either fails. */
static yaml_node_t *load_series(struct ydoc *y, struct strbuf *text, const char *name,
				const char *id)
{
	if (ydoc_load(y, text, name))
		return NULL;
	return find_series(y, name, id);
}

int yamledit_add_fixups(struct strbuf *text, const char *name, const char *series_id,
			const struct yaml_fixup_entry *e, size_t nr)
{
	struct strbuf ins = STRBUF_INIT;
	struct ydoc y;
	yaml_node_t *s, *fixups, *key = NULL;
	struct list_style st;
	size_t key_col;
	int ret = 0;

	s = load_series(&y, text, name, series_id);
	if (!s) {
		ret = -1;
		goto cleanup;
	}
	if (s->type != YAML_MAPPING_NODE || is_flow(s) ||
	    s->data.mapping.pairs.top == s->data.mapping.pairs.start) {
		ret = error("%s:%zu: series '%s' is not a block mapping; cannot add fixups to it",
			    name, s->start_mark.line + 1, series_id);
		goto cleanup;
	}
	key_col = key_column(&y, s);
	fixups = map_get(&y, s, "fixups", &key);
	if (fixups && fixups->type == YAML_SEQUENCE_NODE && !is_flow(fixups) && seq_len(fixups)) {
		/* append after the last entry, lined up with the first */
		size_t dash = fixups->start_mark.column, item = seq_item(&y, fixups, 0)->start_mark.column;

		format_entries(&ins, dash, item > dash ? item : dash + 2, e, nr);
		insert_below(&y, text, fixups, &ins);
		goto cleanup;
	}
	style_of(&y, map_get(&y, s, "patches", NULL), key_col, &st);
	if (!fixups) {
		strbuf_addchars(&ins, ' ', key_col);
		strbuf_addstr(&ins, "fixups:\n");
		format_entries(&ins, key_col + st.dash, key_col + st.item, e, nr);
		insert_below(&y, text, s, &ins);
		goto cleanup;
	}
	if (is_null(fixups) || (fixups->type == YAML_SEQUENCE_NODE && !seq_len(fixups))) {
		/* `fixups:`, `fixups: ~` or `fixups: []`: drop the value, list below the key */
		size_t kend = mark_offset(&y, key->end_mark), vs = mark_offset(&y, fixups->start_mark);
		size_t ve = mark_offset(&y, fixups->end_mark), colon;

		key_col = key->start_mark.column;
		colon = kend;
		while (colon < y.len && (text->buf[colon] == ' ' || text->buf[colon] == '\t'))
			colon++;
		if (colon >= y.len || text->buf[colon] != ':') {
			ret = error("%s:%zu: cannot find the ':' after 'fixups'", name,
				    key->start_mark.line + 1);
			goto cleanup;
		}
		if (ve <= vs || fixups->start_mark.line != key->start_mark.line) {
			vs = ve = colon + 1;
		} else {
			while (vs > colon + 1 && (text->buf[vs - 1] == ' ' || text->buf[vs - 1] == '\t'))
				vs--;
		}
		format_entries(&ins, key_col + st.dash, key_col + st.item, e, nr);
		splice(text, next_line(&y, ve), &ins);
		if (ve > vs) {
			memmove(text->buf + vs, text->buf + ve, text->len - ve);
			strbuf_setlen(text, text->len - (ve - vs));
		}
		goto cleanup;
	}
	ret = error("%s:%zu: 'fixups' of series '%s' is not a block list; cannot add to it", name,
		    fixups->start_mark.line + 1, series_id);
cleanup:
	strbuf_release(&ins);
	ydoc_release(&y);
	return ret;
}

static void format_series(struct strbuf *sb, size_t dash_col, size_t item_col,
			  const struct list_style *pst, const struct yaml_series_entry *e)
{
	size_t indent = 0, i;

	add_dash(sb, dash_col, item_col);
	add_member(sb, &indent, item_col, "id", e->id, yaml_scalar);
	if (e->title)
		add_member(sb, &indent, item_col, "title", e->title, yaml_quote);
	if (e->message_id)
		add_member(sb, &indent, item_col, "message-id", e->message_id, yaml_quote);
	if (e->link)
		add_member(sb, &indent, item_col, "link", e->link, yaml_scalar);
	strbuf_addchars(sb, ' ', item_col);
	strbuf_addstr(sb, "patches:\n");
	for (i = 0; i < e->nr_patches; i++) {
		const struct yaml_patch_entry *p = &e->patches[i];
		size_t pdash = item_col + pst->dash, pitem = item_col + pst->item;

		indent = 0;
		add_dash(sb, pdash, pitem);
		add_member(sb, &indent, pitem, "subject", p->subject, yaml_quote);
		if (p->upstream)
			add_member(sb, &indent, pitem, "upstream", p->upstream, yaml_scalar);
		add_member(sb, &indent, pitem, "file", p->file, yaml_scalar);
	}
}

int yamledit_add_series(struct strbuf *text, const char *name, const struct yaml_series_entry *e)
{
	struct strbuf ins = STRBUF_INIT;
	struct ydoc y;
	yaml_node_t *root, *list, *key = NULL;
	struct list_style pst = { 2, 4 };
	int ret = 0;

	if (ydoc_load(&y, text, name)) {
		ret = -1;
		goto cleanup;
	}
	root = yaml_document_get_root_node(&y.doc);
	list = root && root->type == YAML_MAPPING_NODE ? map_get(&y, root, "series", &key) : NULL;
	if (!list) {
		ret = error("%s: no 'series' list to add to", name);
		goto cleanup;
	}
	if (list->type == YAML_SEQUENCE_NODE && !is_flow(list) && seq_len(list)) {
		yaml_node_t *first = seq_item(&y, list, 0);
		size_t dash = list->start_mark.column, item = first->start_mark.column;

		if (first->type == YAML_MAPPING_NODE)
			style_of(&y, map_get(&y, first, "patches", NULL), item, &pst);
		format_series(&ins, dash, item > dash ? item : dash + 2, &pst, e);
		insert_below(&y, text, list, &ins);
		goto cleanup;
	}
	if (is_null(list) || (list->type == YAML_SEQUENCE_NODE && !seq_len(list))) {
		size_t vs = mark_offset(&y, list->start_mark), ve = mark_offset(&y, list->end_mark);
		size_t kcol = key->start_mark.column;

		if (ve <= vs || list->start_mark.line != key->start_mark.line)
			vs = ve = mark_offset(&y, key->end_mark) + 1;	/* past the ':' */
		format_series(&ins, kcol + 2, kcol + 4, &pst, e);
		splice(text, next_line(&y, ve), &ins);
		if (ve > vs) {
			while (vs > 0 && text->buf[vs - 1] == ' ')
				vs--;
			memmove(text->buf + vs, text->buf + ve, text->len - ve);
			strbuf_setlen(text, text->len - (ve - vs));
		}
		goto cleanup;
	}
	ret = error("%s:%zu: 'series' is not a block list; cannot add to it", name,
		    list->start_mark.line + 1);
cleanup:
	strbuf_release(&ins);
	ydoc_release(&y);
	return ret;
}

/*
 * Load `text` and find entry `index` of list `list` of series `series_id`:
 * a mapping with at least one key. NULL (printed) when any of it fails.
 */
static yaml_node_t *load_entry(struct ydoc *y, struct strbuf *text, const char *name,
			       const char *series_id, const char *list, size_t index)
{
	yaml_node_t *s = load_series(y, text, name, series_id), *entries, *p;

	if (!s)
		return NULL;
	entries = map_get(y, s, list, NULL);
	if (!entries || entries->type != YAML_SEQUENCE_NODE || index >= seq_len(entries)) {
		error("%s: series '%s' has no entry %zu in '%s'", name, series_id, index + 1, list);
		return NULL;
	}
	p = seq_item(y, entries, index);
	if (p->type != YAML_MAPPING_NODE || p->data.mapping.pairs.top == p->data.mapping.pairs.start) {
		error("%s:%zu: entry %zu of '%s' of series '%s' is not a mapping", name,
		      p->start_mark.line + 1, index + 1, list, series_id);
		return NULL;
	}
	return p;
}

/*
 * Where to add to flow mapping `n`: before its closing brace and the
 * blanks before it. Returns 0 with *at set, or -1 (printed).
 */
static int flow_insert_at(size_t *at, struct ydoc *y, const struct strbuf *text,
			  const yaml_node_t *n, const char *name)
{
	size_t end = mark_offset(y, n->end_mark);

	while (end > 0 && text->buf[end - 1] != '}')
		end--;
	if (!end)
		return error("%s:%zu: cannot find the closing brace of the mapping there", name,
			     n->start_mark.line + 1);
	*at = end - 1;
	while (*at > 0 && text->buf[*at - 1] == ' ')
		(*at)--;
	return 0;
}

int yamledit_add_entry_key(struct strbuf *text, const char *name, const char *series_id,
			   const char *list, size_t index, const char *key, const char *value)
{
	struct strbuf ins = STRBUF_INIT;
	struct ydoc y;
	yaml_node_t *p;
	size_t at;
	int ret = 0;

	p = load_entry(&y, text, name, series_id, list, index);
	if (!p) {
		ret = -1;
		goto cleanup;
	}
	if (map_get(&y, p, key, NULL)) {
		ret = 1;
		goto cleanup;
	}
	if (is_flow(p)) {
		/* `{ upstream: x }`: add before the closing brace */
		if (flow_insert_at(&at, &y, text, p, name)) {
			ret = -1;
			goto cleanup;
		}
		strbuf_addf(&ins, ", %s: ", key);
		yaml_scalar(&ins, value);
		splice(text, at, &ins);
		goto cleanup;
	}
	strbuf_addchars(&ins, ' ', key_column(&y, p));
	strbuf_addf(&ins, "%s: ", key);
	yaml_scalar(&ins, value);
	strbuf_addch(&ins, '\n');
	insert_below(&y, text, p, &ins);
cleanup:
	strbuf_release(&ins);
	ydoc_release(&y);
	return ret;
}

/* Length of the valid UTF-8 sequence at s (at most `left` bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t left)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

void yaml_quote(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);

	strbuf_addch(sb, '"');
	while (left) {
		size_t n = utf8_len(p, left);

		/* NEL, LS and PS break lines even inside quotes; a BOM may be dropped */
		if (n == 2 && p[0] == 0xc2 && p[1] == 0x85) {
			strbuf_addstr(sb, "\\N");
		} else if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			strbuf_addstr(sb, p[2] == 0xa8 ? "\\L" : "\\P");
		} else if (n == 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
			strbuf_addstr(sb, "\\uFEFF");
		} else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			/* C1 controls are not printable YAML */
			strbuf_addf(sb, "\\x%02x", p[1]);
		} else if (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe) {
			strbuf_addf(sb, "\\u%04x", 0xffc0 | (p[2] & 0x3f));
		} else if (*p == '"' || *p == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, *p);
		} else if (*p == '\n') {
			strbuf_addstr(sb, "\\n");
		} else if (*p == '\t') {
			strbuf_addstr(sb, "\\t");
		} else if (*p < 0x20 || *p == 0x7f) {
			strbuf_addf(sb, "\\x%02x", *p);
		} else if (!n) {
			/* not UTF-8: keep the byte's value, as Latin-1 would read it */
			strbuf_addf(sb, "\\x%02x", *p);
		} else {
			strbuf_add(sb, p, n);
		}
		p += n ? n : 1;
		left -= n ? n : 1;
	}
	strbuf_addch(sb, '"');
}

/* Plain scalars that a YAML 1.1 reader would take for something other than a string. */
static int looks_typed(const char *s)
{
	static const char *const words[] = {
		"~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
		"yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
		"y", "Y", "n", "N", NULL,
	};
	const char *p = s;
	size_t i;
	int digits = 0, e = 0;

	for (i = 0; words[i]; i++)
		if (!strcmp(s, words[i]))
			return 1;
	if (*p == '+' || *p == '-')
		p++;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digits++;
		else if ((*p == 'e' || *p == 'E') && !e)
			e = 1;
		else if (*p != '.' && *p != '_' && *p != ':')
			return 0;
	}
	return digits > 0;
}

void yaml_scalar(struct strbuf *sb, const char *s)
{
	const char *p;

	if (!*s || looks_typed(s) || strchr("-?:,[]{}#&*!|>'\"%@`. ", *s))
		goto quote;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._/-+", *p)))
			goto quote;
	strbuf_addstr(sb, s);
	return;
quote:
	yaml_quote(sb, s);
}

/* Write `data` as the kit's file `path` (beneath `dir`: no symbolic link followed there). */
static int write_kit_file(const char *dir, const char *path, const struct strbuf *data)
{
	struct strbuf why = STRBUF_INIT;
	const char *rel = path;
	int ret;

	if (skip_prefix(path, dir, &rel))
		while (*rel == '/')
			rel++;
	if (rel == path || !*rel)
		BUG("'%s' is not in the kit '%s'", path, dir);
	ret = fs_write_beneath(dir, rel, data->buf, data->len, 0644, FS_REFUSE_LINK, &why);
	if (ret)
		error("cannot write '%s': %s", path, why.buf);
	strbuf_release(&why);
	return ret;
}

int yamledit_commit(struct kit *kit, const char *dir, const char *path,
		    const struct strbuf *text, const struct strbuf *orig, const char *what)
{
	if (write_kit_file(dir, path, text))
		return -1;
	kit_release(kit);
	if (kit_load(kit, dir)) {
		error("'%s' does not load with %s; it is left as it was", path, what);
		/* the caller's pointers into the kit are found again in the kit as it was */
		if (!write_kit_file(dir, path, orig))
			kit_load(kit, dir);
		return -1;
	}
	return 0;
}

int yamledit_add_branch_decision(struct strbuf *text, const char *name, const char *series_id,
				 const char *list, size_t index, const char *branch,
				 const char *decision)
{
	struct strbuf ins = STRBUF_INIT;
	struct ydoc y;
	yaml_node_t *p, *branches, *key = NULL;
	size_t at, col;
	int ret = 0;

	p = load_entry(&y, text, name, series_id, list, index);
	if (!p) {
		ret = -1;
		goto cleanup;
	}
	branches = map_get(&y, p, "branches", &key);
	if (branches && map_get(&y, branches, branch, NULL)) {
		ret = error("%s:%zu: entry %zu of '%s' of series '%s' has a decision for '%s' already",
			    name, branches->start_mark.line + 1, index + 1, list, series_id, branch);
		goto cleanup;
	}
	if (branches && branches->type == YAML_MAPPING_NODE && is_flow(branches)) {
		/* `branches: { "6.1": {...} }`: add before the closing brace */
		if (flow_insert_at(&at, &y, text, branches, name)) {
			ret = -1;
			goto cleanup;
		}
		strbuf_addstr(&ins, branches->data.mapping.pairs.top > branches->data.mapping.pairs.start
				    ? ", " : " ");
		yaml_quote(&ins, branch);
		strbuf_addf(&ins, ": %s", decision);
		splice(text, at, &ins);
		goto cleanup;
	}
	if (branches && branches->type == YAML_MAPPING_NODE &&
	    branches->data.mapping.pairs.top > branches->data.mapping.pairs.start) {
		/* a block mapping: one more line lined up with its first key */
		strbuf_addchars(&ins, ' ', key_column(&y, branches));
		yaml_quote(&ins, branch);
		strbuf_addf(&ins, ": %s\n", decision);
		insert_below(&y, text, branches, &ins);
		goto cleanup;
	}
	if (branches) {
		ret = error("%s:%zu: 'branches' of entry %zu of series '%s' is not a mapping; cannot "
			    "add to it", name, branches->start_mark.line + 1, index + 1, series_id);
		goto cleanup;
	}
	if (is_flow(p)) {
		ret = error("%s:%zu: entry %zu of '%s' of series '%s' is a flow mapping; cannot add "
			    "'branches' to it", name, p->start_mark.line + 1, index + 1, list,
			    series_id);
		goto cleanup;
	}
	col = key_column(&y, p);
	strbuf_addchars(&ins, ' ', col);
	strbuf_addstr(&ins, "branches:\n");
	strbuf_addchars(&ins, ' ', col + 2);
	yaml_quote(&ins, branch);
	strbuf_addf(&ins, ": %s\n", decision);
	insert_below(&y, text, p, &ins);
cleanup:
	strbuf_release(&ins);
	ydoc_release(&y);
	return ret;
}
