/* builtin/fetch.c: `mkseries fetch`: bring a series' patches into patches/<series>/, from a mainline or b4. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin/builtin.h"
#include "lib/gitutil.h"
#include "patches/b4.h"
#include "patches/mail.h"
#include "lib/options.h"
#include "patches/patchfile.h"
#include "kit/select.h"
#include "lib/util.h"
#include "kit/yamledit.h"

/* An entry of the series and the file fetched for it. */
struct fetched {
	const struct kit_patch *patch;
	char *file;			/* relative to the kit; NULL when nothing was written */
};

/* Entry i of the series: its patches, then its fixups. */
static const struct kit_patch *entry(const struct kit_series *s, size_t i)
{
	return i < s->nr_patches ? &s->patches[i] : &s->fixups[i - s->nr_patches];
}

static int fetch_mainline(struct fetched *out, const struct kit *kit, const struct kit_series *s,
			  const char *mainline, int force)
{
	git_repository *repo = NULL;
	char *dir = xstrfmt("patches/%s", s->id);
	size_t i, n = s->nr_patches + s->nr_fixups;
	int ret = 0;

	if (repo_open(&repo, mainline, 0)) {
		ret = MKS_ECONFIG;
		goto cleanup;
	}
	for (i = 0; i < n; i++) {
		const struct kit_patch *p = entry(s, i);
		git_object *obj = NULL;
		git_oid oid;
		size_t len = p->upstream ? strlen(p->upstream) : 0;

		out[i].patch = p;
		if (!len) {
			ret = print_error("%s has no upstream id: fetch it with b4, or give it a file",
				    kit_patch_label(p));
			continue;
		}
		if (git_oid_fromstrn(&oid, p->upstream, len) ||
		    git_object_lookup_prefix(&obj, repo, &oid, len, GIT_OBJECT_COMMIT) < 0) {
			ret = print_error("%s: commit %s is not in '%s'", kit_patch_label(p), p->upstream,
				    mainline);
			continue;
		}
		if (patch_write_commit(&out[i].file, repo, git_object_id(obj), kit->dir, p->file, dir,
				       (unsigned)i + 1, force))
			ret = -1;
		else
			printf("%s: %s\n", kit_patch_label(p), shown(out[i].file));
		git_object_free(obj);
	}
cleanup:
	git_repository_free(repo);
	free(dir);
	return ret;
}

/* The message-id of a series: `message-id:`, else the last part of a lore `link:`. */
static char *series_msgid(const struct kit_series *s)
{
	static const char *const lore[] = {
		"https://lore.kernel.org/", "http://lore.kernel.org/", NULL,
	};
	const char *rest = NULL, *end;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (s->message_id)
		return xstrdup(s->message_id);
	for (i = 0; s->link && lore[i] && !rest; i++)
		skip_prefix(s->link, lore[i], &rest);
	if (!rest)
		return NULL;
	/* lore.kernel.org/r/<id>/ or lore.kernel.org/<list>/<id>/ */
	end = strchr(rest, '/');
	if (!end)
		return NULL;
	rest = end + 1;
	end = rest + strcspn(rest, "/?#");
	for (; rest < end; rest++) {
		unsigned v;

		if (*rest == '%' && end - rest >= 3 && sscanf(rest + 1, "%2x", &v) == 1) {
			strbuf_addch(&sb, (char)v);
			rest += 2;
		} else {
			strbuf_addch(&sb, *rest);
		}
	}
	if (!sb.len || strchr(sb.buf, '@') == NULL) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* The kit entry a mail stands for: same subject, else the patch of its number. */
static const struct kit_patch *match_mail(const struct kit_series *s, const struct mail_patch *m,
					  size_t order)
{
	size_t i, n = s->nr_patches + s->nr_fixups;

	for (i = 0; i < n; i++)
		if (entry(s, i)->subject && m->subject && !strcmp(entry(s, i)->subject, m->subject))
			return entry(s, i);
	if (m->number > 0 && (size_t)m->number <= s->nr_patches)
		return &s->patches[m->number - 1];
	return order < s->nr_patches ? &s->patches[order] : NULL;
}

static int write_mail(const char *path, const char *text)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int ret;

	if (slash)
		*slash = '\0';
	ret = (slash && mkdir_p(dir, 0755)) || write_file_atomic(path, text, strlen(text)) ? -1 : 0;
	free(dir);
	return ret;
}

