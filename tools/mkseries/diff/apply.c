/* diff/apply.c: apply a git diff to a tree in memory, touching only the paths it names. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff/apply.h"
#include "diff/diffscan.h"
#include "diff/lines.h"
#include "lib/gitutil.h"
#include "lib/treecheck.h"

/* Lines of context shown around a hunk that does not apply. */
#define REPORT_CONTEXT 3

/* Where each hunk header is in the text, by file section and hunk, to move hunks. */
struct hunk_loc {
	size_t section, hunk;
	size_t off, len;
	struct hunk_range r;
};

struct hunk_locs {
	const char *base;
	struct hunk_loc *v;
	size_t nr, alloc;
	size_t sections;	/* file sections seen */
	size_t in_section;	/* hunks seen in the current one */
};

static int locate_line(void *data, enum scan_event ev, const char *l, size_t n,
		       unsigned lineno, const struct hunk_range *r)
{
	struct hunk_locs *hl = data;
	struct hunk_loc *loc;

	if (ev == EV_GIT_HEADER) {
		hl->sections++;
		hl->in_section = 0;
	} else if (ev == EV_HUNK_HEADER && hl->sections) {
		ALLOC_GROW(hl->v, hl->nr + 1, hl->alloc);
		loc = &hl->v[hl->nr++];
		loc->section = hl->sections - 1;
		loc->hunk = hl->in_section++;
		loc->off = l - hl->base;
		loc->len = n;
		loc->r = *r;
	}
	return 0;
}

/* What the base tree has at a path the diff names. */
enum base_kind {
	BASE_ABSENT = 0,
	BASE_FILE,	/* blob, symlink or gitlink */
	BASE_DIR,
};

struct touched {
	const char *path;	/* owned by the git_diff */
	enum base_kind kind;
	git_oid id;
	git_filemode_t mode;	/* normalised, for the small tree */
	git_filemode_t raw_mode;
	unsigned made_mode;	/* the mode a delta created it with */
	unsigned gone : 1;	/* deleted or renamed away by some delta */
	unsigned made : 1;	/* created by a delta seen so far */
	unsigned has_sim : 1;	/* sim holds its content after the deltas simulated so far */
	struct strbuf sim;
};

struct apply_ctx {
	git_repository *repo;
	git_tree *base;
	git_diff *diff;
	struct touched *t;
	size_t nr, alloc;
	struct strbuf *report;
};

static int touched_cmp(const void *a, const void *b)
{
	return strcmp(((const struct touched *)a)->path, ((const struct touched *)b)->path);
}

static struct touched *touched_find(struct apply_ctx *ctx, const char *path)
{
	struct touched key;

	if (!path)
		return NULL;
	key.path = path;
	return bsearch(&key, ctx->t, ctx->nr, sizeof(*ctx->t), touched_cmp);
}

static void touched_add(struct apply_ctx *ctx, const char *path)
{
	struct touched *t;

	if (!path)
		return;
	ALLOC_GROW(ctx->t, ctx->nr + 1, ctx->alloc);
	t = &ctx->t[ctx->nr++];
	memset(t, 0, sizeof(*t));
	t->path = path;
	strbuf_init(&t->sim, 0);
}

static void apply_ctx_release(struct apply_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->nr; i++)
		strbuf_release(&ctx->t[i].sim);
	free(ctx->t);
	ctx->t = NULL;
	ctx->nr = ctx->alloc = 0;
}

/* Returns the kind of entry at `path` in `tree`, filling id and modes; -1 on error. */
static int tree_lookup(git_tree *tree, const char *path, git_oid *id, git_filemode_t *mode,
		       git_filemode_t *raw_mode)
{
	git_tree_entry *e = NULL;
	int err = git_tree_entry_bypath(&e, tree, path);
	int kind;

	if (err == GIT_ENOTFOUND) {
		git_error_clear();
		return BASE_ABSENT;
	}
	if (err < 0)
		return gitutil_error(err, "cannot look up '%s' in the tree", path);
	kind = git_tree_entry_type(e) == GIT_OBJECT_TREE ? BASE_DIR : BASE_FILE;
	if (id)
		git_oid_cpy(id, git_tree_entry_id(e));
	if (mode)
		*mode = git_tree_entry_filemode(e);
	if (raw_mode)
		*raw_mode = git_tree_entry_filemode_raw(e);
	git_tree_entry_free(e);
	return kind;
}

/*
 * Gather the paths the deltas name, check them again as libgit2 parsed
 * them (the text check cannot see every way a parser might read a
 * line), and look each up in the base tree.
 */
static int collect_paths(struct apply_ctx *ctx)
{
	size_t i, j, n = git_diff_num_deltas(ctx->diff);
	int ret;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(ctx->diff, i);

		touched_add(ctx, d->old_file.path);
		touched_add(ctx, d->new_file.path);
	}
	qsort(ctx->t, ctx->nr, sizeof(*ctx->t), touched_cmp);
	for (i = j = 0; i < ctx->nr; i++) {
		if (j && !strcmp(ctx->t[j - 1].path, ctx->t[i].path)) {
			strbuf_release(&ctx->t[i].sim);
			continue;
		}
		ctx->t[j++] = ctx->t[i];
	}
	ctx->nr = j;
	for (i = 0; i < ctx->nr; i++) {
		struct touched *t = &ctx->t[i];

		if ((ret = check_one_path(t->path, strlen(t->path), t->path, strlen(t->path), 0,
					  ctx->report)))
			return ret;
		ret = tree_lookup(ctx->base, t->path, &t->id, &t->mode, &t->raw_mode);
		if (ret < 0)
			return ret;
		t->kind = ret;
	}
	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(ctx->diff, i);

		struct touched *t = touched_find(ctx, d->old_file.path);

		if (t && (d->status == GIT_DELTA_DELETED || d->status == GIT_DELTA_RENAMED))
			t->gone = 1;
	}
	return 0;
}

