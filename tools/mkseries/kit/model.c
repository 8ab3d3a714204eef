/* kit/model.c: load and check the kit (series.yaml and kernels/<branch>.yaml), its id, and free it. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <git2.h>

#include "lib/gitutil.h"
#include "kit/model.h"
#include "kit/load.h"
#include "lib/util.h"

/* "foo/" for kit dir "foo", "" for "." so that messages name files as the user would. */
static char *display_prefix(const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!n || (n == 1 && dir[0] == '.'))
		return xstrdup("");
	if (n == 1 && dir[0] == '/')
		return xstrdup("/");
	return xstrfmt("%.*s/", (int)n, dir);
}

/* See kit_id() in model.h for why the id is made this way. */
static char *make_kit_id(const char *realdir)
{
	struct strbuf sb = STRBUF_INIT;
	const char *base = strrchr(realdir, '/');
	char hex[GIT_OID_HEXSZ + 1];
	git_oid oid;

	base = base ? base + 1 : realdir;
	for (; *base && sb.len < 40; base++)
		strbuf_addch(&sb, isalnum((unsigned char)*base) || *base == '_' || *base == '-' ?
				  *base : '-');
	if (!sb.len)
		strbuf_addstr(&sb, "kit");
	if (git_odb_hash(&oid, realdir, strlen(realdir), GIT_OBJECT_BLOB) < 0)
		BUG("cannot hash '%s'", realdir);
	git_oid_tostr(hex, sizeof(hex), &oid);
	strbuf_addf(&sb, "-%.8s", hex);
	return strbuf_detach(&sb, NULL);
}

const char *kit_id(const struct kit *kit)
{
	if (!kit->id)
		BUG("kit_id() of a kit that was not loaded");
	return kit->id;
}

char *kit_refname(const struct kit *kit, const struct kernel_branch *b, const char *variant)
{
	/* Variants are not under refs/heads/mkseries/<id>/<branch>, which is a ref itself. */
	if (variant && strcmp(variant, "kit"))
		return xstrfmt("refs/heads/mkseries-variants/%s/%s/%s", kit_id(kit), b->name,
			       variant);
	return xstrfmt("refs/heads/mkseries/%s/%s", kit_id(kit), b->name);
}

static int load(struct kit *kit, const char *dir, int with_series)
{
	struct loader ld = { kit, NULL, 0 };
	struct yfile sf = { 0 };

	memset(kit, 0, sizeof(*kit));
	kit->dir = realpath(dir, NULL);
	if (!kit->dir)
		return error_code(MKS_ECONFIG, "cannot open kit directory '%s': %s", dir,
				  strerror(errno));
	if (!dir_exists(kit->dir)) {
		kit_release(kit);
		return error_code(MKS_ECONFIG, "kit '%s' is not a directory", dir);
	}
	kit->id = make_kit_id(kit->dir);
	ld.prefix = display_prefix(dir);
	load_kernels(&ld);
	if (with_series)
		load_series(&ld, &sf);
	if (sf.loaded)
		check_kit(&sf);
	yfile_release(&sf);
	free(ld.prefix);
	if (ld.errors) {
		kit_release(kit);
		return MKS_ECONFIG;
	}
	return 0;
}

int kit_load(struct kit *kit, const char *dir)
{
	return load(kit, dir, 1);
}

int kit_load_kernels(struct kit *kit, const char *dir)
{
	return load(kit, dir, 0);
}

static void decisions_free(struct decision *d, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(d[i].branch);
		free(d[i].reason);
		free(d[i].path);
	}
	free(d);
}

static void patches_free(struct kit_patch *p, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(p[i].file);
		free(p[i].upstream);
		free(p[i].subject);
		free(p[i].link);
		free(p[i].stable);
		free(p[i].fixes);
		decisions_free(p[i].decisions, p[i].nr_decisions);
	}
	free(p);
}

void kit_release(struct kit *kit)
{
	size_t i, j;

	for (i = 0; i < kit->nr_series; i++) {
		struct kit_series *s = &kit->series[i];

		free(s->id);
		free(s->title);
		free(s->link);
		free(s->message_id);
		for (j = 0; j < s->nr_requires; j++)
			free(s->requires[j]);
		free(s->requires);
		free(s->requires_line);
		patches_free(s->patches, s->nr_patches);
		patches_free(s->fixups, s->nr_fixups);
		decisions_free(s->decisions, s->nr_decisions);
		claims_free(s->claims, s->nr_claims);
	}
	free(kit->series);
	for (i = 0; i < kit->nr_branches; i++) {
		struct kernel_branch *b = &kit->branches[i];

		free(b->name);
		free(b->path);
		free(b->source.repo);
		free(b->source.ref);
		free(b->source.repo_var);
		free(b->source.release);
		free(b->source.package);
		free(b->source.suite);
		free(b->source.tarball);
		free(b->arch);
		free(b->config_base);
		for (j = 0; j < b->nr_fragments; j++)
			free(b->fragments[j]);
		free(b->fragments);
		free(b->cross);
		free(b->image);
		free(b->build.ccache_remote);
		free(b->build.distcc_hosts);
		free(b->decisions);
		free(b->boot.console);
		free(b->boot.qemu);
		free(b->boot.machine);
		free(b->boot.cpu);
		free(b->boot.cmdline);
		free(b->boot.accel);
		free(b->boot.tcg_clock);
		free(b->boot.tcg_cache);
		for (j = 0; j < b->nr_variants; j++) {
			struct kernel_variant *v = &b->variants[j];
			size_t k;

			free(v->name);
			for (k = 0; k < v->nr_without; k++)
				free(v->without[k]);
			free(v->without);
			free(v->without_line);
			free(v->without_patch);
			for (k = 0; k < v->nr_with; k++)
				free(v->with[k]);
			free(v->with);
			free(v->with_line);
			free(v->with_patch);
			free(v->note);
			for (k = 0; k < v->nr_expect_fail; k++)
				free(v->expect_fail[k]);
			free(v->expect_fail);
			claims_free(v->claims, v->nr_claims);
		}
		free(b->variants);
		claims_free(b->claims, b->nr_claims);
		costs_free(b->costs, b->nr_costs);
	}
	free(kit->branches);
	free(kit->dir);
	free(kit->id);
	free(kit->by_id);
	memset(kit, 0, sizeof(*kit));
}
