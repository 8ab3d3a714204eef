/* doctor/doctor.c: the checks of `mkseries doctor`, and the same before run, build and test start. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <git2.h>

#include "doctor/doctor.h"
#include "kit/variants.h"
#include "build/build.h"
#include "kit/arch.h"
#include "lib/gitutil.h"
#include "lib/runcmd.h"
#include "tree/aptsuite.h"
#include "tree/tree.h"
#include "tree/workdir.h"
#include "vm/vm.h"

/* Seconds a Debian mirror has to answer. */
#define REACH_TIMEOUT 5
/* Seconds a QEMU has to answer --version: one that hangs is no QEMU a boot can use. */
#define QEMU_VERSION_TIMEOUT 3

/*
 * Measured on this project's kit (x86_64, kernels/mm.config): du of
 * each part after `mkseries run`. deb: the linux-source package;
 * objects: what an import adds to the kernel repository (1,196 MiB for
 * the three trees); src: the tree written out; out: one variant's build.
 * 6.1 was not built: its src is its tarball's bytes with 6.12's overhead
 * on disk, its out between 5.10's and 6.12's.
 */
static const struct tree_cost costs[] = {
	{ "5.10", 117, 400, 1101, 114 },
	{ "6.1", 133, 400, 1430, 125 },
	{ "6.12", 147, 400, 1640, 135 },
};

/* The figures for b's tree: its own when measured, else the largest tree's. */
static const struct tree_cost *tree_cost_of(const struct kernel_branch *b)
{
	const char *pkg = b->source.package, *v;
	size_t i;

	if (b->source.kind != SOURCE_DEBIAN || !pkg || !skip_prefix(pkg, "linux-source-", &v))
		return NULL;
	for (i = 0; i < ARRAY_SIZE(costs); i++)
		if (!strcmp(costs[i].branch, v))
			return &costs[i];
	/* A tree not measured yet: the largest one's figures, a newer kernel is no smaller. */
	return &costs[ARRAY_SIZE(costs) - 1];
}

void doctor_release(struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		free(d->checks[i].name);
		free(d->checks[i].detail);
	}
	free(d->checks);
	memset(d, 0, sizeof(*d));
}

__attribute__((format(printf, 4, 5)))
static void add(struct doctor *d, enum doctor_status status, const char *name, const char *fmt, ...)
{
	struct doctor_check *c;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ALLOC_GROW(d->checks, d->nr + 1, d->alloc);
	c = &d->checks[d->nr++];
	c->status = status;
	c->config = 0;
	c->name = xstrdup(name);
	c->detail = strbuf_detach(&sb, NULL);
}

void doctor_note(struct doctor *d, enum doctor_status status, const char *name,
		 const char *detail)
{
	add(d, status, name, "%s", detail);
}

size_t doctor_failures(const struct doctor *d)
{
	size_t i, n = 0;

	for (i = 0; i < d->nr; i++)
		n += d->checks[i].status == DOCTOR_MISSING;
	return n;
}

void doctor_print(const struct doctor *d, FILE *f)
{
	static const char *const word[] = { "ok", "missing", "note" };
	size_t i;

	for (i = 0; i < d->nr; i++)
		fprintf(f, "%-8s %s: %s\n", word[d->checks[i].status], d->checks[i].name,
			shown(d->checks[i].detail));
}

/* ------------------------------------------------------------------ */
/* Identity */

/* `git config KEY` as git itself reads it (GIT_CONFIG_GLOBAL and all), or NULL. */
static char *git_sees(const char *key)
{
	struct child c = CHILD_INIT;
	struct strbuf out = STRBUF_INIT;
	char *ret = NULL;

	strvec_pushl(&c.argv, "git", "config", "--get", key, NULL);
	c.out = &out;
	c.silent_exec_failure = 1;
	if (!child_run(&c)) {
		strbuf_rtrim(&out);
		if (out.len)
			ret = strbuf_detach(&out, NULL);
	}
	child_release(&c);
	strbuf_release(&out);
	return ret;
}

/* `key` as libgit2 reads it from the global, XDG and system files, or NULL. */
static char *libgit2_sees(git_config *cfg, const char *key)
{
	git_buf buf = { 0 };
	char *ret = NULL;

	if (cfg && !git_config_get_string_buf(&buf, cfg, key) && buf.size)
		ret = xstrdup(buf.ptr);
	git_buf_dispose(&buf);
	return ret;
}