static int exists_now(const struct touched *t)
{
	return t->made || (t->kind == BASE_FILE && !t->gone);
}

static const char *mode_kind(unsigned mode)
{
	switch (mode & 0170000) {
	case 0120000:
		return "symlink";
	case 0160000:
		return "submodule";
	case 0040000:
		return "directory";
	default:
		return "regular file";
	}
}

/* Whether `path` is a symlink in `tree`. */
static int kind_is_link(git_tree *tree, const char *path)
{
	git_filemode_t raw = 0;

	return tree_lookup(tree, path, NULL, NULL, &raw) == BASE_FILE && raw == GIT_FILEMODE_LINK;
}

/*
 * Nothing the patch creates may sit under something else it creates:
 * a symlink "d" then "d/f" would write through the link where the tree
 * is checked out (git: "beyond a symbolic link"). Checked once every
 * delta is seen, so that the order of the sections does not matter.
 */
static int check_beyond(struct apply_ctx *ctx)
{
	struct strbuf prefix = STRBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < ctx->nr && !ret; i++) {
		const char *path = ctx->t[i].path, *slash;

		if (!ctx->t[i].made)
			continue;
		for (slash = strchr(path, '/'); slash && !ret; slash = strchr(slash + 1, '/')) {
			struct touched *p;

			strbuf_reset(&prefix);
			strbuf_add(&prefix, path, slash - path);
			p = touched_find(ctx, prefix.buf);
			if (!p || !p->made)
				continue;
			if ((p->made_mode & 0170000) == GIT_FILEMODE_LINK)
				strbuf_addf(ctx->report, "%s: the patch creates it beyond a symbolic link "
					    "('%s', which it creates too)", path, p->path);
			else
				strbuf_addf(ctx->report, "%s: the patch creates it under '%s', which it "
					    "creates as a %s", path, p->path, mode_kind(p->made_mode));
			ret = MKS_EAPPLYFAIL;
		}
	}
	strbuf_release(&prefix);
	return ret;
}

/* A new file needs every directory above it to be a directory, or to be removed by the diff. */
static int check_parents(struct apply_ctx *ctx, const char *path)
{
	struct strbuf prefix = STRBUF_INIT;
	const char *slash;
	int ret = 0;

	for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
		struct touched *t;
		int kind;

		strbuf_reset(&prefix);
		strbuf_add(&prefix, path, slash - path);
		kind = tree_lookup(ctx->base, prefix.buf, NULL, NULL, NULL);
		if (kind < 0) {
			ret = -1;
			break;
		}
		if (kind != BASE_FILE)
			continue;
		t = touched_find(ctx, prefix.buf);
		if (t && t->gone)
			continue;
		if (kind_is_link(ctx->base, prefix.buf))
			strbuf_addf(ctx->report, "%s: the patch creates it beyond a symbolic link "
				    "('%s' in the tree)", path, prefix.buf);
		else
			strbuf_addf(ctx->report, "%s: the patch creates it but '%s' is a file in the tree",
				    path, prefix.buf);
		ret = MKS_EAPPLYFAIL;
		break;
	}
	strbuf_release(&prefix);
	return ret;
}

/* As in `git apply`, a file of another type is refused; other mode bits are not. */
static int check_type(struct apply_ctx *ctx, const struct touched *o, const git_diff_delta *d)
{
	if (o->made || o->kind != BASE_FILE || !d->old_file.mode ||
	    !((o->raw_mode ^ d->old_file.mode) & 0170000))
		return 0;
	strbuf_addf(ctx->report, "%s: the patch expects a %s but the tree has a %s there", o->path,
		    mode_kind(d->old_file.mode), mode_kind(o->raw_mode));
	return MKS_EAPPLYFAIL;
}

static int fail(struct apply_ctx *ctx, const char *path, const char *what)
{
	strbuf_addstr(ctx->report, path);
	strbuf_addf(ctx->report, ": %s", what);
	return MKS_EAPPLYFAIL;
}

/*
 * A delta's names, as libgit2 parsed them, must make sense before
 * libgit2 acts on them. Sets *po and *pn to its old and new paths
 * (the same entry when it names one file).
 */
static int check_names_of(struct apply_ctx *ctx, size_t i, const git_diff_delta *d,
			  struct touched **po, struct touched **pn)
{
	struct touched *o = touched_find(ctx, d->old_file.path);
	struct touched *nw = touched_find(ctx, d->new_file.path);

	if (!d->old_file.path && (nw || o)) {
		/* libgit2 reads every delta's old path, even a new file's */
		strbuf_addf(ctx->report, "%s: the patch's 'diff --git' line does not match "
			    "its file names", (nw ? nw : o)->path);
		return MKS_EAPPLYFAIL;
	}
	if (d->new_file.mode && d->status != GIT_DELTA_DELETED &&
	    d->new_file.mode != GIT_FILEMODE_BLOB &&
	    d->new_file.mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
	    d->new_file.mode != GIT_FILEMODE_LINK && d->new_file.mode != GIT_FILEMODE_COMMIT) {
		strbuf_addf(ctx->report, "%s: the patch gives it mode %o, which git does not use",
			    (nw ? nw : o)->path, d->new_file.mode);
		return MKS_EAPPLYFAIL;
	}
	if (o && nw && o != nw && d->status != GIT_DELTA_RENAMED &&
	    d->status != GIT_DELTA_COPIED) {
		/* libgit2 would read one file and write the other */
		strbuf_addf(ctx->report, "%s: the patch also calls it '%s' without renaming it",
			    o->path, nw->path);
		return MKS_EAPPLYFAIL;
	}
	if (!o || !nw) {
		/* libgit2 leaves a side unnamed only for odd headers; never guess it */
		if (d->status == GIT_DELTA_RENAMED || d->status == GIT_DELTA_COPIED || (!o && !nw)) {
			strbuf_addf(ctx->report, "file %zu of the patch does not name both its sides",
				    i + 1);
			return MKS_EAPPLYFAIL;
		}
		if (!nw)
			nw = o;
		if (!o)
			o = nw;
	}
	*po = o;
	*pn = nw;
	return 0;
}

