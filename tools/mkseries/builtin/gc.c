/* builtin/gc.c: `mkseries gc`: what the cache holds per kit and branch, and dropping what no kit uses. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin/builtin.h"
#include "kit/select.h"
#include "lib/gitutil.h"
#include "lib/options.h"
#include "lib/util.h"
#include "tree/clone.h"
#include "tree/workdir.h"

/* A kit the cache knows of: by its work directory, its refs, or both. */
struct cached_kit {
	char *id;
	char *dir;		/* the kit directory its work directory names, or NULL */
	unsigned long long work;	/* bytes under work/<id> */
	size_t nr_refs;
	enum { KIT_CURRENT, KIT_THERE, KIT_GONE, KIT_UNKNOWN } state;
	int drop;		/* named with --drop, or gone */
};

struct gc {
	char *cache;
	const struct kit *kit;	/* the current kit, or NULL when there is none here */
	struct cached_kit *kits;
	size_t nr, alloc;
	struct strvec drop_paths;	/* relative to the cache */
	struct strvec drop_why;
	unsigned long long drop_bytes;
	struct strvec drop_refs;
	struct strvec keep_debs;	/* "package_version" named by a base tag */
	git_repository **repos;	/* linux.git and each clones/<name>.git of the cache */
	size_t nr_repos, alloc_repos;
};

static struct cached_kit *find_kit(struct gc *gc, const char *id, int add)
{
	size_t i;

	for (i = 0; i < gc->nr; i++)
		if (!strcmp(gc->kits[i].id, id))
			return &gc->kits[i];
	if (!add)
		return NULL;
	ALLOC_GROW(gc->kits, gc->nr + 1, gc->alloc);
	memset(&gc->kits[gc->nr], 0, sizeof(gc->kits[0]));
	gc->kits[gc->nr].id = xstrdup(id);
	return &gc->kits[gc->nr++];
}

static void drop(struct gc *gc, const char *rel, unsigned long long bytes, const char *why)
{
	strvec_push(&gc->drop_paths, rel);
	strvec_push(&gc->drop_why, why);
	gc->drop_bytes += bytes;
}

/* Where mkseries writes refs: the kits' (ref_kit_id()) and the imports'. */
static const char *const mkseries_refs[] = {
	"refs/heads/mkseries/", "refs/heads/mkseries-variants/",
	"refs/heads/mkseries-backport/", "refs/mkseries-backports/",
	"refs/tags/mkseries/", "refs/mkseries-imports/", "refs/mkseries/",
};

/* The kit id a mkseries ref belongs to, or NULL: refs/heads/mkseries/<id>/..., and the like. */
static char *ref_kit_id(const char *ref)
{
	static const char *const prefix[] = {
		"refs/heads/mkseries/", "refs/heads/mkseries-variants/",
		"refs/heads/mkseries-backport/", "refs/mkseries-backports/",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefix); i++) {
		const char *rest = ref, *slash;

		if (!skip_prefix(rest, prefix[i], &rest))
			continue;
		slash = strchr(rest, '/');
		return slash ? xstrndup(rest, slash - rest) : NULL;
	}
	return NULL;
}

/* The refs of every kit, and the Debian packages the base tags name. */
static int scan_repo(struct gc *gc, git_repository *repo)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;

	if (git_reference_iterator_new(&it, repo))
		return print_error("cannot list the refs of the kernel repository: %s", git_error_last()->message);
	while (!git_reference_next(&ref, it)) {
		const char *name = git_reference_name(ref);
		char *id = ref_kit_id(name);
		git_object *obj = NULL;

		if (id)
			find_kit(gc, id, 1)->nr_refs++;
		if (starts_with(name, "refs/tags/mkseries/base/") &&
		    !git_reference_peel(&obj, ref, GIT_OBJECT_TAG)) {
			const char *msg = git_tag_message((git_tag *)obj), *src;
			char pkg[256], ver[256];

			src = msg ? strstr(msg, "\nsource: debian ") : NULL;
			if (src && sscanf(src, "\nsource: debian %255s %255s", pkg, ver) == 2)
				strvec_pushf(&gc->keep_debs, "%s_%s_", pkg, ver);
			git_object_free(obj);
		}
		free(id);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return 0;
}

/* Open and scan the repository at `path` (under the cache) when it is there; 0, or -1 printed. */
static int add_repo(struct gc *gc, const char *path)
{
	git_repository *repo = NULL;

	if (!dir_exists(path))
		return 0;
	if (repo_open(&repo, path, 0) || scan_repo(gc, repo)) {
		git_repository_free(repo);
		return -1;
	}
	ALLOC_GROW(gc->repos, gc->nr_repos + 1, gc->alloc_repos);
	gc->repos[gc->nr_repos++] = repo;
	return 0;
}

