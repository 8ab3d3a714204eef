/* builtin/apply.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_apply(int argc, const char **argv)
{
	return error("'mkseries apply' is not written yet"), 2;
}
