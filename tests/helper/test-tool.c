/* test-tool.c: what the shell tests need done through mkseries' own modules (git's t/helper/test-tool). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "record/record.h"

static const char usage_record[] =
	"usage: test-tool record WORKDIR STEP [VARIANT] NAME=VALUE...\n"
	"  STEP is import, apply, build or test; VARIANT is given for build and test only;\n"
	"  NAME is a field as a record spells it (status, series.0.id, console.2)";

/* One NAME=VALUE into r, by the record module's names; -1 for a name it does not know. */
static int set_field(struct step_record *r, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name, *which = NULL;
	enum record_field f;
	enum record_item it;
	int ret = 0;

	if (!eq)
		return error("'%s' is not NAME=VALUE", arg);
	name = xstrndup(arg, eq - arg);
	if (!record_field_parse(&f, name))
		record_set(r, f, eq + 1);
	else if (!record_item_parse(&it, &which, name))
		record_item_set(r, it, which, eq + 1);
	else
		ret = error("'%s' is no field of a record", name);
	free(which);
	free(name);
	return ret;
}

/*
 * Write the record of a step, as the module that does its work would:
 * through record_write(), so stamped with its time and format.
 */
static int cmd_record(int argc, const char **argv)
{
	struct step_record r = STEP_RECORD_INIT;
	const char *workdir, *variant = NULL;
	enum run_step step;
	int i = 3, ret = 0;

	if (argc < 3)
		die("%s", usage_record);
	workdir = argv[1];
	if (run_step_parse(&step, argv[2]))
		return 1;
	if (step == STEP_BUILD || step == STEP_TEST) {
		if (argc < 4)
			die("%s", usage_record);
		variant = argv[i++];
	}
	for (; i < argc && !ret; i++)
		ret = set_field(&r, argv[i]);
	if (!ret)
		ret = record_write(&r, workdir, step, variant);
	record_release(&r);
	return ret ? 1 : 0;
}

int main(int argc, const char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "record")) {
		int ret = cmd_record(argc - 1, argv + 1);

		error_flush();	/* the record module keeps its errors for its caller */
		return ret;
	}
	die("%s", usage_record);
}