/* Whether the patch deletes (or renames away) file `path`. */
static int patch_removes(struct apply_ctx *ctx, const char *path)
{
	size_t i, n = git_diff_num_deltas(ctx->diff);

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(ctx->diff, i);

		if ((d->status == GIT_DELTA_DELETED || d->status == GIT_DELTA_RENAMED) &&
		    d->old_file.path && !strcmp(d->old_file.path, path))
			return 1;
	}
	return 0;
}

struct emptied {
	struct apply_ctx *ctx;
	const char *dir;
	int kept;
};

static int emptied_cb(const char *root, const git_tree_entry *e, void *data)
{
	struct emptied *em = data;
	char *path;

	if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
		return 0;
	path = xstrfmt("%s/%s%s", em->dir, root, git_tree_entry_name(e));
	if (!patch_removes(em->ctx, path))
		em->kept = 1;
	free(path);
	return em->kept ? -1 : 0;
}

/*
 * Whether the patch removes every file of directory `dir` of the base:
 * then, as git am does, it may create a file of that name.
 */
static int dir_emptied(struct apply_ctx *ctx, const char *dir)
{
	struct emptied em = { ctx, dir, 0 };
	git_tree_entry *e = NULL;
	git_tree *sub = NULL;

	if (git_tree_entry_bypath(&e, ctx->base, dir) < 0 ||
	    git_tree_entry_type(e) != GIT_OBJECT_TREE ||
	    git_tree_lookup(&sub, ctx->repo, git_tree_entry_id(e)) < 0)
		em.kept = 1;
	else
		git_tree_walk(sub, GIT_TREEWALK_PRE, emptied_cb, &em);
	git_error_clear();
	git_tree_free(sub);
	git_tree_entry_free(e);
	return !em.kept;
}

/*
 * Files the patch modifies must be there, with the type it expects;
 * files it creates must not, and the directories above them must not
 * be files. libgit2 checks little of this (it prepends an "added" file
 * to one that already exists); `git apply` refuses all of it, so we
 * check first.
 */
static int check_structure(struct apply_ctx *ctx)
{
	size_t i, n = git_diff_num_deltas(ctx->diff);
	int ret;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(ctx->diff, i);
		struct touched *o, *nw;
		const char *verb;

		if ((ret = check_names_of(ctx, i, d, &o, &nw)))
			return ret;
		switch (d->status) {
		case GIT_DELTA_ADDED:
			if (nw->kind == BASE_DIR && !nw->made && !dir_emptied(ctx, nw->path))
				return fail(ctx, nw->path, "the patch creates it but the tree has a directory there");
			if (exists_now(nw))
				return fail(ctx, nw->path, "the patch creates it but the tree already has it");
			if ((ret = check_parents(ctx, nw->path)))
				return ret;
			nw->made = 1;
			nw->made_mode = d->new_file.mode;
			break;
		case GIT_DELTA_RENAMED:
		case GIT_DELTA_COPIED:
			verb = d->status == GIT_DELTA_RENAMED ? "renames" : "copies";
			if (!o->made && o->kind != BASE_FILE) {
				strbuf_addf(ctx->report, "%s: the patch %s it to '%s' but the tree %s",
					    o->path, verb, nw->path,
					    o->kind == BASE_DIR ? "has a directory there" : "does not have it");
				return MKS_EAPPLYFAIL;
			}
			if ((ret = check_type(ctx, o, d)))
				return ret;
			if (o == nw)
				break;
			if (nw->kind == BASE_DIR || exists_now(nw)) {
				strbuf_addf(ctx->report, "%s: the patch %s '%s' to it but the tree already has %s",
					    nw->path, verb, o->path,
					    nw->kind == BASE_DIR ? "a directory there" : "it");
				return MKS_EAPPLYFAIL;
			}
			if ((ret = check_parents(ctx, nw->path)))
				return ret;
			nw->made = 1;
			nw->made_mode = d->new_file.mode ? d->new_file.mode : d->old_file.mode;
			break;
		default:
			verb = d->status == GIT_DELTA_DELETED ? "deletes" : "modifies";
			if (!o->made && o->kind != BASE_FILE) {
				strbuf_addf(ctx->report, "%s: the patch %s it but the tree %s", o->path, verb,
					    o->kind == BASE_DIR ? "has a directory there" : "does not have it");
				return MKS_EAPPLYFAIL;
			}
			if ((ret = check_type(ctx, o, d)))
				return ret;
			break;
		}
	}
	return check_beyond(ctx);
}

/*
 * Where `git apply` puts a hunk (its find_pos(), without fuzz): a hunk
 * that starts the file (old start 0 or 1) must match at the top, one
 * without context after its change must match at the end; any other
 * is searched for from the line the header names, nearest first,
 * alternating down and up. Returns 1 with *out set, or 0.
 */
static int find_hunk(const struct lines *img, const struct lines *pre, size_t line,
		     int at_start, int at_end, size_t *out)
{
	size_t down, up;

	if (at_start || at_end) {
		size_t at = at_start ? 0 : img->nr - pre->nr;

		if (pre->nr > img->nr && !at_start)
			return 0;
		if (at_end && at + pre->nr != img->nr)
			return 0;
		if (!lines_match_at(img, at, pre->v, pre->nr))
			return 0;
		*out = at;
		return 1;
	}
	if (line > img->nr)
		line = img->nr;
	if (lines_match_at(img, line, pre->v, pre->nr)) {
		*out = line;
		return 1;
	}
	for (down = up = line; down < img->nr || up > 0; ) {
		if (down < img->nr && lines_match_at(img, ++down, pre->v, pre->nr)) {
			*out = down;
			return 1;
		}
		if (up > 0 && lines_match_at(img, --up, pre->v, pre->nr)) {
			*out = up;
			return 1;
		}
	}
	return 0;
}

