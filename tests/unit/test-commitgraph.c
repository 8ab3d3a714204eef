/* test-commitgraph.c: unit tests for the commit-graph reader, on graphs git writes and on damaged copies. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "patches/commitgraph.h"
#include "lib/gitutil.h"
#include "tap.h"
#include "lib/util.h"

static char *tmp;

/*
 * Run git in dir with the committer and author date `date` (NULL: git's
 * default), stdout into out (trimmed) when out is not NULL.
 */
static int git(const char *dir, struct strbuf *out, const char *date, ...)
{
	struct child cmd = CHILD_INIT;
	struct strbuf buf = STRBUF_INIT;
	const char *arg;
	va_list ap;
	int ret;

	strvec_pushl(&cmd.argv, "git", "-c", "user.name=T", "-c", "user.email=t@example.org",
		     "-c", "init.defaultBranch=master", NULL);
	va_start(ap, date);
	while ((arg = va_arg(ap, const char *)))
		strvec_push(&cmd.argv, arg);
	va_end(ap);
	if (date) {
		strvec_pushf(&cmd.env, "GIT_COMMITTER_DATE=@%s +0000", date);
		strvec_pushf(&cmd.env, "GIT_AUTHOR_DATE=@%s +0000", date);
	}
	cmd.dir = dir;
	cmd.in = "";
	cmd.out = &buf;
	ret = child_run(&cmd);
	if (ret)
		printf("# git failed (%d): %s\n", ret, buf.buf);
	strbuf_rtrim(&buf);
	if (out) {
		strbuf_setlen(out, 0);
		strbuf_addstr(out, buf.buf);
	}
	child_release(&cmd);
	strbuf_release(&buf);
	return ret;
}

/* A commit of the empty tree with the given parents (NULL-terminated); its id in `id`. */
static void commit(const char *repo, char *id, const char *date, const char *msg, ...)
{
	struct child cmd = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *p;
	va_list ap;

	strvec_pushl(&cmd.argv, "git", "commit-tree", "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		     "-m", msg, NULL);
	va_start(ap, msg);
	while ((p = va_arg(ap, const char *)))
		strvec_pushl(&cmd.argv, "-p", p, NULL);
	va_end(ap);
	strvec_pushf(&cmd.env, "GIT_COMMITTER_DATE=@%s +0000", date);
	strvec_pushf(&cmd.env, "GIT_AUTHOR_DATE=@%s +0000", date);
	strvec_pushl(&cmd.env, "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.org",
		     "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.org", NULL);
	cmd.dir = repo;
	cmd.out = &out;
	if (child_run(&cmd))
		BUG("git commit-tree failed");
	strbuf_rtrim(&out);
	if (out.len != GIT_OID_HEXSZ)
		BUG("git commit-tree said '%s'", out.buf);
	memcpy(id, out.buf, GIT_OID_HEXSZ + 1);
	child_release(&cmd);
	strbuf_release(&out);
}

/*
 * Every commit git lists (`git log --all`) must be in the graph with the
 * same parents and date, except `missing`, which must not be. Returns
 * how many were checked.
 */
static int check_against_git(const struct commit_graph *g, const char *repo, const char *missing,
			     const char *what)
{
	struct strbuf out = STRBUF_INIT;
	char *line, *save = NULL;
	int checked = 0, bad = 0;

	if (git(repo, &out, NULL, "log", "--all", "--format=%H %ct %P", NULL))
		BUG("git log failed");
	for (line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' '), *p;
		uint32_t pos, parents[8];
		git_oid oid, at;
		int nr, i;

		*sp = '\0';
		git_oid_fromstr(&oid, line);
		if (missing && !strcmp(line, missing)) {
			if (commit_graph_find(g, &oid, &pos)) {
				printf("# %s is in the graph\n", line);
				bad++;
			}
			continue;
		}
		checked++;
		if (!commit_graph_find(g, &oid, &pos)) {
			printf("# %s is not in the graph\n", line);
			bad++;
			continue;
		}
		commit_graph_oid(g, pos, &at);
		if (!git_oid_equal(&at, &oid)) {
			printf("# %s: position %u is another commit\n", line, pos);
			bad++;
		}
		if (commit_graph_time(g, pos) != strtoll(sp + 1, &p, 10)) {
			printf("# %s: date %lld, git says %s\n", line, (long long)commit_graph_time(g, pos),
			       sp + 1);
			bad++;
		}
		nr = commit_graph_parents(g, pos, parents, ARRAY_SIZE(parents));
		for (i = 0; i < nr && *p; i++) {
			git_oid want;

			git_oid_fromstrn(&want, p + 1, GIT_OID_HEXSZ);
			p += 1 + GIT_OID_HEXSZ;
			commit_graph_oid(g, parents[i], &at);
			if (!git_oid_equal(&at, &want)) {
				printf("# %s: parent %d differs\n", line, i + 1);
				bad++;
			}
		}
		if (i != nr || *p) {
			printf("# %s: %d parents in the graph, git says '%s'\n", line, nr,
			       strchr(sp + 1, ' ') ? strchr(sp + 1, ' ') + 1 : "");
			bad++;
		}
	}
	ok(!bad && checked > 0, "%s: %d commits as git says", what, checked);
	strbuf_release(&out);
	return checked;
}

