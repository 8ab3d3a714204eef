/* test-model.c: unit tests for the kit loader: the model of a valid kit, and every error it reports. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit/model.h"
#include "lib/util.h"
#include "tap.h"

struct file {
	const char *path;
	const char *text;	/* NULL: remove the path */
};

static char tmproot[] = "/tmp/test-model.XXXXXX";
static char *start_cwd;

/* Write `text` at dir/rel, creating directories; a rel ending in '/' is a directory. */
static void put(const char *dir, const char *rel, const char *text)
{
	char *path = path_join(dir, rel), *slash;

	if (!text) {
		remove_tree(path);
		free(path);
		return;
	}
	if (ends_with(rel, "/")) {
		mkdir_p(path, 0755);
		free(path);
		return;
	}
	slash = strrchr(path, '/');
	*slash = '\0';
	if (mkdir_p(path, 0755))
		BUG("mkdir %s: %s", path, strerror(errno));
	*slash = '/';
	if (write_file_atomic(path, text, strlen(text)))
		BUG("write %s: %s", path, strerror(errno));
	free(path);
}

static const struct file base_files[] = {
	{ "kernels/6.1.yaml",
	  "name: \"6.1\"\n"
	  "source:\n"
	  "  debian: { package: linux-source-6.1, suite: bookworm }\n" },
	{ "kernels/6.12.yaml",
	  "name: \"6.12\"\n"
	  "source:\n"
	  "  debian: { package: linux-source-6.12, suite: bookworm }\n" },
	{ "kernels/mm.config", "CONFIG_TRANSPARENT_HUGEPAGE=y\n" },
	{ "patches/a/0001-one.patch", "one\n" },
	{ "patches/a/0002-two.patch", "two\n" },
	{ "patches/a/6.12/0001-one.patch", "one for 6.12\n" },
};

static const char default_series[] =
	"series:\n"
	"  - id: a\n"
	"    title: A\n"
	"    patches:\n"
	"      - file: patches/a/0001-one.patch\n";

/* A new kit directory with the base files; the caller frees the path. */
static char *new_kit(int with_base)
{
	static int n;
	char *dir = xstrfmt("%s/kit%d", tmproot, ++n);
	size_t i;

	mkdir_p(dir, 0755);
	for (i = 0; with_base && i < ARRAY_SIZE(base_files); i++)
		put(dir, base_files[i].path, base_files[i].text);
	return dir;
}

/* kit_load(arg) from directory `cwd`, with stderr captured into err. */
static int load_capture(struct kit *kit, const char *cwd, const char *arg, struct strbuf *err)
{
	char *errfile = path_join(tmproot, "stderr");
	int saved, fd, ret;

	if (chdir(cwd))
		BUG("chdir %s", cwd);
	fflush(stderr);
	saved = dup(2);
	fd = open(errfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0)
		BUG("cannot redirect stderr");
	dup2(fd, 2);
	ret = kit_load(kit, arg);
	error_flush();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	strbuf_reset(err);
	strbuf_read_fd(err, fd);
	close(fd);
	unlink(errfile);
	free(errfile);
	if (chdir(start_cwd))
		BUG("chdir back");
	return ret;
}

/* A series with upstream ids, for variants to leave entries of it out. */
#define VARIANT_SERIES \
	"series:\n" \
	"  - id: a\n" \
	"    title: A\n" \
	"    patches:\n" \
	"      - file: patches/a/0001-one.patch\n" \
	"        upstream: 1111222233334444\n" \
	"      - file: patches/a/0002-two.patch\n" \
	"        upstream: 5555666677778888\n" \
	"    fixups:\n" \
	"      - file: patches/a/6.12/0001-one.patch\n" \
	"        upstream: 9999aaaabbbbcccc\n" \
	"        fixes: 55556666\n"

/* kernels/6.12.yaml with `variants:` text from line 3 on. */
#define VARIANT_KERNEL(v) \
	"name: \"6.12\"\n" \
	"source: { tarball: /usr/src/linux.tar.xz }\n" v

struct bad_case {
	const char *what;
	const char *series;		/* NULL: default_series */
	struct file extra[3];
	const char *want;		/* all of stderr */
	int no_base;			/* start from an empty directory */
};