static void check_identity(struct doctor *d)
{
	git_config *cfg = NULL;
	char *ln, *le, *gn, *ge;

	if (git_config_open_default(&cfg) < 0)
		cfg = NULL;
	ln = libgit2_sees(cfg, "user.name");
	le = libgit2_sees(cfg, "user.email");
	gn = git_sees("user.name");
	ge = git_sees("user.email");
	if (ln && le && (!gn || !ge || (!strcmp(ln, gn) && !strcmp(le, ge))))
		add(d, DOCTOR_OK, "git identity", "%s <%s>", ln, le);
	else if (ln && le)
		add(d, DOCTOR_NOTE, "git identity",
		    "mkseries signs as %s <%s> (libgit2), git itself as %s <%s>", ln, le, gn, ge);
	else if (gn && ge)
		add(d, DOCTOR_MISSING, "git identity",
		    "git sees %s <%s> but libgit2, which mkseries commits with, sees no "
		    "user.%s (it does not read GIT_CONFIG_GLOBAL): set it in ~/.gitconfig: "
		    "git config --file ~/.gitconfig user.name 'Your Name' && "
		    "git config --file ~/.gitconfig user.email you@example.org",
		    gn, ge, ln ? "email" : "name");
	else
		add(d, DOCTOR_MISSING, "git identity", "no user.%s: " GIT_IDENTITY_HOWTO,
		    ln || gn ? "email" : "name");
	free(ln);
	free(le);
	free(gn);
	free(ge);
	git_config_free(cfg);
}

/* ------------------------------------------------------------------ */
/* Tools */

/* A program the job needs (or only uses when there, `needed` 0), with its package. */
static int versions;	/* ask each tool its version: doctor does, a preflight does not */

static void check_program(struct doctor *d, const char *program, const char *package,
			  int needed, const char *why, int version)
{
	char *v;

	if (!program_on_path(program)) {
		add(d, needed ? DOCTOR_MISSING : DOCTOR_NOTE, program, "not on PATH%s%s: apt-get install %s",
		    why ? ": " : "", why ? why : "", package);
		return;
	}
	v = version && versions ? program_version(program, "installed") : xstrdup("installed");
	add(d, DOCTOR_OK, program, "%s", v);
	free(v);
}

/* Whether `list` (one name a line) has `name`; adds it when not. */
static int seen(struct strvec *list, const char *name)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->v[i], name))
			return 1;
	strvec_push(list, name);
	return 0;
}

/* The branches of sel[] whose `what` is `value`, for a check's name: "6.12, 6.1". */
static void branches_with(struct strbuf *sb, struct kernel_branch *const *sel, size_t nr,
			  const char *(*what)(const struct kernel_branch *), const char *value)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(what(sel[i]), value))
			strbuf_addf(sb, "%s%s", sb->len ? ", " : "", sel[i]->name);
}

static const char *qemu_of(const struct kernel_branch *b)
{
	return b->boot.qemu;	/* the loader took it from the arch when the file named none */
}

static const char *gcc_of(const struct kernel_branch *b)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%sgcc", branch_cross(b));
	return buf;
}

