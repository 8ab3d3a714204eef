/* diff/present.c: whether a patch's change is already in a tree, hunk by hunk, for plan and apply alike. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "diff/apply.h"
#include "diff/diffscan.h"
#include "diff/lines.h"
#include "diff/present.h"
#include "lib/gitutil.h"

/* How far apart two changes of one hunk may be found, beyond their distance in the hunk. */
#define SLACK 5

/*
 * Lines are compared without their line ends here: a tree whose file has
 * CRLF ends, or no newline at its end, still shows the patch's lines.
 */
static void push_unended(struct lines *l, const char *p, size_t n)
{
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	lines_push(l, p, n);
}

static void split_unended(struct lines *l, const char *buf, size_t len)
{
	struct line_iter it;

	line_iter_init(&it, buf, len);
	while (line_iter_next(&it))
		push_unended(l, it.line, it.len);
}

static int blank(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->p[i] != ' ' && l->p[i] != '\t')
			return 0;
	return 1;
}

/* The place of `run` in file lines [lo, hi) nearest `near`, or -1. */
static long find_run(const struct lines *file, const struct line *run, size_t nr, size_t lo,
		     size_t hi, size_t near)
{
	size_t d;

	if (!nr)
		return -1;
	if (hi > file->nr)
		hi = file->nr;
	if (near < lo)
		near = lo;
	if (near > hi)
		near = hi;
	for (d = 0; near + d < hi || d <= near - lo; d++) {
		if (near + d < hi && lines_match_at(file, near + d, run, nr) && near + d + nr <= hi)
			return (long)(near + d);
		if (d && d <= near - lo && lines_match_at(file, near - d, run, nr) && near - d + nr <= hi)
			return (long)(near - d);
	}
	return -1;
}

/* One run of changed lines of a hunk: the lines it removes and the lines it adds. */
struct change {
	size_t del, nr_del;	/* into the hunk's removed lines */
	size_t add, nr_add;	/* into its added lines */
	size_t gap;		/* context lines between it and the change before */
};

struct hunk {
	struct lines pre, post, del, add;
	struct change *c;
	size_t nr, alloc;
	size_t new_start;
};

static void hunk_release(struct hunk *h)
{
	lines_release(&h->pre);
	lines_release(&h->post);
	lines_release(&h->del);
	lines_release(&h->add);
	free(h->c);
	memset(h, 0, sizeof(*h));
}

/* The non-blank lines of a run, in a new array (caller frees): blank lines prove nothing. */
static size_t solid(struct line **out, const struct line *run, size_t nr)
{
	size_t i, n = 0;

	*out = xcalloc(nr ? nr : 1, sizeof(**out));
	for (i = 0; i < nr; i++)
		if (!blank(&run[i]))
			(*out)[n++] = run[i];
	return n;
}

/*
 * A hunk whose context differs from the tree's: in when each change's
 * added lines are found, in order, each within its distance in the hunk
 * (plus SLACK) of the one before, and the lines the change removes are
 * not found beside it. A hunk that only removes lines is in when those
 * lines are nowhere in the file.
 */
static int changes_in(const struct lines *file, const struct hunk *h)
{
	size_t i, first = 0, last = 0, span;
	long prev_end = -1;
	int have = 0, ok = 1;

	for (i = 0; i < h->nr && ok; i++) {
		const struct change *c = &h->c[i];
		struct line *run;
		size_t n = solid(&run, h->add.v + c->add, c->nr_add);
		long at;

		if (!n) {
			free(run);
			continue;
		}
		if (prev_end < 0)
			at = find_run(file, run, n, 0, file->nr, h->new_start);
		else
			at = find_run(file, run, n, prev_end, prev_end + c->gap + c->nr_add + SLACK,
				      prev_end);
		free(run);
		if (at < 0) {
			ok = 0;
			break;
		}
		if (!have)
			first = at;
		have = 1;
		last = at + c->nr_add;
		prev_end = at + c->nr_add;
	}
	if (!ok)
		return 0;
	span = h->pre.nr + SLACK;
	for (i = 0; i < h->nr; i++) {
		const struct change *c = &h->c[i];
		struct line *run;
		size_t n = solid(&run, h->del.v + c->del, c->nr_del);
		long at = -1;

		if (n)
			at = have ? find_run(file, run, n, first > span ? first - span : 0,
					     last + span, first)
				  : find_run(file, run, n, 0, file->nr, 0);
		free(run);
		if (at >= 0)
			return 0;
	}
	return have || h->del.nr;
}

