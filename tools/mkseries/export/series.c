/* export/series.c: read an applied branch's commits as the patches to ship, and decide whether its last run verified it. */
#include <ctype.h>
#include <string.h>

#include "apply/applyplan.h"
#include "export/export.h"
#include "lib/gitutil.h"
#include "patches/fixref.h"
#include "report/report.h"
#include "run/stale.h"
#include "results/verdict.h"

/* The end of the line at s: its newline, or the end of the string. */
static const char *line_end(const char *s)
{
	const char *e = strchr(s, '\n');

	return e ? e : s + strlen(s);
}

int export_format_parse(enum export_format *out, const char *name)
{
	static const char *const names[] = { "mbox", "quilt", "rpm" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i])) {
			*out = (enum export_format)i;
			return 0;
		}
	return error_code(MKS_ECONFIG, "unknown export format '%s' (mbox, quilt or rpm)",
			  shown(name));
}

const char *export_format_name(enum export_format f)
{
	return f == EXPORT_MBOX ? "mbox" : f == EXPORT_QUILT ? "quilt" : "rpm";
}

char *export_default_prefix(const char *branch)
{
	size_t n = strspn(branch, "0123456789");

	/* "6.12", "6.12-arm64": a version; its stable series is 6.12.y */
	if (n && branch[n] == '.' && isdigit((unsigned char)branch[n + 1])) {
		n++;
		n += strspn(branch + n, "0123456789");
		return xstrfmt("PATCH %.*s.y", (int)n, branch);
	}
	return xstrfmt("PATCH %s", branch);
}

void export_subject_slug(struct strbuf *out, const char *subject, size_t max)
{
	size_t start = out->len;
	int dash = 0;
	const char *p;

	/* git's format_sanitized_subject(), then fmt_output_subject()'s cut */
	for (p = subject; *p; p++) {
		int c = (unsigned char)*p;

		if (isalnum(c) || c == '.' || c == '_') {
			if (dash && out->len > start)
				strbuf_addch(out, '-');
			dash = 0;
			strbuf_addch(out, c);
			if (c == '.')
				while (p[1] == '.')
					p++;
		} else {
			dash = 1;
		}
	}
	while (out->len > start && (out->buf[out->len - 1] == '-' || out->buf[out->len - 1] == '.'))
		strbuf_setlen(out, out->len - 1);
	if (out->len - start > max)
		strbuf_setlen(out, start + max);
}

static void patch_release(struct export_patch *p)
{
	free(p->subject);
	free(p->body);
	free(p->upstream);
	free(p->author_name);
	free(p->author_email);
	free(p->applied_upstream);
	free(p->stat);
	free(p->diff);
}

void export_series_release(struct export_series *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++)
		patch_release(&s->v[i]);
	free(s->v);
	for (i = 0; i < s->nr_left; i++) {
		free(s->left[i].subject);
		free(s->left[i].upstream);
		free(s->left[i].why);
	}
	free(s->left);
	free(s->branch);
	free(s->variant);
	free(s->refname);
	free(s->prefix);
	free(s->exporter);
	free(s->stat);
	memset(s, 0, sizeof(*s));
}

/* Subject (first paragraph, joined) and the rest, as git format-patch splits a message. */
static void split_message(struct export_patch *p, const char *msg)
{
	struct strbuf subj = STRBUF_INIT;
	const char *end = msg, *eol;

	while (*end == '\n')
		end++;
	msg = end;
	while (*end && *end != '\n') {
		eol = line_end(end);
		if (subj.len)
			strbuf_addch(&subj, ' ');
		strbuf_add(&subj, end, eol - end);
		end = *eol ? eol + 1 : eol;
	}
	strbuf_rtrim(&subj);
	while (*end == '\n')
		end++;
	p->subject = strbuf_detach(&subj, NULL);
	p->body = xstrdup(end);
}

int export_tree_diff(char **patch, char **stat, git_repository *repo, git_tree *a, git_tree *b)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	git_diff_stats *stats = NULL;
	git_buf buf = { 0 };
	char *text = NULL;
	int err;

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (patch)
		opts.flags |= GIT_DIFF_SHOW_BINARY;
	if ((err = git_diff_tree_to_tree(&diff, repo, a, b, &opts)) < 0)
		goto cleanup;
	if (patch) {
		if ((err = git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH)) < 0)
			goto cleanup;
		text = xstrndup(buf.ptr ? buf.ptr : "", buf.size);
		git_buf_dispose(&buf);
	}
	if ((err = git_diff_get_stats(&stats, diff)) < 0 ||
	    (err = git_diff_stats_to_buf(&buf, stats,
					 GIT_DIFF_STATS_FULL | GIT_DIFF_STATS_INCLUDE_SUMMARY,
					 72)) < 0)
		goto cleanup;
	*stat = xstrndup(buf.ptr ? buf.ptr : "", buf.size);
	if (patch) {
		*patch = text;
		text = NULL;
	}
