/* builtin/fixups.c: `mkseries fixups`: the kit's declared fixups, and the ones upstream it lacks. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "patches/fixups.h"
#include "lib/gitutil.h"
#include "lib/json.h"
#include "lib/options.h"
#include "patches/patchfile.h"
#include "kit/select.h"
#include "lib/util.h"
#include "kit/yamledit.h"

/* What a patch is called in a listing: its upstream id, else its file. */
static const char *patch_id(const struct kit_patch *p)
{
	return p->upstream ? p->upstream : p->file ? p->file : "-";
}

/* A declared fixup as JSON, inside the "fixups" array. */
static void json_declared(struct jw *w, const struct kit_series *s, const struct kit_patch *f)
{
	const struct kit_patch *t = f->fixes_patch;

	jw_open(w, NULL, '{');
	jw_string(w, "series", s->id);
	jw_string(w, "label", kit_patch_label(f));
	jw_string(w, "upstream", f->upstream);
	jw_string(w, "file", f->file);
	jw_string(w, "subject", f->subject);
	jw_open(w, "fixes", '{');
	jw_string(w, "label", t ? kit_patch_label(t) : NULL);
	jw_string(w, "as_written", f->fixes);
	jw_close(w, '}');
	jw_bool(w, "squash", f->squash);
	jw_close(w, '}');
}

static int list_declared(const struct kit *kit, int json)
{
	struct strbuf out = STRBUF_INIT;
	struct jw w = { &out, 0, { 0 } };
	size_t i, j, n = 0;

	if (json) {
		jw_open(&w, NULL, '{');
		jw_open(&w, "fixups", '[');
	}
	for (i = 0; i < kit->nr_series; i++) {
		const struct kit_series *s = &kit->series[i];

		for (j = 0; j < s->nr_fixups; j++) {
			const struct kit_patch *f = &s->fixups[j], *t = f->fixes_patch;

			if (json) {
				json_declared(&w, s, f);
			} else {
				printf("%s  %s  %s\n", kit_patch_label(f), shown(patch_id(f)),
				       f->subject ? shown(f->subject) : "");
				if (t)
					printf("    fixes %s %s; %s\n", kit_patch_label(t), shown(patch_id(t)),
					       f->squash ? "squashed into it" : "goes right after it");
			}
			n++;
		}
	}
	if (json) {
		jw_close(&w, ']');
		jw_close(&w, '}');
		fwrite(out.buf, 1, out.len, stdout);
	} else if (!n) {
		printf("the kit declares no fixups\n");
	}
	strbuf_release(&out);
	return 0;
}

static const char *missing_series(const struct fixup_missing *m)
{
	return m->root->series->id;
}

static void print_text(const struct fixups_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nr; i++) {
		const struct fixup_missing *m = &rep->missing[i];
		char id[13];

		git_oid_tostr(id, sizeof(id), &m->oid);
		printf("%s: missing %s %s (%s ", missing_series(m), id, shown(m->subject),
		       fixref_kind_name(m->kind));
		if (m->target)
			printf("%.12s %s", shown(patch_id(m->target)), kit_patch_label(m->target));
		else
			printf("%s, itself missing", oid_short(&rep->missing[m->target_missing].oid));
		printf(", %s", m->tag ? shown(m->tag) : "in no tag");
		if (m->stable) {
			printf(", Cc: stable");
			if (m->stable_comment)
				printf(" # %s", shown(m->stable_comment));
		}
		printf(")\n");
	}
	/* rep->candidates: the commits read whose message names another (what fixref reads) */
	printf("fixups: %zu missing among %zu commits read (%zu of them name another commit by "
	       "Fixes:, Stable-dep-of: or a revert)\n", rep->nr, rep->walked, rep->candidates);
}