static void add_numbered(struct strbuf *sb, size_t lineno, char mark, const struct line *l)
{
	size_t n = l->n;

	if (n && l->p[n - 1] == '\n')
		n--;
	strbuf_addf(sb, "  %6zu %c", lineno, mark);
	strbuf_add_shown(sb, l->p, n, 0);
	strbuf_addch(sb, '\n');
}

/* How many of the expected lines that are not blank the tree has at `at` (0-based). */
static size_t likeness_at(const struct lines *orig, size_t at, const struct lines *pre)
{
	size_t i, n = 0;

	for (i = 0; i < pre->nr && at + i < orig->nr; i++)
		if (pre->v[i].n > 1 && line_eq(&orig->v[at + i], &pre->v[i]))
			n++;
	return n;
}

/*
 * Where the hunk's context is now, as a 1-based line: the place in the
 * tree with the most of the expected lines (blank ones aside), the one
 * nearest `first` among equals; `first` when no place has more of them
 * than `first` itself. A git tree's file moves code around between
 * releases: the patch's own line numbers may show an unrelated place.
 */
static size_t likeliest_place(const struct lines *orig, const struct lines *pre, size_t first)
{
	size_t at, best = first, best_n, n, dist, best_dist = 0;

	if (!pre->nr || pre->nr > orig->nr || orig->nr * pre->nr > 50000000)
		return first;
	best_n = first - 1 < orig->nr ? likeness_at(orig, first - 1, pre) : 0;
	for (at = 0; at + pre->nr <= orig->nr; at++) {
		n = likeness_at(orig, at, pre);
		dist = at + 1 > first ? at + 1 - first : first - at - 1;
		if (n > best_n || (n == best_n && n && best != first && dist < best_dist)) {
			best = at + 1;
			best_n = n;
			best_dist = dist;
		}
	}
	return best;
}

/*
 * Describe a hunk that does not apply: the hunk, the lines it expects,
 * and what the tree has around that place, marking the lines that
 * differ, with line numbers of the tree's file.
 */
/* The most cells of the table that lines up a hunk with the tree's lines (16 MiB). */
#define REPORT_ALIGN_CELLS ((size_t)4 << 20)

/*
 * Which of the tree's lines first..hi (1-based) the hunk's expected lines
 * keep, lined up as a diff would (a longest common subsequence): only the
 * others are marked '!', so that a line the tree has in addition does not
 * mark every one after it. NULL (the caller compares line by line) when
 * the hunk is too large to line up. Caller frees.
 */
static char *tree_lines_kept(const struct lines *orig, size_t first, size_t hi,
			     const struct lines *pre)
{
	size_t nb = hi >= first ? hi - first + 1 : 0;
	char *kept;

	if (!nb || !pre->nr)
		return NULL;
	kept = xmalloc(nb);
	if (lines_common(kept, pre->v, pre->nr, &orig->v[first - 1], nb, REPORT_ALIGN_CELLS)) {
		free(kept);
		return NULL;
	}
	return kept;
}

static void report_hunk(struct strbuf *sb, const char *path, size_t h, size_t nh,
			const git_diff_hunk *hunk, const struct lines *pre, const char *premark,
			const struct lines *orig, int at_start, int at_end)
{
	size_t first = hunk->old_start ? hunk->old_start : 1, i, lo, hi, k, at, place;
	size_t hlen = hunk->header_len;
	char *kept = NULL;

	while (hlen && (hunk->header[hlen - 1] == '\n' || hunk->header[hlen - 1] == '\r'))
		hlen--;
	/*
	 * "1 of 1" only when it says something: the backport loop applies a
	 * file's hunks one at a time and numbers them itself.
	 */
	if (nh > 1)
		strbuf_addf(sb, "%s: hunk %zu of %zu (", path, h + 1, nh);
	else
		strbuf_addf(sb, "%s: hunk (", path);
	strbuf_add_shown(sb, hunk->header, hlen, 0);
	strbuf_addstr(sb, ") does not apply\n");
	if (pre->nr) {
		strbuf_addf(sb, "the patch expects at lines %zu-%zu:\n", first, first + pre->nr - 1);
		for (i = 0; i < pre->nr; i++)
			add_numbered(sb, first + i, premark[i], &pre->v[i]);
	}
	place = likeliest_place(orig, pre, first);
	if (place == first && first > orig->nr) {
		strbuf_addf(sb, "the tree's copy has only %zu lines\n", orig->nr);
		first = orig->nr + 1;
	}
	first = place;
	lo = first > REPORT_CONTEXT ? first - REPORT_CONTEXT : 1;
	hi = first + (pre->nr ? pre->nr - 1 : 0) + REPORT_CONTEXT;
	if (hi > orig->nr)
		hi = orig->nr;
	if (lo <= hi) {
		strbuf_addf(sb, "the tree has at lines %zu-%zu", lo, hi);
		if (first != (hunk->old_start ? (size_t)hunk->old_start : 1))
			strbuf_addstr(sb, " (where the hunk's context is now)");
		strbuf_addstr(sb, ":\n");
		kept = tree_lines_kept(orig, first, hi, pre);
		for (k = lo; k <= hi; k++) {
			int differs = k >= first && k - first < pre->nr &&
				      (kept ? !kept[k - first] :
				       !line_eq(&orig->v[k - 1], &pre->v[k - first]));

			add_numbered(sb, k, differs ? '!' : ' ', &orig->v[k - 1]);
		}
		free(kept);
	}
	/* a hunk anchored at an end of the file may still be found inside it: say why it does not count */
	if ((at_start || at_end) && pre->nr && find_hunk(orig, pre, first - 1, 0, 0, &at))
		strbuf_addf(sb, "the expected lines are at line %zu of the tree, but the hunk %s\n",
			    at + 1, at_start ? "starts the file and must match at its top" :
			    "has no context after its change and must match at the end of the file");
	strbuf_rtrim(sb);
}

