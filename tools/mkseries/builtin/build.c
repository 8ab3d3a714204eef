/* builtin/build.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_build(int argc, const char **argv)
{
	return error("'mkseries build' is not written yet"), 2;
}
