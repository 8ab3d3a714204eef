/* builtin/fixups.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_fixups(int argc, const char **argv)
{
	return error("'mkseries fixups' is not written yet"), 2;
}
