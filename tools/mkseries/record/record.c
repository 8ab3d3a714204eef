/* record/record.c: the state records of a run's steps: the one table of their fields, reader, writer and freshness decision. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kit/variants.h"
#include "kit/model.h"
#include "lib/gitutil.h"
#include "record/key.h"
#include "record/record.h"
#include "tree/workdir.h"

static enum record_status record_status_parse(const char *word);

static const char *const step_names[] = {
	[STEP_IMPORT] = "import",
	[STEP_APPLY] = "apply",
	[STEP_BUILD] = "build",
	[STEP_TEST] = "test",
	[STEP_NONE] = "none",
};

static const char *const field_names[RF__NR] = {
	[RF_KEY] = "key",
	[RF_KEY_PARTS] = "key_parts",
	[RF_STATUS] = "status",
	[RF_EVIDENCE] = "evidence",
	[RF_AT] = "at",
	[RF_FORMAT] = "format",
	[RF_REUSED] = "reused",
	[RF_BASE] = "base",
	[RF_WHAT] = "what",
	[RF_TIP] = "tip",
	[RF_VARIANTS] = "variants",
	[RF_SERIES] = "series",
	[RF_VARIANT] = "variant",
	[RF_BRANCH] = "branch",
	[RF_COMMIT] = "commit",
	[RF_INPUTS] = "inputs",
	[RF_INPUT_PARTS] = "input_parts",
	[RF_LOG] = "log",
	[RF_SEEDED] = "seeded",
	[RF_MATERIALISE] = "materialise",
	[RF_SECONDS] = "seconds",
	[RF_BZIMAGE] = "bzimage",
	[RF_BZIMAGE_MTIME] = "bzimage_mtime",
	[RF_CONFIG_HASH] = "config_hash",
	[RF_NOTES] = "notes",
	[RF_DETAILS] = "details",
	[RF_FAILURE] = "failure",
	[RF_OBJECTS] = "objects",
	[RF_OBJECTS_FULL] = "objects_full",
	[RF_CONFIG_SECONDS] = "config_seconds",
	[RF_MAKE_SECONDS] = "make_seconds",
	[RF_REPEAT] = "repeat",
	[RF_BZIMAGE_HASH] = "bzimage_hash",
	[RF_STARTED] = "started",
	[RF_ACCEL] = "accel",
	[RF_ACCEL_NOTE] = "accel_note",
	[RF_TIMING] = "timing",
	[RF_BOOTS] = "boots",
	[RF_MODE] = "mode",
	[RF_PASS] = "pass",
	[RF_FAIL] = "fail",
	[RF_SKIP] = "skip",
	[RF_XFAIL] = "xfail",
	[RF_EXPECT_FAIL] = "expect_fail",
	[RF_WITHOUT] = "without",
	[RF_EXPECTED] = "expected",
	[RF_CONSOLE] = "console",
};

/* printf formats of the item fields: %s is the series' index, the variant or the boot. */
static const char *const item_formats[RI__NR] = {
	[RI_SERIES_ID] = "series.%s.id",
	[RI_SERIES_TITLE] = "series.%s.title",
	[RI_SERIES_STATE] = "series.%s.state",
	[RI_SERIES_DETAIL] = "series.%s.detail",
	[RI_VARIANT_STATUS] = "variant.%s.status",
	[RI_VARIANT_TIP] = "variant.%s.tip",
	[RI_VARIANT_EVIDENCE] = "variant.%s.evidence",
	[RI_CONSOLE] = "console.%s",
};

static const char *const status_names[] = {
	[RS_NONE] = "",
	[RS_OK] = "ok",
	[RS_FAILED] = "failed",
	[RS_CONFLICT] = "conflict",
	[RS_ERROR] = "error",
	[RS_RUNNING] = "running",
	[RS_UNKNOWN] = "unknown",
};

const char *run_step_name(enum run_step s)
{
	return (size_t)s < ARRAY_SIZE(step_names) ? step_names[s] : "?";
}

int run_step_forced(enum run_step force, enum run_step step, const char *variant)
{
	/* base is built from the import alone: forcing apply leaves its build and test be */
	if (variant && !strcmp(variant, "base") && force == STEP_APPLY)
		return 0;
	return force <= step;
}

int run_step_parse(enum run_step *out, const char *name)
{
	size_t i;

	for (i = 0; i < STEP_NONE; i++)
		if (!strcmp(name, step_names[i])) {
			*out = i;
			return 0;
		}
	return error_code(MKS_ECONFIG, "unknown step '%s' for --force (import, apply, build or test)",
			  name);
}