static int fetch_b4(struct fetched *out, const struct kit *kit, const struct kit_series *s,
		    const char *mbox, int force)
{
	char *msgid = series_msgid(s), *dir = xstrfmt("patches/%s", s->id);
	const char *mbx = "b4's mbox";
	struct strbuf cover = STRBUF_INIT, text = STRBUF_INIT;
	struct strvec mails = STRVEC_INIT;
	size_t i, n = s->nr_patches + s->nr_fixups;
	int ret = 0;

	if (!msgid) {
		ret = print_error_code(MKS_ECONFIG,
				 "series '%s' has no message-id: give it 'message-id:' or a lore 'link:', "
				 "or fetch from a mainline with --mainline DIR", s->id);
		goto cleanup;
	}
	ret = b4_am(&text, &cover, msgid, mbox, "fetch with --mbox FILE or --mainline DIR");
	if (ret)
		goto cleanup;
	mail_split_mbox(&mails, text.buf, text.len);
	for (i = 0; i < mails.nr; i++) {
		struct mail_patch *mp = NULL;
		const struct kit_patch *p;
		size_t nr = 0, k;
		char *name, *rel, *path;

		if (mail_parse_buffer(&mp, &nr, mails.v[i], strlen(mails.v[i]), mbx) || !nr) {
			mail_patches_free(mp, nr);
			continue;
		}
		p = match_mail(s, &mp[0], i);
		if (!p) {
			warning("b4 gave a patch the series does not list: '%s'", mp[0].subject);
			mail_patches_free(mp, nr);
			continue;
		}
		for (k = 0; k < n && entry(s, k) != p; k++)
			;
		name = patch_file_name((unsigned)k + 1, mp[0].subject ? mp[0].subject : "");
		rel = p->file ? xstrdup(p->file) : xstrfmt("%s/%s", dir, name);
		path = path_join(kit->dir, rel);
		mail_patches_free(mp, nr);
		if (!force && file_exists(path)) {
			ret = print_error("%s exists; use --force to overwrite", rel);
		} else if (write_mail(path, mails.v[i])) {
			ret = print_error("cannot write '%s': %s", rel, strerror(errno));
		} else if (!out[k].file) {
			out[k].patch = p;
			out[k].file = rel;
			rel = NULL;
			printf("%s: %s\n", kit_patch_label(p), shown(out[k].file));
		}
		free(rel);
		free(path);
		free(name);
	}
	for (i = 0; i < n && !ret; i++)
		if (!out[i].file)
			warning("b4 gave nothing for %s", kit_patch_label(entry(s, i)));
cleanup:
	strvec_clear(&mails);
	strbuf_release(&text);
	strbuf_release(&cover);
	free(dir);
	free(msgid);
	return ret;
}

/* Record `file:` on every entry fetched that had none, keeping the rest of series.yaml as it is. */
static int record_files(struct kit *kit, const struct kit_series *s, const struct fetched *f)
{
	char *path = path_join(kit->dir, "series.yaml"), *dir = xstrdup(kit->dir);
	char *id = xstrdup(s->id);
	struct strbuf text = STRBUF_INIT, orig = STRBUF_INIT;
	size_t i, n = s->nr_patches + s->nr_fixups, added = 0;
	int ret = 0;

	if (strbuf_read_file(&text, path)) {
		ret = print_error("cannot read '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	strbuf_add(&orig, text.buf, text.len);
	for (i = 0; i < n; i++) {
		const struct kit_patch *p = entry(s, i);

		if (!f[i].file || p->file)
			continue;
		if (yamledit_add_entry_key(&text, path, id, p->is_fixup ? "fixups" : "patches",
					   (size_t)p->index - 1, "file", f[i].file) < 0) {
			ret = -1;
			goto cleanup;
		}
		added++;
	}
	if (!added)
		goto cleanup;
	if (yamledit_commit(kit, dir, path, &text, &orig, "the new file: entries")) {
		ret = -1;
		goto cleanup;
	}
	printf("recorded %zu file: entr%s in series.yaml\n", added, added == 1 ? "y" : "ies");
cleanup:
	strbuf_release(&orig);
	strbuf_release(&text);
	free(id);
	free(dir);
	free(path);
	return ret;
}

int cmd_fetch(int argc, const char **argv)
{
	const char *mainline = NULL, *mbox = NULL;
	int force = 0, ret = 0;
	const struct option opts[] = {
		OPT_STRING("mainline", 0, &mainline, "DIR",
		  "write the patches from this mainline repository, by upstream id"),
		OPT_STRING("mbox", 0, &mbox, "FILE",
		  "let b4 read the series from this mbox instead of lore"),
		OPT_BOOL("force", 'f', &force, "overwrite patch files that exist"),
		OPT_END(),
	};
	const char *usage = "mkseries fetch SERIES [--mainline DIR | --mbox FILE] [--force]";
	struct fetched *f = NULL;
	struct kit kit = KIT_INIT;
	struct kit_series *s;
	size_t i, n = 0;
	int nargs;

	nargs = parse_options(argc, argv, opts, usage);
	if (nargs != 1) {
		print_error(nargs ? "name one series" : "which series? name it");
		usage_with_options(usage, opts, 2);
	}
	if (mainline && mbox) {
		print_error("--mainline and --mbox cannot be used together");
		usage_with_options(usage, opts, 2);
	}
	if (kit_open(&kit))
		return 2;
	s = kit_find_series(&kit, argv[0]);
	if (!s) {
		kit_unknown_series(&kit, argv[0]);
		ret = 2;
		goto cleanup;
	}
	n = s->nr_patches + s->nr_fixups;
	f = xcalloc(n ? n : 1, sizeof(*f));
	if (mainline)
		ret = fetch_mainline(f, &kit, s, mainline, force);
	else
		ret = fetch_b4(f, &kit, s, mbox, force);
	ret = mks_exit_status(ret);
	if (ret == 2)
		goto cleanup;
	if (record_files(&kit, s, f))
		ret = 1;
cleanup:
	for (i = 0; i < n; i++)
		free(f[i].file);
	free(f);
	kit_release(&kit);
	return ret;
}