static void check_compilers(struct doctor *d, struct kernel_branch *const *sel, size_t nr)
{
	struct strvec done = STRVEC_INIT;
	size_t i;

	check_program(d, "make", "make", 1, NULL, 1);
	if (!nr)	/* outside a kit: the host's own compiler */
		check_program(d, "gcc", "gcc", 1, NULL, 1);
	for (i = 0; i < nr; i++) {
		const struct arch_info *a = branch_arch(sel[i]);
		struct strbuf name = STRBUF_INIT, fix = STRBUF_INIT, list = STRBUF_INIT;
		char *gcc = xstrdup(gcc_of(sel[i])), *why;

		if (seen(&done, gcc)) {
			free(gcc);
			continue;
		}
		branches_with(&list, sel, nr, gcc_of, gcc);
		strbuf_addf(&name, "%s (%s)", gcc, list.buf);
		strbuf_release(&list);
		if (*branch_cross(sel[i]))
			strbuf_addf(&fix, "%s", a->cross_packages);
		else
			strbuf_addstr(&fix, "gcc");
		if (program_on_path(gcc)) {
			char *v = versions ? program_version(gcc, "installed") : xstrdup("installed");

			add(d, DOCTOR_OK, name.buf, "%s", v);
			free(v);
		} else if ((why = branch_compiler_missing(sel[i]))) {
			/* build's own words, and its exit status: the kit names the arch. */
			add(d, DOCTOR_MISSING, name.buf, "%s", why);
			d->checks[d->nr - 1].config = 1;
			free(why);
		} else {
			add(d, DOCTOR_MISSING, name.buf, "no '%s' on PATH to build arch %s: apt-get install %s",
			    gcc, a->name, fix.buf);
		}
		strbuf_release(&name);
		strbuf_release(&fix);
		free(gcc);
	}
	/* What every kernel build runs besides the compiler. */
	check_program(d, "flex", "flex", 1, NULL, 0);
	check_program(d, "bison", "bison", 1, NULL, 0);
	check_program(d, "bc", "bc", 1, NULL, 0);
	check_program(d, "ccache", "ccache", 0, "every build compiles everything again", 1);
	strvec_clear(&done);
}

/*
 * `qemu --version`'s first line in *version, waiting QEMU_VERSION_TIMEOUT
 * seconds at most: 0, or -1 with why it gave none in *version (it timed
 * out, failed, said nothing). Caller frees *version.
 */
