/* kit/kernels.c: load kernels/<branch>.yaml: where a tree comes from, config, boot, variants; check a source before use. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "kit/arch.h"
#include "kit/model.h"
#include "kit/load.h"
#include "kit/variants.h"
#include "../../tcg-cache/contract.h"
#include "lib/util.h"

enum { K_NAME, K_DEFAULT, K_SOURCE, K_ARCH, K_CONFIG, K_BOOT, K_VARIANTS, K_VERDICTS, K_CLAIMS,
       K_CROSS, K_IMAGE, K_DECISIONS, K_KIND, K_COSTS, K_BUILD, K_NR };
static const char *const kernel_keys[] = {
	"name", "default", "source", "arch", "config", "boot", "variants", "verdicts", "claims",
	"cross", "image", "decisions", "kind", "costs", "build", NULL
};
enum { V_WITHOUT, V_NOTE, V_EXPECT_FAIL, V_CLAIMS, V_WITH, V_NR };
static const char *const variant_keys[] = { "without", "note", "expect-fail", "claims", "with", NULL };
enum { SRC_DEBIAN, SRC_GIT, SRC_TARBALL, SRC_NR };
static const char *const source_keys[] = { "debian", "git", "tarball", NULL };
static const char *const debian_keys[] = { "package", "suite", NULL };
static const char *const git_keys[] = { "repo", "ref", "release", NULL };
enum { C_BASE, C_FRAGMENTS, C_NR };
static const char *const config_keys[] = { "base", "fragments", NULL };
enum { BLD_CCACHE_REMOTE, BLD_DISTCC, BLD_NR };
static const char *const build_keys[] = { "ccache-remote", "distcc", NULL };
enum { B_QEMU, B_MACHINE, B_CPU, B_MEMORY, B_CPUS, B_CMDLINE, B_ACCEL, B_BOOT_TIMEOUT,
       B_RUN_TIMEOUT, B_TCG_CLOCK, B_TCG_CACHE, B_BOOTS, B_CONSOLE, B_NR };
static const char *const boot_keys[] = {
	"qemu", "machine", "cpu", "memory", "cpus", "cmdline", "accel", "boot-timeout",
	"run-timeout", "tcg-clock", "tcg-cache", "boots", "console", NULL
};

/*
 * The tcg-cache plugin's arguments a kernels file may set: the plugin's
 * own list. A number's value the plugin checks; a switch's we can here.
 */
#define SIZED_KEYS(name) TCG_CACHE_SIZE_KEY(name), TCG_CACHE_ASSOC_KEY(name),
#define LATENCY_KEY(name) TCG_CACHE_LATENCY_KEY(name),
static const char *const tcg_cache_keys[] = {
	TCG_CACHE_SIZED(SIZED_KEYS) TCG_CACHE_LATENCY(LATENCY_KEY) NULL
};
#undef SIZED_KEYS
#undef LATENCY_KEY
#define WORD_ENTRY(key, dflt, other) { #key, #dflt, #other },
static const struct {
	const char *key, *dflt, *other;
} tcg_cache_words[] = { TCG_CACHE_WORD(WORD_ENTRY) };
#undef WORD_ENTRY

/* Make targets that wait for a human; a build must never run them. */
static const char *const interactive_targets[] = {
	"config", "menuconfig", "nconfig", "xconfig", "gconfig", "oldconfig", NULL
};

/*
 * A git repo written "$VAR", "${VAR}" or either followed by "/sub":
 * a linux-stable clone each user keeps somewhere else. An unset VAR is
 * no error here; kernel_source_check() says so when the branch is used.
 */