static const struct bad_case bad_cases[] = {
	{ "unknown top-level key",
	  "series: []\n"
	  "serie: []\n",
	  { { NULL, NULL } }, "error: series.yaml:2: unknown key 'serie' in series.yaml (allowed: series, verdicts)\n", 0 },
	{ "no series key",
	  "patches: []\n",
	  { { NULL, NULL } }, "error: series.yaml:1: unknown key 'patches' in series.yaml (allowed: series, verdicts)\n"
	      "error: series.yaml:1: series.yaml has no 'series'\n", 0 },
	{ "series is not a sequence",
	  "series: a\n",
	  { { NULL, NULL } }, "error: series.yaml:1: 'series' must be a sequence, not a string\n", 0 },
	{ "unknown key in a series",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    tittle: B\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:4: unknown key 'tittle' in a series (allowed: id, title, link, "
	      "message-id, requires, patches, fixups, branches, claims, fixup-order)\n", 0 },
	{ "unknown key in a fixup",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    fixups:\n"
	  "      - file: patches/a/0002-two.patch\n"
	  "        fixes: 0001-one.patch\n"
	  "        squsah: true\n",
	  { { NULL, NULL } }, "error: series.yaml:9: unknown key 'squsah' in a fixup (allowed: file, upstream, "
	      "subject, link, branches, stable, fixes, squash)\n", 0 },
	{ "invalid series id",
	  "series:\n"
	  "  - id: Mremap\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:2: invalid series id 'Mremap' (lowercase letters, digits, '.', "
	      "'_' and '-', starting with a letter or digit)\n", 0 },
	{ "series without an id",
	  "series:\n"
	  "  - title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:2: a series needs an 'id'\n", 0 },
	{ "duplicate series id",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "  - id: a\n"
	  "    title: A again\n"
	  "    patches:\n"
	  "      - file: patches/a/0002-two.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:6: duplicate series id 'a' (first at series.yaml:2)\n", 0 },
	{ "missing title",
	  "series:\n"
	  "  - id: a\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:2: series 'a' has no 'title'\n", 0 },
	{ "title of the wrong type",
	  "series:\n"
	  "  - id: a\n"
	  "    title: [A, B]\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:3: 'title' must be a string, not a sequence\n", 0 },
	{ "title on two lines",
	  "series:\n"
	  "  - id: a\n"
	  "    title: |\n"
	  "      A\n"
	  "      B\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:3: 'title' must be a single line of text\n", 0 },
	{ "duplicate key",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    title: B\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:4: duplicate key 'title' (first at line 3)\n", 0 },
	{ "empty patches",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches: []\n",
	  { { NULL, NULL } }, "error: series.yaml:4: series 'a' has no patches\n", 0 },
	{ "no patches key",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n",
	  { { NULL, NULL } }, "error: series.yaml:2: series 'a' has no patches\n", 0 },
	{ "patch with neither file nor upstream",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - subject: one\n",
	  { { NULL, NULL } }, "error: series.yaml:5: a patch needs a 'file' or an 'upstream' id\n", 0 },
	{ "patch file does not exist",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0003-nope.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:5: patch file 'patches/a/0003-nope.patch' does not exist\n", 0 },
	{ "patch file outside the kit",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/../../outside.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:5: patch file 'patches/../../outside.patch' must stay inside "
	      "the kit directory\n", 0 },
	{ "absolute patch file",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: /etc/passwd\n",
	  { { NULL, NULL } }, "error: series.yaml:5: patch file '/etc/passwd' must be relative to the kit "
	      "directory\n", 0 },
	{ "patch file is a directory",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a\n",
	  { { NULL, NULL } }, "error: series.yaml:5: patch file 'patches/a' is not a file\n", 0 },
	{ "upstream id too short",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - { upstream: 94dab12, subject: one }\n",
	  { { NULL, NULL } }, "error: series.yaml:5: invalid upstream id '94dab12' (expected 8 to 40 hex digits)\n", 0 },
	{ "upstream id not hex",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12g86cf\n"
	  "        subject: one\n",
	  { { NULL, NULL } }, "error: series.yaml:5: invalid upstream id '94dab12g86cf' (expected 8 to 40 hex "
	      "digits)\n", 0 },
	{ "subject missing without a file",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n",
	  { { NULL, NULL } }, "error: series.yaml:5: a patch without a 'file' needs a 'subject'\n", 0 },
	{ "invalid message-id",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    message-id: \"<a b@example.org>\"\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:4: invalid message-id '<a b@example.org>'\n", 0 },
	{ "requires an unknown series",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    requires: [zz]\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:4: series 'a' requires unknown series 'zz'\n", 0 },
	{ "requires itself",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    requires:\n"
	  "      - a\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:5: series 'a' requires itself\n", 0 },
	{ "requires cycle",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    requires: b\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "  - id: b\n"
	  "    title: B\n"
	  "    requires: [c]\n"
	  "    patches:\n"
	  "      - file: patches/a/0002-two.patch\n"
	  "  - id: c\n"
	  "    title: C\n"
	  "    requires: [a]\n"
	  "    patches:\n"
	  "      - { upstream: 94dab12d86cf, subject: three }\n",
	  { { NULL, NULL } }, "error: series.yaml:14: requires cycle: a -> b -> c -> a\n", 0 },
	{ "upstream id listed twice",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "      - upstream: 94DAB12D\n"
	  "        subject: two\n",
	  { { NULL, NULL } }, "error: series.yaml:7: upstream id '94dab12d' is listed twice: series.yaml:5 and :7\n", 0 },
	{ "upstream id abbreviating an earlier one, in another series",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d\n"
	  "        subject: one\n"
	  "  - id: b\n"
	  "    title: B\n"
	  "    patches:\n"
	  "      - upstream: 94dab12e86cf\n"
	  "        subject: two\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: three\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: four\n",
	  { { NULL, NULL } },
	  "error: series.yaml:12: upstream id '94dab12d86cf' is listed twice: series.yaml:5 and :12\n"
	  "error: series.yaml:14: upstream id '94dab12d86cf' is listed twice: series.yaml:5 and :14\n", 0 },
	{ "fixes matches no patch",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "    fixups:\n"
	  "      - upstream: 0b5be138ce00\n"
	  "        subject: fix\n"
	  "        fixes: deadbeef12\n",
	  { { NULL, NULL } }, "error: series.yaml:10: fixes 'deadbeef12' matches no patch of the kit\n", 0 },
	{ "fixes is ambiguous",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "      - upstream: 94dab12d00ff\n"
	  "        subject: two\n"
	  "    fixups:\n"
	  "      - upstream: 0b5be138ce00\n"
	  "        subject: fix\n"
	  "        fixes: 94dab12d\n",
	  { { NULL, NULL } }, "error: series.yaml:12: fixes '94dab12d' is ambiguous: it matches 'a 1/2' (line 5), "
	      "'a 2/2' (line 7)\n", 0 },
	{ "fixup fixes itself",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "    fixups:\n"
	  "      - upstream: 0b5be138ce00\n"
	  "        subject: fix\n"
	  "        fixes: 0b5be138\n",
	  { { NULL, NULL } }, "error: series.yaml:10: fixup 'a fixup 1/1' fixes itself\n", 0 },
	{ "fixup cycle",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "    fixups:\n"
	  "      - upstream: 0b5be138ce00\n"
	  "        subject: fix one\n"
	  "        fixes: 1111222233334444\n"
	  "      - upstream: 1111222233334444\n"
	  "        subject: fix two\n"
	  "        fixes: 0b5be138ce00\n",
	  { { NULL, NULL } }, "error: series.yaml:10: fixup cycle: 'a fixup 1/2' -> 'a fixup 2/2' -> 'a fixup 1/2'\n", 0 },
	{ "fixup of another series without requires",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "  - id: b\n"
	  "    title: B\n"
	  "    patches:\n"
	  "      - upstream: f822a9a81a31\n"
	  "        subject: two\n"
	  "    fixups:\n"
	  "      - upstream: 0b5be138ce00\n"
	  "        subject: fix\n"
	  "        fixes: 94dab12d86cf\n",
	  { { NULL, NULL } }, "error: series.yaml:15: fixup 'b fixup 1/1' of series 'b' fixes a patch of series "
	      "'a': add 'a' to the requires of 'b'\n", 0 },
	{ "fixup without fixes",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "    fixups:\n"
	  "      - upstream: 0b5be138ce00\n"
	  "        subject: fix\n",
	  { { NULL, NULL } }, "error: series.yaml:8: a fixup needs 'fixes' (the upstream id or file it fixes)\n", 0 },
	{ "squash is not a bool",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - upstream: 94dab12d86cf\n"
	  "        subject: one\n"
	  "    fixups:\n"
	  "      - upstream: 0b5be138ce00\n"
	  "        subject: fix\n"
	  "        fixes: 94dab12d86cf\n"
	  "        squash: maybe\n",
	  { { NULL, NULL } }, "error: series.yaml:11: 'squash' must be true or false, not 'maybe'\n", 0 },
	{ "unknown branch",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches:\n"
	  "      6.9: { skip: \"too old\" }\n",
	  { { NULL, NULL } }, "error: series.yaml:7: unknown branch '6.9' (no kernels/6.9.yaml)\n", 0 },
	{ "a branch when there is no kernels/",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches:\n"
	  "      \"6.12\": { apply: }\n",
	  { { "patches/a/0001-one.patch", "one\n" } },
	  "error: series.yaml:7: unknown branch '6.12' (no kernels/6.12.yaml)\n", 1 },
	{ "skip without a reason",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches:\n"
	  "      6.1: { skip: \"\" }\n",
	  { { NULL, NULL } }, "error: series.yaml:7: 'skip' for '6.1' needs a reason\n", 0 },
	{ "present without a reason",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "        branches:\n"
	  "          6.1:\n"
	  "            present:\n",
	  { { NULL, NULL } }, "error: series.yaml:8: 'present' for '6.1' needs a reason\n", 0 },
	{ "decision is not a mapping",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches:\n"
	  "      6.1: skip\n",
	  { { NULL, NULL } }, "error: series.yaml:7: decision for '6.1' must be a mapping with one key (one of: "
	      "apply, skip, present, patches)\n", 0 },
	{ "decision with two keys",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "        branches:\n"
	  "          6.1: { skip: old, present: new }\n",
	  { { NULL, NULL } }, "error: series.yaml:7: decision for '6.1' must be a mapping with one key (one of: "
	      "apply, skip, present, file)\n", 0 },
	{ "file decision on a series",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches:\n"
	  "      6.12: { file: patches/a/6.12/0001-one.patch }\n",
	  { { NULL, NULL } }, "error: series.yaml:7: unknown decision 'file' for '6.12' (allowed: apply, skip, "
	      "present, patches)\n", 0 },
	{ "patches directory does not exist",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches:\n"
	  "      6.1: { patches: patches/a/6.1/ }\n",
	  { { NULL, NULL } }, "error: series.yaml:7: patches directory 'patches/a/6.1/' does not exist\n", 0 },
	{ "patch-level file does not exist",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "        branches:\n"
	  "          \"6.1\": { file: patches/a/6.1/0001-one.patch }\n",
	  { { NULL, NULL } }, "error: series.yaml:7: patch file 'patches/a/6.1/0001-one.patch' does not exist\n", 0 },
	{ "duplicate branch",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches:\n"
	  "      6.1: { skip: old }\n"
	  "      \"6.1\": { present: new }\n",
	  { { NULL, NULL } }, "error: series.yaml:8: duplicate key '6.1' (first at line 7)\n", 0 },
	{ "branches is a sequence",
	  "series:\n"
	  "  - id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "    branches: [6.1]\n",
	  { { NULL, NULL } }, "error: series.yaml:6: 'branches' must be a mapping of branch names to decisions, "
	      "not a sequence\n", 0 },
	{ "aliases",
	  "series:\n"
	  "  - &s\n"
	  "    id: a\n"
	  "    title: A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n"
	  "  - *s\n",
	  { { NULL, NULL } }, "error: series.yaml:2: YAML anchors are not supported ('&s')\n", 0 },
	{ "an unused anchor",
	  "series:\n"
	  "  - id: a\n"
	  "    title: &t A\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:3: YAML anchors are not supported ('&t')\n", 0 },
	{ "a python object tag",
	  "series:\n"
	  "  - id: a\n"
	  "    title: !!python/object/apply:os.system [\"true\"]\n"
	  "    patches:\n"
	  "      - file: patches/a/0001-one.patch\n",
	  { { NULL, NULL } }, "error: series.yaml:3: YAML tags are not supported "
	      "('tag:yaml.org,2002:python/object/apply:os.system'): a kit is plain data\n", 0 },
	{ "two documents",
	  "series: []\n"
	  "---\n"
	  "series: []\n",
	  { { NULL, NULL } }, "error: series.yaml:3: more than one YAML document\n", 0 },
	{ "empty file",
	  "",
	  { { NULL, NULL } }, "error: series.yaml:1: the file is empty\n", 0 },
	{ "invalid YAML",
	  "series:\n"
	  "  - id: a\n"
	  "   title: A\n",
	  { { NULL, NULL } }, "error: series.yaml:3: invalid YAML: did not find expected '-' indicator (while "
	      "parsing a block collection at line 2)\n", 0 },
	{ "no series.yaml",
	  NULL,
	  { { "series.yaml", NULL } },
	  "error: cannot read 'series.yaml': No such file or directory\n", 0 },
	{ "several errors are all reported",
	  "series:\n"
	  "  - id: a\n"
	  "    patches:\n"
	  "      - file: patches/a/0003-nope.patch\n"
	  "      - upstream: 1234\n"
	  "        subject: x\n"
	  "    branches:\n"
	  "      6.9: { skip: old }\n",
	  { { NULL, NULL } }, "error: series.yaml:2: series 'a' has no 'title'\n"
	      "error: series.yaml:4: patch file 'patches/a/0003-nope.patch' does not exist\n"
	      "error: series.yaml:5: invalid upstream id '1234' (expected 8 to 40 hex digits)\n"
	      "error: series.yaml:8: unknown branch '6.9' (no kernels/6.9.yaml)\n", 0 },

	/* kernels/<branch>.yaml */
	{ "kernel name does not match the file",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.13\"\n"
	      "source:\n"
	      "  debian: { package: linux-source-6.12, suite: bookworm }\n" } },
	  "error: kernels/6.12.yaml:1: name '6.13' does not match the file name (expected '6.12')\n", 0 },
	{ "kernel without a name",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "source:\n"
	      "  tarball: /usr/src/linux-source-6.12.tar.xz\n" } },
	  "error: kernels/6.12.yaml:1: missing 'name' (expected '6.12')\n", 0 },
	{ "unknown arch",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source:\n"
	      "  debian: { package: linux-source-6.12, suite: bookworm }\n"
	      "arch: riscv64\n" } },
	  "error: kernels/6.12.yaml:4: unknown arch 'riscv64' (known: x86_64, arm64, sparc64)\n", 0 },
	{ "kernel without a source",
	  NULL,
	  { { "kernels/6.12.yaml", "name: \"6.12\"\n" } },
	  "error: kernels/6.12.yaml:1: missing 'source' (one of: debian, git, tarball)\n", 0 },
	{ "two sources",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source:\n"
	      "  debian: { package: linux-source-6.12, suite: bookworm }\n"
	      "  tarball: /usr/src/linux.tar.xz\n" } },
	  "error: kernels/6.12.yaml:4: 'source' must have only one of: debian, git, tarball\n", 0 },
	{ "unknown source",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source:\n"
	      "  svn: http://example.org/linux\n" } },
	  "error: kernels/6.12.yaml:3: unknown key 'svn' in 'source' (allowed: debian, git, tarball)\n"
	  "error: kernels/6.12.yaml:3: 'source' needs one of: debian, git, tarball\n", 0 },
	{ "debian source without a suite",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source:\n"
	      "  debian: { package: linux-source-6.12 }\n" } },
	  "error: kernels/6.12.yaml:3: 'debian' has no 'suite'\n", 0 },
	{ "git source without a ref",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source:\n"
	      "  git:\n"
	      "    repo: /src/linux\n" } },
	  "error: kernels/6.12.yaml:4: 'git' has no 'ref'\n", 0 },
	{ "ref that looks like an option",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source:\n"
	      "  git: { repo: /src/linux, ref: --upload-pack=x }\n" } },
	  "error: kernels/6.12.yaml:3: invalid ref '--upload-pack=x'\n", 0 },
	{ "memory is not a size",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  memory: lots\n" } },
	  "error: kernels/6.12.yaml:4: 'memory' must be MiB as a number, or a size like 512M or 2G, "
	  "not 'lots'\n", 0 },
	{ "memory is a sequence",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  memory: [2048]\n" } },
	  "error: kernels/6.12.yaml:4: 'memory' must be a number, not a sequence\n", 0 },
	{ "memory too small",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot: { memory: 16M }\n" } },
	  "error: kernels/6.12.yaml:3: 'memory' must be between 64M and 1024G, not '16M'\n", 0 },
	{ "cpus out of range",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  cpus: 0\n" } },
	  "error: kernels/6.12.yaml:4: 'cpus' must be between 1 and 1024, not 0\n", 0 },
	{ "timeout is not a number",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  boot-timeout: 5m\n" } },
	  "error: kernels/6.12.yaml:4: 'boot-timeout' must be a number, not '5m'\n", 0 },
	{ "unknown accel",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  accel: hvf\n" } },
	  "error: kernels/6.12.yaml:4: 'accel' must be auto, kvm or tcg, not 'hvf'\n", 0 },
	{ "tcg-cache switch with a value the plugin does not take",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  tcg-clock: modelled\n"
	      "  tcg-cache: \"mem_latency=250,user_page=1G\"\n" } },
	  "error: kernels/6.12.yaml:5: 'tcg-cache' takes user_page=4K or user_page=2M, not 'user_page=1G'\n", 0 },
	{ "tcg-cache key the plugin does not take",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  tcg-clock: modelled\n"
	      "  tcg-cache: \"user_pages=2M\"\n" } },
	  "error: kernels/6.12.yaml:5: 'tcg-cache' takes KEY=VALUE,... of the plugin's model "
	  "(l1d_size=48K, mem_latency=350, stores=stall, ...), not 'user_pages=2M'\n", 0 },
	{ "unknown key in boot",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "boot:\n"
	      "  ram: 2G\n" } },
	  "error: kernels/6.12.yaml:4: unknown key 'ram' in 'boot' (allowed: qemu, machine, cpu, "
	  "memory, cpus, cmdline, accel, boot-timeout, run-timeout, tcg-clock, tcg-cache, boots, console)\n", 0 },
	{ "default is not a bool",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "default: sometimes\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n" } },
	  "error: kernels/6.12.yaml:2: 'default' must be true or false, not 'sometimes'\n", 0 },
	{ "config fragment does not exist",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "config:\n"
	      "  fragments:\n"
	      "    - kernels/mm.config\n"
	      "    - kernels/nope.config\n" } },
	  "error: kernels/6.12.yaml:6: config fragment 'kernels/nope.config' does not exist\n", 0 },
	{ "config base file does not exist",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "config: { base: kernels/base.config }\n" } },
	  "error: kernels/6.12.yaml:3: config base 'kernels/base.config' does not exist\n", 0 },
	{ "interactive config base",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "config: { base: menuconfig }\n" } },
	  "error: kernels/6.12.yaml:3: config base 'menuconfig' is an interactive make target "
	  "(use tinyconfig, defconfig, allnoconfig...)\n", 0 },
	{ "unknown key in a kernel file",
	  NULL,
	  { { "kernels/6.12.yaml",
	      "name: \"6.12\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n"
	      "archs: [x86_64]\n" } },
	  "error: kernels/6.12.yaml:3: unknown key 'archs' in a kernel file (allowed: name, default, "
	  "source, arch, config, boot, variants, verdicts, claims, cross, image, decisions, kind, costs, build)\n", 0 },
	{ "kernel file is not a mapping",
	  NULL,
	  { { "kernels/6.12.yaml", "- 6.12\n" } },
	  "error: kernels/6.12.yaml:1: a kernel file must be a mapping, not a sequence\n", 0 },
	{ "variants is not a mapping",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants: [no-fix]\n") } },
	  "error: kernels/6.12.yaml:3: 'variants' must be a mapping of variant names to what each "
	  "leaves out, not a sequence\n", 0 },
	{ "unknown key in a variant",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    without: [9999aaaa]\n"
						  "    expect_fail: [x]\n") } },
	  "error: kernels/6.12.yaml:6: unknown key 'expect_fail' in a variant (allowed: without, note, "
	  "expect-fail, claims, with)\n", 0 },
	{ "variant without 'without'",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    note: nothing left out\n") } },
	  "error: kernels/6.12.yaml:4: variant 'no-fix' has no 'without' (the kit entries it leaves "
	  "out) nor 'with' (patches the kit skips that it applies)\n", 0 },
	{ "variant adds what the kit does not have",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  other:\n"
						  "    with: [deadbeef]\n") } },
	  "error: kernels/6.12.yaml:5: variant 'other': with 'deadbeef' matches no patch or fixup "
	  "of the kit\n", 0 },
	{ "variant both leaves out and adds one entry",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  other:\n"
						  "    without: [11112222]\n"
						  "    with: [patches/a/0001-one.patch]\n") } },
	  "error: kernels/6.12.yaml:6: variant 'other' both leaves out and adds 'a 1/2' (line 5)\n",
	  0 },
	{ "variant adds a fixup",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  other:\n"
						  "    with: [9999aaaa]\n") } },
	  "error: kernels/6.12.yaml:5: variant 'other': 'with' names fixup 'a fixup 1/1'; only patches "
	  "can be added (a fixup travels with the patch it fixes)\n", 0 },
	{ "variant with an empty 'without'",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    without: []\n") } },
	  "error: kernels/6.12.yaml:5: 'without' of variant 'no-fix' names no kit entry\n", 0 },
	{ "variant named kit",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  kit: { without: 9999aaaa }\n") } },
	  "error: kernels/6.12.yaml:4: variant name 'kit' is taken (base and kit are every branch's "
	  "own, bisect is bisect's)\n", 0 },
	{ "variant name unfit for a ref",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  No_Fix: { without: 9999aaaa }\n") } },
	  "error: kernels/6.12.yaml:4: invalid variant name 'No_Fix' (lowercase letters, digits and "
	  "'-', starting with a letter or digit)\n", 0 },
	{ "variant named twice",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix: { without: 9999aaaa }\n"
						  "  no-fix: { without: 55556666 }\n") } },
	  "error: kernels/6.12.yaml:5: duplicate key 'no-fix' (first at line 4)\n", 0 },
	{ "variant leaves out what the kit does not have",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    without:\n"
						  "      - 9999aaaa\n"
						  "      - deadbeef\n") } },
	  "error: kernels/6.12.yaml:7: variant 'no-fix': without 'deadbeef' matches no patch or fixup "
	  "of the kit\n", 0 },
	{ "variant leaves out an ambiguous name",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix: { without: [0001-one.patch] }\n") } },
	  "error: kernels/6.12.yaml:4: variant 'no-fix': without '0001-one.patch' is ambiguous: it "
	  "matches 'a 1/2' (series.yaml:5), 'a fixup 1/1' (series.yaml:10)\n", 0 },
	{ "variant leaves out one entry twice",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    without:\n"
						  "      - 9999aaaa\n"
						  "      - patches/a/6.12/0001-one.patch\n") } },
	  "error: kernels/6.12.yaml:7: variant 'no-fix' names 'a fixup 1/1' twice in 'without' (lines 6 "
	  "and 7)\n", 0 },
	{ "variant expects a badly named case to fail",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    without: 9999aaaa\n"
						  "    expect-fail: [pte-batch wrbit]\n") } },
	  "error: kernels/6.12.yaml:6: invalid case name 'pte-batch wrbit' in 'expect-fail' of variant "
	  "'no-fix' (mm-regress cases are named with lowercase letters, digits and '_')\n", 0 },
	{ "variant expects a case to fail twice",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    without: 9999aaaa\n"
						  "    expect-fail:\n"
						  "      - pte_batch_wrbit\n"
						  "      - pte_batch_wrbit\n") } },
	  "error: kernels/6.12.yaml:8: variant 'no-fix' expects 'pte_batch_wrbit' to fail twice\n", 0 },
	{ "claim metric without a case",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: calls_per_sec, better: 20% }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: 'metric' must be CASE.NAME, an mm-regress case and one of its "
	  "metrics (as in realloc_rate.calls_per_sec), not 'calls_per_sec'\n", 0 },
	{ "claim metric with a bad name",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.Calls/s, above: 1 }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: 'metric' must be CASE.NAME, an mm-regress case and one of its "
	  "metrics (as in realloc_rate.calls_per_sec), not 'realloc_rate.Calls/s'\n", 0 },
	{ "claim without a metric",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { better: 20% }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: a claim needs a 'metric' (CASE.NAME, as in "
	  "realloc_rate.calls_per_sec)\n", 0 },
	{ "claim both better and worse",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - metric: realloc_rate.calls_per_sec\n"
	  "        better: 20%\n"
	  "        worse: 5%\n",
	  { { NULL, NULL } },
	  "error: series.yaml:16: a claim takes one of better, worse, above or below, not both "
	  "'better' and 'worse'\n", 0 },
	{ "claim with nothing to check",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.calls_per_sec, why: \"faster\" }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: a claim needs one of better, worse (N%, against another cell), "
	  "above or below (a value)\n", 0 },
	{ "claim percentage without %",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.calls_per_sec, better: 20 }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: 'better' must be a percentage like 20%, not '20'\n", 0 },
	{ "claim percentage negative",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.calls_per_sec, worse: -3% }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: 'worse' must be a percentage like 20%, not '-3%'\n", 0 },
	{ "claim percentage too large",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.calls_per_sec, better: 1500% }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: 'better' must be between 0% and 1000%, not '1500%'\n", 0 },
	{ "claim bound not a number",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.calls_per_sec, above: lots }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: 'above' must be a number (in the metric's unit), not 'lots'\n", 0 },
	{ "claim bound with than",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - metric: realloc_rate.calls_per_sec\n"
	  "        below: 1e6\n"
	  "        than: base\n",
	  { { NULL, NULL } },
	  "error: series.yaml:16: 'than' goes with better or worse, not with 'below'\n", 0 },
	{ "claim with an unknown key",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.calls_per_sec, better: 2%, becuase: x }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: unknown key 'becuase' in a claim (allowed: metric, better, worse, "
	  "above, below, than, why)\n", 0 },
	{ "claims not a sequence",
	  VARIANT_SERIES
	  "    claims: { metric: realloc_rate.calls_per_sec, better: 2% }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:13: 'claims' must be a sequence, not a mapping\n", 0 },
	{ "series claim than an unknown cell",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - { metric: realloc_rate.calls_per_sec, better: 2%, than: no-fix }\n",
	  { { NULL, NULL } },
	  "error: series.yaml:14: unknown cell 'no-fix' in 'than' (base, or a variant a kernel file "
	  "declares)\n", 0 },
	{ "series claim than the kit",
	  VARIANT_SERIES
	  "    claims:\n"
	  "      - metric: realloc_rate.calls_per_sec\n"
	  "        better: 2%\n"
	  "        than: kit\n",
	  { { NULL, NULL } },
	  "error: series.yaml:16: a series' claims are checked on the kit: 'than: kit' compares it "
	  "with itself (base, or a declared variant)\n", 0 },
	{ "kernel file claim than an unknown variant",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("claims:\n"
						  "  - metric: realloc_rate.calls_per_sec\n"
						  "    worse: 2%\n"
						  "    than: no-fixes\n"
						  "variants:\n"
						  "  no-fix: { without: 9999aaaa }\n"
						  "  no-batch: { without: 55556666 }\n") } },
	  "error: kernels/6.12.yaml:6: unknown cell 'no-fixes' in 'than' (base, no-fix, no-batch)\n",
	  0 },
	{ "kernel file claim than its kit",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("claims:\n"
						  "  - { metric: a.b, worse: 2%, than: kit }\n") } },
	  "error: kernels/6.12.yaml:4: a kernel file's claims are checked on its kit: 'than: kit' "
	  "compares it with itself (base, or one of its variants)\n", 0 },
	{ "variant claim than itself",
	  VARIANT_SERIES,
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("variants:\n"
						  "  no-fix:\n"
						  "    without: 9999aaaa\n"
						  "    claims:\n"
						  "      - { metric: a.b, worse: 2%, than: no-fix }\n"
						  "      - { metric: a.b, worse: 2%, than: nope }\n") } },
	  "error: kernels/6.12.yaml:7: variant 'no-fix' cannot be compared with itself\n"
	  "error: kernels/6.12.yaml:8: unknown cell 'nope' in 'than' (base, kit)\n", 0 },
	{ "threshold without %",
	  "verdicts: { threshold: 5 }\n"
	  "series: []\n",
	  { { NULL, NULL } },
	  "error: series.yaml:1: 'threshold' must be a percentage like 5%, not '5'\n", 0 },
	{ "threshold of zero, and an unknown verdicts key",
	  "series: []\n",
	  { { "kernels/6.12.yaml", VARIANT_KERNEL("verdicts:\n"
						  "  threshold: 0%\n"
						  "  alpha: 0.05\n") } },
	  "error: kernels/6.12.yaml:5: unknown key 'alpha' in 'verdicts' (allowed: threshold)\n"
	  "error: kernels/6.12.yaml:4: 'threshold' must be more than 0% and at most 100%, not '0%'\n",
	  0 },
	{ "git repo from a variable with a bad name",
	  NULL,
	  { { "kernels/6.17.yaml",
	      "name: \"6.17\"\n"
	      "source:\n"
	      "  git: { repo: $1STABLE, ref: v6.17.8 }\n" } },
	  "error: kernels/6.17.yaml:3: 'repo' '$1STABLE' must be a path, or $VAR or ${VAR} (an "
	  "environment variable naming a directory) with an optional /path after it\n", 0 },
	{ "git repo from an unclosed ${",
	  NULL,
	  { { "kernels/6.17.yaml",
	      "name: \"6.17\"\n"
	      "source:\n"
	      "  git:\n"
	      "    repo: ${STABLE/linux\n"
	      "    ref: v6.17.8\n" } },
	  "error: kernels/6.17.yaml:4: 'repo' '${STABLE/linux' must be a path, or $VAR or ${VAR} (an "
	  "environment variable naming a directory) with an optional /path after it\n", 0 },
	{ "empty release",
	  NULL,
	  { { "kernels/6.17.yaml",
	      "name: \"6.17\"\n"
	      "source:\n"
	      "  git: { repo: /src/linux, ref: v6.17.8, release: \"\" }\n" } },
	  "error: kernels/6.17.yaml:3: 'release' must not be empty\n", 0 },
	{ "release that looks like an option",
	  NULL,
	  { { "kernels/6.17.yaml",
	      "name: \"6.17\"\n"
	      "source:\n"
	      "  git: { repo: /src/linux, ref: v6.17.8, release: --all }\n" } },
	  "error: kernels/6.17.yaml:3: invalid release '--all'\n", 0 },
	{ "branch name unfit for a ref",
	  NULL,
	  { { "kernels/6..1.yaml",
	      "name: \"6..1\"\n"
	      "source: { tarball: /usr/src/linux.tar.xz }\n" } },
	  "error: kernels/6..1.yaml:1: invalid branch name '6..1' (letters, digits, '.', '_' and "
	  "'-')\n", 0 },
};