/*
 * Run a text patch's hunks over `src` the way `git apply` does, so that
 * a failure is pinned to its hunk and a hunk that moved in the tree is
 * found. The patched content goes to `out`. When `moved` is non-NULL,
 * each hunk's new start line, as libgit2 must be told it to apply there,
 * is stored in moved[h] (0 when libgit2 would find it on its own).
 * Returns 0, MKS_EAPPLYFAIL with the report written, or -1.
 */
static int run_hunks(git_patch *patch, const char *path, const char *src, size_t srclen,
		     struct strbuf *out, struct strbuf *report, long *moved)
{
	struct lines img = LINES_INIT, orig = LINES_INIT;
	struct lines pre = LINES_INIT, post = LINES_INIT;
	char *premark = NULL;
	size_t premark_alloc = 0, nh = git_patch_num_hunks(patch), h, i;
	int ret = 0, err;

	lines_split(&img, src, srclen);
	lines_split(&orig, src, srclen);
	for (h = 0; h < nh; h++) {
		const git_diff_hunk *hunk;
		size_t nl, at, natural;
		int last = 0;	/* bit 0: the previous line is in pre, bit 1: in post */
		int trailing = 0, at_start, at_end;

		if ((err = git_patch_get_hunk(&hunk, &nl, patch, h)) < 0) {
			ret = gitutil_error(err, "cannot read hunk %zu of '%s'", h + 1, path);
			goto cleanup;
		}
		pre.nr = post.nr = 0;
		for (i = 0; i < nl; i++) {
			const git_diff_line *l;
			struct line *s;

			if ((err = git_patch_get_line_in_hunk(&l, patch, h, i)) < 0) {
				ret = gitutil_error(err, "cannot read hunk %zu of '%s'", h + 1, path);
				goto cleanup;
			}
			switch (l->origin) {
			case GIT_DIFF_LINE_CONTEXT_EOFNL:
			case GIT_DIFF_LINE_ADD_EOFNL:
			case GIT_DIFF_LINE_DEL_EOFNL:
				/* the line before has no newline in the file */
				s = (last & 1) ? &pre.v[pre.nr - 1] : NULL;
				if (s && s->n && s->p[s->n - 1] == '\n')
					s->n--;
				s = (last & 2) ? &post.v[post.nr - 1] : NULL;
				if (s && s->n && s->p[s->n - 1] == '\n')
					s->n--;
				last = 0;
				break;
			case GIT_DIFF_LINE_CONTEXT:
				ALLOC_GROW(premark, pre.nr + 1, premark_alloc);
				premark[pre.nr] = ' ';
				lines_push(&pre, l->content, l->content_len);
				lines_push(&post, l->content, l->content_len);
				trailing++;
				last = 3;
				break;
			case GIT_DIFF_LINE_DELETION:
				ALLOC_GROW(premark, pre.nr + 1, premark_alloc);
				premark[pre.nr] = '-';
				lines_push(&pre, l->content, l->content_len);
				trailing = 0;
				last = 1;
				break;
			case GIT_DIFF_LINE_ADDITION:
				lines_push(&post, l->content, l->content_len);
				trailing = 0;
				last = 2;
				break;
			default:
				last = 0;
				break;
			}
		}
		at_start = hunk->old_start <= 1;
		at_end = !trailing;
		natural = hunk->new_start ? (size_t)hunk->new_start - 1 : 0;
		if (!find_hunk(&img, &pre, natural, at_start, at_end, &at)) {
			report_hunk(report, path, h, nh, hunk, &pre, premark, &orig, at_start, at_end);
			ret = MKS_EAPPLYFAIL;
			goto cleanup;
		}
		if (moved)
			moved[h] = at == (natural > img.nr ? img.nr : natural) ? 0 : (long)at + 1;
		lines_splice(&img, at, pre.nr, &post);
	}
	strbuf_reset(out);
	for (i = 0; i < img.nr; i++)
		strbuf_add(out, img.v[i].p, img.v[i].n);
cleanup:
	lines_release(&img);
	lines_release(&orig);
	lines_release(&pre);
	lines_release(&post);
	free(premark);
	return ret;
}

/* What a patch shows as a gitlink's content, as git apply makes it from the index. */
static void gitlink_text(struct strbuf *sb, const git_oid *id)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "Subproject commit %s\n", git_oid_tostr_s(id));
}

/* A hunk whose header must name another start line for libgit2 to apply it where git would. */
struct hunk_move {
	size_t delta, hunk;
	long new_start;
	long old_start, old_lines, new_lines;	/* to recognise its header in the text */
};

/*
 * Simulate delta i on the content the deltas before it left (or the
 * base tree's). Returns 0, MKS_EAPPLYFAIL with the report written, or -1.
 */