static char *objects_of(const char *repo)
{
	return path_join(repo, ".git/objects");
}

/* A history with merges, octopus merges (the EDGE chunk) and a date past 2^32. */
static void make_history(const char *repo, char *tip, char *o5)
{
	char r[41], a[41], b[41], c[41], m[41], o3[41];

	commit(repo, r, "1000000000", "root", NULL);
	commit(repo, a, "1000000100", "a", r, NULL);
	commit(repo, b, "1000000200", "b", a, NULL);
	commit(repo, c, "1000000150", "c", r, NULL);
	commit(repo, m, "1000000300", "merge", b, c, NULL);
	commit(repo, o3, "1000000400", "octopus of 3", m, a, c, NULL);
	commit(repo, o5, "1000000500", "octopus of 5", o3, b, c, a, r, NULL);
	/* the year 2200: the date needs the 33rd and 34th bits */
	commit(repo, tip, "7258118400", "far", o5, NULL);
	git(repo, NULL, NULL, "update-ref", "refs/heads/master", tip, NULL);
	git(repo, NULL, NULL, "update-ref", "refs/heads/side", c, NULL);
}

static void test_single(const char *repo, const char *tip, const char *o5)
{
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;
	struct commit_graph *g = NULL;
	char *objects = objects_of(repo), late[41];
	uint32_t pos, parents[2];
	git_oid oid, want, at;

	ok(!commit_graph_open(&g, objects, &why) && !g && !why.len, "no commit-graph: none, no error");

	git(repo, NULL, NULL, "commit-graph", "write", "--reachable", NULL);
	ok(!commit_graph_open(&g, objects, &why) && g, "git's commit-graph opens%s", why.buf);
	if (!g)
		goto cleanup;
	is_int(commit_graph_count(g), 8, "it holds the 8 commits");
	is_int(commit_graph_layers(g), 1, "in one file");
	check_against_git(g, repo, NULL, "one file");

	/* a commit made after the graph is not in it */
	commit(repo, late, "1000000600", "late", tip, NULL);
	git(repo, NULL, NULL, "update-ref", "refs/heads/master", late, NULL);
	check_against_git(g, repo, late, "a stale file");
	git_oid_fromstr(&oid, late);
	ok(!commit_graph_find(g, &oid, &pos), "the new commit is not found");

	/* fewer slots than parents: the count, and the first ones */
	git_oid_fromstr(&oid, o5);
	ok(commit_graph_find(g, &oid, &pos), "the octopus of 5 is found");
	is_int(commit_graph_parents(g, pos, parents, 2), 5, "it has 5 parents, with 2 slots");
	git(repo, &out, NULL, "rev-parse", "--verify", "-q", "master~2^2", NULL);
	git_oid_fromstr(&want, out.buf);
	commit_graph_oid(g, parents[1], &at);
	ok(git_oid_equal(&at, &want), "the second is right");
	commit_graph_free(g);
cleanup:
	strbuf_release(&why);
	strbuf_release(&out);
	free(objects);
}