static const char *field_name(enum record_field f)
{
	if ((size_t)f >= RF__NR || !field_names[f])
		BUG("record field %d has no name", (int)f);
	return field_names[f];
}

int record_field_parse(enum record_field *out, const char *name)
{
	size_t i;

	for (i = 0; i < RF__NR; i++)
		if (!strcmp(name, field_name(i))) {
			*out = i;
			return 0;
		}
	return -1;
}

int record_item_parse(enum record_item *out, char **which, const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < RI__NR; i++) {
		const char *fmt = item_formats[i], *at = strstr(fmt, "%s");
		size_t pre = at - fmt, post = strlen(at + 2);

		if (len > pre + post && !strncmp(name, fmt, pre) &&
		    !strcmp(name + len - post, at + 2)) {
			*out = i;
			*which = xstrndup(name + pre, len - pre - post);
			return 0;
		}
	}
	return -1;
}

/* state/run.<step> (import, apply) or state/<variant>.<step> (build, test). */
static char *record_path(const char *workdir, enum run_step step, const char *variant)
{
	char *dir = workdir_path(workdir, WD_STATE, NULL), *path;

	if (step == STEP_BUILD || step == STEP_TEST) {
		if (!variant)
			BUG("a %s record names its variant", run_step_name(step));
		path = xstrfmt("%s/%s.%s", dir, variant, run_step_name(step));
	} else if (step == STEP_IMPORT || step == STEP_APPLY) {
		path = xstrfmt("%s/run.%s", dir, run_step_name(step));
	} else {
		BUG("no record of step %d", (int)step);
	}
	free(dir);
	return path;
}

/* Where versions before one record per step kept the run's half of a build or test record. */
static char *legacy_run_path(const char *workdir, enum run_step step, const char *variant)
{
	char *dir = workdir_path(workdir, WD_STATE, NULL);
	char *path = xstrfmt("%s/run.%s.%s", dir, variant, run_step_name(step));

	free(dir);
	return path;
}

/*
 * Records of format 1 (no RF_FORMAT) of a build or test come in two
 * dialects. The later is one file, read as it is. The earlier kept two
 * files: the module's (<variant>.<step>: the work, its "finished" time,
 * no RF_AT) and the run's (run.<variant>.<step>: key, key parts,
 * outcome, image hash, repeat, and the module's "finished" it stood
 * for). When r, read from the first, is the module's, take these from
 * the second if both describe the same work, so that a work directory
 * of an earlier version is not redone for nothing. A run's error, or two
 * files of different work, leave r without a key: the step runs again,
 * once. Never called for format 2, which has no second file.
 */
static int read_legacy(struct step_record *r, const char *workdir, enum run_step step,
		       const char *variant)
{
	static const enum record_field taken[] = {
		RF_KEY, RF_KEY_PARTS, RF_BZIMAGE_HASH, RF_REPEAT, RF_STARTED, RF_REUSED,
	};
	struct state old = STATE_INIT;
	char *path = legacy_run_path(workdir, step, variant);
	const char *mine = state_get(&r->kv, "finished"), *theirs, *status;
	size_t i;

	if (record_get(r, RF_AT) || !mine || state_read(&old, path))
		goto cleanup;
	theirs = state_get(&old, "finished");
	status = state_get(&old, "status");
	if (!theirs || strcmp(mine, theirs) || !status ||
	    record_status_parse(status) != record_status(r))
		goto cleanup;
	for (i = 0; i < ARRAY_SIZE(taken); i++) {
		const char *v = state_get(&old, field_name(taken[i]));

		if (v && !record_get(r, taken[i]))
			record_set(r, taken[i], v);
	}
cleanup:
	/* When the work was done is when its record was written. */
	if (mine && !record_get(r, RF_AT))
		record_set(r, RF_AT, mine);
	state_release(&old);
	free(path);
	return 0;
}

/*
 * The format of record r, read from path: 1 when it has none, 0 when it
 * is one this mkseries does not know (said once a file, as a newer
 * mkseries wrote it).
 */
static int record_format(const struct step_record *r, const char *path)
{
	static struct strvec said = STRVEC_INIT;
	const char *v = record_get(r, RF_FORMAT);
	char *end;
	long n;
	size_t i;

	if (!v)
		return 1;
	n = strtol(v, &end, 10);
	if (*v && !*end && n >= 1 && n <= RECORD_FORMAT)
		return (int)n;
	for (i = 0; i < said.nr && strcmp(said.v[i], path); i++)
		;
	if (i == said.nr) {
		strvec_push(&said, path);
		warning("ignoring state file '%s': format %s is not one this mkseries reads "
			"(1 to %d), a newer mkseries wrote it; its step counts as not done",
			path, shown(v), RECORD_FORMAT);
	}
	return 0;
}