static int qemu_answers(char **version, const char *qemu)
{
	struct child c = CHILD_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int status, ret = -1;

	strvec_pushl(&c.argv, qemu, "--version", NULL);
	strvec_push(&c.env, "LC_ALL=C");
	c.out = &out;
	c.err = &err;
	c.timeout_sec = QEMU_VERSION_TIMEOUT;
	status = child_run(&c);
	strbuf_rtrim(&out);
	if (c.timed_out) {
		*version = xstrfmt("'%s --version' did not answer in %ds (killed)", qemu,
				   QEMU_VERSION_TIMEOUT);
	} else if (status || !out.len) {
		strbuf_rtrim(&err);
		*version = xstrfmt("'%s --version' %s%s%.*s", qemu,
				   status ? "failed" : "said nothing", err.len ? ": " : "",
				   (int)strcspn(err.buf, "\n"), err.buf);
	} else {
		*version = xstrndup(out.buf, strcspn(out.buf, "\n"));
		ret = 0;
	}
	child_release(&c);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

/* One QEMU, named `name` ("qemu-system-x86_64 (6.12)"), for b (NULL outside a kit). */
static void check_one_qemu(struct doctor *d, const char *qemu, const char *name,
			   const struct kernel_branch *b, const struct arch_info *a)
{
	char *path = program_path(qemu), *v = NULL;
	const char *fix = b ? b->path : NULL;
	struct stat st;

	if (path && (stat(path, &st) || !S_ISREG(st.st_mode))) {
		add(d, DOCTOR_MISSING, name, "'%s' is %s, not a program%s%s", path,
		    !stat(path, &st) && S_ISDIR(st.st_mode) ? "a directory" : "no regular file",
		    fix && strchr(qemu, '/') ? ": fix boot.qemu in " : "",
		    fix && strchr(qemu, '/') ? fix : "");
		d->checks[d->nr - 1].config = fix && strchr(qemu, '/');
	} else if (path && versions && qemu_answers(&v, path)) {
		add(d, DOCTOR_MISSING, name, "%s: no QEMU a boot can use%s%s", v,
		    fix && strchr(qemu, '/') ? "; fix boot.qemu in " : "",
		    fix && strchr(qemu, '/') ? fix : "");
		d->checks[d->nr - 1].config = fix && strchr(qemu, '/');
	} else if (path) {
		add(d, DOCTOR_OK, name, "%s", v ? v : "installed");
	} else if (strchr(qemu, '/')) {
		add(d, DOCTOR_MISSING, name, "'%s' is not an executable file: fix boot.qemu in %s",
		    qemu, fix ? fix : "the kernels file");
		d->checks[d->nr - 1].config = 1;
	} else {
		add(d, DOCTOR_MISSING, name, "not on PATH to boot arch %s: apt-get install %s",
		    a->name, a->qemu_package);
	}
	free(v);
	free(path);
}

static void check_qemu(struct doctor *d, struct kernel_branch *const *sel, size_t nr)
{
	struct strvec done = STRVEC_INIT;
	size_t i;

	/* Outside a kit: the host arch's QEMU, the one KVM runs. */
	if (!nr && arch_host())
		check_one_qemu(d, arch_host()->qemu, arch_host()->qemu, NULL, arch_host());
	for (i = 0; i < nr; i++) {
		const char *qemu = qemu_of(sel[i]);
		struct strbuf name = STRBUF_INIT, list = STRBUF_INIT;

		if (seen(&done, qemu))
			continue;
		branches_with(&list, sel, nr, qemu_of, qemu);
		strbuf_addf(&name, "%s (%s)", qemu, list.buf);
		strbuf_release(&list);
		check_one_qemu(d, qemu, name.buf, sel[i], branch_arch(sel[i]));
		strbuf_release(&name);
	}
	strvec_clear(&done);
}

/*
 * A kernel to probe KVM with: the image a selected branch of the host's
 * arch built last for one of its variants (out-<variant>/<image>), and
 * in *b that branch. NULL when none is built. Caller frees.
 */
static char *built_image(const struct kernel_branch **b, const struct kit *kit,
			 struct kernel_branch *const *sel, size_t nr, const struct doctor_opts *opts)
{
	char *found = NULL;
	size_t i, j;

	for (i = 0; i < nr && !found; i++) {
		struct strvec variants = STRVEC_INIT;
		char *workdir;

		if (!arch_is_host(branch_arch(sel[i])) ||
		    !(workdir = branch_workdir(kit, opts->workdir, sel[i])))
			continue;
		variants_of_branch(&variants, sel[i], opts->given);
		for (j = 0; j < variants.nr && !found; j++) {
			char *out = workdir_name(WD_OUT, variants.v[j]);
			char *path = xstrfmt("%s/%s/%s", workdir, out, branch_image(sel[i]));

			if (file_exists(path)) {
				found = path;
				*b = sel[i];
			} else {
				free(path);
			}
			free(out);
		}
		strvec_clear(&variants);
		free(workdir);
	}
	return found;
}

/*
 * KVM: probed now, with a kernel a selected branch has built, when no
 * probe is recorded for this host kernel and QEMU (opts->probe_kvm), as
 * the first boot of a run probes and recorded the same way; then what
 * the probe file says. Worth knowing, never a failure: the boots fall
 * back to TCG.
 */
static void check_kvm(struct doctor *d, const struct kit *kit, struct kernel_branch *const *sel,
		      size_t nr, const struct doctor_opts *opts)
{
	char *cache = mks_cache_dir(), *image = NULL;
	const char *dev = vm_kvm_device();
	const struct kernel_branch *b = NULL;
	struct vm_probe p;
	size_t mark = error_mark();

	if (opts->probe_kvm && !access(dev, R_OK | W_OK) &&
	    (image = built_image(&b, kit, sel, nr, opts))) {
		int r = vm_probe_kvm(b, image, vm_probe_timeout_env());
		char *why = r < 0 ? error_since(mark) : NULL;

		error_drop(mark);
		if (r < 0)
			add(d, DOCTOR_NOTE, "kvm", "the probe boot of %s could not be made: %s", image,
			    shown(why));
		free(why);
		if (r < 0)
			goto cleanup;
		if (r)	/* nothing booted: a probe was recorded already */
			b = NULL;
	}
	if (vm_probe_read(&p, cache)) {
		if (access(dev, R_OK | W_OK))
			add(d, DOCTOR_NOTE, "kvm", "no usable %s: guests run under TCG (slower; "
			    "instruction-paced time)", dev);
		else if (opts->probe_kvm && nr)
			add(d, DOCTOR_NOTE, "kvm", "not probed yet: no selected branch of the host's "
			    "arch is built, nothing to boot (build one and run doctor again; or the "
			    "first boot under KVM is the probe)");
		else
			add(d, DOCTOR_NOTE, "kvm", "not probed yet: the first boot under KVM is the probe");
	} else {
		struct strbuf when = STRBUF_INIT;

		if (b)
			strbuf_addf(&when, "probed now, booting %s", image);
		else
			strbuf_addf(&when, "last probe%s%s", p.when ? " " : "", p.when ? p.when : "");
		add(d, strcmp(p.accel, "kvm") ? DOCTOR_NOTE : DOCTOR_OK, "kvm", "%s: %s%s%s", when.buf,
		    strcmp(p.accel, "kvm") ? "TCG" : "KVM works", p.note ? ": " : "",
		    p.note ? p.note : "");
		strbuf_release(&when);
	}
	vm_probe_release(&p);
cleanup:
	free(image);
	free(cache);
}

/* ------------------------------------------------------------------ */
/* What plan reads: a git source's repository, its ref and release; the tree */

static int imported(const struct kit *kit, const struct kernel_branch *b, const char *repo_opt);

/* Whether `rev` names a commit in repo. */
static int has_commit(git_repository *repo, const char *rev)
{
	git_object *obj = NULL, *peeled = NULL;
	int ret = !git_revparse_single(&obj, repo, rev) &&
		  !git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);

	git_object_free(peeled);
	git_object_free(obj);
	git_error_clear();
	return ret;
}