static int simulate_delta(struct apply_ctx *ctx, size_t i, struct hunk_move **moves,
			  size_t *nr_moves, size_t *alloc_moves)
{
	git_patch *patch = NULL;
	git_blob *blob = NULL;
	const git_diff_delta *d;
	struct touched *o, *nw;
	struct strbuf result = STRBUF_INIT, link = STRBUF_INIT;
	const char *src = "";
	size_t srclen = 0, h, nh;
	long *moved = NULL;
	int ret = 0, err;

	if ((err = git_patch_from_diff(&patch, ctx->diff, i)) < 0) {
		ret = gitutil_error(err, "cannot read file %zu of the patch", i + 1);
		goto cleanup;
	}
	d = git_patch_get_delta(patch);
	o = touched_find(ctx, d->old_file.path);
	nw = touched_find(ctx, d->new_file.path);
	if ((d->flags & GIT_DIFF_FLAG_BINARY) || (!o && !nw))
		goto cleanup;
	if (d->status != GIT_DELTA_ADDED && o) {
		if (o->has_sim && d->status != GIT_DELTA_RENAMED) {
			src = o->sim.buf;
			srclen = o->sim.len;
		} else if (o->kind == BASE_FILE && o->raw_mode == GIT_FILEMODE_COMMIT) {
			gitlink_text(&link, &o->id);
			src = link.buf;
			srclen = link.len;
		} else if (o->kind == BASE_FILE) {
			if ((err = git_blob_lookup(&blob, ctx->repo, &o->id)) < 0) {
				ret = gitutil_error(err, "cannot read '%s' from the tree", o->path);
				goto cleanup;
			}
			src = git_blob_rawcontent(blob);
			srclen = git_blob_rawsize(blob);
		} else {
			goto cleanup;	/* check_structure has reported it */
		}
	} else if (d->status == GIT_DELTA_ADDED && nw && nw->has_sim) {
		src = nw->sim.buf;
		srclen = nw->sim.len;
	}
	nh = git_patch_num_hunks(patch);
	moved = xcalloc(nh + 1, sizeof(*moved));
	ret = run_hunks(patch, o ? o->path : nw->path, src, srclen, &result, ctx->report, moved);
	if (ret)
		goto cleanup;
	for (h = 0; h < nh; h++) {
		const git_diff_hunk *hunk;
		struct hunk_move *m;
		size_t lines;

		if (!moved[h] || git_patch_get_hunk(&hunk, &lines, patch, h) < 0)
			continue;
		ALLOC_GROW(*moves, *nr_moves + 1, *alloc_moves);
		m = &(*moves)[(*nr_moves)++];
		m->delta = i;
		m->hunk = h;
		m->new_start = moved[h];
		m->old_start = hunk->old_start;
		m->old_lines = hunk->old_lines;
		m->new_lines = hunk->new_lines;
	}
	if (d->status == GIT_DELTA_DELETED) {
		/* libgit2 removes a file without looking at it; git checks it is what the patch removes */
		if (result.len) {
			strbuf_addf(ctx->report, "%s: the patch deletes it but the tree's copy has lines "
				    "the patch does not remove", o->path);
			ret = MKS_EAPPLYFAIL;
		}
		goto cleanup;
	}
	if (nw) {
		strbuf_reset(&nw->sim);
		strbuf_add(&nw->sim, result.buf, result.len);
		nw->has_sim = 1;
	}
cleanup:
	free(moved);
	strbuf_release(&link);
	strbuf_release(&result);
	git_blob_free(blob);
	git_patch_free(patch);
	return ret;
}

/*
 * Write the diff text again with the moved hunks' start lines changed,
 * so that libgit2, which applies a hunk only at the line its header
 * names, puts it where `git apply` would. Returns 0, or -1 when the
 * text's sections cannot be matched with libgit2's deltas.
 */
static int move_hunks(struct strbuf *out, struct apply_ctx *ctx, const char *diff, size_t len,
		      const struct hunk_move *moves, size_t nr_moves)
{
	struct hunk_locs hl = { diff, NULL, 0, 0, 0, 0 };
	size_t i, j, pos = 0;
	int ret = 0;

	scan_diff(diff, len, locate_line, &hl);
	if (hl.sections != git_diff_num_deltas(ctx->diff)) {
		ret = -1;
		goto cleanup;
	}
	for (i = 0; i < nr_moves; i++) {
		const struct hunk_loc *loc = NULL;
		const struct hunk_range *r;

		for (j = 0; j < hl.nr; j++)
			if (hl.v[j].section == moves[i].delta && hl.v[j].hunk == moves[i].hunk)
				loc = &hl.v[j];
		if (!loc || loc->off < pos || loc->r.old_start != moves[i].old_start ||
		    loc->r.old_lines != moves[i].old_lines || loc->r.new_lines != moves[i].new_lines) {
			ret = -1;
			goto cleanup;
		}
		r = &loc->r;
		strbuf_add(out, diff + pos, loc->off - pos);
		strbuf_addstr(out, "@@ -");
		add_range(out, r->old_start, r->old_lines, r->old_has_count);
		strbuf_addstr(out, " +");
		add_range(out, moves[i].new_start, r->new_lines, r->new_has_count);
		strbuf_addstr(out, " @@");
		strbuf_add(out, r->tail, diff + loc->off + loc->len - r->tail);
		pos = loc->off + loc->len;
	}
	strbuf_add(out, diff + pos, len - pos);
cleanup:
	free(hl.v);
	return ret;
}

/*
 * The tree of only the touched paths that exist in the base, for libgit2
 * to apply onto. libgit2 reads a gitlink as a blob, so a gitlink's entry
 * points at a blob of its "Subproject commit <id>" text; fold_back()
 * turns the result into a gitlink again.
 */
static int build_small_tree(git_tree **out, struct apply_ctx *ctx)
{
	git_tree_update *up = xcalloc(ctx->nr ? ctx->nr : 1, sizeof(*up));
	struct strbuf link = STRBUF_INIT;
	size_t i, n = 0;
	git_oid id;
	int err = 0, ret = 0;

	for (i = 0; i < ctx->nr; i++) {
		if (ctx->t[i].kind != BASE_FILE)
			continue;
		up[n].action = GIT_TREE_UPDATE_UPSERT;
		git_oid_cpy(&up[n].id, &ctx->t[i].id);
		up[n].filemode = ctx->t[i].mode;
		up[n].path = ctx->t[i].path;
		if (ctx->t[i].raw_mode == GIT_FILEMODE_COMMIT) {
			gitlink_text(&link, &ctx->t[i].id);
			if ((err = git_blob_create_from_buffer(&up[n].id, ctx->repo, link.buf,
							       link.len)) < 0)
				break;
		}
		n++;
	}
	if (err < 0 || (err = git_tree_create_updated(&id, ctx->repo, NULL, n, up)) < 0 ||
	    (err = git_tree_lookup(out, ctx->repo, &id)) < 0)
		ret = gitutil_error(err, "cannot build the tree of the patch's files");
	strbuf_release(&link);
	free(up);
	return ret;
}

