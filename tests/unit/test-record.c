/* test-record.c: unit tests for the state records: one file per step, its format, and reading an earlier version's two files. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/key.h"
#include "record/record.h"
#include "tap.h"
#include "lib/util.h"

static const char *root;

static char *in_state(const char *name)
{
	return xstrfmt("%s/state/%s", root, name);
}

static void put(const char *name, const char *text)
{
	char *path = in_state(name);

	if (write_file_atomic(path, text, strlen(text)))
		BUG("cannot write %s", path);
	free(path);
}

static int exists(const char *name)
{
	char *path = in_state(name);
	int ret = !access(path, F_OK);

	free(path);
	return ret;
}

static void test_one_file_per_step(void)
{
	struct step_record r = STEP_RECORD_INIT, back = STEP_RECORD_INIT;

	record_set(&r, RF_VARIANT, "kit");
	record_set_status(&r, RS_OK);
	ok(!record_write(&r, root, STEP_BUILD, "kit"), "write: a build record");
	ok(exists("kit.build") && !exists("run.kit.build"), "write: the build's one file is kit.build");
	ok(!record_read(&back, root, STEP_BUILD, "kit"), "read: it back");
	is_str(record_get(&back, RF_VARIANT), "kit", "read: its fields");
	ok(record_ll(&back, RF_AT) > 0, "write: stamped with when (at)");
	is_str(record_get(&back, RF_FORMAT), "2", "write: stamped with its format");
	record_release(&back);
	record_release(&r);

	record_set_status(&r, RS_OK);
	ok(!record_write(&r, root, STEP_IMPORT, NULL), "write: an import record");
	ok(exists("run.import"), "write: the import's file is run.import");
	record_release(&r);

	ok(!record_read(&back, root, STEP_TEST, "nothing"), "read: a missing record is no error");
	ok(record_status(&back) == RS_NONE, "read: and it is empty");
	record_release(&back);
}

static void test_legacy(void)
{
	struct step_record r = STEP_RECORD_INIT;

	/* Both files of one build, as an earlier version wrote them. */
	put("base.build", "variant=base\nstatus=ok\nbzimage=/b\nfinished=100\n");
	put("run.base.build", "key=k1\nkey_parts=step:1 tree:2\nstatus=ok\nat=101\nfinished=100\n");
	ok(!record_read(&r, root, STEP_BUILD, "base"), "legacy: read");
	is_str(record_get(&r, RF_KEY), "k1", "legacy: the run's key is joined in");
	is_str(record_get(&r, RF_KEY_PARTS), "step:1 tree:2", "legacy: and its parts");
	is_str(record_get(&r, RF_AT), "100", "legacy: at is the module's finished");
	is_str(record_get(&r, RF_BZIMAGE), "/b", "legacy: the module's fields stay");
	ok(!record_write(&r, root, STEP_BUILD, "base"), "legacy: written again");
	ok(!exists("run.base.build"), "legacy: writing removes the run's old file");
	record_release(&r);
	ok(!record_read(&r, root, STEP_BUILD, "base"), "legacy: read what was written");
	is_str(record_get(&r, RF_KEY), "k1", "legacy: the key is in the one file now");
	record_release(&r);

	/* The run's file of other work: no key, so the step runs once. */
	put("kit.test", "status=ok\nfinished=200\n");
	put("run.kit.test", "key=k2\nstatus=ok\nfinished=199\n");
	ok(!record_read(&r, root, STEP_TEST, "kit"), "legacy, other work: read");
	ok(!record_get(&r, RF_KEY), "legacy, other work: no key taken");
	record_release(&r);

	/* A run's error: not an outcome, retried. */
	put("run.kit.test", "key=k2\nstatus=error\nfinished=200\n");
	ok(!record_read(&r, root, STEP_TEST, "kit"), "legacy, run error: read");
	ok(!record_get(&r, RF_KEY), "legacy, run error: no key taken");
	record_release(&r);
}

