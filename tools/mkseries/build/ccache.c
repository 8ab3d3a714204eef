/* build/ccache.c: decide make's ccache and distcc environment from the user's settings, the kit's, then mkseries's own. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/ccache.h"
#include "lib/runcmd.h"
#include "tree/workdir.h"

char *redact_url(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = s;

	/* Every "scheme://userinfo@" in s: remote_storage may list several, space-separated. */
	for (;;) {
		const char *scheme = strstr(p, "://"), *end, *at;

		if (!scheme)
			break;
		end = scheme + 3 + strcspn(scheme + 3, " /|");
		at = memchr(scheme + 3, '@', end - (scheme + 3));
		if (!at) {
			strbuf_add(&sb, p, end - p);
		} else {
			strbuf_add(&sb, p, scheme + 3 - p);
			strbuf_addstr(&sb, "***");
			strbuf_add(&sb, at, end - at);
		}
		p = end;
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb, NULL);
}

/* One setting of `ccache -p`: "(ORIGIN) KEY = VALUE". */
struct ccache_setting {
	char *origin;		/* "default", "environment" or a file's path */
	char *value;
};

/* The settings mkseries looks at. */
enum { S_CACHE_DIR, S_REMOTE, S_DEPEND, S_BASE_DIR, S_PREFIX, S_NR };
static const char *const setting_keys[] = {
	"cache_dir", "remote_storage", "depend_mode", "base_dir", "prefix_command", NULL
};

/*
 * Read `ccache -p`: fill set[] for the keys above and say in *file the
 * first file any setting comes from (NULL when none does). Returns 0, or
 * MKS_ECONFIG after printing ccache's own complaint when it rejects its
 * settings (a bad CCACHE_* value, a broken ccache.conf): every compile
 * would fail the same way.
 */
static int read_settings(struct ccache_setting *set, char **file)
{
	struct child c = CHILD_INIT;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *p;
	int ret = 0;

	strvec_pushl(&c.argv, "ccache", "-p", NULL);
	strvec_push(&c.env, "LC_ALL=C");
	c.out = &out;
	c.err = &err;
	if (child_run(&c)) {
		strbuf_rtrim(&err);
		ret = error_code(MKS_ECONFIG, "ccache will not run with these settings: %s",
				 err.len ? err.buf : "'ccache -p' failed");
		goto cleanup;
	}
	for (p = out.buf; *p; ) {
		const char *eol = strchrnul(p, '\n'), *eq, *key, *close;
		size_t i;

		eq = memmem(p, eol - p, " = ", 3);
		if (*p == '(' && eq) {
			key = eq;
			while (key > p && key[-1] != ' ')
				key--;
			close = key - 1;
			if (close > p + 1 && close[-1] == ')') {
				char *origin = xstrndup(p + 1, close - 1 - (p + 1));

				if (!*file && strcmp(origin, "default") && strcmp(origin, "environment"))
					*file = xstrdup(origin);
				for (i = 0; setting_keys[i]; i++)
					if ((size_t)(eq - key) == strlen(setting_keys[i]) &&
					    !memcmp(key, setting_keys[i], eq - key) && !set[i].origin) {
						set[i].origin = origin;
						set[i].value = xstrndup(eq + 3, eol - (eq + 3));
						origin = NULL;
						break;
					}
				free(origin);
			}
		}
		p = *eol ? eol + 1 : eol;
	}
cleanup:
	strbuf_release(&err);
	strbuf_release(&out);
	child_release(&c);
	return ret;
}

static int is_default(const struct ccache_setting *s)
{
	return s->origin && !strcmp(s->origin, "default");
}

/* Where a setting of the user's comes from, for the log: CCACHE_DIR or the file. */
static void add_yours(struct strbuf *log, const struct ccache_setting *s, const char *env)
{
	if (s->origin && !strcmp(s->origin, "environment"))
		strbuf_addf(log, "yours: %s", env);
	else
		strbuf_addf(log, "yours: %s", s->origin ? s->origin : "unknown");
}