static void test_chain(const char *repo)
{
	struct strbuf why = STRBUF_INIT, out = STRBUF_INIT;
	struct commit_graph *g = NULL;
	char *objects = objects_of(repo), *single = NULL, next[41], prev[41];
	int i;

	git(repo, NULL, NULL, "commit-graph", "write", "--reachable", "--split", NULL);
	single = path_join(objects, "info/commit-graph");
	ok(!file_exists(single), "git --split removed the lone file");
	git(repo, &out, NULL, "rev-parse", "master", NULL);
	memcpy(prev, out.buf, sizeof(prev));
	for (i = 0; i < 3; i++) {
		commit(repo, next, i ? "1000000800" : "1000000700", "on top", prev, NULL);
		memcpy(prev, next, sizeof(prev));
	}
	git(repo, NULL, NULL, "update-ref", "refs/heads/master", next, NULL);
	git(repo, NULL, NULL, "commit-graph", "write", "--reachable", "--split=no-merge", NULL);

	ok(!commit_graph_open(&g, objects, &why) && g, "a chain opens%s", why.buf);
	if (g) {
		ok(commit_graph_layers(g) >= 2, "in %zu layers", commit_graph_layers(g));
		is_int(commit_graph_count(g), 12, "12 commits in all");
		check_against_git(g, repo, NULL, "a chain");
		commit_graph_free(g);
	}
	strbuf_release(&why);
	strbuf_release(&out);
	free(single);
	free(objects);
}

/* --- damaged files -------------------------------------------------------- */

static uint32_t get_be32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static void put_be32(char *p, uint32_t v)
{
	p[0] = (char)(v >> 24);
	p[1] = (char)(v >> 16);
	p[2] = (char)(v >> 8);
	p[3] = (char)v;
}

/* The table entry of chunk `id` (its offset is 4 bytes in), or NULL. */
static char *chunk_entry(struct strbuf *f, const char *id)
{
	unsigned n = (unsigned char)f->buf[6], i;

	for (i = 0; i < n; i++)
		if (!memcmp(f->buf + 8 + 12 * i, id, 4))
			return f->buf + 8 + 12 * i;
	return NULL;
}

static size_t chunk_offset(struct strbuf *f, const char *id)
{
	char *e = chunk_entry(f, id);

	return e ? (size_t)get_be32(e + 8) : 0;	/* the files here are small */
}

/* Write `data` as dir/info/commit-graph and open dir: the reason it fails, or "opened". */
static char *open_bad(const struct strbuf *data, int *parents_bad)
{
	struct strbuf why = STRBUF_INIT;
	struct commit_graph *g = NULL;
	char *dir = path_join(tmp, "bad"), *info = path_join(dir, "info");
	char *path = path_join(info, "commit-graph");

	remove_tree(dir);
	mkdir_p(info, 0755);
	if (write_file_atomic(path, data->buf, data->len))
		BUG("cannot write %s", path);
	if (commit_graph_open(&g, dir, &why) < 0 || !g) {
		if (!g && !why.len)
			strbuf_addstr(&why, "(no reason)");
	} else {
		uint32_t i, p[8];

		strbuf_addstr(&why, "opened");
		if (parents_bad) {
			*parents_bad = 0;
			for (i = 0; i < commit_graph_count(g); i++)
				if (commit_graph_parents(g, i, p, ARRAY_SIZE(p)) < 0)
					(*parents_bad)++;
		}
		commit_graph_free(g);
	}
	free(path);
	free(info);
	free(dir);
	return strbuf_detach(&why, NULL);
}

static void check_bad(const struct strbuf *data, const char *want, const char *what)
{
	char *why = open_bad(data, NULL);

	ok(strstr(why, want) != NULL, "%s: %s", what, why);
	free(why);
}