static void parse_repo_var(struct yfile *f, int line, const char *repo, struct kernel_source *src)
{
	const char *p = repo + 1, *rest;
	char *name, *path;
	const char *val;
	size_t n;

	if (*p == '{') {
		p++;
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		rest = p[n] == '}' ? p + n + 1 : NULL;
	} else {
		n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		rest = p + n;
	}
	if (!n || isdigit((unsigned char)*p) || !rest || (*rest && *rest != '/')) {
		yfile_report(f, line, "'repo' '%s' must be a path, or $VAR or ${VAR} (an environment variable naming a directory) with an optional /path after it",
			     repo);
		return;
	}
	name = xstrndup(p, n);
	src->repo_var = name;
	val = getenv(name);
	if (!val || !*val)
		return;
	while (*rest == '/')
		rest++;
	path = *rest ? path_join(val, rest) : xstrdup(val);
	src->repo = kit_abspath(f, line, path);
	free(path);
}

static void parse_source(struct yfile *f, yaml_node_t *root, yaml_node_t *n,
			 struct kernel_source *src)
{
	yaml_node_t *v[SRC_NR], *sub[2];
	int count = 0, i, which = -1;

	if (!n) {
		yfile_report(f, ynode_line(root), "missing 'source' (one of: debian, git, tarball)");
		return;
	}
	if (yfile_map_fields(f, n, "'source'", source_keys, v))
		return;
	for (i = 0; i < SRC_NR; i++) {
		if (!v[i])
			continue;
		if (count++) {
			yfile_report(f, ynode_line(v[i]), "'source' must have only one of: debian, git, tarball");
			return;
		}
		which = i;
	}
	if (which < 0) {
		yfile_report(f, ynode_line(n), "'source' needs one of: debian, git, tarball");
		return;
	}
	switch (which) {
	case SRC_DEBIAN:
		src->kind = SOURCE_DEBIAN;
		if (yfile_map_fields(f, v[which], "'debian'", debian_keys, sub))
			return;
		yfile_need_str(f, sub[0], "package", ynode_line(v[which]), "'debian'", &src->package);
		yfile_need_str(f, sub[1], "suite", ynode_line(v[which]), "'debian'", &src->suite);
		/* Both reach apt on its command line. */
		if (src->package && src->package[0] == '-')
			yfile_report(f, ynode_line(sub[0]), "invalid package name '%s'", src->package);
		if (src->suite && src->suite[0] == '-')
			yfile_report(f, ynode_line(sub[1]), "invalid suite name '%s'", src->suite);
		break;
	case SRC_GIT: {
		yaml_node_t *gv[3];
		char *repo = NULL;

		src->kind = SOURCE_GIT;
		if (yfile_map_fields(f, v[which], "'git'", git_keys, gv))
			return;
		src->repo_line = src->ref_line = src->release_line = ynode_line(v[which]);
		yfile_need_str(f, gv[0], "repo", ynode_line(v[which]), "'git'", &repo);
		yfile_need_str(f, gv[1], "ref", ynode_line(v[which]), "'git'", &src->ref);
		if (gv[0])
			src->repo_line = ynode_line(gv[0]);
		if (gv[1])
			src->ref_line = ynode_line(gv[1]);
		if (repo && repo[0] == '$')
			parse_repo_var(f, src->repo_line, repo, src);
		else if (repo)
			src->repo = kit_abspath(f, src->repo_line, repo);
		free(repo);
		if (src->ref && src->ref[0] == '-')
			yfile_report(f, src->ref_line, "invalid ref '%s'", src->ref);
		if (gv[2]) {
			src->release_line = ynode_line(gv[2]);
			if (!yfile_get_str(f, gv[2], "release", &src->release) && !src->release)
				yfile_report(f, src->release_line, "'release' must not be empty");
			else if (src->release && src->release[0] == '-')
				yfile_report(f, src->release_line, "invalid release '%s'", src->release);
		}
		break;
	}
	case SRC_TARBALL: {
		char *path = NULL;

		src->kind = SOURCE_TARBALL;
		yfile_need_str(f, v[which], "tarball", ynode_line(n), "'source'", &path);
		if (path)
			src->tarball = kit_abspath(f, ynode_line(v[which]), path);
		free(path);
		break;
	}
	}
}

