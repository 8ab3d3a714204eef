/* builtin/regress.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_regress(int argc, const char **argv)
{
	return error("'mkseries regress' is not written yet"), 2;
}