/* Deep nesting is refused at the line where it goes too deep, in a moment. */
static void test_deep_nesting(void)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct kit kit = KIT_INIT;
	char *dir = new_kit(1);
	double start;
	size_t i;

	strbuf_addstr(&text, "series:\n  - id: a\n    title: ");
	for (i = 0; i < 100000; i++)
		strbuf_addch(&text, '[');
	for (i = 0; i < 100000; i++)
		strbuf_addch(&text, ']');
	strbuf_addch(&text, '\n');
	put(dir, "series.yaml", text.buf);
	start = mono_seconds();
	is_int(load_capture(&kit, dir, ".", &err), MKS_ECONFIG, "100,000 nested flow sequences: refused");
	ok(mono_seconds() - start < 2, "in a moment (%.2f s)", mono_seconds() - start);
	is_str(err.buf, "error: series.yaml:3: nested deeper than 64 levels\n", "naming the line");
	kit_release(&kit);

	strbuf_reset(&text);
	strbuf_addstr(&text, "series:\n  - id: a\n    title: A\n    patches:\n      - file: patches/a/0001-one.patch\n    x:\n");
	for (i = 0; i < 70; i++)
		strbuf_addf(&text, "%*sk:\n", (int)(6 + 2 * i), "");
	put(dir, "series.yaml", text.buf);
	is_int(load_capture(&kit, dir, ".", &err), MKS_ECONFIG, "70 nested mappings: refused");
	is_str(err.buf, "error: series.yaml:68: nested deeper than 64 levels\n", "at the line of the 65th level");
	kit_release(&kit);
	free(dir);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_bad_cases(void)
{
	struct strbuf err = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct kit kit = KIT_INIT;
		char *dir = new_kit(!c->no_base);
		int ret;

		put(dir, "series.yaml", c->series ? c->series : default_series);
		for (j = 0; j < ARRAY_SIZE(c->extra) && c->extra[j].path; j++)
			put(dir, c->extra[j].path, c->extra[j].text);
		ret = load_capture(&kit, dir, ".", &err);
		is_int(ret, MKS_ECONFIG, "%s: kit_load fails", c->what);
		is_str(err.buf, c->want, "%s: message", c->what);
		ok(!kit.dir && !kit.series && !kit.nr_series && !kit.branches && !kit.nr_branches,
		   "%s: the kit is released", c->what);
		kit_release(&kit);
		free(dir);
	}
	strbuf_release(&err);
}

