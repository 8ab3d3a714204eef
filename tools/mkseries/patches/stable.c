/* patches/stable.c: find the stable backports a branch's history carries since its release tag. */
#include <stdlib.h>
#include <string.h>

#include "patches/fixref.h"
#include "lib/gitutil.h"
#include "patches/stable.h"
#include "lib/util.h"

void stable_log_release(struct stable_log *log)
{
	size_t i;

	for (i = 0; i < log->nr; i++) {
		free(log->v[i].subject);
		free(log->v[i].tag);
	}
	free(log->v);
	free(log->since);
	free(log->ref);
	memset(log, 0, sizeof(*log));
}

/* `name` of repo as a commit; MKS_ECONFIG (printed, at the kernel file's `line`) when none. */
static int resolve(git_oid *out, git_repository *repo, const struct kernel_branch *b,
		   const char *key, const char *name, int line)
{
	git_object *obj = NULL, *peeled = NULL;
	int err;

	err = git_revparse_single(&obj, repo, name);
	if (!err)
		err = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	if (!err)
		git_oid_cpy(out, git_object_id(peeled));
	git_object_free(peeled);
	git_object_free(obj);
	if (err < 0)
		return error_code(MKS_ECONFIG, "%s:%d: %s '%s' of branch '%s' names no commit in '%s'",
				  b->path, line, key, name, b->name, b->source.repo);
	return 0;
}

static char *subject_of(const char *msg)
{
	size_t n = strcspn(msg, "\n");

	while (n && (msg[n - 1] == ' ' || msg[n - 1] == '\r'))
		n--;
	return xstrndup(msg, n);
}

/* The oldest tag <release>.N (by version) that holds commit `oid`, or NULL; caller frees. */
static char *first_tag(git_repository *repo, const char *release, const git_oid *oid)
{
	git_strarray names = { NULL, 0 };
	char *pattern = xstrfmt("%s.*", release), *best = NULL;
	size_t i;

	if (git_tag_list_match(&names, pattern, repo) < 0)
		goto cleanup;
	for (i = 0; i < names.count; i++) {
		git_object *obj = NULL, *peeled = NULL;
		char *spec = xstrfmt("refs/tags/%s", names.strings[i]);
		const char *rest = names.strings[i] + strlen(release) + 1;

		/* v6.17.9, not v6.17.9-rc1 or v6.17.y-something */
		if (!*rest || rest[strspn(rest, "0123456789")] ||
		    (best && tag_version_cmp(names.strings[i], best) >= 0))
			goto next;
		if (git_revparse_single(&obj, repo, spec) ||
		    git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT))
			goto next;
		if (git_oid_equal(git_object_id(peeled), oid) ||
		    git_graph_descendant_of(repo, git_object_id(peeled), oid) == 1) {
			free(best);
			best = xstrdup(names.strings[i]);
		}
next:
		git_object_free(peeled);
		git_object_free(obj);
		free(spec);
	}
cleanup:
	git_strarray_dispose(&names);
	free(pattern);
	return best;
}

/* The reverts seen in the walk, each with the commit that made it. */
struct reverts {
	struct fixref *refs;
	size_t nr, alloc, alloc_by;
	git_oid *by;		/* by[k] made the revert refs[k] */
};

/* Record commit c (oid) of the walk: a backport it is, and the reverts it makes. */
static void scan_commit(struct stable_log *log, struct fixref_scanner *sc, struct reverts *rv,
			git_commit *c, const git_oid *oid)
{
	const char *msg = git_commit_message(c);
	char hex[GIT_OID_HEXSZ + 1];
	size_t before = rv->nr, i, j;

	log->walked++;
	if (!msg)
		return;
	if (fixref_upstream(sc, msg, strlen(msg), hex)) {
		struct stable_backport *bp;

		ALLOC_GROW(log->v, log->nr + 1, log->alloc);
		bp = &log->v[log->nr++];
		memset(bp, 0, sizeof(*bp));
		memcpy(bp->upstream, hex, sizeof(hex));
		git_oid_cpy(&bp->oid, oid);
		bp->subject = subject_of(git_commit_summary(c) ? git_commit_summary(c) : "");
	}
	fixref_scan(sc, msg, strlen(msg), &rv->refs, &rv->nr, &rv->alloc);
	/* Keep the reverts only, each with the commit that made it. */
	for (i = j = before; i < rv->nr; i++) {
		if (rv->refs[i].kind != FIXREF_REVERTS)
			continue;
		rv->refs[j] = rv->refs[i];
		ALLOC_GROW(rv->by, j + 1, rv->alloc_by);
		git_oid_cpy(&rv->by[j++], oid);
	}
	rv->nr = j;
}