int record_read(struct step_record *r, const char *workdir, enum run_step step,
		const char *variant)
{
	char *path = record_path(workdir, step, variant);
	int ret = state_read(&r->kv, path), format;

	if (ret)
		goto cleanup;
	format = record_format(r, path);
	if (!format) {
		/* As if it were not there: the step is done again, in this format. */
		state_release(&r->kv);
	} else if (format == 1 && (step == STEP_BUILD || step == STEP_TEST)) {
		ret = read_legacy(r, workdir, step, variant);
	}
cleanup:
	free(path);
	return ret;
}

int record_write(struct step_record *r, const char *workdir, enum run_step step,
		 const char *variant)
{
	char *path = record_path(workdir, step, variant), *legacy;
	int ret;

	record_setf(r, RF_AT, "%lld", (long long)time(NULL));
	record_setf(r, RF_FORMAT, "%d", RECORD_FORMAT);
	ret = state_write(&r->kv, path);
	if (!ret && (step == STEP_BUILD || step == STEP_TEST)) {
		/* This record replaces both files an earlier version kept. */
		legacy = legacy_run_path(workdir, step, variant);
		if (unlink(legacy) && errno != ENOENT)
			ret = error("cannot remove '%s': %s", legacy, strerror(errno));
		free(legacy);
	}
	free(path);
	return ret;
}

void record_release(struct step_record *r)
{
	state_release(&r->kv);
}

const char *record_get(const struct step_record *r, enum record_field f)
{
	return state_get(&r->kv, field_name(f));
}

long long record_ll(const struct step_record *r, enum record_field f)
{
	const char *v = record_get(r, f);

	return v ? strtoll(v, NULL, 10) : 0;
}

double record_double(const struct step_record *r, enum record_field f)
{
	const char *v = record_get(r, f);

	return v ? strtod(v, NULL) : 0;
}

void record_set(struct step_record *r, enum record_field f, const char *value)
{
	state_set(&r->kv, field_name(f), value);
}

void record_setf(struct step_record *r, enum record_field f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	state_vsetf(&r->kv, field_name(f), fmt, ap);
	va_end(ap);
}

int record_module_error(const char *workdir, enum run_step step, const char *branch,
			const char *variant, const char *failure)
{
	struct step_record r = STEP_RECORD_INIT;
	int ret;

	record_set(&r, RF_VARIANT, variant);
	record_set(&r, RF_BRANCH, branch);
	record_set_status(&r, RS_ERROR);
	record_set(&r, RF_FAILURE, failure);
	ret = record_write(&r, workdir, step, variant);
	record_release(&r);
	return ret;
}

static char *item_name(enum record_item f, const char *which)
{
	if ((size_t)f >= RI__NR)
		BUG("record item %d has no name", (int)f);
	return xstrfmt(item_formats[f], which);
}

const char *record_item_get(const struct step_record *r, enum record_item f, const char *which)
{
	char *k = item_name(f, which);
	const char *v = state_get(&r->kv, k);

	free(k);
	return v;
}

void record_item_set(struct step_record *r, enum record_item f, const char *which,
		     const char *value)
{
	char *k = item_name(f, which);

	state_set(&r->kv, k, value);
	free(k);
}

const char *record_item_getn(const struct step_record *r, enum record_item f, size_t n)
{
	char which[32];

	snprintf(which, sizeof(which), "%zu", n);
	return record_item_get(r, f, which);
}

void record_item_setn(struct step_record *r, enum record_item f, size_t n, const char *value)
{
	char which[32];

	snprintf(which, sizeof(which), "%zu", n);
	record_item_set(r, f, which, value);
}

static enum record_status record_status_parse(const char *word)
{
	size_t i;

	if (!word)
		return RS_NONE;
	for (i = RS_OK; i < RS_UNKNOWN; i++)
		if (!strcmp(word, status_names[i]))
			return i;
	return RS_UNKNOWN;
}

const char *record_status_name(enum record_status s)
{
	return (size_t)s < ARRAY_SIZE(status_names) ? status_names[s] : "unknown";
}

enum record_status record_status(const struct step_record *r)
{
	return record_status_parse(record_get(r, RF_STATUS));
}

enum record_status record_variant_status(const struct step_record *r, const char *variant)
{
	return record_status_parse(record_item_get(r, RI_VARIANT_STATUS, variant));
}