/* The distcc part: hosts from DISTCC_HOSTS or the kit, ccache's prefix_command, the job count. */
static int plan_distcc(struct ccache_plan *cp, const struct kernel_branch *b,
		       const struct ccache_setting *prefix)
{
	const char *env = getenv("DISTCC_HOSTS"), *hosts;
	struct strbuf where = STRBUF_INIT, out = STRBUF_INIT;
	struct child c = CHILD_INIT;
	int ret = 0;

	if (env && *env) {
		hosts = env;
		strbuf_addstr(&where, "DISTCC_HOSTS");
	} else if (b->build.distcc_hosts) {
		hosts = b->build.distcc_hosts;
		strbuf_addf(&where, "%s:%d", b->path, b->build.distcc_line);
	} else {
		goto cleanup;
	}
	if (!cp->enabled || !program_on_path("distcc")) {
		ret = error_code(MKS_ECONFIG,
				 "%s names distcc hosts '%s', but %s is not installed (apt-get install %s)",
				 where.buf, hosts, cp->enabled ? "distcc" : "ccache, which runs distcc",
				 cp->enabled ? "distcc" : "ccache");
		goto cleanup;
	}
	if (!is_default(prefix)) {
		strbuf_addf(&cp->log, "# ccache: prefix_command %s (", prefix->value);
		add_yours(&cp->log, prefix, "CCACHE_PREFIX");
		strbuf_addf(&cp->log, "); distcc hosts named by %s left to it\n", where.buf);
		goto cleanup;
	}
	strvec_push(&cp->env, "CCACHE_PREFIX=distcc");
	if (hosts != env)
		strvec_pushf(&cp->env, "DISTCC_HOSTS=%s", hosts);
	/* distcc itself sums the hosts' slots: the job count that keeps them busy. */
	strvec_pushl(&c.argv, "distcc", "-j", NULL);
	strvec_pushf(&c.env, "DISTCC_HOSTS=%s", hosts);
	c.out = &out;
	if (!child_run(&c))
		cp->jobs = (unsigned)strtoul(out.buf, NULL, 10);
	strbuf_addf(&cp->log, "# ccache: prefix_command distcc, hosts '%s' (%s), %u jobs\n", hosts,
		    where.buf, cp->jobs);
cleanup:
	child_release(&c);
	strbuf_release(&out);
	strbuf_release(&where);
	return ret;
}

int ccache_plan_make(struct ccache_plan *cp, const struct kernel_branch *b)
{
	struct ccache_setting set[S_NR] = { { 0 } };
	char *file = NULL, *cache = NULL, *shown = NULL;
	int ret = 0;
	size_t i;

	cp->enabled = program_on_path("ccache");
	if (!cp->enabled) {
		strbuf_addstr(&cp->log, "# ccache: not installed, compiling without it\n");
		ret = plan_distcc(cp, b, &set[S_PREFIX]);
		goto cleanup;
	}
	if ((ret = read_settings(set, &file)))
		goto cleanup;

	if (is_default(&set[S_CACHE_DIR]) && !file && (cache = mks_cache_dir())) {
		char *dir = path_join(cache, "ccache");

		strvec_pushf(&cp->env, "CCACHE_DIR=%s", dir);
		strbuf_addf(&cp->log, "# ccache: cache_dir %s (mkseries's own: no ccache setting of yours)\n",
			    dir);
		free(dir);
	} else if (is_default(&set[S_CACHE_DIR])) {
		strbuf_addf(&cp->log, "# ccache: cache_dir %s (ccache's default: %s sets ccache up)\n",
			    set[S_CACHE_DIR].value, file ? file : "the environment");
	} else {
		strbuf_addf(&cp->log, "# ccache: cache_dir %s (", set[S_CACHE_DIR].value);
		add_yours(&cp->log, &set[S_CACHE_DIR], "CCACHE_DIR");
		strbuf_addstr(&cp->log, ")\n");
	}

	if (!is_default(&set[S_REMOTE]) && set[S_REMOTE].origin) {
		shown = redact_url(set[S_REMOTE].value);
		strbuf_addf(&cp->log, "# ccache: remote_storage %s (", shown);
		add_yours(&cp->log, &set[S_REMOTE], "CCACHE_REMOTE_STORAGE");
		strbuf_addstr(&cp->log, ")\n");
	} else if (b->build.ccache_remote) {
		shown = redact_url(b->build.ccache_remote);
		strvec_pushf(&cp->env, "CCACHE_REMOTE_STORAGE=%s", b->build.ccache_remote);
		strbuf_addf(&cp->log, "# ccache: remote_storage %s (%s:%d)\n", shown, b->path,
			    b->build.ccache_remote_line);
	}

	if (is_default(&set[S_DEPEND])) {
		strvec_push(&cp->env, "CCACHE_DEPEND=1");
		strbuf_addstr(&cp->log, "# ccache: depend_mode true (mkseries: a miss skips the preprocessor; kbuild writes the .d files)\n");
	} else {
		strbuf_addf(&cp->log, "# ccache: depend_mode %s (", set[S_DEPEND].value);
		add_yours(&cp->log, &set[S_DEPEND], "CCACHE_(NO)DEPEND");
		strbuf_addstr(&cp->log, ")\n");
	}

	/*
	 * base_dir stays the user's: it hands the compiler relative paths,
	 * and the kernel's -fmacro-prefix-map=<srctree>/= then no longer
	 * strips __FILE__, so WARN() lines would name ../src/mm/... files.
	 */
	if (!is_default(&set[S_BASE_DIR])) {
		strbuf_addf(&cp->log, "# ccache: base_dir %s (", set[S_BASE_DIR].value);
		add_yours(&cp->log, &set[S_BASE_DIR], "CCACHE_BASEDIR");
		strbuf_addstr(&cp->log, ")\n");
	}
	ret = plan_distcc(cp, b, &set[S_PREFIX]);
cleanup:
	for (i = 0; i < S_NR; i++) {
		free(set[i].origin);
		free(set[i].value);
	}
	free(shown);
	free(cache);
	free(file);
	return ret;
}

void ccache_plan_release(struct ccache_plan *cp)
{
	strvec_clear(&cp->env);
	strbuf_release(&cp->log);
	memset(cp, 0, sizeof(*cp));
}