static const char valid_series[] =
	"# a kit with everything in it\n"
	"series:\n"
	"  - id: pmd-pud\n"
	"    title: \"mm: move PMD/PUD\"\n"
	"    link: https://lore.kernel.org/r/pmd@example.org\n"
	"    message-id: \"<pmd@example.org>\"\n"
	"    patches:\n"
	"      - upstream: AB12CD34EF56\n"
	"        subject: \"mm: one\"\n"
	"      - file: ./patches/pmd-pud/0002-two.patch\n"
	"        upstream: 1234abcd5678\n"
	"  - id: mremap-pte-batch\n"
	"    title: \"mm: optimize mremap() by PTE batching\"\n"
	"    requires: pmd-pud\n"
	"    patches:\n"
	"      - upstream: 94dab12d86cf\n"
	"        subject: \"mm: call pointers to ptes as ptep\"\n"
	"        branches:\n"
	"          \"6.1\": { file: patches/mremap-pte-batch/6.1/0001-ptep.patch }\n"
	"          6.12: { skip: \"done by the series backport\" }\n"
	"      - upstream: f822a9a81a31\n"
	"        subject: \"mm: optimize mremap() by PTE batching\"\n"
	"        link: https://lore.kernel.org/r/batch@example.org\n"
	"    fixups:\n"
	"      - upstream: 0b5be138ce00\n"
	"        fixes: f822a9a81a31ce5\n"
	"        subject: \"mm/mremap: avoid expensive folio lookup\"\n"
	"        squash: true\n"
	"      - upstream: 04d1c9d60c6e\n"
	"        fixes: 0B5BE138\n"
	"        subject: \"mm/mremap: honour writable bit\"\n"
	"      - file: patches/mremap-pte-batch/fix-pmd.patch\n"
	"        fixes: 0002-two.patch\n"
	"        squash: no\n"
	"    branches:\n"
	"      6.12: { patches: patches/mremap-pte-batch/6.12/ }\n"
	"      \"6.1\": { skip: \"needs folio_pte_batch() (v6.9)\" }\n"
	"      7.2: { present: \"merged in v6.17\" }\n"
	"      6.10: { apply: clean }\n"
	"      5.10:\n"
	"        apply:\n"
	"  - id: madvise\n"
	"    title: \"mm/madvise: batch the mmap_lock\"\n"
	"    requires: [mremap-pte-batch]\n"
	"    patches:\n"
	"      - upstream: 1234abcd9999\n"
	"        subject: \"mm/madvise: one\"\n"
	"    fixups:\n"
	"      - upstream: 5555666677778888\n"
	"        subject: \"mm: fix one\"\n"
	"        fixes: ab12cd34\n";