cleanup:
	free(text);
	git_buf_dispose(&buf);
	git_diff_stats_free(stats);
	git_diff_free(diff);
	return err < 0 ? err : 0;
}

/* The diff and diffstat of commit c against its parent. */
static int commit_diff(struct export_patch *p, git_repository *repo, git_commit *c,
		       git_commit *parent)
{
	git_tree *old = NULL, *new = NULL;
	int err;

	if ((err = git_commit_tree(&old, parent)) >= 0 && (err = git_commit_tree(&new, c)) >= 0)
		err = export_tree_diff(&p->diff, &p->stat, repo, old, new);
	git_tree_free(old);
	git_tree_free(new);
	if (err < 0)
		return gitutil_error(err, "cannot diff commit %s", oid_short(git_commit_id(c)));
	return 0;
}

/*
 * The oldest mainline release tag (vX.Y) of repo that holds `upstream`,
 * when repo has the commit at all; NULL otherwise. Caller frees.
 */
static char *first_release(git_repository *repo, const char *upstream)
{
	git_strarray names = { NULL, 0 };
	git_object *obj = NULL;
	git_oid id;
	char *best = NULL;
	size_t i;

	if (strlen(upstream) != GIT_OID_HEXSZ || git_oid_fromstr(&id, upstream) ||
	    git_object_lookup(&obj, repo, &id, GIT_OBJECT_COMMIT) < 0) {
		git_error_clear();
		return NULL;
	}
	git_object_free(obj);
	if (git_tag_list_match(&names, "v*", repo) < 0) {
		git_error_clear();
		return NULL;
	}
	for (i = 0; i < names.count; i++) {
		const char *n = names.strings[i] + 1;
		size_t major = strspn(n, "0123456789"), minor;
		git_object *t = NULL, *peeled = NULL;
		char *ref;

		/* v6.17, not v6.17-rc1 or v6.17.3 */
		minor = major && n[major] == '.' ? strspn(n + major + 1, "0123456789") : 0;
		if (!minor || n[major + 1 + minor] ||
		    (best && tag_version_cmp(names.strings[i], best) >= 0))
			continue;
		ref = xstrfmt("refs/tags/%s", names.strings[i]);
		if (!git_revparse_single(&t, repo, ref) &&
		    !git_object_peel(&peeled, t, GIT_OBJECT_COMMIT) &&
		    (git_oid_equal(git_object_id(peeled), &id) ||
		     git_graph_descendant_of(repo, git_object_id(peeled), &id) == 1)) {
			free(best);
			best = xstrdup(names.strings[i]);
		}
		git_error_clear();
		git_object_free(peeled);
		git_object_free(t);
		free(ref);
	}
	git_strarray_dispose(&names);
	return best;
}

/* Whether `text` has the line line[0..n) (without its newline). */
static int has_line(const char *text, const char *line, size_t n)
{
	char *want = xstrndup(line, n);
	const char *p;
	int found = 0;

	for (p = text; !found && (p = strstr(p, want)); p++)
		found = (p == text || p[-1] == '\n') && (p[n] == '\n' || !p[n]);
	free(want);
	return found;
}

/*
 * The kit's own lines at the end of a backport's message `body`: from
 * its first bracketed note ("[ Back Porter: backported to 6.12; ... ]")
 * in the last paragraph to the end; without a note, the Signed-off-by
 * lines that end it and that upstream's message `up` has not. "" when
 * there are none.
 */
static const char *kit_note(const char *body, const char *up)
{
	const char *para = body, *p, *tail, *start;

	for (p = body; *p; p++)
		if (p[0] == '\n' && p[1] == '\n' && p[2] && p[2] != '\n')
			para = p + 2;
	for (p = para; *p; p = *p ? p + 1 : p) {
		if (*p == '[')
			return p;
		p = line_end(p);
	}
	/* walk back over the sign-offs upstream has not */
	tail = body + strlen(body);
	while (tail > para && tail[-1] == '\n')
		tail--;
	for (;;) {
		for (start = tail; start > para && start[-1] != '\n'; start--)
			;
		if (start == tail || strncmp(start, "Signed-off-by:", 14) ||
		    has_line(up, start, tail - start))
			break;
		tail = start > para ? start - 1 : start;
		if (start == para) {
			tail = start;
			break;
		}
	}
	return *tail == '\n' ? tail + 1 : tail;
}