/*
 * A gitlink's "content" in a patch is the line "Subproject commit <id>";
 * libgit2 stores that text as a blob and links to the blob, where git
 * apply links to <id>. Read <id> from the simulated content, as git's
 * add_index_file() does.
 */
static int gitlink_target(git_oid *out, struct apply_ctx *ctx, const char *path)
{
	static const char prefix[] = "Subproject commit ";
	const struct touched *t = touched_find(ctx, path);
	const size_t plen = sizeof(prefix) - 1;

	if (!t || !t->has_sim || t->sim.len < plen + GIT_OID_HEXSZ ||
	    memcmp(t->sim.buf, prefix, plen) ||
	    git_oid_fromstrn(out, t->sim.buf + plen, GIT_OID_HEXSZ) < 0) {
		git_error_clear();
		return fail(ctx, path, "corrupt patch for a submodule: its content is not "
			    "'Subproject commit <40-hex id>'");
	}
	return 0;
}

/*
 * Apply the updates `up` to the base tree: removals first, then the rest
 * onto that. libgit2 takes one list as a whole and refuses a path that
 * is a file on one side and a directory on the other ("D/F conflict"),
 * where git am replaces a symbolic link by a directory, or a directory
 * by a file, when the patch removes the one and creates the other.
 */
static int update_in_two_passes(git_oid *out, struct apply_ctx *ctx, git_tree_update *up,
				 size_t n)
{
	git_tree_update *sorted = xcalloc(n ? n : 1, sizeof(*sorted));
	git_tree *mid = NULL;
	git_oid mid_id;
	size_t i, nrm = 0, k;
	int err = 0, ret = 0;

	for (i = 0; i < n; i++)
		if (up[i].action == GIT_TREE_UPDATE_REMOVE)
			sorted[nrm++] = up[i];
	for (i = 0, k = nrm; i < n; i++)
		if (up[i].action != GIT_TREE_UPDATE_REMOVE)
			sorted[k++] = up[i];
	if (!nrm || nrm == n) {
		err = git_tree_create_updated(out, ctx->repo, ctx->base, n, sorted);
	} else if ((err = git_tree_create_updated(&mid_id, ctx->repo, ctx->base, nrm,
						  sorted)) >= 0 &&
		   (err = git_tree_lookup(&mid, ctx->repo, &mid_id)) >= 0) {
		err = git_tree_create_updated(out, ctx->repo, mid, n - nrm, sorted + nrm);
	}
	if (err < 0)
		ret = gitutil_error(err, "cannot write the patched tree");
	git_tree_free(mid);
	free(sorted);
	return ret;
}

/*
 * Fold libgit2's result back into the full tree: the paths it has are
 * upserted (with their modes: exec bits, symlinks), the touched paths
 * it no longer has are removed. Emptied directories disappear.
 */
static int fold_back(git_oid *out, struct apply_ctx *ctx, git_index *idx)
{
	size_t n = git_index_entrycount(idx), i, nup = 0;
	git_tree_update *up = xcalloc(n + ctx->nr + 1, sizeof(*up));
	int ret = 0;

	for (i = 0; i < n; i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		struct touched *t = touched_find(ctx, e->path);

		if (t && t->kind == BASE_FILE && git_oid_equal(&t->id, &e->id) &&
		    t->raw_mode == (git_filemode_t)e->mode)
			continue;
		up[nup].action = GIT_TREE_UPDATE_UPSERT;
		git_oid_cpy(&up[nup].id, &e->id);
		if (e->mode == GIT_FILEMODE_COMMIT &&
		    (ret = gitlink_target(&up[nup].id, ctx, e->path)))
			goto cleanup;
		up[nup].filemode = (git_filemode_t)e->mode;
		up[nup].path = e->path;
		nup++;
	}
	for (i = 0; i < ctx->nr; i++) {
		if (ctx->t[i].kind != BASE_FILE || git_index_get_bypath(idx, ctx->t[i].path, 0))
			continue;
		up[nup].action = GIT_TREE_UPDATE_REMOVE;
		up[nup].path = ctx->t[i].path;
		nup++;
	}
	if (!nup)
		git_oid_cpy(out, git_tree_id(ctx->base));
	else
		ret = update_in_two_passes(out, ctx, up, nup);
cleanup:
	free(up);
	return ret;
}

int apply_base_tree(git_tree **out, git_repository *repo, const git_oid *base)
{
	git_object *obj = NULL;
	int err;

	*out = NULL;
	if ((err = git_object_lookup(&obj, repo, base, GIT_OBJECT_ANY)) < 0)
		return gitutil_error(err, "cannot read tree '%s'", oid_short(base));
	err = git_object_peel((git_object **)out, obj, GIT_OBJECT_TREE);
	git_object_free(obj);
	if (err < 0)
		return gitutil_error(err, "'%s' is not a tree", oid_short(base));
	return 0;
}

/* Which file a libgit2 failure is most likely about, for the report. */
static const char *first_binary_path(git_diff *diff)
{
	size_t i;

	for (i = 0; i < git_diff_num_deltas(diff); i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->flags & GIT_DIFF_FLAG_BINARY)
			return d->new_file.path ? d->new_file.path : d->old_file.path;
	}
	return NULL;
}

/* The whole apply; with out NULL it only checks whether the diff applies. */
/*
 * Hold each .gitmodules the patch leaves (in any spelling, at any depth)
 * to the rules of an imported tree (treecheck_gitmodules()): git fsck
 * would reject the branch otherwise, and a clone might run its url.
 */
