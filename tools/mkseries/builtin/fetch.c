/* builtin/fetch.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_fetch(int argc, const char **argv)
{
	return error("'mkseries fetch' is not written yet"), 2;
}
