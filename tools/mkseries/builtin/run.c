/* builtin/run.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_run(int argc, const char **argv)
{
	return error("'mkseries run' is not written yet"), 2;
}