static void check_plan_git(struct doctor *d, const struct kit *kit, const struct kernel_branch *b,
			   const char *name)
{
	const struct kernel_source *src = &b->source;
	const char *ref = src->ref ? src->ref : "HEAD";
	git_repository *repo = NULL;
	size_t mark = error_mark();
	char *path = NULL, *why;

	if (kernel_source_check(b)) {
		/* The loader's own words: an unset $MKSERIES_LINUX_STABLE, a clone that is not there. */
		why = error_since(mark);
		error_drop(mark);
		add(d, DOCTOR_MISSING, name, "%s", shown(why));
		d->checks[d->nr - 1].config = 1;
		free(why);
		return;
	}
	path = kit_file(kit, src->repo);
	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		git_error_clear();
		add(d, DOCTOR_MISSING, name, "'%s'%s%s%s is no git repository: plan reads %s's tree there",
		    path, src->repo_var ? " (from $" : "", src->repo_var ? src->repo_var : "",
		    src->repo_var ? ")" : "", b->name);
	} else if (!has_commit(repo, ref)) {
		add(d, DOCTOR_MISSING, name, "'%s' has no '%s': fetch it (git -C %s fetch --tags)",
		    path, ref, path);
	} else if (src->release && !has_commit(repo, src->release)) {
		add(d, DOCTOR_MISSING, name, "'%s' has no '%s', where plan finds what stable "
		    "backported already: fetch it (git -C %s fetch --tags)", path, src->release, path);
	} else {
		add(d, DOCTOR_OK, name, "%s%s%s in %s", ref, src->release ? " and " : "",
		    src->release ? src->release : "", path);
	}
	git_repository_free(repo);
	free(path);
}

static void check_plan(struct doctor *d, const struct kit *kit, struct kernel_branch *const *sel,
		       size_t nr, const char *repo_opt)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		char *name = xstrfmt("plan (%s)", sel[i]->name);

		if (sel[i]->source.kind == SOURCE_GIT)
			check_plan_git(d, kit, sel[i], name);
		else if (imported(kit, sel[i], repo_opt))
			add(d, DOCTOR_OK, name, "checks each entry against the imported tree");
		else
			add(d, DOCTOR_NOTE, name, "the tree is not imported yet: plan lists the entries "
			    "without checking them against it (mkseries import --branch %s)",
			    sel[i]->name);
		free(name);
	}
}

/* ------------------------------------------------------------------ */
/* Trees: imported yet, reachable, and the disk they take */