static const struct file valid_files[] = {
	{ "kernels/5.10.yaml",
	  "name: \"5.10\"\n"
	  "default: false\n"
	  "source:\n"
	  "  tarball: tarballs/linux-5.10.tar.xz\n" },
	{ "kernels/6.1.yaml",
	  "name: \"6.1\"\n"
	  "source:\n"
	  "  debian: { package: linux-source-6.1, suite: bookworm }\n"
	  "arch: x86_64\n"
	  "config:\n"
	  "  base: tinyconfig\n"
	  "  fragments: kernels/mm.config\n" },
	{ "kernels/6.10.yaml",
	  "name: \"6.10\"\n"
	  "source:\n"
	  "  git: { repo: ~/src/linux-stable, ref: v6.10.14 }\n"
	  "boot:\n"
	  "  qemu: /usr/bin/qemu-system-x86_64\n"
	  "  machine: q35\n"
	  "  cpu: max\n"
	  "  memory: 2G\n"
	  "  cpus: 4\n"
	  "  cmdline: \"mitigations=off\"\n"
	  "  accel: tcg\n"
	  "  boot-timeout: 60\n"
	  "  run-timeout: 120\n" },
	{ "kernels/6.12.yaml",
	  "name: \"6.12\"\n"
	  "source:\n"
	  "  git:\n"
	  "    repo: linux\n"
	  "    ref: v6.12.58\n"
	  "config:\n"
	  "  base: kernels/base.config\n"
	  "  fragments: [kernels/mm.config, kernels/debug.config]\n"
	  "boot:\n"
	  "  memory: 512M\n"
	  "  accel: kvm\n" },
	{ "kernels/7.2.yaml",
	  "name: \"7.2\"\n"
	  "source:\n"
	  "  debian: { package: linux-source-7.2, suite: sid }\n"
	  "boot: { memory: 4096, tcg-clock: modelled, tcg-cache: \"user_page=2M,stores=stall,l2_size=1M\" }\n" },
	{ "kernels/notes.txt", "not a kernel file\n" },
	{ "kernels/.6.12.yaml.swp", "editor junk\n" },
	{ "kernels/mm.config", "CONFIG_TRANSPARENT_HUGEPAGE=y\n" },
	{ "kernels/debug.config", "CONFIG_DEBUG_VM=y\n" },
	{ "kernels/base.config", "CONFIG_64BIT=y\n" },
	{ "patches/pmd-pud/0002-two.patch", "two\n" },
	{ "patches/mremap-pte-batch/6.1/0001-ptep.patch", "ptep for 6.1\n" },
	{ "patches/mremap-pte-batch/6.12/", "" },
	{ "patches/mremap-pte-batch/fix-pmd.patch", "fix\n" },
	{ "series.yaml", valid_series },
};