static void parse_config(struct yfile *f, yaml_node_t *n, struct kernel_branch *b)
{
	yaml_node_t *v[C_NR], **items;
	size_t nr, i;

	if (ynode_absent(n) || yfile_map_fields(f, n, "'config'", config_keys, v))
		return;
	if (v[C_BASE] && !yfile_get_str(f, v[C_BASE], "base", &b->config_base)) {
		const char *base = b->config_base;
		int target = !!*base;

		for (i = 0; base[i]; i++)
			if (!islower((unsigned char)base[i]) && !isdigit((unsigned char)base[i]) &&
			    base[i] != '_')
				target = 0;
		if (target && ends_with(base, "config")) {
			for (i = 0; interactive_targets[i]; i++)
				if (!strcmp(base, interactive_targets[i]))
					yfile_report(f, ynode_line(v[C_BASE]),
						     "config base '%s' is an interactive make target (use tinyconfig, defconfig, allnoconfig...)",
						     base);
		} else {
			b->config_base_is_file = 1;
			check_kit_path(f, ynode_line(v[C_BASE]), "config base", base, 0);
		}
	}
	items = yfile_seq_nodes(f, v[C_FRAGMENTS], "fragments", 1, &nr);
	if (nr)
		b->fragments = xcalloc(nr, sizeof(*b->fragments));
	for (i = 0; i < nr; i++) {
		char *frag = NULL;

		if (yfile_get_str(f, items[i], "fragments", &frag) || !frag)
			continue;
		check_kit_path(f, ynode_line(items[i]), "config fragment", frag, 0);
		b->fragments[b->nr_fragments++] = frag;
	}
	free(items);
}

/*
 * `build:` of a kernel file: where compiler output is shared (ccache's
 * remote_storage, as ccache writes it) and which distcc hosts compile
 * (distcc's host specifications). Only what a shell word may carry.
 */
static void parse_build(struct yfile *f, yaml_node_t *n, struct kernel_build *kb)
{
	yaml_node_t *v[BLD_NR], **items;
	struct strbuf hosts = STRBUF_INIT;
	size_t nr, i;

	if (ynode_absent(n) || yfile_map_fields(f, n, "'build'", build_keys, v))
		return;
	if (v[BLD_CCACHE_REMOTE] &&
	    !yfile_get_str(f, v[BLD_CCACHE_REMOTE], "ccache-remote", &kb->ccache_remote)) {
		kb->ccache_remote_line = ynode_line(v[BLD_CCACHE_REMOTE]);
		if (!kb->ccache_remote || !*kb->ccache_remote || !strstr(kb->ccache_remote, "://"))
			yfile_report(f, kb->ccache_remote_line,
				     "'ccache-remote' must be a ccache remote storage URL such as redis://HOST:PORT, not '%s'",
				     kb->ccache_remote ? kb->ccache_remote : "");
	}
	items = yfile_seq_nodes(f, v[BLD_DISTCC], "distcc", 1, &nr);
	for (i = 0; i < nr; i++) {
		char *host = NULL;

		if (yfile_get_str(f, items[i], "distcc", &host) || !host)
			continue;
		if (!*host || host[strcspn(host, " \t\n\"'")])
			yfile_report(f, ynode_line(items[i]),
				     "a distcc host must be one host specification such as 10.0.0.2/8 or 10.0.0.2:3632/8, not '%s'",
				     host);
		else
			strbuf_addf(&hosts, "%s%s", hosts.len ? " " : "", host);
		free(host);
	}
	free(items);
	if (hosts.len) {
		kb->distcc_hosts = strbuf_detach(&hosts, NULL);
		kb->distcc_line = ynode_line(v[BLD_DISTCC]);
	}
	strbuf_release(&hosts);
}