/* Read hunk `hi` of `patch` into h. */
static int read_hunk(struct hunk *h, git_patch *patch, size_t hi, const char *path)
{
	const git_diff_hunk *gh;
	size_t nl, i;
	int in_change = 0, err;
	size_t gap = 0;

	if ((err = git_patch_get_hunk(&gh, &nl, patch, hi)) < 0)
		return gitutil_error(err, "cannot read hunk %zu of '%s'", hi + 1, shown(path));
	h->new_start = gh->new_start ? (size_t)gh->new_start - 1 : 0;
	for (i = 0; i < nl; i++) {
		const git_diff_line *l;
		struct change *c;

		if ((err = git_patch_get_line_in_hunk(&l, patch, hi, i)) < 0)
			return gitutil_error(err, "cannot read hunk %zu of '%s'", hi + 1, shown(path));
		if (l->origin == GIT_DIFF_LINE_CONTEXT) {
			push_unended(&h->pre, l->content, l->content_len);
			push_unended(&h->post, l->content, l->content_len);
			in_change = 0;
			gap++;
			continue;
		}
		if (l->origin != GIT_DIFF_LINE_ADDITION && l->origin != GIT_DIFF_LINE_DELETION)
			continue;
		if (!in_change) {
			ALLOC_GROW(h->c, h->nr + 1, h->alloc);
			c = &h->c[h->nr++];
			memset(c, 0, sizeof(*c));
			c->del = h->del.nr;
			c->add = h->add.nr;
			c->gap = gap;
			gap = 0;
			in_change = 1;
		}
		c = &h->c[h->nr - 1];
		if (l->origin == GIT_DIFF_LINE_ADDITION) {
			push_unended(&h->post, l->content, l->content_len);
			push_unended(&h->add, l->content, l->content_len);
			c->nr_add++;
		} else {
			push_unended(&h->pre, l->content, l->content_len);
			push_unended(&h->del, l->content, l->content_len);
			c->nr_del++;
		}
	}
	return 0;
}

static void add_part(struct presence *p, const char *path, size_t hunk, size_t nr_hunks,
		     char *what, int in)
{
	struct presence_part *part;

	ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	part = &p->v[p->nr++];
	part->path = xstrdup(path);
	part->hunk = hunk;
	part->nr_hunks = nr_hunks;
	part->what = what;
	part->in = in;
	p->nr_in += !!in;
}

/* A hunk header as the patch writes it, without its trailing text. */
static char *hunk_header(git_patch *patch, size_t hi)
{
	const git_diff_hunk *gh;
	size_t nl, n;

	if (git_patch_get_hunk(&gh, &nl, patch, hi) < 0)
		return xstrdup("@@");
	n = gh->header_len;
	while (n && (gh->header[n - 1] == '\n' || gh->header[n - 1] == '\r'))
		n--;
	if (n > 4) {
		const char *end = memmem(gh->header + 2, n - 2, "@@", 2);

		if (end)
			n = end + 2 - gh->header;
	}
	return xstrndup(gh->header, n);
}

