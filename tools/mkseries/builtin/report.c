/* builtin/report.c: placeholder until the subcommand lands. */
#include "builtin.h"
#include "util.h"

int cmd_report(int argc, const char **argv)
{
	return error("'mkseries report' is not written yet"), 2;
}