/* A missing fixup as JSON, inside the "missing" array. */
static void json_missing(struct jw *w, const struct fixups_report *rep, const struct fixup_missing *m)
{
	char id[GIT_OID_HEXSZ + 1];

	git_oid_tostr(id, sizeof(id), &m->oid);
	jw_open(w, NULL, '{');
	jw_string(w, "series", missing_series(m));
	jw_string(w, "id", id);
	jw_string(w, "subject", m->subject);
	jw_string(w, "kind", fixref_kind_name(m->kind));
	jw_open(w, "target", '{');
	if (m->target) {
		jw_string(w, "id", patch_id(m->target));
		jw_string(w, "label", kit_patch_label(m->target));
	} else {
		git_oid_tostr(id, sizeof(id), &rep->missing[m->target_missing].oid);
		jw_string(w, "id", id);
		jw_string(w, "label", NULL);
	}
	jw_bool(w, "missing", !m->target);
	jw_close(w, '}');
	jw_string(w, "tag", m->tag);
	jw_bool(w, "stable", m->stable);
	jw_string(w, "stable_comment", m->stable_comment);
	jw_number(w, "depth", m->depth);
	jw_close(w, '}');
}

static void print_json(const struct fixups_report *rep, const char *mainline, const char *ref,
		       const char *since)
{
	struct strbuf out = STRBUF_INIT;
	struct jw w = { &out, 0, { 0 } };
	size_t i;

	jw_open(&w, NULL, '{');
	jw_string(&w, "mainline", mainline);
	jw_string(&w, "ref", ref ? ref : "HEAD");
	jw_string(&w, "since", since);
	jw_count(&w, "walked", rep->walked);
	jw_count(&w, "candidates", rep->candidates);
	jw_open(&w, "missing", '[');
	for (i = 0; i < rep->nr; i++)
		json_missing(&w, rep, &rep->missing[i]);
	jw_close(&w, ']');
	jw_close(&w, '}');
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
}

/*
 * Add every missing commit to series.yaml as a fixup of its chain's
 * series, with its patch written from the mainline into
 * patches/<series>/, then load the kit again: if the result does not
 * load, series.yaml is put back as it was and the new files removed.
 */