static void parse_memory(struct yfile *f, yaml_node_t *n, unsigned *out)
{
	const char *v, *unit;
	unsigned u, mult = 1;

	if (ynode_absent(n))
		return;
	v = yfile_scalar(f, n, "memory", "a number");
	if (!v)
		return;
	unit = v + strspn(v, "0123456789");
	if (!strcasecmp(unit, "g") || !strcasecmp(unit, "gib"))
		mult = 1024;
	else if (*unit && strcasecmp(unit, "m") && strcasecmp(unit, "mib"))
		unit = NULL;
	if (!unit || parse_digits(v, unit - v, &u)) {
		yfile_report(f, ynode_line(n), "'memory' must be MiB as a number, or a size like 512M or 2G, not '%s'",
			     v);
		return;
	}
	if (u > 1048576 / mult || u * mult < 64) {
		yfile_report(f, ynode_line(n), "'memory' must be between 64M and 1024G, not '%s'", v);
		return;
	}
	*out = u * mult;
}

/*
 * Whether item (len bytes, "KEY=VALUE") is one of the plugin's
 * arguments; if not, reports why at line and returns -1.
 */
static int check_tcg_cache_item(struct yfile *f, int line, const char *item, size_t len)
{
	size_t klen = strcspn(item, "=,"), k;
	const char *val = item + klen + 1;
	size_t vlen = klen < len ? len - klen - 1 : 0;

	for (k = 0; klen < len && k < ARRAY_SIZE(tcg_cache_words); k++) {
		const char *key = tcg_cache_words[k].key, *dflt = tcg_cache_words[k].dflt;
		const char *other = tcg_cache_words[k].other;

		if (strlen(key) != klen || strncmp(item, key, klen))
			continue;
		if ((strlen(dflt) == vlen && !strncmp(val, dflt, vlen)) ||
		    (strlen(other) == vlen && !strncmp(val, other, vlen)))
			return 0;
		yfile_report(f, line, "'tcg-cache' takes %s=%s or %s=%s, not '%.*s'", key, dflt, key,
			     other, (int)len, item);
		return -1;
	}
	for (k = 0; klen < len && tcg_cache_keys[k]; k++)
		if (strlen(tcg_cache_keys[k]) == klen && !strncmp(item, tcg_cache_keys[k], klen))
			break;
	if (klen + 1 >= len || !tcg_cache_keys[k] ||
	    strspn(val, "abcdefghijklmnopqrstuvwxyzKMG0123456789") != vlen) {
		yfile_report(f, line,
			     "'tcg-cache' takes KEY=VALUE,... of the plugin's model "
			     "(l1d_size=48K, mem_latency=350, stores=stall, ...), not '%.*s'",
			     (int)len, item);
		return -1;
	}
	return 0;
}

/*
 * boot.tcg-cache: "KEY=VALUE,KEY=VALUE", the plugin's own arguments,
 * handed to it as written. The keys are checked here, a switch's value
 * and a number's characters; the plugin checks the numbers themselves
 * when QEMU loads it. out= is mkseries' own: the counts must reach the
 * console.
 */
static void parse_tcg_cache(struct yfile *f, yaml_node_t *n, const struct kernel_boot *boot,
			    char **out)
{
	const char *item;

	if (yfile_get_str(f, n, "tcg-cache", out) || !*out)
		return;
	if (!boot->tcg_clock || strcmp(boot->tcg_clock, "modelled")) {
		yfile_report(f, ynode_line(n), "'tcg-cache' sets the model of 'tcg-clock: modelled', "
			     "which this file does not ask for");
		return;
	}
	for (item = *out;; item++) {
		size_t len = strcspn(item, ",");

		if (check_tcg_cache_item(f, ynode_line(n), item, len))
			return;
		item += len;
		if (!*item)
			return;
	}
}