static void test_valid_kit(void)
{
	struct kit kit = KIT_INIT;
	struct strbuf err = STRBUF_INIT;
	char *dir = new_kit(0), *real, *want;
	struct kit_series *pmd, *pte, *mad;
	struct kernel_branch *b;
	const struct decision *d;
	struct kit_patch *p;
	int amb = -1, ret;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(valid_files); i++)
		put(dir, valid_files[i].path, valid_files[i].text);
	setenv("HOME", tmproot, 1);
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "valid kit loads");
	is_str(err.buf, "", "valid kit: nothing on stderr");
	if (ret) {
		kit_release(&kit);
		free(dir);
		strbuf_release(&err);
		return;
	}
	real = realpath(dir, NULL);
	is_str(kit.dir, real, "kit.dir is the absolute kit path");

	/* Branches: sorted by version, defaults filled in. */
	is_int(kit.nr_branches, 5, "five branches (notes and swap files ignored)");
	is_str(kit.branches[0].name, "5.10", "branch 1 is 5.10");
	is_str(kit.branches[1].name, "6.1", "branch 2 is 6.1");
	is_str(kit.branches[2].name, "6.10", "branch 3 is 6.10");
	is_str(kit.branches[3].name, "6.12", "branch 4 is 6.12");
	is_str(kit.branches[4].name, "7.2", "branch 5 is 7.2");

	b = kit_find_branch(&kit, "5.10");
	ok(b == &kit.branches[0], "kit_find_branch 5.10");
	is_str(b->path, "kernels/5.10.yaml", "5.10 path");
	is_int(b->is_default, 0, "5.10 is not a default branch");
	is_int(b->source.kind, SOURCE_TARBALL, "5.10 comes from a tarball");
	want = xstrfmt("%s/tarballs/linux-5.10.tar.xz", real);
	is_str(b->source.tarball, want, "tarball path made absolute");
	free(want);
	is_str(b->arch, "x86_64", "arch defaults to x86_64");
	is_str(b->config_base, "defconfig", "config base defaults to defconfig");
	is_int(b->config_base_is_file, 0, "defconfig is a make target");
	is_int(b->nr_fragments, 0, "no fragments by default");
	is_str(b->boot.qemu, "qemu-system-x86_64", "qemu default");
	ok(!b->boot.machine && !b->boot.cpu && !b->boot.cmdline, "machine, cpu, cmdline default NULL");
	is_int(b->boot.memory_mb, 2048, "memory default");
	is_int(b->boot.cpus, 2, "cpus default");
	is_int(b->boot.boot_timeout, 300, "boot timeout default");
	is_int(b->boot.run_timeout, 900, "run timeout default");
	is_str(b->boot.accel, "auto", "accel default");

	b = kit_find_branch(&kit, "6.1");
	is_int(b->is_default, 1, "6.1 is a default branch");
	is_int(b->source.kind, SOURCE_DEBIAN, "6.1 comes from debian");
	is_str(b->source.package, "linux-source-6.1", "debian package");
	is_str(b->source.suite, "bookworm", "debian suite");
	is_str(b->config_base, "tinyconfig", "config base tinyconfig");
	is_int(b->nr_fragments, 1, "a single fragment as a scalar");
	is_str(b->fragments[0], "kernels/mm.config", "fragment path");

	b = kit_find_branch(&kit, "6.10");
	is_int(b->source.kind, SOURCE_GIT, "6.10 comes from git");
	want = xstrfmt("%s/src/linux-stable", tmproot);
	is_str(b->source.repo, want, "~ is expanded in the repo");
	free(want);
	is_str(b->source.ref, "v6.10.14", "git ref");
	is_str(b->boot.qemu, "/usr/bin/qemu-system-x86_64", "qemu");
	is_str(b->boot.machine, "q35", "machine");
	is_str(b->boot.cpu, "max", "cpu");
	is_int(b->boot.memory_mb, 2048, "memory 2G");
	is_int(b->boot.cpus, 4, "cpus");
	is_str(b->boot.cmdline, "mitigations=off", "cmdline");
	is_str(b->boot.accel, "tcg", "accel");
	is_int(b->boot.boot_timeout, 60, "boot timeout");
	is_int(b->boot.run_timeout, 120, "run timeout");

	b = kit_find_branch(&kit, "6.12");
	want = xstrfmt("%s/linux", real);
	is_str(b->source.repo, want, "a relative repo is under the kit");
	free(want);
	is_str(b->config_base, "kernels/base.config", "config base file");
	is_int(b->config_base_is_file, 1, "config base is a file");
	is_int(b->nr_fragments, 2, "two fragments");
	is_str(b->fragments[1], "kernels/debug.config", "second fragment");
	is_int(b->boot.memory_mb, 512, "memory 512M");

	b = kit_find_branch(&kit, "7.2");
	is_str(b->boot.tcg_cache, "user_page=2M,stores=stall,l2_size=1M",
	       "boot.tcg-cache takes the plugin's switches and sizes as written");
	ok(!kit_find_branch(&kit, "6.9"), "no branch 6.9");

	/* Series. */
	is_int(kit.nr_series, 3, "three series");
	pmd = kit_find_series(&kit, "pmd-pud");
	pte = kit_find_series(&kit, "mremap-pte-batch");
	mad = kit_find_series(&kit, "madvise");
	ok(pmd == &kit.series[0] && pte == &kit.series[1] && mad == &kit.series[2],
	   "series in file order, found by id");
	ok(!kit_find_series(&kit, "nope"), "unknown series not found");
	is_int(pmd->line, 3, "series line");
	is_str(pmd->title, "mm: move PMD/PUD", "series title");
	is_str(pmd->link, "https://lore.kernel.org/r/pmd@example.org", "series link");
	is_str(pmd->message_id, "pmd@example.org", "message-id without <>");
	is_int(pmd->nr_requires, 0, "no requires");
	is_int(pmd->nr_patches, 2, "two patches");
	is_int(pmd->nr_fixups, 0, "no fixups");
	is_str(pmd->patches[0].upstream, "ab12cd34ef56", "upstream id lowercased");
	is_str(pmd->patches[0].subject, "mm: one", "patch subject");
	ok(!pmd->patches[0].file, "patch without a file");
	is_int(pmd->patches[0].line, 8, "patch line");
	is_str(pmd->patches[1].file, "./patches/pmd-pud/0002-two.patch", "patch file as written");
	ok(!pmd->patches[1].subject, "subject may be left to the file");
	ok(pmd->patches[1].series == pmd && pmd->patches[1].index == 2 && !pmd->patches[1].is_fixup,
	   "patch owner and index");

	is_int(pte->nr_requires, 1, "requires as a scalar");
	is_str(pte->requires[0], "pmd-pud", "requires pmd-pud");
	is_int(pte->requires_line[0], 14, "requires line");
	ok(!pte->message_id && !pte->link, "optional fields NULL");
	is_int(pte->nr_patches, 2, "pte: two patches");
	is_int(pte->nr_fixups, 3, "pte: three fixups");
	is_str(pte->patches[1].link, "https://lore.kernel.org/r/batch@example.org", "patch link");

	p = &pte->fixups[0];
	ok(p->is_fixup && p->index == 1 && p->series == pte, "fixup owner and index");
	is_str(p->fixes, "f822a9a81a31ce5", "fixes as written");
	is_int(p->fixes_line, 26, "fixes line");
	ok(p->fixes_patch == &pte->patches[1], "fixes longer than the upstream id resolves");
	is_int(p->squash, 1, "squash true");
	p = &pte->fixups[1];
	ok(p->fixes_patch == &pte->fixups[0], "a fixup of a fixup, by an uppercase abbreviation");
	is_int(p->squash, 0, "squash defaults to false");
	p = &pte->fixups[2];
	ok(p->fixes_patch == &pmd->patches[1], "fixes by file basename, across required series");
	is_int(p->squash, 0, "squash: no");
	ok(mad->fixups[0].fixes_patch == &pmd->patches[0],
	   "fixup across series through transitive requires");

	/* Decisions. */
	is_int(pte->nr_decisions, 5, "five series decisions");
	d = series_decision(pte, "6.12");
	ok(d && d->kind == DECISION_PATCHES, "6.12: patches");
	is_str(d ? d->path : NULL, "patches/mremap-pte-batch/6.12/", "6.12: directory");
	is_int(d ? d->line : 0, 36, "decision line");
	d = series_decision(pte, "6.1");
	ok(d && d->kind == DECISION_SKIP, "6.1: skip");
	is_str(d ? d->reason : NULL, "needs folio_pte_batch() (v6.9)", "6.1: reason");
	d = series_decision(pte, "7.2");
	ok(d && d->kind == DECISION_PRESENT, "7.2: present");
	is_str(d ? d->reason : NULL, "merged in v6.17", "7.2: reason");
	d = series_decision(pte, "6.10");
	ok(d && d->kind == DECISION_APPLY, "unquoted 6.10 stays 6.10");
	is_str(d ? d->reason : NULL, "clean", "6.10: note");
	d = series_decision(pte, "5.10");
	ok(d && d->kind == DECISION_APPLY && !d->reason, "5.10: apply without a note");
	ok(!series_decision(pte, "6.9") && !series_decision(pmd, "6.12"), "no decision");
	d = patch_decision(&pte->patches[0], "6.1");
	ok(d && d->kind == DECISION_FILE, "patch-level file decision");
	is_str(d ? d->path : NULL, "patches/mremap-pte-batch/6.1/0001-ptep.patch", "its path");
	d = patch_decision(&pte->patches[0], "6.12");
	ok(d && d->kind == DECISION_SKIP, "patch-level skip");
	ok(!patch_decision(&pte->patches[1], "6.1"), "no patch decision");

	/* Finding patches. */
	ok(kit_find_patch(&kit, "94dab12d", &amb) == &pte->patches[0] && !amb,
	   "find by a short abbreviation");
	ok(kit_find_patch(&kit, "94DAB12D86CF00112233", &amb) == &pte->patches[0] && !amb,
	   "find by a longer id");
	ok(kit_find_patch(&kit, "0002-two.patch", &amb) == &pmd->patches[1], "find by basename");
	ok(kit_find_patch(&kit, "patches/pmd-pud/0002-two.patch", &amb) == &pmd->patches[1],
	   "find by path");
	ok(kit_find_patch(&kit, "04d1c9d60c6e", &amb) == &pte->fixups[1], "find a fixup");
	ok(!kit_find_patch(&kit, "94dab12", &amb) && !amb, "7 digits are too few");
	ok(!kit_find_patch(&kit, "1234abcd", &amb) && amb == 1, "ambiguous abbreviation");
	ok(!kit_find_patch(&kit, "deadbeef", NULL), "unknown id, NULL ambiguous pointer");

	/* Labels. */
	is_str(kit_patch_label(&pte->patches[1]), "mremap-pte-batch 2/2", "patch label");
	is_str(kit_patch_label(&pte->fixups[0]), "mremap-pte-batch fixup 1/3", "fixup label");
	want = xstrfmt("%s|%s|%s|%s", kit_patch_label(&pmd->patches[0]),
		       kit_patch_label(&pmd->patches[1]), kit_patch_label(&mad->patches[0]),
		       kit_patch_label(&mad->fixups[0]));
	is_str(want, "pmd-pud 1/2|pmd-pud 2/2|madvise 1/1|madvise fixup 1/1",
	       "four labels in one printf");
	free(want);

	kit_release(&kit);
	ok(!kit.dir && !kit.series && !kit.branches && !kit.nr_series && !kit.nr_branches,
	   "kit_release zeroes the kit");
	kit_release(&kit);
	ok(1, "kit_release twice");
	free(real);
	free(dir);
	strbuf_release(&err);
}

