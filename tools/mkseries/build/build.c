/* build/build.c: build a variant of a branch: materialise its tree, merge the config fragments, make bzImage. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kit/arch.h"
#include "build/build.h"
#include "lib/progress.h"
#include "lib/gitutil.h"
#include "build/ccache.h"
#include "build/image.h"
#include "build/kconfig.h"
#include "record/key.h"
#include "record/record.h"
#include "tree/workdir.h"

/* ------------------------------------------------------------------ */
/* Reading a build log */

/* Whether line starts with "PATH:LINE:" (and an optional "COL:"); *rest is after it. */
static int has_location(const char *line, const char **rest)
{
	const char *p = line;

	while (*p && *p != ':' && *p != ' ')
		p++;
	if (p == line || *p != ':' || !isdigit((unsigned char)p[1]))
		return 0;
	p++;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p != ':')
		return 0;
	p++;
	if (isdigit((unsigned char)*p)) {
		while (isdigit((unsigned char)*p))
			p++;
		if (*p != ':')
			return 0;
		p++;
	}
	*rest = p;
	return 1;
}

char *build_first_error(const char *log, const char *srcdir)
{
	const char *p = log, *linker = NULL, *make = NULL;
	size_t linker_len = 0, make_len = 0, slen = srcdir ? strlen(srcdir) : 0;

	while (*p) {
		const char *eol = strchrnul(p, '\n'), *rest;
		char *line = xstrndup(p, eol - p);

		if (has_location(line, &rest) &&
		    (starts_with(rest, " error: ") || starts_with(rest, " fatal error: "))) {
			const char *shown = line;

			if (slen && !strncmp(line, srcdir, slen) && line[slen] == '/')
				shown += slen + 1;
			rest = xstrdup(shown);
			free(line);
			return (char *)rest;
		}
		if (!linker && (strstr(line, "undefined reference to") ||
				(starts_with(line, "ld: ") && strstr(line, "error"))))
			linker = p, linker_len = eol - p;
		if (!make && strstr(line, "*** ") && starts_with(line, "make"))
			make = p, make_len = eol - p;
		free(line);
		p = *eol ? eol + 1 : eol;
	}
	if (linker)
		return xstrndup(linker, linker_len);
	if (make)
		return xstrndup(make, make_len);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Building a variant */

void build_result_release(struct build_result *r)
{
	free(r->bzimage);
	free(r->log);
	free(r->config_hash);
	free(r->failure);
	free(r->details);
	free(r->notes);
	strbuf_release(&r->why);
	memset(r, 0, sizeof(*r));
}

/* What the progress line of a build shows. */
struct build_progress {
	struct progress line;
	const char *label;
	double start;
	char last[160];
	int changed;
	size_t objects;		/* kbuild's CC and AS lines so far: the objects made */
	size_t expect;		/* what the last full build of these inputs made, 0: unknown */
	double first;		/* mono_seconds() of the first object */
};

/*
 * ", 1,234 of 2,961 objects (41%, about 3m10s left)": the objects made
 * so far against what the last full build of the same tree and config
 * made, the time left at the pace so far; without a figure to go by,
 * the count alone.
 */
static void build_progress_figures(struct strbuf *sb, const struct build_progress *pg)
{
	double took = mono_seconds() - pg->first;
	size_t pct;

	if (!pg->objects)
		return;
	if (!pg->expect) {
		strbuf_addf(sb, ", %s objects", thousands(pg->objects));
		return;
	}
	pct = pg->objects >= pg->expect ? 99 : pg->objects * 100 / pg->expect;
	strbuf_addf(sb, ", %s of %s objects (%zu%%", thousands(pg->objects),
		    thousands(pg->expect), pct);
	/* A pace needs a few objects and a few seconds behind it. */
	if (pg->objects >= 5 && pg->objects < pg->expect && took >= 3)
		strbuf_addf(sb, ", about %s left",
			    format_duration((pg->expect - pg->objects) * took / pg->objects));
	strbuf_addch(sb, ')');
}

/* A new kbuild line at most every line.interval, the clock alone every second. */
static void build_progress_draw(struct build_progress *pg, int force)
{
	struct strbuf figures = STRBUF_INIT;

	if (!force && !pg->changed && pg->line.drawn && mono_seconds() - pg->line.drawn < 1)
		return;
	build_progress_figures(&figures, pg);
	if (progress_show(&pg->line, force, "%s: building %s%s%s%s", pg->label,
			  format_duration(mono_seconds() - pg->start), figures.buf,
			  pg->last[0] ? "  " : "", pg->last))
		pg->changed = 0;
	strbuf_release(&figures);
}

/* Keep kbuild's "  CC      mm/mremap.o" lines, with the spaces folded. */
static void build_on_line(void *data, const char *line)
{
	struct build_progress *pg = data;
	const char *p = line;
	size_t n = 0;

	if (line[0] != ' ' || line[1] != ' ' || !isupper((unsigned char)line[2]))
		return;
	while (*p == ' ')
		p++;
	while (*p && n < sizeof(pg->last) - 1) {
		if (*p == ' ') {
			while (p[1] == ' ')
				p++;
		}
		pg->last[n++] = *p++;
	}
	pg->last[n] = '\0';
	pg->changed = 1;
	/* Each object is one "CC" (or "AS") line, "CC [M]" for a module's. */
	if (starts_with(pg->last, "CC ") || starts_with(pg->last, "AS ")) {
		if (!pg->objects++)
			pg->first = mono_seconds();
	}
}

static int build_on_tick(void *data)
{
	build_progress_draw(data, 0);
	return 0;
}

/* Everything a make run of this variant shares. */
struct make_ctx {
	const char *src, *out, *log;
	const struct arch_info *arch;
	const char *cross;	/* CROSS_COMPILE, "" for the host's own compiler */
	unsigned jobs;
	const struct ccache_plan *ccache;
	char *timestamp;
	struct build_progress *pg;
	int uncached;		/* ccache only runs the compiler (CCACHE_DISABLE) */
};

/* make's ARCH=: the arch's directory, but x86_64 keeps its own name (it picks 64-bit in Kconfig). */
static const char *make_arch(const struct arch_info *a)
{
	return !strcmp(a->name, "x86_64") ? "x86_64" : a->srcarch;
}

/*
 * The make variables and environment that decide what a build makes,
 * apart from the tree, its paths, -j and the commit's timestamp: the
 * build's key holds them (build_inputs()), run_make() passes them.
 */
static void make_settings(struct strvec *args, struct strvec *env, const struct arch_info *arch,
			  const char *cross, int ccache)
{
	/* ARCH= always, so that a tree never guesses from the host. */
	strvec_pushf(args, "ARCH=%s", make_arch(arch));
	if (*cross)
		strvec_pushf(args, "CROSS_COMPILE=%s", cross);
	if (ccache)
		strvec_pushf(args, "CC=ccache %sgcc", cross);
	strvec_pushl(env, "LC_ALL=C", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", NULL);
	strvec_pushl(env, "KBUILD_BUILD_USER=mkseries", "KBUILD_BUILD_HOST=mkseries",
		      "KBUILD_BUILD_VERSION=1", NULL);
}

/* Append to a build log; a log that cannot be written shows in make's own run. */
__attribute__((format(printf, 2, 3)))
static void append_log(const char *path, const char *fmt, ...)
{
	FILE *f = fopen(path, "a");
	va_list ap;

	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* Run make with the variant's settings and `target`; returns make's exit status or -1. */
static int run_make(struct make_ctx *m, const char *target)
{
	struct child c = CHILD_INIT;
	int status;
	size_t i;
	FILE *f;

	strvec_pushl(&c.argv, "make", "-C", m->src, NULL);
	strvec_pushf(&c.argv, "O=%s", m->out);
	make_settings(&c.argv, &c.env, m->arch, m->cross, m->ccache->enabled);
	if (m->jobs)
		strvec_pushf(&c.argv, "-j%u", m->jobs);
	strvec_push(&c.argv, target);
	strvec_pushf(&c.env, "KBUILD_BUILD_TIMESTAMP=%s", m->timestamp);
	for (i = 0; i < m->ccache->env.nr; i++)
		strvec_push(&c.env, m->ccache->env.v[i]);
	if (m->uncached)
		strvec_push(&c.env, "CCACHE_DISABLE=1");
	c.log_path = m->log;
	c.err_to_out = 1;
	if (m->pg) {
		c.on_line = build_on_line;
		c.on_tick = build_on_tick;
		c.data = m->pg;
	}
	f = fopen(m->log, "a");
	if (f) {
		fputs("$", f);
		for (i = 0; i < c.env.nr; i++)
			if (strchr(c.env.v[i], '=')) {
				char *shown = redact_url(c.env.v[i]);

				fprintf(f, strchr(shown, ' ') ? " '%s'" : " %s", shown);
				free(shown);
			}
		for (i = 0; i < c.argv.nr; i++)
			fprintf(f, strchr(c.argv.v[i], ' ') ? " '%s'" : " %s", c.argv.v[i]);
		fputc('\n', f);
		fclose(f);
	}
	status = child_run(&c);
	child_release(&c);
	return status;
}

/* A make target that writes a .config: tinyconfig, defconfig, x86_64_defconfig ... */
static int is_config_target(const char *s)
{
	const char *p;

	if (!ends_with(s, "config") || strlen(s) > 64)
		return 0;
	for (p = s; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

/* The first line of `<cross>gcc --version`, or "none". Caller frees. */
static char *compiler_version(const char *cross)
{
	char *gcc = xstrfmt("%sgcc", cross ? cross : "");
	char *v = program_version(gcc, "none");

	free(gcc);
	return v;
}

/*
 * Everything that decides what the build makes besides the commit: the
 * config base, the fragments' text, the make variables (ccache among
 * them) and the compiler.
 */
/*
 * Close the part of inputs that began at *start as "NAME:HASH" in parts
 * (NAME's spaces and percent signs %-encoded), for a reader to name
 * which input changed; the next part begins where this one ends.
 */
static void input_part(struct strbuf *parts, const struct strbuf *inputs, size_t *start,
		       const char *name)
{
	char *hash = blob_hash_hex(inputs->buf + *start, inputs->len - *start);
	const char *p;

	if (parts->len)
		strbuf_addch(parts, ' ');
	for (p = name; *p; p++)
		if (*p == ' ' || *p == '%')
			strbuf_addf(parts, "%%%02X", (unsigned char)*p);
		else
			strbuf_addch(parts, *p);
	strbuf_addf(parts, ":%s", hash);
	*start = inputs->len;
	free(hash);
}

static int build_inputs(struct strbuf *inputs, struct strbuf *parts, struct kconfig_frag *frag,
			const struct kit *kit, const struct kernel_branch *b)
{
	size_t start = inputs->len;
	const char *base = b->config_base;
	char *path = kit_file(kit, base), *compiler = compiler_version(branch_cross(b));
	int ret = 0;
	size_t i;

	struct strvec args = STRVEC_INIT, env = STRVEC_INIT;
	char *make = program_version("make", "none");
	int ccache = program_on_path("ccache");

	strbuf_addf(inputs, "arch %s\ncross %s\nimage %s\nccache %d\ncompiler %s\nbase %s\n",
		    b->arch, branch_cross(b), branch_image(b),
		    ccache, compiler, base);
	/* How make runs: which make, and every variable and environment setting it gets. */
	strbuf_addf(inputs, "make %s\n", make);
	make_settings(&args, &env, branch_arch(b), branch_cross(b), ccache);
	for (i = 0; i < args.nr; i++)
		strbuf_addf(inputs, "make-arg %s\n", args.v[i]);
	for (i = 0; i < env.nr; i++)
		strbuf_addf(inputs, "make-env %s\n", env.v[i]);
	strvec_clear(&args);
	strvec_clear(&env);
	free(make);
	free(compiler);
	input_part(parts, inputs, &start, "tools");
	if (!is_config_target(base) || file_exists(path)) {
		struct strbuf sb = STRBUF_INIT;

		if (strbuf_read_file(&sb, path))
			ret = error_code(MKS_ECONFIG,
					 "%s:%d: config base '%s' is neither a file in the kit nor a *config make target",
					 b->path, b->line, base);
		strbuf_addf(inputs, "base-file %zu\n", sb.len);
		strbuf_add(inputs, sb.buf, sb.len);
		strbuf_release(&sb);
	}
	free(path);
	input_part(parts, inputs, &start, "config-base");
	for (i = 0; i < b->nr_fragments; i++) {
		char *fp = kit_file(kit, b->fragments[i]), *name;
		struct strbuf sb = STRBUF_INIT;

		if (strbuf_read_file(&sb, fp)) {
			ret = error_code(MKS_ECONFIG, "%s: cannot read config fragment '%s': %s",
					 b->path, b->fragments[i], strerror(errno));
		} else {
			strbuf_addf(inputs, "fragment %s %zu\n", b->fragments[i], sb.len);
			strbuf_add(inputs, sb.buf, sb.len);
			if (kconfig_frag_parse(frag, b->fragments[i], sb.buf, sb.len))
				ret = MKS_ECONFIG;
		}
		name = xstrfmt("fragment %s", b->fragments[i]);
		input_part(parts, inputs, &start, name);
		free(name);
		strbuf_release(&sb);
		free(fp);
	}
	return ret;
}

char *build_inputs_hash(const struct kit *kit, const struct kernel_branch *b, char **parts)
{
	struct kconfig_frag frag = KCONFIG_FRAG_INIT;
	struct strbuf inputs = STRBUF_INIT, sb = STRBUF_INIT;
	char *hash = NULL;

	if (!build_inputs(&inputs, &sb, &frag, kit, b))
		hash = blob_hash_hex(inputs.buf, inputs.len);
	if (parts)
		*parts = hash ? strbuf_detach(&sb, NULL) : NULL;
	kconfig_frag_release(&frag);
	strbuf_release(&inputs);
	strbuf_release(&sb);
	return hash;
}

char *branch_compiler_missing(const struct kernel_branch *b)
{
	const struct arch_info *a = branch_arch(b);
	const char *cross = branch_cross(b);
	char *gcc, *ret = NULL;

	if (!*cross)
		return NULL;
	gcc = xstrfmt("%sgcc", cross);
	if (!program_on_path(gcc))
		ret = xstrfmt("%s:%d: cannot build arch %s: no '%s' on PATH (%s: make deps, or apt-get install %s)",
			      b->path, b->line, a->name, gcc,
			      b->cross ? "the kit's cross: prefix" : "Debian's cross compiler",
			      a->cross_packages);
	free(gcc);
	return ret;
}

/* MKS_ECONFIG after printing, naming the Debian package, when b's cross compiler is not on PATH. */
static int branch_check_compiler(const struct kernel_branch *b)
{
	char *why = branch_compiler_missing(b);
	int ret = 0;

	if (why)
		ret = error_code(MKS_ECONFIG, "%s", why);
	free(why);
	return ret;
}

/* The make target that writes `image`: its last component (bzImage, Image, vmlinux, image). */
static const char *image_target(const char *image)
{
	const char *slash = strrchr(image, '/');

	return slash ? slash + 1 : image;
}

/* Mark res failed with a one-line reason, and keep it in the state file. */
__attribute__((format(printf, 3, 4)))
static void fail(struct build_result *res, struct step_record *st, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	res->status = BUILD_FAILED;
	free(res->failure);
	res->failure = strbuf_detach(&sb, NULL);
	record_set_status(st, RS_FAILED);
	record_set(st, RF_FAILURE, res->failure);
}

/* Start out/.config from b's config base: a make target, or a file of the kit copied. */
static int config_from_base(struct build_result *res, struct step_record *st, struct make_ctx *m,
			    const struct kit *kit, const struct kernel_branch *b,
			    const char *config_path)
{
	const char *base = b->config_base;
	char *base_file = kit_file(kit, base);
	struct strbuf sb = STRBUF_INIT;
	int status, ret = 0;

	if (is_config_target(base) && !file_exists(base_file)) {
		status = run_make(m, base);
		if (status)
			fail(res, st, "make %s failed (exit %d): see %s", base, status, m->log);
	} else if (strbuf_read_file(&sb, base_file) ||
		   write_file_atomic(config_path, sb.buf, sb.len)) {
		ret = error("cannot copy config base '%s' to '%s': %s", base_file, config_path,
			    strerror(errno));
	}
	strbuf_release(&sb);
	free(base_file);
	return ret;
}

/*
 * Whether the fragment's lines stuck in the final config: those the
 * tree's Kconfig does not know are noted and skipped; any other that
 * did not stick fails the build, each named in its details.
 */
static void config_check_stuck(struct build_result *res, struct step_record *st,
			       struct make_ctx *m, const char *config,
			       const struct kconfig_frag *frag)
{
	struct strvec missing = STRVEC_INIT, absent = STRVEC_INIT, syms = STRVEC_INIT;
	struct strbuf why = STRBUF_INIT;
	size_t i;

	if (!kconfig_check(NULL, NULL, config, frag, NULL, NULL))
		return;
	kconfig_symbols(&syms, m->src, m->arch->srcarch);
	kconfig_check(&missing, &absent, config, frag, kconfig_symbol_defined, &syms);
	if (absent.nr) {
		strbuf_addstr(&why, "not in this tree's Kconfig, skipped:");
		for (i = 0; i < absent.nr; i++)
			strbuf_addf(&why, " %s", absent.v[i]);
		res->notes = strbuf_detach(&why, NULL);
		record_set(st, RF_NOTES, res->notes);
	}
	if (missing.nr) {
		strbuf_addf(&why, "%zu config option%s did not stick: %s", missing.nr,
			    missing.nr > 1 ? "s" : "", missing.v[0]);
		if (missing.nr > 1)
			strbuf_addf(&why, " (and %zu more)", missing.nr - 1);
		fail(res, st, "%s", why.buf);
		strbuf_reset(&why);
		for (i = 0; i < missing.nr; i++)
			strbuf_addf(&why, "%s%s", i ? "\n" : "", missing.v[i]);
		res->details = strbuf_detach(&why, NULL);
		record_set(st, RF_DETAILS, res->details);
	}
	strbuf_release(&why);
	strvec_clear(&syms);
	strvec_clear(&missing);
	strvec_clear(&absent);
}

/* Configure out/: the base config, the fragment's lines, olddefconfig, then the check. */
static int configure(struct build_result *res, struct step_record *st, struct make_ctx *m,
		     const struct kit *kit, const struct kernel_branch *b,
		     const struct kconfig_frag *frag)
{
	char *config_path = path_join(m->out, ".config");
	struct strbuf config = STRBUF_INIT, merged = STRBUF_INIT, before = STRBUF_INIT;
	struct stat before_st;
	int status, ret, had_config;

	/*
	 * The config is made anew every time; when it comes out the same,
	 * its old mtime is put back so that make does not resync and relink.
	 */
	had_config = !stat(config_path, &before_st) && !strbuf_read_file(&before, config_path);
	ret = config_from_base(res, st, m, kit, b, config_path);
	if (ret || res->status == BUILD_FAILED)
		goto cleanup;
	if (strbuf_read_file(&config, config_path)) {
		fail(res, st, "the config base wrote no .config");
		goto cleanup;
	}
	kconfig_apply(&merged, config.buf, frag);
	if (write_file_atomic(config_path, merged.buf, merged.len)) {
		ret = error("cannot write '%s': %s", config_path, strerror(errno));
		goto cleanup;
	}
	status = run_make(m, "olddefconfig");
	strbuf_reset(&config);
	if (status || strbuf_read_file(&config, config_path)) {
		fail(res, st, "make olddefconfig failed (exit %d): see %s", status, m->log);
		goto cleanup;
	}
	config_check_stuck(res, st, m, config.buf, frag);
	if (res->status == BUILD_FAILED)
		goto cleanup;
	res->config_hash = blob_hash_hex(config.buf, config.len);
	record_set(st, RF_CONFIG_HASH, res->config_hash);
	if (had_config && before.len == config.len && !memcmp(before.buf, config.buf, config.len)) {
		struct timespec times[2] = { before_st.st_atim, before_st.st_mtim };

		utimensat(AT_FDCWD, config_path, times, 0);
	}
cleanup:
	strbuf_release(&before);
	strbuf_release(&merged);
	strbuf_release(&config);
	free(config_path);
	return ret;
}

static char *commit_timestamp(git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	char buf[64];
	time_t t = 0;
	struct tm tm;

	if (git_commit_lookup(&c, repo, commit) >= 0)
		t = git_commit_time(c);
	git_commit_free(c);
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S UTC %Y", &tm);
	return xstrdup(buf);
}

/*
 * Whether the record st says this build is done (key k, record_fresh())
 * and, when it built, that its image is still the one it made. When not,
 * why says why, if anything was recorded.
 */
static int up_to_date(const struct step_record *st, const struct step_key *k, int force,
		      struct strbuf *why)
{
	const char *img = record_get(st, RF_BZIMAGE), *mtime = record_get(st, RF_BZIMAGE_MTIME);
	struct stat s;

	if (!record_fresh(st, k, force, why))
		return 0;
	if (record_status(st) != RS_OK ||
	    (img && mtime && !stat(img, &s) && strtoll(mtime, NULL, 10) == (long long)s.st_mtime))
		return 1;
	strbuf_addstr(why, "its image is not the one recorded");
	return 0;
}

/*
 * A variant built for the first time starts from a copy of base's out
 * directory when base was built with the same config inputs: switching
 * src/ from base rewrites only the files the series changed, with newer
 * mtimes than base's objects, so make recompiles just those and relinks.
 * Returns 1 when seeded; on any failure the variant is built from scratch.
 */
static int seed_from_base(const char *workdir, const char *out, const char *inputs_hash)
{
	char *base_out = workdir_path(workdir, WD_OUT, "base");
	char *tmp = xstrfmt("%s.seeding", out);
	struct child cp = CHILD_INIT;
	struct step_record st = STEP_RECORD_INIT;
	const char *inputs;
	int seeded = 0;

	if (record_read(&st, workdir, STEP_BUILD, "base") || !dir_exists(base_out))
		goto cleanup;
	inputs = record_get(&st, RF_INPUTS);
	if (record_status(&st) != RS_OK || !inputs || strcmp(inputs, inputs_hash))
		goto cleanup;
	remove_tree(tmp);
	strvec_pushl(&cp.argv, "cp", "-a", "--reflink=auto", base_out, tmp, NULL);
	if (child_run(&cp) == 0 && !rename(tmp, out))
		seeded = 1;
	else
		remove_tree(tmp);
cleanup:
	child_release(&cp);
	record_release(&st);
	free(tmp);
	free(base_out);
	return seeded;
}

/*
 * The objects the last full build of these inputs made (its state's
 * objects_full): this variant's own, else base's, which builds the same
 * tree but for the series. 0 when neither recorded one.
 */
static size_t last_full_objects(const struct step_record *own, const char *workdir,
				const char *inputs_hash)
{
	struct step_record base = STEP_RECORD_INIT;
	const struct step_record *st = own;
	const char *v, *inputs;
	size_t n = 0;

	if (!record_get(own, RF_OBJECTS_FULL) &&
	    !record_read(&base, workdir, STEP_BUILD, "base"))
		st = &base;
	inputs = record_get(st, RF_INPUTS);
	if (inputs && !strcmp(inputs, inputs_hash) && (v = record_get(st, RF_OBJECTS_FULL)))
		n = strtoul(v, NULL, 10);
	record_release(&base);
	return n;
}

char *build_input_part_shown(const char *part, const struct kernel_branch *b)
{
	if (!strcmp(part, "tools"))
		return xstrdup("the build tools (compiler, make, ccache)");
	if (!strcmp(part, "config-base"))
		return xstrfmt("%s's config base (%s)", b->path,
			       b->config_base);
	if (!strncmp(part, "fragment ", 9))
		return xstrfmt("%s (a config fragment of %s)", part + 9, b->path);
	return xstrdup(part);
}

/* To why the build runs again, which of its inputs changed, when its record can tell. */
static void say_inputs_changed(struct strbuf *why, const struct step_record *st,
			       const struct kernel_branch *b, const char *inputs_hash,
			       const char *parts)
{
	const char *old = record_get(st, RF_INPUTS), *old_parts = record_get(st, RF_INPUT_PARTS);
	struct strvec names = STRVEC_INIT;
	size_t i;

	if (!old || !old_parts || !strcmp(old, inputs_hash))
		return;
	record_parts_changed(&names, old_parts, parts);
	for (i = 0; i < names.nr; i++) {
		char *shown = build_input_part_shown(names.v[i], b);

		strbuf_addf(why, "%s%s", i ? ", " : ": ", shown);
		free(shown);
	}
	strvec_clear(&names);
}

/* res for a build that its record says is current: what the last one recorded, failed or not. */
static void uptodate_result(struct build_result *res, const struct step_record *st)
{
	const char *v;

	res->recorded = 1;
	res->status = record_status(st) == RS_OK ? BUILD_UPTODATE : BUILD_FAILED;
	if (res->status == BUILD_FAILED)
		res->failure = xstrdup((v = record_get(st, RF_FAILURE)) ? v : "");
	if ((v = record_get(st, RF_DETAILS)))
		res->details = xstrdup(v);
	res->seconds = (v = record_get(st, RF_SECONDS)) ? strtod(v, NULL) : 0;
	res->config_hash = xstrdup((v = record_get(st, RF_CONFIG_HASH)) ? v : "");
	if ((v = record_get(st, RF_NOTES)))
		res->notes = xstrdup(v);
}

/* Record in st (written to workdir's record) that this build under key k is running, and start its log. */
static int build_start(struct build_result *res, struct step_record *st, const char *workdir,
		       const struct kernel_branch *b, const char *variant, const char *commit_hex,
		       const char *inputs_hash, const struct step_key *k, int seeded)
{
	char *head;
	int ret;

	record_set_key(st, k);
	record_set(st, RF_VARIANT, variant);
	record_set(st, RF_BRANCH, b->name);
	record_set(st, RF_COMMIT, commit_hex);
	record_set(st, RF_INPUTS, inputs_hash);
	record_set(st, RF_LOG, res->log);
	record_set_status(st, RS_RUNNING);
	if (seeded) {
		char *from = workdir_name(WD_OUT, "base");

		record_set(st, RF_SEEDED, from);
		free(from);
	}
	if ((ret = record_write(st, workdir, STEP_BUILD, variant)))
		return ret;
	head = xstrfmt("# mkseries build %s %s %s\n", b->name, variant, commit_hex);
	if (write_file_atomic(res->log, head, strlen(head)))
		ret = error("cannot write '%s': %s", res->log, strerror(errno));
	free(head);
	return ret;
}

/*
 * How make runs for b: where, for which arch, how many jobs (--jobs, else
 * what the distcc hosts take, else the CPUs), through ccache as cp says.
 */
static void make_ctx_init(struct make_ctx *m, git_repository *repo, const git_oid *commit,
			  const struct kernel_branch *b, const struct build_opts *opts,
			  const struct ccache_plan *cp, const char *src, const char *out,
			  const char *log)
{
	m->src = src;
	m->out = out;
	m->log = log;
	m->arch = branch_arch(b);
	m->cross = branch_cross(b);
	m->jobs = opts->jobs ? opts->jobs : cp->jobs ? cp->jobs :
		  (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	m->timestamp = commit_timestamp(repo, commit);
	m->ccache = cp;
}

/* Make b's image in a configured out/ and check it; res and st say how it went. */
static void make_image(struct build_result *res, struct step_record *st, struct make_ctx *m,
		       const struct kernel_branch *b)
{
	const char *target = image_target(branch_image(b));
	struct strbuf sb = STRBUF_INIT;
	char *vmlinux = path_join(m->out, "vmlinux");
	struct stat s;
	int status = 0;

	/*
	 * The kernel through ccache, then its boot image without: ccache
	 * hashes an assembler source, not what it .incbins, and x86's
	 * piggy.S only includes the compressed kernel and records its sizes,
	 * so two kernels of one compressed size got one cached piggy.o, and
	 * one variant booted the other's kernel. The command lines stay the
	 * same (CC=ccache ...); ccache is told to only run the compiler.
	 */
	if (strcmp(target, "vmlinux"))
		status = run_make(m, "vmlinux");
	if (!status) {
		m->uncached = 1;
		status = run_make(m, target);
		m->uncached = 0;
	}
	if (status) {
		char *first = NULL;

		if (!strbuf_read_file(&sb, res->log))
			first = build_first_error(sb.buf, m->src);
		if (first)
			fail(res, st, "%s", first);
		else
			fail(res, st, "make %s exited with status %d: see %s", target, status,
			     res->log);
		free(first);
		goto cleanup;
	}
	if (stat(res->bzimage, &s)) {
		fail(res, st, "make %s succeeded but wrote no %s", target, branch_image(b));
		goto cleanup;
	}
	/* A tree that ignored ARCH= or CROSS_COMPILE= would boot the wrong kernel, or none. */
	if (arch_check_image(m->arch, res->bzimage, &sb)) {
		fail(res, st, "%s (make ARCH=%s CROSS_COMPILE=%s)", sb.buf, make_arch(m->arch),
		     m->cross);
		goto cleanup;
	}
	/* Whatever made it, the image must carry this build's kernel and no other. */
	if (image_check_payload(res->bzimage, vmlinux, &sb)) {
		fail(res, st, "%s", sb.buf);
		goto cleanup;
	}
	res->status = BUILD_OK;
	record_set_status(st, RS_OK);
	record_set(st, RF_BZIMAGE, res->bzimage);
	record_setf(st, RF_BZIMAGE_MTIME, "%lld", (long long)s.st_mtime);
cleanup:
	free(vmlinux);
	strbuf_release(&sb);
}
/* Configure out/, then make the image, each step's time in the record. */
static int configure_and_make(struct build_result *res, struct step_record *st, struct make_ctx *m,
			      const struct kit *kit, const struct kernel_branch *b,
			      const struct kconfig_frag *frag)
{
	double step = mono_seconds();
	int ret = configure(res, st, m, kit, b, frag);

	record_setf(st, RF_CONFIG_SECONDS, "%.1f", mono_seconds() - step);
	if (!ret && res->status != BUILD_FAILED) {
		step = mono_seconds();
		make_image(res, st, m, b);
		record_setf(st, RF_MAKE_SECONDS, "%.1f", mono_seconds() - step);
	}
	return ret;
}

/* Write commit's tree into src, and record how; a failure fails the build. */
static int write_tree(struct build_result *res, struct step_record *st, git_repository *repo,
		      const git_oid *commit, const char *src)
{
	if (materialise(repo, commit, src, &res->mat)) {
		fail(res, st, "cannot write the source tree");
		return -1;
	}
	record_setf(st, RF_MATERIALISE, "%s %zu written %zu removed %zu repaired in %.2fs",
		    res->mat.full ? "full" : "incremental", res->mat.written, res->mat.removed,
		    res->mat.repaired, res->mat.seconds);
	return 0;
}

/* One build of a variant: its inputs, record and paths, from prepare to release. */
struct build_job {
	struct build_result *res;
	const struct build_opts *opts;
	const struct kernel_branch *b;
	const char *variant;
	struct kconfig_frag frag;
	struct strbuf inputs, parts;	/* the build's inputs, and their parts' names */
	char *inputs_hash;
	struct step_record st;
	struct step_key key;
	struct ccache_plan cp;
	char *src, *out, *logdir, *vmlinux;
	size_t full_objects;		/* what the last full build of these inputs made */
	int seeded;			/* out/ was seeded from base's */
	int fresh;			/* no vmlinux yet: make builds every object */
};

static void build_job_release(struct build_job *j)
{
	ccache_plan_release(&j->cp);
	kconfig_frag_release(&j->frag);
	strbuf_release(&j->inputs);
	strbuf_release(&j->parts);
	record_release(&j->st);
	step_key_release(&j->key);
	free(j->inputs_hash);
	free(j->vmlinux);
	free(j->logdir);
	free(j->out);
	free(j->src);
}

/* The inputs, paths and record of j; *uptodate when its record still stands. */
static int build_job_prepare(struct build_job *j, int *uptodate, git_repository *repo,
			     const struct kit *kit, const git_oid *commit)
{
	const char *workdir = j->opts->workdir;
	int ret;

	if ((ret = branch_check_compiler(j->b)) ||
	    (ret = build_inputs(&j->inputs, &j->parts, &j->frag, kit, j->b)))
		return ret;
	j->inputs_hash = blob_hash_hex(j->inputs.buf, j->inputs.len);
	if ((ret = ccache_plan_make(&j->cp, j->b)))
		return ret;
	j->src = workdir_path(workdir, WD_SRC, NULL);
	j->out = workdir_path(workdir, WD_OUT, j->variant);
	j->logdir = workdir_path(workdir, WD_LOGS, NULL);
	j->res->log = workdir_path(workdir, WD_BUILD_LOG, j->variant);
	j->res->bzimage = path_join(j->out, branch_image(j->b));
	j->vmlinux = path_join(j->out, "vmlinux");
	if (strcmp(j->variant, "base") && !dir_exists(j->out))
		j->seeded = seed_from_base(workdir, j->out, j->inputs_hash);
	if (mkdir_p(j->out, 0755) || mkdir_p(j->logdir, 0755))
		return error("cannot create '%s': %s", workdir, strerror(errno));
	if ((ret = build_key(&j->key, repo, commit, j->inputs_hash)) ||
	    (ret = record_read(&j->st, workdir, STEP_BUILD, j->variant)))
		return ret;
	*uptodate = up_to_date(&j->st, &j->key, j->opts->force, &j->res->why);
	if (*uptodate)
		return 0;
	say_inputs_changed(&j->res->why, &j->st, j->b, j->inputs_hash, j->parts.buf);
	j->full_objects = last_full_objects(&j->st, workdir, j->inputs_hash);
	j->fresh = !file_exists(j->vmlinux);
	return 0;
}

/* Write the tree, configure and make, with the progress line; the record says how it went. */
static int build_job_make(struct build_job *j, git_repository *repo, const struct kit *kit,
			  const git_oid *commit, double start)
{
	struct build_progress pg = { .line = PROGRESS_INIT, .start = start };
	struct make_ctx m = { 0 };
	int ret = 0;

	pg.label = j->opts->label ? j->opts->label : j->variant;
	pg.expect = j->fresh ? j->full_objects : 0;
	progress_init(&pg.line, j->opts->progress, 0.1);
	snprintf(pg.last, sizeof(pg.last), "writing the source tree");
	build_progress_draw(&pg, 1);
	if (!write_tree(j->res, &j->st, repo, commit, j->src)) {
		make_ctx_init(&m, repo, commit, j->b, j->opts, &j->cp, j->src, j->out, j->res->log);
		m.pg = &pg;
		append_log(j->res->log, "%s# make -j%u\n", j->cp.log.buf, m.jobs);
		pg.last[0] = '\0';
		ret = configure_and_make(j->res, &j->st, &m, kit, j->b, &j->frag);
	}
	if (j->res->status == BUILD_OK) {
		record_setf(&j->st, RF_OBJECTS, "%zu", pg.objects);
		if (j->fresh || j->full_objects)
			record_setf(&j->st, RF_OBJECTS_FULL, "%zu",
				    j->fresh ? pg.objects : j->full_objects);
	}
	progress_clear(&pg.line);
	free(m.timestamp);
	return ret;
}

static int build_run(struct build_result *res, git_repository *repo, const struct kit *kit,
		     const struct kernel_branch *b, const char *variant, const git_oid *commit,
		     const struct build_opts *opts)
{
	struct build_job j = {
		.res = res, .opts = opts, .b = b, .variant = variant,
		.frag = KCONFIG_FRAG_INIT, .inputs = STRBUF_INIT, .parts = STRBUF_INIT,
		.st = STEP_RECORD_INIT, .key = STEP_KEY_INIT, .cp = CCACHE_PLAN_INIT,
	};
	char commit_hex[GIT_OID_HEXSZ + 1];
	double start = mono_seconds();
	int ret, uptodate = 0;

	memset(res, 0, sizeof(*res));
	strbuf_init(&res->why, 0);
	git_oid_tostr(commit_hex, sizeof(commit_hex), commit);
	ret = build_job_prepare(&j, &uptodate, repo, kit, commit);
	if (ret || uptodate) {
		if (!ret)
			uptodate_result(res, &j.st);
		goto cleanup;
	}
	if (opts->starting)
		opts->starting(res->why.buf, opts->data);
	record_release(&j.st);
	record_set(&j.st, RF_INPUT_PARTS, j.parts.buf);
	ret = build_start(res, &j.st, opts->workdir, b, variant, commit_hex, j.inputs_hash,
			  &j.key, j.seeded);
	if (ret)
		goto cleanup;
	ret = build_job_make(&j, repo, kit, commit, start);
	res->seconds = mono_seconds() - start;
	record_setf(&j.st, RF_SECONDS, "%.1f", res->seconds);
	if (!ret)
		ret = record_write(&j.st, opts->workdir, STEP_BUILD, variant);
cleanup:
	build_job_release(&j);
	return ret;
}

int build_variant(struct build_result *res, git_repository *repo, const struct kit *kit,
		  const struct kernel_branch *b, const char *variant, const git_oid *commit,
		  const struct build_opts *opts)
{
	size_t mark = error_mark();
	int ret;

	ret = build_run(res, repo, kit, b, variant, commit, opts);
	if (ret) {
		/* Why it could not run, in its record and for the caller (the errors stay kept). */
		free(res->failure);
		res->failure = error_since(mark);
		if (!res->failure)
			res->failure = xstrdup("no error was given");
		record_module_error(opts->workdir, STEP_BUILD, b->name, variant, res->failure);
	}
	return ret;
}