/* What `tree` has at `path`: 1 with *blob (caller frees) and *mode, 0 when nothing, -1. */
static int read_path(git_blob **blob, git_filemode_t *mode, git_repository *repo, git_tree *tree,
		     const char *path)
{
	git_tree_entry *e = NULL;
	int err;

	*blob = NULL;
	err = git_tree_entry_bypath(&e, tree, path);
	if (err == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (err < 0)
		return gitutil_error(err, "cannot read '%s'", shown(path));
	*mode = git_tree_entry_filemode(e);
	if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
	    (err = git_blob_lookup(blob, repo, git_tree_entry_id(e))) < 0) {
		git_tree_entry_free(e);
		return gitutil_error(err, "cannot read '%s'", shown(path));
	}
	git_tree_entry_free(e);
	return 1;
}

static int oid_prefix_eq(const git_oid *want, uint16_t abbrev, const git_oid *have)
{
	size_t n = abbrev ? abbrev : GIT_OID_HEXSZ;

	return !git_oid_ncmp(want, have, n);
}

/* The parts of delta `d` (patch `patch`) and whether each is in `tree`. */
static int check_delta(struct presence *p, git_repository *repo, git_tree *tree,
		       const git_diff_delta *d, git_patch *patch)
{
	const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;
	const char *oldpath = d->old_file.path ? d->old_file.path : path;
	size_t nh = git_patch_num_hunks(patch), i;
	struct lines file = LINES_INIT;
	git_blob *blob = NULL, *oldblob = NULL;
	git_filemode_t mode = 0, oldmode = 0;
	int have, had = 0, ret = 0;

	have = read_path(&blob, &mode, repo, tree, path);
	if (have < 0)
		return -1;
	if (strcmp(oldpath, path) && (had = read_path(&oldblob, &oldmode, repo, tree, oldpath)) < 0) {
		ret = -1;
		goto cleanup;
	}
	if (d->status == GIT_DELTA_DELETED) {
		add_part(p, oldpath, 0, 0, xstrdup("deleted file"), !have);
		goto cleanup;
	}
	if (had) {
		/* a rename or copy whose source is still there and target is not: not made */
		if (!have && d->status == GIT_DELTA_RENAMED) {
			add_part(p, path, 0, 0, xstrfmt("renamed from %s", oldpath), 0);
			goto cleanup;
		}
	}
	if (d->flags & GIT_DIFF_FLAG_BINARY) {
		add_part(p, path, 0, 0, xstrdup("binary"),
			 have && blob && oid_prefix_eq(&d->new_file.id, d->new_file.id_abbrev,
						       git_blob_id(blob)));
		goto cleanup;
	}
	if (d->status == GIT_DELTA_ADDED && !have) {
		add_part(p, path, 0, 0, xstrdup("new file"), 0);
		goto cleanup;
	}
	if (!nh) {
		add_part(p, path, 0, 0, xstrdup(d->status == GIT_DELTA_RENAMED ? "rename" : "mode"),
			 have && (!d->new_file.mode || mode == d->new_file.mode) &&
			 (d->status != GIT_DELTA_RENAMED || !had));
		goto cleanup;
	}
	if (!have || !blob) {
		for (i = 0; i < nh; i++)
			add_part(p, path, i + 1, nh, hunk_header(patch, i), 0);
		goto cleanup;
	}
	split_unended(&file, git_blob_rawcontent(blob), git_blob_rawsize(blob));
	for (i = 0; i < nh; i++) {
		struct hunk h;
		int in;

		memset(&h, 0, sizeof(h));
		if (read_hunk(&h, patch, i, path) < 0) {
			hunk_release(&h);
			ret = -1;
			goto cleanup;
		}
		/* what the hunk expects is there: it would apply, so it is not made */
		if (h.pre.nr && find_run(&file, h.pre.v, h.pre.nr, 0, file.nr, h.new_start) >= 0)
			in = 0;
		else if (find_run(&file, h.post.v, h.post.nr, 0, file.nr, h.new_start) >= 0)
			in = 1;
		else
			in = changes_in(&file, &h);
		add_part(p, path, i + 1, nh, hunk_header(patch, i), in);
		hunk_release(&h);
	}
cleanup:
	lines_release(&file);
	git_blob_free(blob);
	git_blob_free(oldblob);
	return ret;
}