/* Mark each backport reverted later in the walk, and find the tag that first holds it. */
static void mark_backports(struct stable_log *log, git_repository *repo,
			   const struct reverts *rv)
{
	size_t i, j;

	for (i = 0; i < log->nr; i++) {
		struct stable_backport *bp = &log->v[i];
		char hex[GIT_OID_HEXSZ + 1];

		git_oid_tostr(hex, sizeof(hex), &bp->oid);
		for (j = 0; j < rv->nr; j++)
			if (rv->refs[j].kind == FIXREF_REVERTS && !strcmp(rv->refs[j].hex, hex))
				break;
		if (j < rv->nr) {
			bp->reverted = 1;
			git_oid_cpy(&bp->reverted_by, &rv->by[j]);
		}
		bp->tag = first_tag(repo, log->since, &bp->oid);
	}
}

int stable_log_read(struct stable_log *log, const struct kernel_branch *b)
{
	const struct kernel_source *src = &b->source;
	struct fixref_scanner *sc = NULL;
	struct reverts rv = { 0 };
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid since, oid;
	int err, ret = 0;

	memset(log, 0, sizeof(*log));
	if (src->kind != SOURCE_GIT || !src->release)
		BUG("stable_log_read() on a branch without a release");
	if ((ret = kernel_source_check(b)))
		return ret;
	log->since = xstrdup(src->release);
	log->ref = xstrdup(src->ref ? src->ref : "HEAD");
	if ((ret = repo_open(&repo, src->repo, 0)))
		goto cleanup;
	if ((ret = resolve(&since, repo, b, "release", log->since, src->release_line)) ||
	    (ret = resolve(&log->ref_oid, repo, b, "ref", log->ref, src->ref_line)))
		goto cleanup;
	if (!git_oid_equal(&since, &log->ref_oid) &&
	    git_graph_descendant_of(repo, &log->ref_oid, &since) != 1) {
		ret = error_code(MKS_ECONFIG,
				 "%s:%d: release '%s' of branch '%s' is not in the history of '%s' in '%s'",
				 b->path, src->release_line, log->since, b->name, log->ref, src->repo);
		goto cleanup;
	}
	fixref_scanner_new(&sc);
	err = git_revwalk_new(&walk, repo);
	if (!err)
		err = git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL);
	if (!err)
		err = git_revwalk_push(walk, &log->ref_oid);
	if (!err)
		err = git_revwalk_hide(walk, &since);
	if (err < 0) {
		ret = gitutil_error(err, "cannot walk %s..%s in '%s'", log->since, log->ref,
				       src->repo);
		goto cleanup;
	}
	while (!(err = git_revwalk_next(&oid, walk))) {
		git_commit *c = NULL;

		err = git_commit_lookup(&c, repo, &oid);
		if (err < 0)
			break;
		scan_commit(log, sc, &rv, c, &oid);
		git_commit_free(c);
	}
	if (err != GIT_ITEROVER) {
		ret = gitutil_error(err, "cannot walk %s..%s in '%s'", log->since, log->ref,
				       src->repo);
		goto cleanup;
	}
	mark_backports(log, repo, &rv);
cleanup:
	free(rv.refs);
	free(rv.by);
	fixref_scanner_free(sc);
	git_revwalk_free(walk);
	git_repository_free(repo);
	if (ret)
		stable_log_release(log);
	return ret;
}

const struct stable_backport *stable_log_find(const struct stable_log *log, const char *upstream)
{
	const struct stable_backport *reverted = NULL;
	size_t i;

	for (i = 0; log && i < log->nr; i++) {
		if (!hexid_match(log->v[i].upstream, upstream))
			continue;
		if (!log->v[i].reverted)
			return &log->v[i];
		if (!reverted)
			reverted = &log->v[i];
	}
	return reverted;
}