static void test_damaged(const char *repo)
{
	struct strbuf good = STRBUF_INIT, f = STRBUF_INIT;
	char *objects = objects_of(repo), *path = NULL, *why;
	size_t oidf, oidl, cdat, n, i;
	int parents_bad = -1;

	/* a lone file again, with the octopus merges */
	git(repo, NULL, NULL, "commit-graph", "write", "--reachable", NULL);
	path = path_join(objects, "info/commit-graph");
	if (strbuf_read_file(&good, path) < 0 || !chunk_entry(&good, "EDGE") ||
	    !chunk_entry(&good, "GDA2")) {
		ok(0, "git wrote a commit-graph with EDGE and GDA2 chunks");
		goto cleanup;
	}
	oidf = chunk_offset(&good, "OIDF");
	oidl = chunk_offset(&good, "OIDL");
	cdat = chunk_offset(&good, "CDAT");
	n = get_be32(good.buf + oidf + 255 * 4);

#define RESET() do { strbuf_setlen(&f, 0); strbuf_add(&f, good.buf, good.len); } while (0)
	RESET();
	why = open_bad(&f, &parents_bad);
	is_str(why, "opened", "the copy opens");
	is_int(parents_bad, 0, "with every parent inside");
	free(why);

	RESET();
	strbuf_setlen(&f, 30);
	check_bad(&f, "/bad/info/commit-graph: too short for a commit-graph", "a truncated file");
	RESET();
	memcpy(f.buf, "CGPX", 4);
	check_bad(&f, "commit-graph: not a commit-graph", "another signature");
	RESET();
	f.buf[4] = 2;
	check_bad(&f, "unknown version 2", "version 2");
	RESET();
	f.buf[5] = 2;
	check_bad(&f, "hash version 2 is not SHA-1", "a SHA-256 graph");
	RESET();
	f.buf[7] = 1;
	check_bad(&f, "has 1 base files, expected 0", "a lone file naming a base");
	RESET();
	f.buf[6] = (char)200;
	check_bad(&f, "the chunk table runs past the end", "too many chunks");
	RESET();
	memcpy(f.buf + 8 + 12 * (unsigned char)f.buf[6], "XXXX", 4);
	check_bad(&f, "the chunk table is not terminated", "no terminating entry");
	RESET();
	memcpy(chunk_entry(&f, "GDA2"), "\0\0\0\0", 4);
	check_bad(&f, "has id 0", "a chunk with id 0 before the end");
	RESET();
	memcpy(chunk_entry(&f, "GDA2"), "CDAT", 4);
	check_bad(&f, "repeats an id", "a repeated chunk");
	RESET();
	put_be32(chunk_entry(&f, "OIDL") + 8, 0x7fffffff);
	check_bad(&f, "is outside the file", "a chunk past the end");
	RESET();
	memcpy(chunk_entry(&f, "CDAT"), "CDAX", 4);
	check_bad(&f, "no CDAT chunk", "no commit data");
	RESET();
	put_be32(chunk_entry(&f, "OIDF") + 8, (uint32_t)oidf + 4);
	check_bad(&f, "the OIDF chunk has the wrong size", "a short fan-out");
	RESET();
	put_be32(chunk_entry(&f, "CDAT") + 8, (uint32_t)cdat + 36);
	check_bad(&f, "the OIDL or CDAT chunk has the wrong size", "a short commit data chunk");
	RESET();
	put_be32(chunk_entry(&f, "EDGE") + 8, (uint32_t)chunk_offset(&f, "EDGE") + 1);
	check_bad(&f, "the EDGE chunk has the wrong size", "a ragged EDGE chunk");
	RESET();
	put_be32(f.buf + oidf, (uint32_t)n);
	check_bad(&f, "the fan-out goes down", "a fan-out going down");
	RESET();
	for (i = 0; i < 255; i++)
		put_be32(f.buf + oidf + 4 * i, 0);
	check_bad(&f, "the fan-out does not match the ids", "a fan-out that misses the ids");
	/* a repeated id, with a fan-out that agrees */
	RESET();
	memcpy(f.buf + oidl + 20, f.buf + oidl, 20);
	for (i = 0; i < 256; i++) {
		size_t k, c = 0;

		for (k = 0; k < n; k++)
			c += (unsigned char)f.buf[oidl + 20 * k] <= i;
		put_be32(f.buf + oidf + 4 * i, (uint32_t)c);
	}
	check_bad(&f, "the ids are not sorted", "a repeated id");

	/* parents outside the graph are found when asked for */
	RESET();
	put_be32(f.buf + cdat + 20, 0x6fffffff);
	why = open_bad(&f, &parents_bad);
	ok(!strcmp(why, "opened") && parents_bad == 1, "a first parent outside: %s, %d bad", why,
	   parents_bad);
	free(why);
	RESET();
	for (i = 0; i < n; i++) {
		char *e = f.buf + cdat + 36 * i + 24;

		if (get_be32(e) & 0x80000000)
			put_be32(e, 0x80000000 | 1000);
	}
	why = open_bad(&f, &parents_bad);
	ok(!strcmp(why, "opened") && parents_bad == 2, "octopus edges outside: %s, %d bad", why,
	   parents_bad);
	free(why);
	RESET();
	{
		size_t edge = chunk_offset(&f, "EDGE");

		put_be32(f.buf + edge, 0x80000000 | 0x6ffffff0);
	}
	why = open_bad(&f, &parents_bad);
	ok(!strcmp(why, "opened") && parents_bad == 1, "an octopus parent outside: %s, %d bad", why,
	   parents_bad);
	free(why);
#undef RESET
cleanup:
	strbuf_release(&good);
	strbuf_release(&f);
	free(path);
	free(objects);
}

