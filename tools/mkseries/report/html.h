/* report/html.h: the results as one self-contained HTML page. */
#ifndef MKSERIES_REPORTHTML_H
#define MKSERIES_REPORTHTML_H

#include "lib/util.h"

/* The id of a branch's performance section in the page: "perf-6.12". */
#define HTML_BRANCH_ANCHOR "perf-"

#endif
