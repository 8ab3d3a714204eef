/* builtin/plan.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_plan(int argc, const char **argv)
{
	return error("'mkseries plan' is not written yet"), 2;
}