/* Whether b's tree is imported already (its base tag is there); opening nothing new. */
static int imported(const struct kit *kit, const struct kernel_branch *b, const char *repo_opt)
{
	git_repository *repo = NULL;
	char *path = NULL;
	git_oid base;
	int ret = 0;

	if (kernel_repo_path(&path, kit, b, repo_opt))
		goto cleanup;
	if (git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		goto cleanup;
	ret = !tree_base(&base, repo, b);
cleanup:
	git_repository_free(repo);
	free(path);
	return ret;
}

static void check_reachable(struct doctor *d, const struct kernel_branch *b, struct strvec *done)
{
	struct strbuf sources = STRBUF_INIT, name = STRBUF_INIT;
	struct strvec places = STRVEC_INIT;
	const char *suite = b->source.suite;
	size_t i;

	if (seen(done, suite))
		return;
	strbuf_addf(&name, "debian %s", suite);
	if (tree_apt_sources(&sources, &places, tree_apt_root(), suite) || !places.nr) {
		add(d, DOCTOR_MISSING, name.buf,
		    "no Debian archive in %s/etc/apt/sources.list or sources.list.d/ to import %s from",
		    tree_apt_root(), b->name);
		goto cleanup;
	}
	for (i = 0; i < places.nr; i++) {
		const char *sp = strchr(places.v[i], ' ');
		char *uri;
		const char *s = sp ? sp + 1 : suite;
		struct strbuf why = STRBUF_INIT;

		/* The suite itself: its -updates and -security may not exist (sid has none). */
		if (strcmp(s, suite))
			continue;
		uri = sp ? xstrndup(places.v[i], sp - places.v[i]) : xstrdup(places.v[i]);

		if (apt_suite_reachable(&why, uri, s, REACH_TIMEOUT))
			add(d, DOCTOR_MISSING, name.buf,
			    "%s does not answer for %s (%s): %s cannot be imported; check the network "
			    "or the mirror in /etc/apt",
			    uri, s, why.buf, b->name);
		else
			add(d, DOCTOR_OK, name.buf, "%s answers for %s", uri, s);
		strbuf_release(&why);
		free(uri);
	}
cleanup:
	strvec_clear(&places);
	strbuf_release(&sources);
	strbuf_release(&name);
}

static int dir_exists_in(const char *dir, const char *name)
{
	char *path = path_join(dir, name);
	int ret = dir_exists(path);

	free(path);
	return ret;
}

/* Free MiB on the file system holding `path` or its nearest existing parent. */
static int free_mib(unsigned long long *out, const char *path)
{
	const char *test = getenv("MKSERIES_TEST_FREE_MB");
	char *p = xstrdup(path);
	struct statvfs vfs;
	int ret = -1;

	if (test) {
		*out = strtoull(test, NULL, 10);
		free(p);
		return 0;
	}
	for (;;) {
		char *slash;

		if (!statvfs(p, &vfs)) {
			*out = (unsigned long long)vfs.f_bavail * vfs.f_frsize / (1024 * 1024);
			ret = 0;
			break;
		}
		slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	return ret;
}

static const char *mib(unsigned long long n)
{
	static char buf[4][32];
	static int k;

	k = (k + 1) % 4;
	if (n >= 1024)
		snprintf(buf[k], sizeof(buf[k]), "%.1f GiB", n / 1024.0);
	else
		snprintf(buf[k], sizeof(buf[k]), "%llu MiB", n);
	return buf[k];
}

static void check_disk(struct doctor *d, const struct kit *kit, struct kernel_branch *const *sel,
		       size_t nr, const struct doctor_opts *opts)
{
	struct strbuf parts = STRBUF_INIT, unmeasured = STRBUF_INIT;
	struct strvec packages = STRVEC_INIT;
	unsigned long long need = 0, avail;
	char *where = NULL, *cache = mks_cache_dir();
	size_t i, j;

	/* Nowhere to put them: the command itself says so, once. */
	if (!cache && !(opts->workdir && *opts->workdir)) {
		add(d, DOCTOR_NOTE, "disk", "cannot tell where the work directories go");
		return;
	}
	free(cache);

	for (i = 0; i < nr; i++) {
		const struct tree_cost *cost = tree_cost_of(sel[i]);
		struct strvec variants = STRVEC_INIT;
		char *workdir = branch_workdir(kit, opts->workdir, sel[i]), *name;
		unsigned long long mine = 0;
		size_t builds = 0;

		if (!where && workdir)
			where = xstrdup(workdir);
		if (!cost || !workdir) {
			strbuf_addf(&unmeasured, "%s%s", unmeasured.len ? ", " : "", sel[i]->name);
			free(workdir);
			continue;
		}
		/* Branches on one Debian package share its import (6.12 and 6.12-arm64). */
		if (!seen(&packages, sel[i]->source.package) && !imported(kit, sel[i], opts->repo))
			mine += cost->deb + cost->objects;
		name = workdir_name(WD_SRC, NULL);
		if (!dir_exists_in(workdir, name))
			mine += cost->src;
		free(name);
		variants_of_branch(&variants, sel[i], opts->given);
		for (j = 0; j < variants.nr; j++) {
			char *out = workdir_name(WD_OUT, variants.v[j]);

			if (!dir_exists_in(workdir, out))
				builds++;
			free(out);
		}
		mine += builds * cost->out;
		if (mine)
			strbuf_addf(&parts, "%s%s %s", parts.len ? ", " : "", sel[i]->name, mib(mine));
		need += mine;
		strvec_clear(&variants);
		free(workdir);
	}
	if (!where || free_mib(&avail, where)) {
		add(d, DOCTOR_NOTE, "disk", "cannot tell the free space where the work directories go");
		goto cleanup;
	}
	if (unmeasured.len)
		strbuf_addf(&parts, "%sno figures for %s's tree", parts.len ? "; " : "",
			    unmeasured.buf);
	if (unmeasured.len && avail >= need)
		/* Not ok: what the unmeasured trees take is not in the sum. */
		add(d, DOCTOR_NOTE, "disk", "%s free; cannot tell what the selected branches need "
		    "(%s)%s%s", mib(avail), parts.buf, need ? ": the others about " : "",
		    need ? mib(need) : "");
	else if (avail < need)
		add(d, DOCTOR_MISSING, "disk",
		    "%s free in %s, the selected branches need about %s (%s): free some space, "
		    "or point XDG_CACHE_HOME (or --workdir) at a larger disk",
		    mib(avail), where, mib(need), parts.buf);
	else
		add(d, DOCTOR_OK, "disk", "%s free, the selected branches need about %s%s%s%s",
		    mib(avail), mib(need), parts.len ? " (" : "", parts.buf, parts.len ? ")" : "");
cleanup:
	strvec_clear(&packages);
	strbuf_release(&parts);
	strbuf_release(&unmeasured);
	free(where);
}

/* ------------------------------------------------------------------ */

void doctor_run(struct doctor *d, const struct kit *kit, struct kernel_branch *const *sel,
		size_t nr, const struct doctor_opts *opts)
{
	struct strvec suites = STRVEC_INIT;
	size_t i;

	versions = opts->versions;
	if (opts->need & NEED_IDENTITY)
		check_identity(d);
	if (opts->need & NEED_BUILD)
		check_compilers(d, sel, nr);
	if (opts->need & NEED_BOOT) {
		check_qemu(d, sel, nr);
		check_kvm(d, kit, sel, nr, opts);
	}
	if (opts->need & NEED_PLAN)
		check_plan(d, kit, sel, nr, opts->repo);
	if (opts->need & NEED_IMPORT)
		for (i = 0; i < nr; i++)
			if (sel[i]->source.kind == SOURCE_DEBIAN && !imported(kit, sel[i], opts->repo))
				check_reachable(d, sel[i], &suites);
	if (nr && (opts->need & (NEED_BUILD | NEED_IMPORT)))
		check_disk(d, kit, sel, nr, opts);
	strvec_clear(&suites);
}

int doctor_preflight(const char *cmd, const struct kit *kit, struct kernel_branch *const *sel,
		     size_t nr, const struct doctor_opts *opts)
{
	struct doctor d = DOCTOR_INIT;
	size_t i;
	int ret = 0, config = 0;

	/*
	 * Test hook: the checks stand aside, so that a test can make a step
	 * itself meet what they would have caught and see what it records.
	 */
	if (getenv("MKSERIES_TEST_NO_PREFLIGHT"))
		return 0;
	doctor_run(&d, kit, sel, nr, opts);
	for (i = 0; i < d.nr; i++)
		if (d.checks[i].status == DOCTOR_MISSING) {
			error("%s: %s", d.checks[i].name, shown(d.checks[i].detail));
			config |= d.checks[i].config;
		}
	if (doctor_failures(&d))
		ret = error_code(config ? MKS_ECONFIG : -1,
				 "mkseries %s stopped before its long steps; 'mkseries doctor' shows every check",
				 cmd);
	doctor_release(&d);
	return ret;
}