void presence_release(struct presence *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++) {
		free(p->v[i].path);
		free(p->v[i].what);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int presence_check(struct presence *out, git_repository *repo, const git_oid *base,
		   const char *diff, size_t len, struct strbuf *why)
{
	struct strbuf report = STRBUF_INIT, rev = STRBUF_INIT;
	git_diff *gd = NULL;
	git_tree *tree = NULL;
	size_t i;
	int forward, reverse = 0, ret = 0, err;

	memset(out, 0, sizeof(*out));
	forward = apply_check(repo, base, diff, len, &report);
	if (forward == MKS_EUNSAFE) {
		if (why)
			strbuf_add(why, report.buf, report.len);
		ret = MKS_EUNSAFE;
		goto cleanup;
	}
	if (forward && forward != MKS_EAPPLYFAIL) {
		ret = -1;
		goto cleanup;
	}
	if (forward == MKS_EAPPLYFAIL && diff_reverse(diff, len, &rev) == 0) {
		strbuf_reset(&report);
		reverse = apply_check(repo, base, rev.buf, rev.len, &report) == 0;
	}
	if ((ret = apply_base_tree(&tree, repo, base)))
		goto cleanup;
	/* what apply refuses before libgit2 reads it, libgit2 must not read here either */
	strbuf_reset(&report);
	if (diff_check_paths(diff, len, &report) || diff_check_names(diff, len, &report) ||
	    diff_check_binary(diff, len, &report) ||
	    (err = git_diff_from_buffer(&gd, diff, len)) < 0) {
		/* apply said why it cannot read it; nothing of it is in */
		git_error_clear();
		out->state = forward ? PRESENCE_CONFLICT : PRESENCE_APPLIES;
		goto cleanup;
	}
	for (i = 0; i < git_diff_num_deltas(gd); i++) {
		git_patch *patch = NULL;

		if ((err = git_patch_from_diff(&patch, gd, i)) < 0) {
			ret = gitutil_error(err, "cannot read the patch");
			goto cleanup;
		}
		ret = check_delta(out, repo, tree, git_diff_get_delta(gd, i), patch);
		git_patch_free(patch);
		if (ret)
			goto cleanup;
	}
	if (reverse) {
		for (i = 0; i < out->nr; i++)
			out->v[i].in = 1;
		out->nr_in = out->nr;
	}
	if (out->nr && out->nr_in == out->nr)
		out->state = PRESENCE_IN;
	else if (!forward)
		out->state = PRESENCE_APPLIES;
	else
		out->state = out->nr_in ? PRESENCE_PARTIAL : PRESENCE_CONFLICT;
cleanup:
	if (ret)
		presence_release(out);
	git_diff_free(gd);
	git_tree_free(tree);
	strbuf_release(&report);
	strbuf_release(&rev);
	return ret;
}

void presence_describe(struct strbuf *sb, const struct presence *p, int in)
{
	size_t i;
	int first = 1;

	for (i = 0; i < p->nr; i++) {
		const struct presence_part *part = &p->v[i];

		if (!part->in != !in)
			continue;
		if (!first)
			strbuf_addstr(sb, ", ");
		first = 0;
		strbuf_addstr(sb, shown(part->path));
		if (part->hunk)
			strbuf_addf(sb, " hunk %zu of %zu (%s)", part->hunk, part->nr_hunks,
				    shown(part->what));
		else
			strbuf_addf(sb, " (%s)", shown(part->what));
	}
}

int apply_is_present(git_repository *repo, const git_oid *base, const char *diff, size_t len)
{
	struct strbuf why = STRBUF_INIT;
	struct presence p = PRESENCE_INIT;
	int ret = presence_check(&p, repo, base, diff, len, &why);

	if (ret == MKS_EUNSAFE)
		ret = error("%s", why.buf);
	else if (!ret)
		ret = p.state == PRESENCE_IN;
	presence_release(&p);
	strbuf_release(&why);
	return ret;
}
