/* builtin/import.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_import(int argc, const char **argv)
{
	return error("'mkseries import' is not written yet"), 2;
}