/*
 * Upstream's message for p, from s->messages: "commit X upstream.",
 * upstream's body and trailers as merged, then the kit's note and
 * sign-offs; its author and author date. p keeps the kit's message
 * when the clone does not have the commit.
 */
static void take_upstream_message(struct export_patch *p, const struct export_series *s)
{
	git_commit *up = NULL;
	struct export_patch tmp = { 0 };
	struct strbuf sb = STRBUF_INIT;
	const git_signature *a;
	git_oid id;

	if (!s->messages || git_oid_fromstrn(&id, p->upstream, strlen(p->upstream)) ||
	    git_commit_lookup_prefix(&up, s->messages, &id, strlen(p->upstream))) {
		git_error_clear();
		return;
	}
	split_message(&tmp, git_commit_message(up));
	strbuf_addf(&sb, "commit %s upstream.\n\n%s", git_oid_tostr_s(git_commit_id(up)), tmp.body);
	strbuf_rtrim(&sb);
	strbuf_addch(&sb, '\n');
	strbuf_addstr(&sb, kit_note(p->body, tmp.body));
	free(p->body);
	p->body = strbuf_detach(&sb, NULL);
	a = git_commit_author(up);
	free(p->author_name);
	free(p->author_email);
	p->author_name = xstrdup(a->name);
	p->author_email = xstrdup(a->email);
	p->author_when = a->when;
	p->message = MESSAGE_UPSTREAM;
	free(tmp.subject);
	free(tmp.body);
	git_commit_free(up);
}

static int read_patch(struct export_patch *p, const struct export_series *s, git_repository *repo,
		      git_repository *releases, struct fixref_scanner *sc, git_commit *c,
		      git_commit *parent, const git_signature *exporter)
{
	const char *msg = git_commit_message(c);
	const git_signature *a = git_commit_author(c);
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_cpy(&p->commit, git_commit_id(c));
	split_message(p, msg ? msg : "");
	p->author_name = xstrdup(a->name);
	p->author_email = xstrdup(a->email);
	p->author_when = a->when;
	p->commit_when = git_commit_committer(c)->when;
	if (fixref_upstream(sc, p->body, strlen(p->body), hex)) {
		struct strbuf sb = STRBUF_INIT;

		p->upstream = xstrdup(hex);
		p->applied_upstream = first_release(releases ? releases : repo, hex);
		take_upstream_message(p, s);
		/* Whoever passes a backport on signs it off, as apply did. */
		strbuf_addstr(&sb, p->body);
		stable_add_signoff(&sb, exporter);
		free(p->body);
		p->body = strbuf_detach(&sb, NULL);
	}
	return commit_diff(p, repo, c, parent);
}

int export_series_read(struct export_series *s, git_repository *repo, git_repository *releases,
		       const git_oid *base, const git_oid *tip, const git_signature *exporter)
{
	struct fixref_scanner *sc = NULL;
	git_commit **chain = NULL;
	size_t n = 0, alloc = 0, i;
	git_oid cur = *tip;
	int err, ret = -1;

	s->base = *base;
	s->tip = *tip;
	s->exporter = xstrfmt("%s <%s>", exporter->name, exporter->email);
	while (!git_oid_equal(&cur, base)) {
		git_commit *c = NULL;

		if ((err = git_commit_lookup(&c, repo, &cur)) < 0) {
			gitutil_error(err, "cannot read commit %s of '%s'", oid_short(&cur),
				      s->refname);
			goto cleanup;
		}
		ALLOC_GROW(chain, n + 1, alloc);
		chain[n++] = c;
		if (git_commit_parentcount(c) != 1) {
			error("'%s' does not grow from its base %s one commit at a time: "
			      "commit %s has %u parents", s->refname, oid_short(base),
			      oid_short(&cur), git_commit_parentcount(c));
			goto cleanup;
		}
		cur = *git_commit_parent_id(c, 0);
	}
	fixref_scanner_new(&sc);
	s->v = xcalloc(n ? n : 1, sizeof(*s->v));
	s->alloc = n;
	for (i = 0; i < n; i++) {
		git_commit *c = chain[n - 1 - i], *parent = NULL;

		if ((err = git_commit_parent(&parent, c, 0)) < 0) {
			gitutil_error(err, "cannot read the parent of %s", oid_short(git_commit_id(c)));
			goto cleanup;
		}
		s->nr++;
		err = read_patch(&s->v[i], s, repo, releases, sc, c, parent, exporter);
		git_commit_free(parent);
		if (err)
			goto cleanup;
	}
	if (n) {
		struct export_patch whole = { 0 };
		git_commit *base_c = NULL;

		if ((err = git_commit_lookup(&base_c, repo, base)) < 0) {
			gitutil_error(err, "cannot read base %s", oid_short(base));
			goto cleanup;
		}
		err = commit_diff(&whole, repo, chain[0], base_c);
		git_commit_free(base_c);
		s->stat = whole.stat;
		whole.stat = NULL;
		patch_release(&whole);
		if (err)
			goto cleanup;
	}
	ret = 0;
cleanup:
	fixref_scanner_free(sc);
	for (i = 0; i < n; i++)
		git_commit_free(chain[i]);
	free(chain);
	return ret;
}

