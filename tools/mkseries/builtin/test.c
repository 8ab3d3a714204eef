/* builtin/test.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_test(int argc, const char **argv)
{
	return error("'mkseries test' is not written yet"), 2;
}