/* Write a chain file in dir/info/commit-graphs and open dir. */
static char *open_chain(const char *dir, const char *chain)
{
	struct strbuf why = STRBUF_INIT;
	struct commit_graph *g = NULL;
	char *graphs = path_join(dir, "info/commit-graphs");
	char *path = path_join(graphs, "commit-graph-chain");

	if (write_file_atomic(path, chain, strlen(chain)))
		BUG("cannot write %s", path);
	if (!commit_graph_open(&g, dir, &why) && g)
		strbuf_addstr(&why, "opened");
	commit_graph_free(g);
	free(path);
	free(graphs);
	return strbuf_detach(&why, NULL);
}

static void check_chain(const char *dir, const char *chain, const char *want, const char *what)
{
	char *why = open_chain(dir, chain);

	ok(strstr(why, want) != NULL, "%s: %s", what, why);
	free(why);
}

static void test_bad_chains(const char *repo)
{
	struct strbuf chain = STRBUF_INIT, lone = STRBUF_INIT, s = STRBUF_INIT;
	char *objects = objects_of(repo), *dir = path_join(tmp, "chain");
	char *graphs = path_join(dir, "info/commit-graphs"), *single = NULL, *path = NULL;
	char *src = NULL, *dst = NULL, *why;
	const char *l2;
	const char *other = "0123456789abcdef0123456789abcdef01234567";

	/* git's lone file (test_damaged wrote it), and a chain of two */
	single = path_join(objects, "info/commit-graph");
	strbuf_read_file(&lone, single);
	git(repo, NULL, NULL, "commit-graph", "write", "--reachable", "--split", NULL);
	{
		char a[41], b[41];
		struct strbuf out = STRBUF_INIT;

		git(repo, &out, NULL, "rev-parse", "master", NULL);
		commit(repo, a, "1000000900", "more", out.buf, NULL);
		commit(repo, b, "1000000901", "more", a, NULL);
		git(repo, NULL, NULL, "update-ref", "refs/heads/master", b, NULL);
		strbuf_release(&out);
	}
	git(repo, NULL, NULL, "commit-graph", "write", "--reachable", "--split=no-merge", NULL);
	path = path_join(objects, "info/commit-graphs/commit-graph-chain");
	if (strbuf_read_file(&chain, path) < 0 || !(l2 = strchr(chain.buf, '\n')) ||
	    strlen(l2 + 1) < 40) {
		ok(0, "git wrote a chain of two files");
		goto cleanup;
	}
	l2++;
	remove_tree(dir);
	mkdir_p(graphs, 0755);
	free(src);
	src = path_join(objects, "info/commit-graphs");
	/* copy both layers */
	{
		struct strbuf name = STRBUF_INIT, data = STRBUF_INIT;
		int k;

		for (k = 0; k < 2; k++) {
			char *from, *to;

			strbuf_setlen(&name, 0);
			strbuf_addf(&name, "graph-%.40s.graph", k ? l2 : chain.buf);
			from = path_join(src, name.buf);
			to = path_join(graphs, name.buf);
			strbuf_setlen(&data, 0);
			if (strbuf_read_file(&data, from) < 0 || write_file_atomic(to, data.buf, data.len))
				BUG("cannot copy %s", from);
			free(from);
			free(to);
		}
		/* and the lone file, as if it were a base file named `other` */
		strbuf_setlen(&name, 0);
		strbuf_addf(&name, "graph-%s.graph", other);
		dst = path_join(graphs, name.buf);
		write_file_atomic(dst, lone.buf, lone.len);
		strbuf_release(&name);
		strbuf_release(&data);
	}
	why = open_chain(dir, chain.buf);
	is_str(why, "opened", "the copied chain opens");
	free(why);

	check_chain(dir, "", "commit-graph-chain: empty", "an empty chain");
	check_chain(dir, "not a hash\n", "commit-graph-chain: line 1 is not a file id", "a bad line");
	strbuf_addf(&s, "%.40s\n%.40s\n", chain.buf, other);
	check_chain(dir, s.buf, "has 0 base files, expected 1", "a lone file second");
	strbuf_setlen(&s, 0);
	strbuf_addf(&s, "%s\n%.40s\n", other, l2);
	check_chain(dir, s.buf, "commit-graph-chain: line 2 names other base files",
		    "a base the top file does not name");
	strbuf_setlen(&s, 0);
	strbuf_addf(&s, "%.40s\n%.39s0\n", chain.buf, l2);
	check_chain(dir, s.buf, "0.graph: no such file", "a missing file");
	{
		char *cp = path_join(graphs, "commit-graph-chain");

		remove_tree(cp);
		mkdir_p(cp, 0755);
		why = NULL;
		{
			struct strbuf w = STRBUF_INIT;
			struct commit_graph *g = NULL;

			int bad = commit_graph_open(&g, dir, &w) < 0 && !g;

			ok(bad && strstr(w.buf, "Is a directory"), "an unreadable chain: %s", w.buf);
			strbuf_release(&w);
		}
		remove_tree(cp);
		free(cp);
	}
	/* a lone commit-graph wins over the chain, as in git */
	{
		char *info = path_join(dir, "info/commit-graph");
		struct commit_graph *g = NULL;

		write_file_atomic(info, lone.buf, lone.len);
		why = open_chain(dir, "not a hash\n");
		is_str(why, "opened", "a lone file is used before the chain");
		free(why);
		remove(info);
		mkdir_p(info, 0755);
		{
			struct strbuf w = STRBUF_INIT;

			int bad = commit_graph_open(&g, dir, &w) < 0 && !g;

			ok(bad && strstr(w.buf, "info/commit-graph: not a file"), "a directory in its place: %s",
			   w.buf);
			strbuf_release(&w);
		}
		free(info);
	}
cleanup:
	strbuf_release(&chain);
	strbuf_release(&lone);
	strbuf_release(&s);
	free(objects);
	free(dir);
	free(graphs);
	free(single);
	free(path);
	free(src);
	free(dst);
}

int main(void)
{
	char tmpl[] = "/tmp/test-commitgraph-XXXXXX";
	char *repo, tip[41], o5[41];

	gitutil_init();
	tmp = mkdtemp(tmpl);
	if (!tmp) {
		printf("Bail out! cannot make a temporary directory: %s\n", strerror(errno));
		return 1;
	}
	repo = path_join(tmp, "repo");
	if (git(tmp, NULL, NULL, "init", "-q", repo, NULL)) {
		printf("Bail out! cannot make a repository\n");
		return 1;
	}
	make_history(repo, tip, o5);
	test_single(repo, tip, o5);
	test_chain(repo);
	test_damaged(repo);
	test_bad_chains(repo);
	remove_tree(tmp);
	free(repo);
	return tap_done();
}
