/* apply/backportmarkers.c: the conflict markers the backport loop's --continue refuses, as git takes them. */
#include <string.h>

#include <git2/sys/repository.h>

#include "apply/backport.h"
#include "lib/gitutil.h"

/* The conflict-marker-size git uses when no attribute says otherwise. */
#define MARKER_SIZE 7

git_repository *backport_attr_repo(const char *wt_path)
{
	git_repository *wt = NULL;
	git_index *none = NULL;

	if (git_repository_open(&wt, wt_path) < 0 || git_index_new(&none) < 0) {
		git_error_clear();
		git_repository_free(wt);
		return NULL;
	}
	git_repository_set_index(wt, none);
	git_index_free(none);
	return wt;
}

unsigned backport_marker_size(git_repository *wt, const char *path)
{
	const char *v = NULL;
	unsigned long n;
	char *end;

	if (!wt || git_attr_get(&v, wt, GIT_ATTR_CHECK_FILE_THEN_INDEX, path,
				"conflict-marker-size") < 0) {
		git_error_clear();
		return MARKER_SIZE;
	}
	if (git_attr_value(v) != GIT_ATTR_VALUE_STRING)
		return MARKER_SIZE;
	n = strtoul(v, &end, 10);
	/* git takes a size that is no number, or not above 0, as the default */
	return *end || !n || n > 1024 ? MARKER_SIZE : (unsigned)n;
}

/*
 * Which conflict-marker line `p` (`n` bytes, newline excluded) is at
 * marker size `size`: '<', '|', '=' or '>', or 0. As git's
 * is_conflict_marker(): `size` times the character, then a blank or
 * the end of the line; `*label` is what follows the blank.
 */
static int marker_kind(const char *p, size_t n, unsigned size, const char **label)
{
	size_t i;

	if (n < size || !size || !p[0] || !strchr("<|=>", p[0]))
		return 0;
	for (i = 1; i < size; i++)
		if (p[i] != p[0])
			return 0;
	if (n > size && p[size] != ' ' && p[size] != '\t' && p[size] != '\r')
		return 0;
	*label = n > size && p[size] == ' ' ? p + size + 1 : p + n;
	return p[0];
}

/* Whether line `p` is one of the markers the loop writes (merge_three_way()'s labels). */
static int loop_marker(const char *p, size_t n, unsigned size)
{
	const char *label = NULL;
	size_t rest;
	int k = marker_kind(p, n, size, &label);

	if (!k || k == '=')
		return 0;
	rest = (size_t)(p + n - label);
	if (rest && label[rest - 1] == '\r')
		rest--;
	return (k == '<' && rest == 4 && !memcmp(label, "tree", 4)) ||
	       (k == '|' && rest == 13 && !memcmp(label, "upstream base", 13)) ||
	       (k == '>' && rest == 14 && !memcmp(label, "upstream patch", 14));
}

size_t backport_marker_at(const char *buf, size_t len, unsigned size, const unsigned char *added,
			  size_t nr_lines, unsigned loop_size)
{
	size_t i = 0, line = 0, open = 0;
	int seen_sep = 0, any_added = 0;

	while (i < len) {
		const char *p = buf + i, *nl = memchr(p, '\n', len - i), *label;
		size_t n = nl ? (size_t)(nl - p) : len - i;
		int is_added, k;

		line++;
		i += n + 1;
		is_added = !added || (line <= nr_lines && added[line]);
		if (loop_size && is_added && loop_marker(p, n, loop_size))
			return line;
		k = marker_kind(p, n, size, &label);
		if (k == '<') {
			open = line;
			seen_sep = 0;
			any_added = is_added;
		} else if (k == '|' && open && !seen_sep) {
			any_added |= is_added;
		} else if (k == '=' && open) {
			seen_sep = 1;
			any_added |= is_added;
		} else if (k == '>' && open && seen_sep) {
			if (any_added || is_added)
				return open;
			open = 0;
		}
	}
	return 0;
}

/*
 * added[i] for each line i (1-based) of blob `nb`: whether it is not in
 * `ob` (NULL: a new file, every line is new). Caller frees; NULL when
 * every line is new. *nr_lines is the number of lines of nb.
 */
static unsigned char *added_lines(size_t *nr_lines, git_blob *ob, git_blob *nb)
{
	const char *b = git_blob_rawcontent(nb);
	size_t len = (size_t)git_blob_rawsize(nb), i, h, nh, nl;
	unsigned char *added;
	git_patch *patch = NULL;
	git_diff_options opts;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	*nr_lines = 0;
	for (i = 0; i < len; i++)
		if (b[i] == '\n' || i == len - 1)
			(*nr_lines)++;
	if (!ob)
		return NULL;
	added = xcalloc(*nr_lines + 1, 1);
	opts.context_lines = 0;
	if (git_patch_from_blobs(&patch, ob, NULL, nb, NULL, &opts) < 0) {
		/* cannot tell: every line is taken as new */
		git_error_clear();
		free(added);
		return NULL;
	}
	nh = git_patch_num_hunks(patch);
	for (h = 0; h < nh; h++) {
		const git_diff_hunk *hunk;

		if (git_patch_get_hunk(&hunk, &nl, patch, h) < 0)
			continue;
		for (i = 0; i < nl; i++) {
			const git_diff_line *l;

			if (git_patch_get_line_in_hunk(&l, patch, h, i) == 0 &&
			    l->origin == GIT_DIFF_LINE_ADDITION && l->new_lineno > 0 &&
			    (size_t)l->new_lineno <= *nr_lines)
				added[l->new_lineno] = 1;
		}
	}
	git_patch_free(patch);
	return added;
}