/* linux.git, then mkseries' repository for each git source's clone (tree/clone.h). */
static int scan_repos(struct gc *gc, const char *linux_git)
{
	char *clones = path_join(gc->cache, CLONE_OWN_DIR);
	DIR *d = opendir(clones);
	struct dirent *de;
	int ret = add_repo(gc, linux_git);

	while (!ret && d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".git"))
			continue;
		p = path_join(clones, de->d_name);
		ret = add_repo(gc, p);
		free(p);
	}
	if (d)
		closedir(d);
	free(clones);
	return ret;
}

/* mkseries' repositories for clones, each with the clone it reads. */
static void show_clones(const struct gc *gc)
{
	char *clones = path_join(gc->cache, CLONE_OWN_DIR);
	struct strbuf src = STRBUF_INIT;
	struct dirent *de;
	DIR *d = opendir(clones);
	int shown_any = 0;

	while (d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".git"))
			continue;
		p = path_join(clones, de->d_name);
		if (!shown_any++)
			printf("\nmkseries' repositories for git sources (the clones are read, never written):\n");
		if (clone_own_source(&src, p))
			printf("  %s/%-30s %9s  names no clone\n", CLONE_OWN_DIR, de->d_name,
			       format_bytes(disk_usage(p)));
		else
			printf("  %s/%-30s %9s  %s%s\n", CLONE_OWN_DIR, de->d_name,
			       format_bytes(disk_usage(p)), src.buf,
			       dir_exists(src.buf) ? "" : ": gone (its trees are unreadable)");
		free(p);
	}
	if (d)
		closedir(d);
	strbuf_release(&src);
	free(clones);
}

/* How many refs of repo an earlier mkseries wrote (mkseries_refs[]). */
static size_t count_mkseries_refs(git_repository *repo)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	size_t n = 0, i;

	if (git_reference_iterator_new(&it, repo))
		return 0;
	while (!git_reference_next(&ref, it)) {
		for (i = 0; i < ARRAY_SIZE(mkseries_refs); i++)
			if (starts_with(git_reference_name(ref), mkseries_refs[i])) {
				n++;
				break;
			}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return n;
}

/*
 * Refs that an earlier mkseries wrote into the clones of this kit's git
 * sources: named, with the commands that remove them. gc reads the
 * clone and writes nothing there: they are the user's to delete.
 */