static int write_fixups(struct kit *kit, git_repository *repo, const struct fixups_report *rep,
			int verbose)
{
	char *path = path_join(kit->dir, "series.yaml");
	char *dir = xstrdup(kit->dir);
	struct strbuf text = STRBUF_INIT, orig = STRBUF_INIT;
	size_t n = rep->nr ? rep->nr : 1, i, j;
	struct yaml_fixup_entry *e = xcalloc(n, sizeof(*e));
	char (*ids)[13] = xcalloc(n, sizeof(*ids));
	char (*fixes)[13] = xcalloc(n, sizeof(*fixes));
	char **files = xcalloc(n, sizeof(*files));
	/* The kit takes no control characters: a hostile subject goes in escaped. */
	char **subjects = xcalloc(n, sizeof(*subjects));
	int ret = 0;

	if (strbuf_read_file(&text, path)) {
		ret = print_error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	strbuf_add(&orig, text.buf, text.len);
	for (i = 0; i < kit->nr_series; i++) {
		const struct kit_series *s = &kit->series[i];
		char *pdir = xstrfmt("patches/%s", s->id), *abs = path_join(kit->dir, pdir);
		unsigned number = patch_dir_last_number(abs);
		size_t first = SIZE_MAX, k = 0;

		for (j = 0; j < rep->nr && !ret; j++) {
			const struct fixup_missing *m = &rep->missing[j];

			if (m->root->series != s)
				continue;
			if (first == SIZE_MAX)
				first = j;
			ret = patch_write_commit(&files[j], repo, &m->oid, kit->dir, NULL, pdir,
						 ++number, 0);
			git_oid_tostr(ids[j], sizeof(ids[j]), &m->oid);
			if (m->target)
				snprintf(fixes[j], sizeof(fixes[j]), "%.12s", m->target->upstream);
			else
				git_oid_tostr(fixes[j], sizeof(fixes[j]),
					      &rep->missing[m->target_missing].oid);
			e[k].file = files[j];
			e[k].upstream = ids[j];
			subjects[j] = m->subject ? xstrdup(shown(m->subject)) : NULL;
			e[k].subject = subjects[j];
			e[k].fixes = fixes[j];
			k++;
		}
		free(abs);
		free(pdir);
		if (ret)
			goto cleanup;
		if (k && yamledit_add_fixups(&text, path, s->id, e, k)) {
			ret = -1;
			goto cleanup;
		}
	}
	if (yamledit_commit(kit, dir, path, &text, &orig, "the new fixups")) {
		ret = -1;
		goto cleanup;
	}
	for (i = 0; verbose && i < rep->nr; i++)
		printf("added %s as a fixup of %s, from %s\n", ids[i], fixes[i], shown(files[i]));
cleanup:
	for (i = 0; i < rep->nr; i++) {
		if (ret && files[i]) {
			char *abs = path_join(dir, files[i]);

			unlink(abs);
			free(abs);
		}
		free(files[i]);
		free(subjects[i]);
	}
	free(files);
	free(subjects);
	free(fixes);
	free(ids);
	free(e);
	strbuf_release(&orig);
	strbuf_release(&text);
	free(dir);
	free(path);
	return ret;
}

int cmd_fixups(int argc, const char **argv)
{
	const char *mainline = NULL, *ref = NULL, *since = NULL, *format = "text";
	int write = 0, json, ret = 0;
	const struct option opts[] = {
		OPT_STRING("mainline", 0, &mainline, "DIR",
		  "look for missing fixups in this mainline repository"),
		OPT_STRING("ref", 0, &ref, "REF", "walk from REF (default HEAD)"),
		OPT_STRING("since", 0, &since, "REV", "stop at commits reachable from REV"),
		OPT_BOOL("write", 'w', &write, "add the missing fixups to series.yaml"),
		OPT_STRING("format", 0, &format, "text|json", "output format"),
		OPT_END(),
	};
	const char *usage = "mkseries fixups [--mainline DIR [--ref REF] [--since REV] [--write]] "
			    "[--format text|json]";
	struct fixups_report rep = FIXUPS_REPORT_INIT;
	git_repository *repo = NULL;
	struct kit kit = KIT_INIT;

	parse_options_only(argc, argv, opts, usage);
	if (strcmp(format, "text") && strcmp(format, "json")) {
		print_error("unknown format '%s' (text or json)", format);
		usage_with_options(usage, opts, 2);
	}
	json = !strcmp(format, "json");
	if (!mainline && (ref || since || write)) {
		print_error("--ref, --since and --write need --mainline");
		usage_with_options(usage, opts, 2);
	}
	if (kit_open(&kit))
		return 2;
	if (!mainline) {
		ret = list_declared(&kit, json);
		goto cleanup;
	}
	if (repo_open(&repo, mainline, 0)) {
		ret = 2;
		goto cleanup;
	}
	if (fixups_find(&rep, &kit, repo, ref, since)) {
		ret = 2;
		goto cleanup;
	}
	if (json)
		print_json(&rep, mainline, ref, since);
	else
		print_text(&rep);
	ret = rep.nr ? 1 : 0;
	if (!write && rep.nr && !json)
		fprintf(stderr, "hint: to add them to series.yaml: mkseries fixups --mainline %s%s%s%s%s "
			"--write\n", shown(mainline), ref ? " --ref " : "", ref ? shown(ref) : "",
			since ? " --since " : "", since ? shown(since) : "");
	if (write && rep.nr) {
		ret = write_fixups(&kit, repo, &rep, !json) ? 1 : 0;
	}
cleanup:
	fixups_report_release(&rep);
	git_repository_free(repo);
	kit_release(&kit);
	return ret;
}