/* The marker size the loop wrote its own markers into `path` with, 0 when it wrote none. */
static unsigned loop_markers_in(const struct backport_result *r, const char *path)
{
	size_t i;

	for (i = 0; r && i < r->nr; i++)
		if (r->files[i].how == BACKPORT_CONFLICT && !strcmp(r->files[i].path, path))
			return r->files[i].markers ? r->files[i].markers : MARKER_SIZE;
	return 0;
}

static int is_accepted(const struct strvec *accepted, const char *path)
{
	size_t i;

	for (i = 0; accepted && i < accepted->nr; i++)
		if (!strcmp(accepted->v[i], path))
			return 1;
	return 0;
}

/* The line of the first marker file `d` of the work tree has that backport_new_markers() refuses. */
static int file_markers(size_t *at, git_repository *repo, git_repository *wt,
			const git_diff_delta *d, const struct backport_result *r)
{
	git_blob *nb = NULL, *ob = NULL;
	unsigned char *added = NULL;
	size_t nr_lines = 0;

	*at = 0;
	if (git_blob_lookup(&nb, repo, &d->new_file.id) < 0)
		return gitutil_error(-1, "cannot read '%s' of the work tree", shown(d->new_file.path));
	if (!git_blob_is_binary(nb)) {
		if (!git_oid_is_zero(&d->old_file.id) &&
		    git_blob_lookup(&ob, repo, &d->old_file.id) < 0)
			git_error_clear();
		added = added_lines(&nr_lines, ob, nb);
		*at = backport_marker_at(git_blob_rawcontent(nb), (size_t)git_blob_rawsize(nb),
					 backport_marker_size(wt, d->new_file.path), added,
					 nr_lines, loop_markers_in(r, d->new_file.path));
	}
	free(added);
	git_blob_free(ob);
	git_blob_free(nb);
	return 0;
}

int backport_diff_open(struct backport_diff *d, git_repository *repo, const git_oid *onto,
		       const git_oid *tree, const char *what)
{
	int err;

	memset(d, 0, sizeof(*d));
	if ((err = git_commit_lookup(&d->onto, repo, onto)) < 0 ||
	    (err = git_commit_tree(&d->old, d->onto)) < 0 ||
	    (err = git_tree_lookup(&d->new, repo, tree)) < 0 ||
	    (err = tree_delta_diff(&d->diff, repo, d->old, d->new)) < 0)
		return gitutil_error(err, "cannot compare %s with %s", what, oid_short(onto));
	return 0;
}

void backport_diff_free(struct backport_diff *d)
{
	tree_delta_release(&d->diff);
	git_tree_free(d->new);
	git_tree_free(d->old);
	git_commit_free(d->onto);
	memset(d, 0, sizeof(*d));
}

int backport_new_markers(struct strbuf *left, struct strvec *paths, git_repository *repo,
			 const git_oid *onto, const git_oid *wt_tree, const char *wt_path,
			 const struct backport_result *r, const struct strvec *accepted)
{
	git_repository *wt = NULL;
	struct backport_diff bd;
	size_t i;
	int ret = 0;

	if (backport_diff_open(&bd, repo, onto, wt_tree, "the work tree")) {
		ret = -1;
		goto cleanup;
	}
	/* for the attributes only: without it, every file has the default marker size */
	wt = backport_attr_repo(wt_path);
	for (i = 0; i < bd.diff.nr; i++) {
		const git_diff_delta *d = &bd.diff.v[i];
		size_t at;

		if (d->status == GIT_DELTA_DELETED || (d->new_file.mode != GIT_FILEMODE_BLOB &&
		    d->new_file.mode != GIT_FILEMODE_BLOB_EXECUTABLE) ||
		    ends_with(d->new_file.path, ".rej") || ends_with(d->new_file.path, ".rej.why") ||
		    is_accepted(accepted, d->new_file.path))
			continue;
		if (file_markers(&at, repo, wt, d, r)) {
			ret = -1;
			goto cleanup;
		}
		if (at) {
			strbuf_addf(left, "%s:%zu: conflict marker left\n", shown(d->new_file.path), at);
			if (paths)
				strvec_push(paths, d->new_file.path);
			ret++;
		}
	}
cleanup:
	git_repository_free(wt);
	backport_diff_free(&bd);
	return ret;
}