static void show_old_refs(const struct gc *gc)
{
	struct strvec seen = STRVEC_INIT;
	size_t i, j, n;

	for (i = 0; gc->kit && i < gc->kit->nr_branches; i++) {
		const struct kernel_branch *b = &gc->kit->branches[i];
		git_repository *clone = NULL;
		char *path;

		if (b->source.kind != SOURCE_GIT || !b->source.repo)
			continue;
		path = kit_file(gc->kit, b->source.repo);
		for (j = 0; j < seen.nr && strcmp(seen.v[j], path); j++)
			;
		if (j < seen.nr || git_repository_open_ext(&clone, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
			git_error_clear();
			free(path);
			continue;
		}
		strvec_push(&seen, path);
		n = count_mkseries_refs(clone);
		if (n) {
			printf("\n'%s' holds %zu ref%s an earlier mkseries wrote there; mkseries now keeps\n"
			       "its refs in its own repository and never reads these. To remove them:\n"
			       "  git -C '%s' for-each-ref --format='delete %%(refname)'",
			       path, n, n == 1 ? "" : "s", path);
			for (j = 0; j < ARRAY_SIZE(mkseries_refs); j++)
				printf(" %.*s", (int)strlen(mkseries_refs[j]) - 1, mkseries_refs[j]);
			printf(" | git -C '%s' update-ref --stdin\n"
			       "  git -C '%s' worktree prune\n", path, path);
		}
		git_repository_free(clone);
		free(path);
	}
	strvec_clear(&seen);
}

/* Which kit a work directory belongs to, and whether that kit is still there. */
static void judge_kit(struct gc *gc, struct cached_kit *k)
{
	struct strbuf sb = STRBUF_INIT;
	char *note = xstrfmt("%s/work/%s/kit", gc->cache, k->id), *yaml;

	if (gc->kit && !strcmp(k->id, kit_id(gc->kit))) {
		k->state = KIT_CURRENT;
		k->dir = xstrdup(gc->kit->dir);
	} else if (!strbuf_read_file(&sb, note) && sb.len) {
		strbuf_rtrim(&sb);
		k->dir = strbuf_detach(&sb, NULL);
		yaml = path_join(k->dir, "series.yaml");
		k->state = file_exists(yaml) ? KIT_THERE : KIT_GONE;
		free(yaml);
	} else {
		k->state = KIT_UNKNOWN;
	}
	strbuf_release(&sb);
	free(note);
}

static void scan_work(struct gc *gc)
{
	char *work = path_join(gc->cache, "work");
	struct dirent *de;
	DIR *d = opendir(work);

	while (d && (de = readdir(d))) {
		char *sub;

		if (de->d_name[0] == '.')
			continue;
		sub = path_join(work, de->d_name);
		if (dir_exists(sub))
			find_kit(gc, de->d_name, 1)->work = disk_usage(sub);
		free(sub);
	}
	if (d)
		closedir(d);
	free(work);
}

/* Whether `name` (out-<v>) is the build directory of a variant branch b still has. */
static int variant_known(const struct kernel_branch *b, const char *v)
{
	return !strcmp(v, "base") || !strcmp(v, "kit") || branch_find_variant(b, v);
}

/* The current kit's work directories, branch by branch, part by part. */
static void show_current(struct gc *gc, const struct cached_kit *k)
{
	char *root = xstrfmt("%s/work/%s", gc->cache, k->id);
	struct dirent *de, *pe;
	DIR *d = opendir(root);

	printf("\nthis kit (%s, %s): %s\n", k->id, k->dir, format_bytes(k->work));
	while (d && (de = readdir(d))) {
		char *bdir = path_join(root, de->d_name);
		const struct kernel_branch *b;
		struct strbuf parts = STRBUF_INIT;
		DIR *bd;

		if (de->d_name[0] == '.' || !dir_exists(bdir)) {
			free(bdir);
			continue;
		}
		b = kit_find_branch(gc->kit, de->d_name);
		if (!b) {
			char *rel = xstrfmt("work/%s/%s", k->id, de->d_name);
			unsigned long long n = disk_usage(bdir);

			printf("  %-12s %9s  no such branch in the kit\n", de->d_name, format_bytes(n));
			drop(gc, rel, n, "a branch the kit no longer has");
			free(rel);
			free(bdir);
			continue;
		}
		bd = opendir(bdir);
		while (bd && (pe = readdir(bd))) {
			char *p = path_join(bdir, pe->d_name);
			unsigned long long n;

			if (pe->d_name[0] == '.' || !dir_exists(p)) {
				free(p);
				continue;
			}
			n = disk_usage(p);
			strbuf_addf(&parts, "%s%s %s", parts.len ? ", " : "", pe->d_name, format_bytes(n));
			if (workdir_out_variant(pe->d_name) &&
			    !variant_known(b, workdir_out_variant(pe->d_name))) {
				char *rel = xstrfmt("work/%s/%s/%s", k->id, b->name, pe->d_name);

				drop(gc, rel, n, "the build of a variant the branch no longer declares");
				free(rel);
			}
			free(p);
		}
		if (bd)
			closedir(bd);
		printf("  %-12s %9s  %s\n", b->name, format_bytes(disk_usage(bdir)),
		       parts.len ? parts.buf : "(empty)");
		strbuf_release(&parts);
		free(bdir);
	}
	if (d)
		closedir(d);
	free(root);
}

static void show_others(struct gc *gc, const struct strvec *named)
{
	size_t i, j, shown_any = 0;

	for (i = 0; i < gc->nr; i++) {
		struct cached_kit *k = &gc->kits[i];
		const char *what = "";

		if (k->state == KIT_CURRENT)
			continue;
		for (j = 0; j < named->nr; j++)
			if (!strcmp(named->v[j], k->id))
				k->drop = 1;
		if (k->state == KIT_GONE)
			k->drop = 1;
		if (!shown_any++)
			printf("\nother kits:\n");
		switch (k->state) {
		case KIT_THERE: what = "there"; break;
		case KIT_GONE: what = "gone: moved or deleted"; break;
		default:
			what = k->work ? "kit unknown: its work directory predates the note of its kit"
				       : "refs only, kit unknown";
			break;
		}
		printf("  %-24s %9s  %zu ref%s  %s%s%s%s\n", k->id, format_bytes(k->work), k->nr_refs,
		       k->nr_refs == 1 ? "" : "s", k->dir ? k->dir : "", k->dir ? ": " : "", what,
		       k->drop ? " (dropped)" : "");
		if (k->drop && k->work) {
			char *rel = xstrfmt("work/%s", k->id);

			drop(gc, rel, k->work, k->state == KIT_GONE ? "its kit is gone" : "named with --drop");
			free(rel);
		}
	}
}

static void scan_debs(struct gc *gc)
{
	char *debs = path_join(gc->cache, "debs");
	struct dirent *de;
	DIR *d = opendir(debs);

	while (d && (de = readdir(d))) {
		size_t i;
		char *p, *rel;

		if (!ends_with(de->d_name, ".deb"))
			continue;
		for (i = 0; i < gc->keep_debs.nr; i++)
			if (starts_with(de->d_name, gc->keep_debs.v[i]))
				break;
		if (i < gc->keep_debs.nr)
			continue;
		p = path_join(debs, de->d_name);
		rel = xstrfmt("debs/%s", de->d_name);
		drop(gc, rel, disk_usage(p), "a package no base tag names (its tree is in the repository)");
		free(rel);
		free(p);
	}
	if (d)
		closedir(d);
	free(debs);
}

static void show_cache(const struct gc *gc)
{
	static const struct {
		const char *name, *what;
	} part[] = {
		{ "linux.git", "the kernel repository: imported trees, applied branches" },
		{ CLONE_OWN_DIR, "mkseries' repositories for git sources' clones: base tags, applied branches" },
		{ "work", "work directories: source trees, builds, logs, results" },
		{ "debs", "Debian's linux-source packages" },
		{ "apt", "Debian's package lists" },
		{ "ccache", "the compiler cache (ccache keeps it within its max_size)" },
	};
	unsigned long long size[ARRAY_SIZE(part)], total = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(part); i++) {
		char *p = path_join(gc->cache, part[i].name);
		size_t k;

		size[i] = 0;
		if (strcmp(part[i].name, "work"))
			size[i] = disk_usage(p);
		else
			for (k = 0; k < gc->nr; k++)
				size[i] += gc->kits[k].work;
		size[i] += !size[i] && file_exists(p);	/* there, if empty */
		total += size[i];
		free(p);
	}
	printf("cache: %s, %s in these parts\n", gc->cache, format_bytes(total));
	for (i = 0; i < ARRAY_SIZE(part); i++)
		if (size[i])
			printf("  %-10s %9s  %s\n", part[i].name, format_bytes(size[i]), part[i].what);
}