static void parse_boot(struct yfile *f, yaml_node_t *n, struct kernel_boot *boot)
{
	yaml_node_t *v[B_NR];

	if (ynode_absent(n) || yfile_map_fields(f, n, "'boot'", boot_keys, v))
		return;
	yfile_get_str(f, v[B_QEMU], "qemu", &boot->qemu);
	yfile_get_str(f, v[B_MACHINE], "machine", &boot->machine);
	yfile_get_str(f, v[B_CPU], "cpu", &boot->cpu);
	parse_memory(f, v[B_MEMORY], &boot->memory_mb);
	yfile_get_uint(f, v[B_CPUS], "cpus", 1, 1024, &boot->cpus);
	yfile_get_str(f, v[B_CMDLINE], "cmdline", &boot->cmdline);
	if (!yfile_get_str(f, v[B_CONSOLE], "console", &boot->console) && boot->console &&
	    (!isalpha((unsigned char)*boot->console) ||
	     boot->console[strspn(boot->console, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789,")]))
		yfile_report(f, ynode_line(v[B_CONSOLE]),
			     "'console' must be a device name such as ttyS0 or ttyAMA0, not '%s'",
			     boot->console);
	if (!yfile_get_str(f, v[B_ACCEL], "accel", &boot->accel) && strcmp(boot->accel, "auto") &&
	    strcmp(boot->accel, "kvm") && strcmp(boot->accel, "tcg"))
		yfile_report(f, ynode_line(v[B_ACCEL]), "'accel' must be auto, kvm or tcg, not '%s'",
			     boot->accel);
	yfile_get_uint(f, v[B_BOOT_TIMEOUT], "boot-timeout", 1, 7 * 86400, &boot->boot_timeout);
	yfile_get_uint(f, v[B_RUN_TIMEOUT], "run-timeout", 1, 7 * 86400, &boot->run_timeout);
	if (!yfile_get_str(f, v[B_TCG_CLOCK], "tcg-clock", &boot->tcg_clock) &&
	    strcmp(boot->tcg_clock, "instructions") && strcmp(boot->tcg_clock, "modelled") &&
	    strcmp(boot->tcg_clock, "host"))
		yfile_report(f, ynode_line(v[B_TCG_CLOCK]),
			     "'tcg-clock' must be instructions, modelled or host, not '%s'",
			     boot->tcg_clock);
	parse_tcg_cache(f, v[B_TCG_CACHE], boot, &boot->tcg_cache);
	yfile_get_uint(f, v[B_BOOTS], "boots", 1, 100, &boot->boots);
}

/* The kit entries a variant's `without` or `with` (`key`) names, as written. */
static void parse_variant_entries(struct yfile *f, yaml_node_t *n, const char *key,
				  const struct kernel_variant *v, char ***names, int **lines,
				  struct kit_patch ***patches, size_t *count)
{
	yaml_node_t **items;
	size_t nr, i;

	if (!n)
		return;
	items = yfile_seq_nodes(f, n, key, 1, &nr);
	if (!nr && (ynode_absent(n) || n->type == YAML_SEQUENCE_NODE))
		yfile_report(f, ynode_line(n), "'%s' of variant '%s' names no kit entry", key, v->name);
	if (nr) {
		*names = xcalloc(nr, sizeof(**names));
		*lines = xcalloc(nr, sizeof(**lines));
		*patches = xcalloc(nr, sizeof(**patches));
	}
	for (i = 0; i < nr; i++) {
		char *w = NULL;

		if (yfile_get_str(f, items[i], key, &w))
			continue;
		if (!w) {
			yfile_report(f, ynode_line(items[i]), "'%s' of variant '%s' has an empty entry", key,
				     v->name);
			continue;
		}
		(*lines)[*count] = ynode_line(items[i]);
		(*names)[(*count)++] = w;
	}
	free(items);
}

/* One variant: `without` or `with` (one at least), `note`, `expect-fail`, `claims`. */
static void parse_variant(struct yfile *f, yaml_node_t *n, struct kernel_variant *v)
{
	yaml_node_t *fields[V_NR], **items;
	size_t nr, i, j;

	if (yfile_map_fields(f, n, "a variant", variant_keys, fields))
		return;
	if (!fields[V_WITHOUT] && !fields[V_WITH])
		yfile_report(f, v->line, "variant '%s' has no 'without' (the kit entries it leaves out) "
			     "nor 'with' (patches the kit skips that it applies)", v->name);
	parse_variant_entries(f, fields[V_WITHOUT], "without", v, &v->without, &v->without_line,
			      &v->without_patch, &v->nr_without);
	parse_variant_entries(f, fields[V_WITH], "with", v, &v->with, &v->with_line,
			      &v->with_patch, &v->nr_with);
	yfile_get_str(f, fields[V_NOTE], "note", &v->note);
	items = yfile_seq_nodes(f, fields[V_EXPECT_FAIL], "expect-fail", 1, &nr);
	if (nr)
		v->expect_fail = xcalloc(nr, sizeof(*v->expect_fail));
	for (i = 0; i < nr; i++) {
		char *c = NULL;

		if (yfile_get_str(f, items[i], "expect-fail", &c) || !c)
			continue;
		if (!valid_case_name(c)) {
			yfile_report(f, ynode_line(items[i]),
				     "invalid case name '%s' in 'expect-fail' of variant '%s' (mm-regress cases are named with lowercase letters, digits and '_')",
				     c, v->name);
			free(c);
			continue;
		}
		for (j = 0; j < v->nr_expect_fail && strcmp(v->expect_fail[j], c); j++)
			;
		if (j < v->nr_expect_fail) {
			yfile_report(f, ynode_line(items[i]), "variant '%s' expects '%s' to fail twice", v->name, c);
			free(c);
			continue;
		}
		v->expect_fail[v->nr_expect_fail++] = c;
	}
	free(items);
	parse_claims(f, fields[V_CLAIMS], &v->claims, &v->nr_claims);
}

/* `variants:` of a kernel file: name -> { without, note, expect-fail }, in file order. */
static void parse_variants(struct yfile *f, yaml_node_t *map, struct kernel_branch *b)
{
	yaml_node_pair_t *pair;

	if (ynode_absent(map))
		return;
	if (map->type != YAML_MAPPING_NODE) {
		yfile_report(f, ynode_line(map), "'variants' must be a mapping of variant names to what each leaves out, not %s",
			     ynode_kind_name(map));
		return;
	}
	b->variants = xcalloc(map->data.mapping.pairs.top - map->data.mapping.pairs.start,
			      sizeof(*b->variants));
	for (pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
		const char *name = yfile_key_text(f, map, pair);
		struct kernel_variant *v;

		if (!name)
			continue;
		v = &b->variants[b->nr_variants++];
		v->name = xstrdup(name);
		v->line = ynode_line(yfile_node(f, pair->key));
		if (variant_name_taken(name))
			yfile_report(f, v->line, "variant name '%s' is taken (base and kit are every branch's own, %s is bisect's)",
				     name, VARIANT_BISECT);
		else if (!variant_name_ok(name))
			yfile_report(f, v->line, "invalid variant name '%s' (lowercase letters, digits and '-', starting with a letter or digit)",
				     name);
		parse_variant(f, yfile_node(f, pair->value), v);
	}
}

/* The `than` of the kernel file's claims and of its variants', once every variant is known. */
static void check_branch_claims(struct yfile *f, const struct kernel_branch *b)
{
	size_t i;

	check_claims_than(f, b->claims, b->nr_claims, OWNER_BRANCH, b, NULL);
	for (i = 0; i < b->nr_variants; i++)
		check_claims_than(f, b->variants[i].claims, b->variants[i].nr_claims, OWNER_VARIANT,
				  b, b->variants[i].name);
}

/* A path inside make's O= directory: relative, without "..", of ordinary characters. */
static int valid_image_path(const char *s)
{
	return *s && *s != '/' && !strstr(s, "..") && !ends_with(s, "/") &&
	       !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/-")];
}

/* cross, image and decisions: what the architecture of a branch changes beyond `arch`. */
static void parse_arch_keys(struct yfile *f, yaml_node_t **v, struct kernel_branch *b)
{
	if (!yfile_get_str(f, v[K_CROSS], "cross", &b->cross) && b->cross &&
	    (!ends_with(b->cross, "-") || *b->cross == '-' ||
	     b->cross[strspn(b->cross, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+-")]))
		yfile_report(f, ynode_line(v[K_CROSS]),
			     "'cross' must be a compiler prefix ending in '-', such as aarch64-linux-gnu-, not '%s'",
			     b->cross);
	if (!yfile_get_str(f, v[K_IMAGE], "image", &b->image) && b->image && !valid_image_path(b->image))
		yfile_report(f, ynode_line(v[K_IMAGE]),
			     "'image' must be a path inside the build directory, such as arch/arm64/boot/Image, not '%s'",
			     b->image);
	if (!yfile_get_str(f, v[K_DECISIONS], "decisions", &b->decisions) && b->decisions) {
		b->decisions_line = ynode_line(v[K_DECISIONS]);
		if (!strcmp(b->decisions, b->name)) {
			free(b->decisions);
			b->decisions = NULL;
		}
	}
}

/* `kind: stable` or `kind: distro`: which policy rule the branch's decisions follow. */
static void parse_kind(struct yfile *f, yaml_node_t *n, struct kernel_branch *b)
{
	const char *text;

	if (ynode_absent(n))
		return;
	b->kind_line = ynode_line(n);
	text = yfile_scalar(f, n, "kind", "stable or distro");
	if (!text)
		return;
	if (!strcmp(text, "stable"))
		b->kind = BRANCH_STABLE;
	else if (!strcmp(text, "distro"))
		b->kind = BRANCH_DISTRO;
	else
		yfile_report(f, b->kind_line,
			     "'kind' must be stable (fixes only, as the upstream stable rules say) or distro (also performance work a claim shows), not '%s'",
			     text);
}

/* What the kernel file left unsaid about booting comes from its architecture. */
static void boot_defaults(struct kernel_boot *boot, const struct arch_info *a)
{
	if (!a)
		a = arch_find(ARCH_DEFAULT);
	if (!boot->qemu)
		boot->qemu = xstrdup(a->qemu);
	if (!boot->machine && a->qemu_machine)
		boot->machine = xstrdup(a->qemu_machine);
	if (!boot->cpu && a->qemu_cpu)
		boot->cpu = xstrdup(a->qemu_cpu);
	if (!boot->console)
		boot->console = xstrdup(a->console);
}

static void load_kernel(struct loader *ld, struct kernel_branch *b, const char *file)
{
	struct yfile f = { 0 };
	yaml_node_t *root, *v[K_NR];
	char *name = NULL;

	b->name = xstrndup(file, strlen(file) - strlen(".yaml"));
	b->path = xstrfmt("kernels/%s", file);
	b->arch = xstrdup(ARCH_DEFAULT);
	b->config_base = xstrdup("defconfig");
	b->is_default = 1;
	b->boot.memory_mb = 2048;
	b->boot.cpus = 2;
	b->boot.boot_timeout = 300;
	b->boot.run_timeout = 900;
	b->boot.accel = xstrdup("auto");
	b->boot.tcg_clock = xstrdup("instructions");
	b->boot.boots = 2;

	root = yfile_load(&f, ld, b->path);
	if (!root)
		goto cleanup;
	b->line = ynode_line(root);
	if (!valid_branch_name(b->name))
		yfile_report(&f, 1, "invalid branch name '%s' (letters, digits, '.', '_' and '-')", b->name);
	if (yfile_map_fields(&f, root, "a kernel file", kernel_keys, v))
		goto cleanup;
	if (!v[K_NAME])
		yfile_report(&f, b->line, "missing 'name' (expected '%s')", b->name);
	else if (!yfile_get_str(&f, v[K_NAME], "name", &name) && (!name || strcmp(name, b->name)))
		yfile_report(&f, ynode_line(v[K_NAME]), "name '%s' does not match the file name (expected '%s')",
			     name ? name : "", b->name);
	yfile_get_bool(&f, v[K_DEFAULT], "default", &b->is_default);
	parse_source(&f, root, v[K_SOURCE], &b->source);
	if (!yfile_get_str(&f, v[K_ARCH], "arch", &b->arch) && !arch_find(b->arch))
		yfile_report(&f, ynode_line(v[K_ARCH]), "unknown arch '%s' (known: %s)", b->arch,
			     arch_names());
	parse_arch_keys(&f, v, b);
	parse_config(&f, v[K_CONFIG], b);
	parse_boot(&f, v[K_BOOT], &b->boot);
	parse_build(&f, v[K_BUILD], &b->build);
	boot_defaults(&b->boot, arch_find(b->arch));
	parse_variants(&f, v[K_VARIANTS], b);
	parse_kind(&f, v[K_KIND], b);
	parse_verdicts(&f, v[K_VERDICTS], &b->threshold_pct);
	parse_costs(&f, v[K_COSTS], &b->costs, &b->nr_costs);
	parse_claims(&f, v[K_CLAIMS], &b->claims, &b->nr_claims);
	check_branch_claims(&f, b);
cleanup:
	free(name);
	yfile_release(&f);
}

/* Numbers compare as numbers, so 5.10 < 6.1 < 6.12 < 7.2; a shorter name sorts first. */
static int version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			size_t la, lb;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			la = strspn(a, "0123456789");
			lb = strspn(b, "0123456789");
			if (la != lb)
				return la < lb ? -1 : 1;
			if (strncmp(a, b, la))
				return strncmp(a, b, la);
			a += la;
			b += lb;
			continue;
		}
		if (*a != *b) {
			if (!*a || *a == '.')
				return -1;
			if (!*b || *b == '.')
				return 1;
			return (unsigned char)*a - (unsigned char)*b;
		}
		a++;
		b++;
	}
	return 0;
}

static int cmp_branch(const void *a, const void *b)
{
	const struct kernel_branch *x = a, *y = b;

	return version_cmp(x->name, y->name);
}

void load_kernels(struct loader *ld)
{
	struct kit *kit = ld->kit;
	struct strvec names = STRVEC_INIT;
	char *dir = path_join(kit->dir, "kernels");
	struct dirent *de;
	DIR *d;
	size_t i;

	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT) {
			error("cannot read '%skernels': %s", ld->prefix, strerror(errno));
			ld->errors++;
		}
		goto cleanup;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && ends_with(de->d_name, ".yaml"))
			strvec_push(&names, de->d_name);
	closedir(d);
	if (!names.nr)
		goto cleanup;
	qsort(names.v, names.nr, sizeof(*names.v), strp_cmp);
	kit->branches = xcalloc(names.nr, sizeof(*kit->branches));
	for (i = 0; i < names.nr; i++)
		load_kernel(ld, &kit->branches[kit->nr_branches++], names.v[i]);
	qsort(kit->branches, kit->nr_branches, sizeof(*kit->branches), cmp_branch);
cleanup:
	strvec_clear(&names);
	free(dir);
}

int kernel_source_check(const struct kernel_branch *b)
{
	const struct kernel_source *s = &b->source;
	struct stat st;

	if (s->kind != SOURCE_GIT)
		return 0;
	if (!s->repo && s->repo_var)
		return error_code(MKS_ECONFIG,
				  "%s:%d: branch '%s' takes its tree from the git repository $%s names, and $%s is not set (point it at a linux-stable clone: export %s=~/src/linux-stable)",
				  b->path, s->repo_line, b->name, s->repo_var, s->repo_var, s->repo_var);
	if (!s->repo)
		return error_code(MKS_ECONFIG, "%s:%d: branch '%s' names no git repository",
				  b->path, s->repo_line, b->name);
	if (stat(s->repo, &st) || !S_ISDIR(st.st_mode)) {
		if (s->repo_var)
			return error_code(MKS_ECONFIG,
					  "%s:%d: branch '%s': no git repository at '%s' (from $%s)",
					  b->path, s->repo_line, b->name, s->repo, s->repo_var);
		return error_code(MKS_ECONFIG, "%s:%d: branch '%s': no git repository at '%s'",
				  b->path, s->repo_line, b->name, s->repo);
	}
	return 0;
}