/* Messages name files the way the user named the kit directory. */
static void test_kit_dir_names(void)
{
	static const char bad[] =
		"series:\n"
		"  - id: a\n"
		"    patches:\n"
		"      - file: patches/a/0001-one.patch\n";
	struct strbuf err = STRBUF_INIT;
	struct kit kit = KIT_INIT;
	char *dir = new_kit(1), *parent, *name, *want;
	int ret;

	put(dir, "series.yaml", bad);
	name = strrchr(dir, '/') + 1;
	parent = xstrndup(dir, name - 1 - dir);

	ret = load_capture(&kit, parent, name, &err);
	is_int(ret, MKS_ECONFIG, "kit dir 'kitN' fails");
	want = xstrfmt("error: %s/series.yaml:2: series 'a' has no 'title'\n", name);
	is_str(err.buf, want, "kit dir 'kitN': messages name kitN/series.yaml");
	free(want);

	want = xstrfmt("%s/", name);
	ret = load_capture(&kit, parent, want, &err);
	free(want);
	want = xstrfmt("error: %s/series.yaml:2: series 'a' has no 'title'\n", name);
	is_str(err.buf, want, "kit dir 'kitN/': no double slash");
	free(want);

	ret = load_capture(&kit, "/", dir, &err);
	want = xstrfmt("error: %s/series.yaml:2: series 'a' has no 'title'\n", dir);
	is_str(err.buf, want, "absolute kit dir");
	free(want);

	ret = load_capture(&kit, dir, "./", &err);
	is_str(err.buf, "error: series.yaml:2: series 'a' has no 'title'\n", "kit dir './'");

	put(dir, "kernels/6.12.yaml", "name: \"6.12\"\n");
	ret = load_capture(&kit, parent, name, &err);
	want = xstrfmt("error: %s/kernels/6.12.yaml:1: missing 'source' (one of: debian, git, tarball)\n"
		       "error: %s/series.yaml:2: series 'a' has no 'title'\n", name, name);
	is_str(err.buf, want, "kernel files are named under the kit dir too");
	free(want);

	ret = load_capture(&kit, parent, "no-such-kit", &err);
	is_int(ret, MKS_ECONFIG, "missing kit dir fails");
	is_str(err.buf, "error: cannot open kit directory 'no-such-kit': No such file or directory\n",
	       "missing kit dir message");
	ok(!kit.dir, "nothing left behind");

	free(parent);
	free(dir);
	strbuf_release(&err);
}

/* A kit without kernels/ loads with no branches. */
static void test_variants(void)
{
	struct kit kit = KIT_INIT;
	struct strbuf err = STRBUF_INIT;
	char *dir = new_kit(1), *text;
	const struct kernel_branch *b, *other;
	const struct kernel_variant *v;
	int ret;

	put(dir, "series.yaml", VARIANT_SERIES);
	put(dir, "kernels/6.12.yaml",
	    VARIANT_KERNEL("variants:\n"
			   "  no-fix:\n"
			   "    without: 9999aaaa\n"
			   "    note: \"the kit without its fix\"\n"
			   "    expect-fail: pte_batch_wrbit\n"
			   "  no-batch:\n"
			   "    without: [5555666677778888, patches/a/6.12/0001-one.patch]\n"
			   "    expect-fail: [pte_batch_wrbit, pte_batch_cow]\n"));
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "variants: the kit loads");
	is_str(err.buf, "", "variants: quietly");
	b = kit_find_branch(&kit, "6.12");
	other = kit_find_branch(&kit, "6.1");
	if (!b || !other || b->nr_variants != 2) {
		ok(0, "variants: 6.12 has two");
		goto cleanup;
	}
	is_int(other->nr_variants, 0, "variants: a branch that declares none has none");
	is_str(b->variants[0].name, "no-fix", "variants: in file order (1)");
	is_str(b->variants[1].name, "no-batch", "variants: in file order (2)");
	v = branch_find_variant(b, "no-fix");
	ok(v == &b->variants[0], "variants: found by name");
	ok(!branch_find_variant(b, "kit") && !branch_find_variant(b, "nope"),
	   "variants: base and kit are not declared ones");
	is_int(v->nr_without, 1, "variants: one scalar is a list of one");
	ok(v->without_patch[0] == &kit.series[0].fixups[0], "variants: 'without' resolved to the fixup");
	is_int(v->without_line[0], 5, "variants: with its line");
	is_str(v->note, "the kit without its fix", "variants: the note");
	ok(v->nr_expect_fail == 1 && variant_expects_fail(v, "pte_batch_wrbit") &&
	   !variant_expects_fail(v, "pte_batch_cow") && !variant_expects_fail(NULL, "x"),
	   "variants: what it expects to fail");
	text = variant_without_text(v);
	is_str(text, "9999aaaabbbbcccc", "variants: named by the upstream id");
	free(text);
	v = &b->variants[1];
	ok(v->nr_without == 2 && v->without_patch[0] == &kit.series[0].patches[1] &&
	   v->without_patch[1] == &kit.series[0].fixups[0],
	   "variants: a full id and a file name both resolve");
	text = variant_without_text(v);
	is_str(text, "5555666677778888, 9999aaaabbbbcccc", "variants: several, in order");
	free(text);
	ok(!v->note, "variants: the note is optional");
cleanup:
	kit_release(&kit);
	free(dir);
	strbuf_release(&err);
}

/* Per-branch architecture: the arch's defaults, the overrides, a borrowed set of decisions. */
static void test_arches(void)
{
	struct kit kit = KIT_INIT;
	struct strbuf err = STRBUF_INIT;
	char *dir = new_kit(1);
	const struct kernel_branch *b, *x;
	int ret;

	put(dir, "series.yaml", VARIANT_SERIES);
	put(dir, "kernels/6.12-arm64.yaml",
	    "name: \"6.12-arm64\"\n"
	    "source: { tarball: /usr/src/linux.tar.xz }\n"
	    "arch: arm64\n"
	    "decisions: \"6.1\"\n");
	put(dir, "kernels/7.2-sparc64.yaml",
	    "name: \"7.2-sparc64\"\n"
	    "source: { tarball: /usr/src/linux.tar.xz }\n"
	    "arch: sparc64\n"
	    "cross: sparc64-unknown-linux-gnu-\n"
	    "image: vmlinux\n"
	    "boot: { qemu: /opt/qemu/bin/qemu-system-sparc64, cpu: \"TI UltraSparc IIi\", console: ttyS1 }\n");
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "arches: the kit loads");
	is_str(err.buf, "", "arches: quietly");
	b = kit_find_branch(&kit, "6.12-arm64");
	x = kit_find_branch(&kit, "6.1");
	if (!b || !x) {
		ok(0, "arches: 6.12-arm64 and 6.1 are there");
		goto cleanup;
	}
	is_str(b->arch, "arm64", "arches: arm64");
	is_str(b->boot.qemu, "qemu-system-aarch64", "arches: arm64's QEMU by default");
	is_str(b->boot.machine, "virt", "arches: -machine virt by default");
	is_str(b->boot.cpu, "cortex-a57", "arches: -cpu cortex-a57 by default");
	is_str(b->boot.console, "ttyAMA0", "arches: the PL011 console by default");
	ok(!b->cross && !b->image, "arches: cross and image left to the arch");
	is_str(branch_decisions(b), "6.1", "arches: decisions borrowed from 6.1");
	is_str(branch_decisions(x), "6.1", "arches: a branch takes its own decisions by default");
	is_str(x->boot.console, "ttyS0", "arches: x86_64 keeps ttyS0");
	ok(!x->boot.machine && !x->boot.cpu, "arches: x86_64 has no machine or cpu by default");
	b = kit_find_branch(&kit, "7.2-sparc64");
	if (!b) {
		ok(0, "arches: 7.2-sparc64 is there");
		goto cleanup;
	}
	is_str(b->cross, "sparc64-unknown-linux-gnu-", "arches: cross as given");
	is_str(b->image, "vmlinux", "arches: image as given");
	is_str(b->boot.qemu, "/opt/qemu/bin/qemu-system-sparc64", "arches: qemu as given");
	is_str(b->boot.machine, "sun4u", "arches: sparc64's machine by default");
	is_str(b->boot.cpu, "TI UltraSparc IIi", "arches: cpu as given");
	is_str(b->boot.console, "ttyS1", "arches: console as given");