static int prune_refs(struct gc *gc, git_repository *repo);

static int prune(struct gc *gc)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < gc->drop_paths.nr; i++) {
		char *p = path_join(gc->cache, gc->drop_paths.v[i]);

		if (remove_tree(p))
			ret = print_error("cannot remove '%s': %s", p, strerror(errno));
		free(p);
	}
	for (i = 0; i < gc->nr_repos; i++)
		if (prune_refs(gc, gc->repos[i]))
			ret = -1;
	return ret;
}

/* Delete the refs of the kits dropped from repo. */
static int prune_refs(struct gc *gc, git_repository *repo)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < gc->nr; i++) {
		git_reference_iterator *it = NULL;
		git_reference *ref;

		if (!gc->kits[i].drop || !gc->kits[i].nr_refs || git_reference_iterator_new(&it, repo))
			continue;
		while (!git_reference_next(&ref, it)) {
			char *id = ref_kit_id(git_reference_name(ref));

			if (id && !strcmp(id, gc->kits[i].id) && git_reference_delete(ref))
				ret = print_error("cannot delete '%s': %s", git_reference_name(ref),
					    git_error_last()->message);
			free(id);
			git_reference_free(ref);
		}
		git_reference_iterator_free(it);
	}
	return ret;
}

static size_t refs_to_drop(const struct gc *gc)
{
	size_t i, n = 0;

	for (i = 0; i < gc->nr; i++)
		if (gc->kits[i].drop)
			n += gc->kits[i].nr_refs;
	return n;
}

static void show_drops(const struct gc *gc, int pruned, const char *repo_path)
{
	size_t i, refs = refs_to_drop(gc);

	if (!gc->drop_paths.nr && !refs) {
		printf("\nnothing to drop\n");
		return;
	}
	printf("\n%s:\n", pruned ? "dropped" : "can drop");
	for (i = 0; i < gc->drop_paths.nr; i++)
		printf("  %-60s %s\n", gc->drop_paths.v[i], gc->drop_why.v[i]);
	if (refs)
		printf("  %zu ref%s of the kits dropped above, in mkseries' repositories\n", refs,
		       refs == 1 ? "" : "s");
	if (!pruned)
		printf("%s in all: 'mkseries gc --prune' drops it\n", format_bytes(gc->drop_bytes));
	else
		printf("%s freed; the objects only those refs used stay until "
		       "'git --git-dir %s gc --prune=now' (and the same in %s/%s/*.git)\n",
		       format_bytes(gc->drop_bytes), repo_path, gc->cache, CLONE_OWN_DIR);
}