static void test_format(void)
{
	struct step_record r = STEP_RECORD_INIT;
	enum record_field f;
	enum record_item it;
	char *which = NULL;

	/* Format 2 is read as it is, whatever lies beside it. */
	put("f2.build", "format=2\nvariant=f2\nstatus=ok\nkey=k4\nfinished=100\n");
	put("run.f2.build", "key=other\nkey_parts=step:9\nstatus=ok\nfinished=100\n");
	ok(!record_read(&r, root, STEP_BUILD, "f2"), "format 2: read");
	is_str(record_get(&r, RF_KEY), "k4", "format 2: its own key");
	ok(!record_get(&r, RF_KEY_PARTS), "format 2: nothing joined from a run's file");
	ok(!record_get(&r, RF_AT), "format 2: no at made of finished");
	record_release(&r);

	/* The same without format is format 1: the two files are one record. */
	put("f1.build", "variant=f1\nstatus=ok\nfinished=100\n");
	put("run.f1.build", "key=k5\nkey_parts=step:9\nstatus=ok\nfinished=100\n");
	ok(!record_read(&r, root, STEP_BUILD, "f1"), "format 1: read");
	is_str(record_get(&r, RF_KEY), "k5", "format 1: the run's key joined");
	record_release(&r);

	/* A later format is a newer mkseries': read as no record (a warning). */
	put("f3.test", "format=3\nvariant=f3\nstatus=ok\nkey=k6\nat=5\n");
	ok(!record_read(&r, root, STEP_TEST, "f3"), "format 3: no error");
	ok(record_status(&r) == RS_NONE && !record_get(&r, RF_KEY), "format 3: read as nothing");
	record_release(&r);
	put("run.import", "format=x\nstatus=ok\n");
	ok(!record_read(&r, root, STEP_IMPORT, NULL) && record_status(&r) == RS_NONE,
	   "a format that is no number: read as nothing");
	record_release(&r);

	ok(!record_field_parse(&f, "key_parts") && f == RF_KEY_PARTS, "parse: a field");
	ok(record_field_parse(&f, "finished"), "parse: no field of that name");
	ok(!record_item_parse(&it, &which, "series.0.title") && it == RI_SERIES_TITLE &&
	   !strcmp(which, "0"), "parse: an item");
	free(which);
	ok(!record_item_parse(&it, &which, "console.2") && it == RI_CONSOLE && !strcmp(which, "2"),
	   "parse: a boot's console");
	free(which);
	ok(record_item_parse(&it, &which, "console") && record_item_parse(&it, &which, "series..id"),
	   "parse: no item of those names");
}

static void test_copy_from_base(void)
{
	struct step_record r = STEP_RECORD_INIT;

	put("base.test", "variant=base\nstatus=ok\nkey=k3\nat=300\n");
	put("run.v1.test", "key=old\nstatus=ok\nfinished=1\n");
	ok(!record_copy_from_base(root, STEP_TEST, "v1"), "copy: base's test to v1");
	ok(!exists("run.v1.test"), "copy: no second file left");
	ok(!record_read(&r, root, STEP_TEST, "v1"), "copy: read");
	is_str(record_get(&r, RF_VARIANT), "v1", "copy: renamed to the variant");
	is_str(record_get(&r, RF_REUSED), "base", "copy: marked reused");
	is_str(record_get(&r, RF_KEY), "k3", "copy: base's key");
	is_str(record_get(&r, RF_AT), "300", "copy: when base's work was done");
	record_release(&r);
}

int main(void)
{
	char tmpl[] = "/tmp/test-record.XXXXXX";

	if (!mkdtemp(tmpl))
		BUG("mkdtemp");
	root = tmpl;
	test_one_file_per_step();
	test_legacy();
	test_format();
	test_copy_from_base();
	remove_tree(tmpl);
	return tap_done();
}
