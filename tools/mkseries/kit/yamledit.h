/* kit/yamledit.h: add entries to series.yaml by splicing text, so that comments, order and layout survive. */
#ifndef MKSERIES_YAMLEDIT_H
#define MKSERIES_YAMLEDIT_H

#include <stddef.h>

#include "lib/util.h"

/* A fixup entry to add: `file` (may be NULL), then `upstream`, `subject` and `fixes`. */
struct yaml_fixup_entry {
	const char *file;
	const char *upstream;
	const char *subject;
	const char *fixes;
};

/*
 * Append fixup entries to the `fixups:` list of series `series_id` in
 * `text` (the whole series.yaml, called `name` in messages), creating the
 * key when the series has none, with the indentation the file already
 * uses. Only new lines are inserted (an empty `fixups: []` or `~` value is
 * the one thing replaced). Returns 0, or -1 with a message and `text`
 * unchanged.
 */
int yamledit_add_fixups(struct strbuf *text, const char *name, const char *series_id,
			const struct yaml_fixup_entry *e, size_t nr);

/* A series to add: its id, title, message-id and link (each but id may be NULL), and patches. */
struct yaml_patch_entry {
	const char *subject;
	const char *upstream;	/* may be NULL */
	const char *file;
};

struct yaml_series_entry {
	const char *id;
	const char *title;
	const char *message_id;	/* without <> */
	const char *link;
	const struct yaml_patch_entry *patches;
	size_t nr_patches;
};

/*
 * Append series `e` to the `series:` list of `text` (series.yaml, called
 * `name` in messages), lined up with the series already there (or two
 * spaces in when the list is empty: `series: []`, `series:` or `~`, the
 * one thing replaced). Returns 0, or -1 with a message and `text`
 * unchanged.
 */
int yamledit_add_series(struct strbuf *text, const char *name, const struct yaml_series_entry *e);

/*
 * Add `key: value` to entry `index` (0-based) of list `list` ("patches"
 * or "fixups") of series `series_id`. Returns 0, 1 when the entry has
 * that key already (nothing changed), or -1 with a message and `text`
 * unchanged.
 */
int yamledit_add_entry_key(struct strbuf *text, const char *name, const char *series_id,
			   const char *list, size_t index, const char *key, const char *value);

/*
 * Add the decision `"<branch>": <decision>` (decision is YAML flow text,
 * as `{ skip: "why" }`) to the `branches:` of entry `index` (0-based) of
 * list `list` of series `series_id`, creating the key when the entry has
 * none. Returns 0, or -1 with a message and `text` unchanged (the entry
 * has a decision for that branch already, or is not laid out as a block).
 */
int yamledit_add_branch_decision(struct strbuf *text, const char *name, const char *series_id,
				 const char *list, size_t index, const char *branch,
				 const char *decision);

/* Append s as a YAML double-quoted scalar (bytes that are not UTF-8 are kept as \xNN). */
void yaml_quote(struct strbuf *sb, const char *s);

/* Append s as a plain scalar when YAML reads that back as the same string, else quoted. */
void yaml_scalar(struct strbuf *sb, const char *s);

/*
 * Write `text` as `path`, the series.yaml of the kit in `dir`, and load
 * the kit again into `kit`. When it no longer loads, `orig` is written
 * back, loaded again into `kit`, and -1 returned; `what` names the
 * change for that message ("the new fixups"). Either way every pointer
 * into `kit` taken before the call is stale: find it again by name.
 */
struct kit;
int yamledit_commit(struct kit *kit, const char *dir, const char *path,
		    const struct strbuf *text, const struct strbuf *orig, const char *what);

#endif