cleanup:
	kit_release(&kit);
	free(dir);
	strbuf_release(&err);
}

static void test_claims(void)
{
	struct kit kit = KIT_INIT;
	struct strbuf err = STRBUF_INIT;
	char *dir = new_kit(1), *text;
	const struct kernel_branch *b, *other;
	const struct kit_series *s;
	const struct kit_claim *c;
	int ret;

	put(dir, "series.yaml",
	    "verdicts: { threshold: 3% }\n"
	    VARIANT_SERIES
	    "    claims:\n"
	    "      - { metric: realloc_rate.calls_per_sec, better: 20%, why: \"no folio lookup\" }\n"
	    "      - metric: mremap_pud_time.pud_speedup\n"
	    "        above: 1e1\n"
	    "      - { metric: perf_loop.us_per_iteration, worse: 0.5%, than: no-fix }\n");
	put(dir, "kernels/6.12.yaml",
	    VARIANT_KERNEL("verdicts: { threshold: 2.5% }\n"
			   "claims:\n"
			   "  - { metric: perf_loop.us_per_iteration, better: 10%, than: no-fix }\n"
			   "variants:\n"
			   "  no-fix:\n"
			   "    without: 9999aaaa\n"
			   "    claims:\n"
			   "      - { metric: realloc_rate.calls_per_sec, worse: 25%, than: kit }\n"
			   "      - { metric: realloc_rate.calls_per_sec, below: -2.5 }\n"));
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "claims: the kit loads");
	is_str(err.buf, "", "claims: quietly");
	s = kit_find_series(&kit, "a");
	b = kit_find_branch(&kit, "6.12");
	other = kit_find_branch(&kit, "6.1");
	if (!s || !b || !other || s->nr_claims != 3 || b->nr_claims != 1 || b->nr_variants != 1 ||
	    b->variants[0].nr_claims != 2) {
		ok(0, "claims: three on the series, one on 6.12, two on its variant");
		goto cleanup;
	}
	c = &s->claims[0];
	ok(c->kind == CLAIM_BETTER && c->value == 20 && !strcmp(c->case_name, "realloc_rate") &&
	   !strcmp(c->metric, "calls_per_sec"), "claims: better 20%% on realloc_rate.calls_per_sec");
	is_str(c->than, "base", "claims: than base by default");
	is_str(c->why, "no folio lookup", "claims: the why");
	is_int(c->line, 15, "claims: with its line");
	c = &s->claims[1];
	ok(c->kind == CLAIM_ABOVE && c->value == 10 && !c->than, "claims: above 1e1, no than");
	text = kit_claim_text(c);
	is_str(text, "mremap_pud_time.pud_speedup above 10", "claims: a bound in words");
	free(text);
	c = &s->claims[2];
	ok(c->kind == CLAIM_WORSE && c->value == 0.5, "claims: worse by half a per cent");
	text = kit_claim_text(c);
	is_str(text, "perf_loop.us_per_iteration worse by 0.5% than no-fix",
	       "claims: a change in words");
	free(text);
	is_str(b->claims[0].than, "no-fix", "claims: a kernel file's claim names its variant");
	c = &b->variants[0].claims[0];
	ok(c->kind == CLAIM_WORSE && c->value == 25 && !strcmp(c->than, "kit"),
	   "claims: a variant's claim may name the kit");
	c = &b->variants[0].claims[1];
	ok(c->kind == CLAIM_BELOW && c->value == -2.5, "claims: below a negative bound");
	ok(kit.threshold_pct == 3 && b->threshold_pct == 2.5 && !other->threshold_pct,
	   "verdicts: series.yaml's threshold and a kernel file's");
	ok(kit_threshold_pct(&kit, b) == 2.5 && kit_threshold_pct(&kit, other) == 3,
	   "verdicts: a kernel file's threshold wins, series.yaml's is the default");
cleanup:
	kit_release(&kit);
	free(dir);
	strbuf_release(&err);
}

/* Capture what kernel_source_check() prints. */
static int check_capture(const struct kernel_branch *b, struct strbuf *err)
{
	char *errfile = path_join(tmproot, "stderr");
	int saved, fd, ret;

	fflush(stderr);
	saved = dup(2);
	fd = open(errfile, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0)
		BUG("cannot redirect stderr");
	dup2(fd, 2);
	ret = kernel_source_check(b);
	error_flush();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	strbuf_reset(err);
	strbuf_read_fd(err, fd);
	close(fd);
	unlink(errfile);
	free(errfile);
	return ret;
}

/* A git repo named by an environment variable, and the branch's release. */
static void test_repo_var(void)
{
	struct strbuf err = STRBUF_INIT;
	struct kit kit = KIT_INIT;
	char *dir = new_kit(0), *want;
	const struct kernel_branch *b;
	int ret;

	put(dir, "series.yaml", "series: []\n");
	put(dir, "kernels/6.17.yaml",
	    "name: \"6.17\"\n"
	    "default: false\n"
	    "source:\n"
	    "  git: { repo: \"${MKS_TEST_STABLE}/linux\", ref: v6.17.8, release: v6.17 }\n");
	put(dir, "kernels/6.18.yaml",
	    "name: \"6.18\"\n"
	    "source:\n"
	    "  git:\n"
	    "    repo: $MKS_TEST_STABLE\n"
	    "    ref: v6.18.1\n");
	unsetenv("MKS_TEST_STABLE");
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "repo var unset: the kit loads");
	is_str(err.buf, "", "repo var unset: nothing said at load time");
	b = kit_find_branch(&kit, "6.17");
	if (!ok(b, "repo var unset: 6.17 is there")) {
		kit_release(&kit);
		free(dir);
		strbuf_release(&err);
		return;
	}
	ok(!b->source.repo, "repo var unset: no repo");
	is_str(b->source.repo_var, "MKS_TEST_STABLE", "the variable is ${...}'s");
	is_str(b->source.release, "v6.17", "release");
	is_int(b->source.repo_line, 4, "repo line of a flow mapping");
	is_int(b->source.release_line, 4, "release line");
	is_int(check_capture(b, &err), MKS_ECONFIG, "repo var unset: the source check fails");
	is_str(err.buf,
	       "error: kernels/6.17.yaml:4: branch '6.17' takes its tree from the git repository "
	       "$MKS_TEST_STABLE names, and $MKS_TEST_STABLE is not set (point it at a linux-stable "
	       "clone: export MKS_TEST_STABLE=~/src/linux-stable)\n",
	       "repo var unset: the message names the file, line and variable");
	b = kit_find_branch(&kit, "6.18");
	is_int(b->source.repo_line, 4, "repo line of a block mapping");
	ok(!b->source.release, "no release unless named");
	kit_release(&kit);

	setenv("MKS_TEST_STABLE", tmproot, 1);
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "repo var set: the kit loads");
	b = kit_find_branch(&kit, "6.17");
	want = path_join(tmproot, "linux");
	is_str(b->source.repo, want, "repo var set: ${VAR}/linux");
	free(want);
	is_int(check_capture(b, &err), MKS_ECONFIG, "repo var set to a missing directory: fails");
	want = xstrfmt("error: kernels/6.17.yaml:4: branch '6.17': no git repository at '%s/linux' "
		       "(from $MKS_TEST_STABLE)\n", tmproot);
	is_str(err.buf, want, "repo var set to a missing directory: the message says so");
	free(want);
	b = kit_find_branch(&kit, "6.18");
	is_str(b->source.repo, tmproot, "repo var set: $VAR alone");
	is_int(check_capture(b, &err), 0, "repo var set to a directory: the check passes");
	is_str(err.buf, "", "repo var set to a directory: quiet");
	kit_release(&kit);
	unsetenv("MKS_TEST_STABLE");

	free(dir);
	strbuf_release(&err);
}

static void test_no_kernels(void)
{
	struct strbuf err = STRBUF_INIT;
	struct kit kit = KIT_INIT;
	char *dir = new_kit(0);
	int ret;

	put(dir, "patches/a/0001-one.patch", "one\n");
	put(dir, "series.yaml", default_series);
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "no kernels/: loads");
	is_str(err.buf, "", "no kernels/: quiet");
	is_int(kit.nr_branches, 0, "no kernels/: no branches");
	is_int(kit.nr_series, 1, "no kernels/: one series");
	kit_release(&kit);

	put(dir, "series.yaml", "series:\n");
	ret = load_capture(&kit, dir, ".", &err);
	is_int(ret, 0, "an empty series list loads");
	is_int(kit.nr_series, 0, "no series");
	kit_release(&kit);

	free(dir);
	strbuf_release(&err);
}

int main(void)
{
	struct kit kit = KIT_INIT;

	start_cwd = getcwd(NULL, 0);
	if (!mkdtemp(tmproot))
		BUG("mkdtemp: %s", strerror(errno));
	kit_release(&kit);
	ok(1, "kit_release on KIT_INIT");

	test_valid_kit();
	test_variants();
	test_arches();
	test_claims();
	test_no_kernels();
	test_repo_var();
	test_kit_dir_names();
	test_bad_cases();
	test_deep_nesting();

	remove_tree(tmproot);
	free(start_cwd);
	return tap_done();
}