/* Free what a scan of the cache found. */
static void gc_release(struct gc *gc)
{
	size_t i;

	for (i = 0; i < gc->nr; i++) {
		free(gc->kits[i].id);
		free(gc->kits[i].dir);
	}
	free(gc->kits);
	strvec_clear(&gc->drop_paths);
	strvec_clear(&gc->drop_why);
	strvec_clear(&gc->drop_refs);
	strvec_clear(&gc->keep_debs);
	for (i = 0; i < gc->nr_repos; i++)
		git_repository_free(gc->repos[i]);
	free(gc->repos);
	free(gc->cache);
}

int gc_list_kits(const char *current)
{
	struct gc gc = { .drop_paths = STRVEC_INIT, .drop_why = STRVEC_INIT,
			 .drop_refs = STRVEC_INIT, .keep_debs = STRVEC_INIT };
	char *repo_path, *work;
	struct dirent *de;
	DIR *d;
	size_t i;

	if (!(gc.cache = mks_cache_dir()))
		return 0;
	repo_path = path_join(gc.cache, "linux.git");
	scan_repos(&gc, repo_path);
	/* the names alone: the sizes scan_work() adds up take long on kernel trees */
	work = path_join(gc.cache, "work");
	for (d = opendir(work); d && (de = readdir(d));)
		if (de->d_name[0] != '.')
			find_kit(&gc, de->d_name, 1);
	if (d)
		closedir(d);
	for (i = 0; i < gc.nr; i++)
		if (!current || strcmp(current, gc.kits[i].id))
			puts(gc.kits[i].id);
	free(work);
	free(repo_path);
	gc_release(&gc);
	return 0;
}

int cmd_gc(int argc, const char **argv)
{
	struct strvec named = STRVEC_INIT;
	int do_prune = 0, ret = 0;
	const struct option opts[] = {
		OPT_BOOL("prune", 0, &do_prune, "drop what no kit uses (default: only say what)"),
		OPT_LIST("drop", 0, &named, "KIT-ID", "also drop this other kit's work directory and refs (repeatable)"),
		OPT_END(),
	};
	const char *usage = "mkseries gc [--prune] [--drop KIT-ID]...";
	struct gc gc = { .drop_paths = STRVEC_INIT, .drop_why = STRVEC_INIT,
			 .drop_refs = STRVEC_INIT, .keep_debs = STRVEC_INIT };
	struct kit kit = KIT_INIT;
	char *repo_path = NULL, *yaml;
	size_t i;

	if (parse_options(argc, argv, opts, usage))
		usage_with_options(usage, opts, 2);
	gc.cache = mks_cache_dir();
	if (!gc.cache) {
		print_error("no cache directory: neither XDG_CACHE_HOME (absolute) nor HOME is set");
		return 2;
	}
	yaml = path_join(kit_dir(), "series.yaml");
	if (file_exists(yaml)) {
		if (kit_open(&kit)) {
			free(yaml);
			ret = 2;
			goto cleanup;
		}
		gc.kit = &kit;
	}
	free(yaml);
	if (gc.kit)
		for (i = 0; i < named.nr; i++)
			if (!strcmp(named.v[i], kit_id(gc.kit))) {
				ret = print_error_code(MKS_ECONFIG, "--drop %s: that is this kit", named.v[i]);
				goto cleanup;
			}
	repo_path = path_join(gc.cache, "linux.git");
	if (scan_repos(&gc, repo_path)) {
		ret = 1;
		goto cleanup;
	}
	scan_work(&gc);
	for (i = 0; i < gc.nr; i++)
		judge_kit(&gc, &gc.kits[i]);
	for (i = 0; i < named.nr; i++)
		if (!find_kit(&gc, named.v[i], 0)) {
			ret = print_error_code(MKS_ECONFIG, "--drop %s: the cache holds no such kit", named.v[i]);
			goto cleanup;
		}
	show_cache(&gc);
	for (i = 0; i < gc.nr; i++)
		if (gc.kits[i].state == KIT_CURRENT)
			show_current(&gc, &gc.kits[i]);
	show_others(&gc, &named);
	show_clones(&gc);
	show_old_refs(&gc);
	if (dir_exists(repo_path))
		scan_debs(&gc);
	if (do_prune && prune(&gc))
		ret = 1;
	show_drops(&gc, do_prune, repo_path);
cleanup:
	ret = mks_exit_status(ret);
	gc_release(&gc);
	strvec_clear(&named);
	kit_release(&kit);
	free(repo_path);
	return ret;
}