/*
 * Whether the commit `hex` (what a run recorded) has the same tree as
 * `tip`: a branch applied again with nothing changed in its files (a
 * new backporter's Signed-off-by, say) is what the run built and
 * booted, and the run took its builds and boots as up to date.
 */
static int same_tree(git_repository *repo, const char *hex, const git_oid *tip)
{
	git_commit *a = NULL, *b = NULL;
	git_oid oid;
	int same = 0;

	if (!repo || git_oid_fromstr(&oid, hex))
		return 0;
	if (!git_commit_lookup(&a, repo, &oid) && !git_commit_lookup(&b, repo, tip))
		same = git_oid_equal(git_commit_tree_id(a), git_commit_tree_id(b));
	git_commit_free(a);
	git_commit_free(b);
	return same;
}

int export_verified(struct strbuf *why, git_repository *repo, const struct branch_result *b,
		    const char *variant, const git_oid *tip)
{
	const char *v = variant ? variant : "kit";
	const struct cell_result *c = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	const char *tested = NULL;
	size_t i;

	git_oid_tostr(hex, sizeof(hex), tip);
	for (i = 0; i < b->nr_cells; i++)
		if (!strcmp(b->cells[i].variant, v))
			c = &b->cells[i];
	if (!b->nr_cells || !c) {
		strbuf_addf(why, "'%s'%s%s was never run: nothing verifies it", b->name,
			    variant ? " variant " : "", variant ? variant : "");
		return 0;
	}
	if (!variant && b->tip && strcmp(b->tip, hex))
		tested = b->tip;
	else if (c->commit && strcmp(c->commit, hex) && !same_tree(repo, c->commit, tip))
		tested = c->commit;
	if (tested) {
		strbuf_addf(why, "'%s'%s%s moved since its last run: the run tested %.12s, "
			    "the branch is at %.12s", b->name, variant ? " variant " : "",
			    variant ? variant : "", tested, hex);
		return 0;
	}
	if ((c = branch_first_stale(b, variant))) {
		strbuf_addf(why, "'%s'%s%s is not what its last run verified: %s %s: %s", b->name,
			    variant ? " variant " : "", variant ? variant : "", b->name,
			    c->variant, c->stale);
		return 0;
	}
	if (!branch_passed(b)) {
		const char *what = NULL;
		const struct check *p = NULL;

		for (i = 0; i < b->nr_cells && !p; i++)
			if (cell_status(b, &b->cells[i]) != CELL_OK) {
				p = cell_first_problem(&b->cells[i], &what);
				c = &b->cells[i];
			}
		strbuf_addf(why, "'%s' did not pass its last run", b->name);
		if (p)
			strbuf_addf(why, ": %s %s: %s: %s", b->name, c->variant, what,
				    p->evidence ? p->evidence :
				    p->status == CHECK_NOT_RUN ? "not run" :
				    check_status_name(p->status));
		else
			strbuf_addstr(why, ": a claim did not hold or the kit regressed");
		return 0;
	}
	return 1;
}

size_t export_say_messages(struct strbuf *sb, const struct export_series *s)
{
	size_t i, kit = 0, backports = 0;

	for (i = 0; i < s->nr; i++)
		if (s->v[i].upstream) {
			backports++;
			kit += s->v[i].message == MESSAGE_KIT;
		}
	if (!backports)
		return 0;
	if (s->messages && !kit) {
		strbuf_addf(sb, "Messages: upstream's, with their author dates and merge-time "
			    "trailers, from %s; the kit's note and sign-offs after each.\n\n",
			    s->messages_from);
		return 0;
	}
	if (s->messages)
		strbuf_addf(sb, "Messages: upstream's, from %s, but for %zu not found there, whose "
			    "messages are the kit's own words:\n", s->messages_from, kit);
	else
		strbuf_addstr(sb, "Messages: the kit's own words, not upstream's (upstream's text, "
			      "author date and merge-time trailers come with --mainline DIR, a "
			      "mainline or stable clone):\n");
	for (i = 0; i < s->nr; i++)
		if (s->v[i].upstream && s->v[i].message == MESSAGE_KIT)
			strbuf_addf(sb, "  - %s (commit %.12s)\n", s->v[i].subject, s->v[i].upstream);
	strbuf_addch(sb, '\n');
	return kit;
}