void record_set_status(struct step_record *r, enum record_status s)
{
	if (s == RS_NONE || s == RS_UNKNOWN)
		BUG("recording status %d", (int)s);
	record_set(r, RF_STATUS, status_names[s]);
}

/*
 * "name:hash" for each name of k's lines, in the order names first
 * appear; the hash (12 digits) is of every line of that name.
 */
static void key_parts(struct strbuf *out, const struct step_key *k)
{
	struct strvec names = STRVEC_INIT;
	const char *p, *eol;
	size_t i;

	for (p = k->text.buf; *p; p = *eol ? eol + 1 : eol) {
		size_t n = strcspn(p, " \n");
		char *name = xstrndup(p, n);

		eol = strchrnul(p, '\n');
		for (i = 0; i < names.nr && strcmp(names.v[i], name); i++)
			;
		if (i == names.nr)
			strvec_push(&names, name);
		free(name);
	}
	for (i = 0; i < names.nr; i++) {
		struct strbuf lines = STRBUF_INIT;
		size_t n = strlen(names.v[i]);
		char *h;

		for (p = k->text.buf; *p; p = *eol ? eol + 1 : eol) {
			eol = strchrnul(p, '\n');
			if (!strncmp(p, names.v[i], n) && (p[n] == ' ' || p[n] == '\n'))
				strbuf_add(&lines, p, eol - p + !!*eol);
		}
		h = blob_hash_hex(lines.buf, lines.len);
		strbuf_addf(out, "%s%s:%.12s", i ? " " : "", names.v[i], h);
		free(h);
		strbuf_release(&lines);
	}
	strvec_clear(&names);
}

void record_set_key(struct step_record *r, const struct step_key *k)
{
	struct strbuf parts = STRBUF_INIT;
	char *hash = step_key_hash(k);

	key_parts(&parts, k);
	record_set(r, RF_KEY, hash);
	record_set(r, RF_KEY_PARTS, parts.buf);
	strbuf_release(&parts);
	free(hash);
}

/* Whether the word "name:hash" is in the space-separated list. */
static int has_part(const char *list, const char *part, size_t len)
{
	while (list && *list) {
		size_t n = strcspn(list, " ");

		if (n == len && !strncmp(list, part, n))
			return 1;
		list += n + !!list[n];
	}
	return 0;
}

/* Whether the list has a part named `name` ("name:hash"). */
static int has_name(const char *list, const char *name)
{
	size_t len = strlen(name);

	while (list && *list) {
		size_t n = strcspn(list, " ");

		if (n > len && list[len] == ':' && !strncmp(list, name, len))
			return 1;
		list += n + !!list[n];
	}
	return 0;
}

/*
 * Append to out the names whose parts differ between the recorded list
 * `old` and `now`, each once, now's order first. `partial`: now holds
 * only some of the step's parts, so only names both lists have count.
 */
static void changed_names(struct strvec *out, const char *old, const char *now, int partial)
{
	const char *lists[] = { now, old }, *p;
	size_t i, j;

	for (j = 0; j < ARRAY_SIZE(lists); j++) {
		for (p = lists[j]; *p; ) {
			size_t n = strcspn(p, " "), c = strcspn(p, ":");
			char *name = xstrndup(p, c < n ? c : n);

			if (!has_part(lists[!j], p, n) && (!partial || has_name(lists[!j], name))) {
				for (i = 0; i < out->nr && strcmp(out->v[i], name); i++)
					;
				if (i == out->nr)
					strvec_push(out, name);
			}
			free(name);
			p += n + !!p[n];
		}
	}
}

void record_parts_changed(struct strvec *out, const char *old, const char *now)
{
	struct strvec names = STRVEC_INIT;
	size_t i;

	changed_names(&names, old ? old : "", now ? now : "", 0);
	for (i = 0; i < names.nr; i++) {
		struct strbuf sb = STRBUF_INIT;
		const char *p;

		/* the names' spaces and percent signs were %-encoded */
		for (p = names.v[i]; *p; p++) {
			unsigned hi, lo;

			if (*p == '%' && sscanf(p + 1, "%1x%1x", &hi, &lo) == 2) {
				strbuf_addch(&sb, (char)(hi << 4 | lo));
				p += 2;
			} else {
				strbuf_addch(&sb, *p);
			}
		}
		strvec_push(out, sb.buf);
		strbuf_release(&sb);
	}
	strvec_clear(&names);
}