static int check_gitmodules(struct apply_ctx *ctx, git_index *idx)
{
	struct strbuf why = STRBUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; i < ctx->nr && !ret; i++) {
		const char *path = ctx->t[i].path, *slash = strrchr(path, '/');
		const char *name = slash ? slash + 1 : path;
		const git_index_entry *e = git_index_get_bypath(idx, path, 0);
		git_blob *blob = NULL;
		int err;

		if (!e || !treecheck_is_gitmodules(name, strlen(name)))
			continue;
		strbuf_reset(&why);
		if (e->mode == GIT_FILEMODE_LINK) {
			strbuf_addstr(&why, "a .gitmodules that is a symbolic link");
		} else if ((err = git_blob_lookup(&blob, ctx->repo, &e->id)) < 0) {
			ret = gitutil_error(err, "cannot read the new '%s'", shown(path));
			break;
		} else if ((size_t)git_blob_rawsize(blob) > TREECHECK_GITMODULES_MAX) {
			strbuf_addf(&why, "more than %u bytes: too large to check",
				    TREECHECK_GITMODULES_MAX);
		} else {
			treecheck_gitmodules(git_blob_rawcontent(blob), git_blob_rawsize(blob), &why);
		}
		git_blob_free(blob);
		if (why.len) {
			strbuf_addf(ctx->report, "%s: git fsck would reject it: %s\n", shown(path),
				    why.buf);
			ret = MKS_EUNSAFE;
		}
	}
	strbuf_release(&why);
	return ret;
}

static int run_apply(git_oid *out, git_repository *repo, const git_oid *base, const char *diff,
		     size_t len, struct strbuf *report)
{
	struct apply_ctx ctx = { repo, NULL, NULL, NULL, 0, 0, report };
	struct hunk_move *moves = NULL;
	size_t nr_moves = 0, alloc_moves = 0, i;
	struct strbuf moved_text = STRBUF_INIT;
	git_diff *moved_diff = NULL;
	git_tree *small = NULL;
	git_index *idx = NULL;
	int ret, err;

	if ((ret = diff_check_paths(diff, len, report)) || (ret = diff_check_names(diff, len, report)) ||
	    (ret = diff_check_binary(diff, len, report)))
		return ret;
	if ((ret = apply_base_tree(&ctx.base, repo, base)))
		goto cleanup;
	git_error_clear();	/* libgit2 may fail without a message; never show a stale one */
	err = git_diff_from_buffer(&ctx.diff, diff, len);
	if (err == GIT_ENOTFOUND || (!err && !git_diff_num_deltas(ctx.diff))) {
		strbuf_addstr(report, "the patch changes no file (it has no 'diff --git' section)");
		ret = MKS_EAPPLYFAIL;
		goto cleanup;
	}
	if (err < 0) {
		const git_error *e = git_error_last();

		strbuf_addf(report, "cannot parse the patch: %s",
			    e && e->message ? e->message : "malformed diff");
		ret = MKS_EAPPLYFAIL;
		goto cleanup;
	}
	if ((ret = collect_paths(&ctx)) || (ret = check_structure(&ctx)))
		goto cleanup;
	for (i = 0; i < git_diff_num_deltas(ctx.diff); i++)
		if ((ret = simulate_delta(&ctx, i, &moves, &nr_moves, &alloc_moves)))
			goto cleanup;
	if (nr_moves) {
		if (move_hunks(&moved_text, &ctx, diff, len, moves, nr_moves) < 0 ||
		    git_diff_from_buffer(&moved_diff, moved_text.buf, moved_text.len) < 0 ||
		    git_diff_num_deltas(moved_diff) != git_diff_num_deltas(ctx.diff)) {
			strbuf_addstr(report, "the patch's hunks are not where it says and "
				      "cannot be moved: its file sections are ambiguous");
			ret = MKS_EAPPLYFAIL;
			goto cleanup;
		}
	}
	if ((ret = build_small_tree(&small, &ctx)))
		goto cleanup;
	err = git_apply_to_tree(&idx, repo, small, moved_diff ? moved_diff : ctx.diff, NULL);
	/*
	 * A binary delta made for another preimage fails in libgit2 as an
	 * invalid object ("base size does not match given data"): it is
	 * the patch not applying, and the caller names the patch and branch.
	 */
	if (err < 0 && err != GIT_EAPPLYFAIL && git_error_last() &&
	    (git_error_last()->klass == GIT_ERROR_INVALID || git_error_last()->klass == GIT_ERROR_ZLIB ||
	     git_error_last()->klass == GIT_ERROR_PATCH) && first_binary_path(ctx.diff))
		err = GIT_EAPPLYFAIL;
	if (err == GIT_EAPPLYFAIL) {
		const git_error *e = git_error_last();
		const char *bin = first_binary_path(ctx.diff);

		if (bin)
			strbuf_addf(report, "%s: ", bin);
		strbuf_addf(report, "the patch does not apply: %s",
			    e && e->message ? e->message : "libgit2 gives no reason");
		ret = MKS_EAPPLYFAIL;
		goto cleanup;
	}
	if (err < 0) {
		ret = gitutil_error(err, "cannot apply the patch");
		goto cleanup;
	}
	if ((ret = check_gitmodules(&ctx, idx)))
		goto cleanup;
	if (out)
		ret = fold_back(out, &ctx, idx);
cleanup:
	git_index_free(idx);
	git_tree_free(small);
	git_diff_free(moved_diff);
	strbuf_release(&moved_text);
	free(moves);
	apply_ctx_release(&ctx);
	git_diff_free(ctx.diff);
	git_tree_free(ctx.base);
	return ret;
}

int apply_diff(git_oid *out, git_repository *repo, const git_oid *base,
	       const char *diff, size_t len, struct strbuf *report)
{
	return run_apply(out, repo, base, diff, len, report);
}

int apply_check(git_repository *repo, const git_oid *base, const char *diff, size_t len,
		struct strbuf *report)
{
	return run_apply(NULL, repo, base, diff, len, report);
}