/* Add to why the names whose parts differ between the recorded list `old` and `now`. */
static void name_changed_parts(struct strbuf *why, const char *old, const char *now)
{
	struct strvec names = STRVEC_INIT;
	size_t i;

	changed_names(&names, old, now, 0);
	for (i = 0; i < names.nr; i++)
		strbuf_addf(why, "%s%s", i ? ", " : "", names.v[i]);
	strbuf_addstr(why, names.nr ? " changed" : "its inputs changed");
	strvec_clear(&names);
}

int record_changed(struct strvec *names, const struct step_record *r, const struct step_key *k,
		   int partial)
{
	const char *old = record_get(r, RF_KEY), *parts = record_get(r, RF_KEY_PARTS);
	struct strbuf now = STRBUF_INIT;
	size_t before = names->nr;
	char *hash;

	if (!old || record_status(r) == RS_NONE)
		return 0;
	if (!parts || !*parts) {
		if (partial)
			return 0;
		/* Recorded before the parts were: that something changed is all it can tell. */
		hash = step_key_hash(k);
		if (strcmp(old, hash))
			strvec_push(names, "its inputs");
		free(hash);
		return names->nr > before;
	}
	key_parts(&now, k);
	changed_names(names, parts, now.buf, partial);
	strbuf_release(&now);
	return names->nr > before;
}

int record_fresh(const struct step_record *r, const struct step_key *k, int forced,
		 struct strbuf *why)
{
	enum record_status s = record_status(r);
	const char *old = record_get(r, RF_KEY), *parts = record_get(r, RF_KEY_PARTS);
	struct strbuf now = STRBUF_INIT;
	char *hash = NULL;
	int fresh = 0;

	strbuf_reset(why);
	if (s == RS_NONE)
		return 0;
	if (forced) {
		strbuf_addstr(why, "forced");
		return 0;
	}
	if (s == RS_ERROR || s == RS_RUNNING || s == RS_UNKNOWN) {
		strbuf_addstr(why, "the last attempt could not run");
		return 0;
	}
	if (!k) {
		strbuf_addstr(why, "what it runs is settled only by running it");
		return 0;
	}
	hash = step_key_hash(k);
	if (old && !strcmp(old, hash)) {
		fresh = 1;
	} else if (!old) {
		/* `mkseries test` alone, or files of an earlier version that did not match. */
		strbuf_addstr(why, "no key was recorded");
	} else if (!parts || !*parts) {
		/* Recorded before the parts were: which one changed is not known. */
		strbuf_addstr(why, "its inputs changed");
	} else {
		key_parts(&now, k);
		name_changed_parts(why, parts, now.buf);
	}
	strbuf_release(&now);
	free(hash);
	return fresh;
}

void record_variants(struct strvec *out, const char *workdir)
{
	struct strvec found = STRVEC_INIT;
	char *dir = workdir_path(workdir, WD_STATE, NULL);
	struct dirent *de;
	size_t i, j;
	DIR *d;

	d = opendir(dir);
	while (d && (de = readdir(d))) {
		const char *name = de->d_name, *dot;
		char *v;

		skip_prefix(name, "run.", &name);
		dot = strrchr(name, '.');
		if (!dot || (strcmp(dot, ".build") && strcmp(dot, ".test")))
			continue;
		v = xstrndup(name, dot - name);
		for (j = 0; j < out->nr && strcmp(out->v[j], v); j++)
			;
		for (i = 0; i < found.nr && strcmp(found.v[i], v); i++)
			;
		/* bisect's probes leave records that are no cell of the branch */
		if (j == out->nr && i == found.nr && variant_name_ok(v) && strcmp(v, VARIANT_BISECT))
			strvec_push(&found, v);
		free(v);
	}
	if (d)
		closedir(d);
	qsort(found.v, found.nr, sizeof(*found.v), strp_cmp);
	for (i = 0; i < found.nr; i++)
		strvec_push(out, found.v[i]);
	strvec_clear(&found);
	free(dir);
}

int record_copy_from_base(const char *workdir, enum run_step step, const char *variant)
{
	struct step_record r = STEP_RECORD_INIT;
	char *path = record_path(workdir, step, variant), *legacy;
	int ret = record_read(&r, workdir, step, "base");

	if (!ret) {
		if (record_get(&r, RF_VARIANT))
			record_set(&r, RF_VARIANT, variant);
		record_set(&r, RF_REUSED, "base");
		/* read in any format, it is written in this one */
		record_setf(&r, RF_FORMAT, "%d", RECORD_FORMAT);
		/* Written as it was read: its RF_AT is when base's work was done. */
		ret = state_write(&r.kv, path);
	}
	if (!ret) {
		legacy = legacy_run_path(workdir, step, variant);
		unlink(legacy);
		free(legacy);
	}
	free(path);
	record_release(&r);
	return ret;
}
