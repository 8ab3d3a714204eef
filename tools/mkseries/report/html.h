/* report/html.h: the results as one self-contained HTML page, and escaping text for it. */
#ifndef MKSERIES_REPORTHTML_H
#define MKSERIES_REPORTHTML_H

#include "lib/util.h"

/*
 * Append s for an HTML text node or a quoted attribute value: first
 * made printable as every report does (control characters become
 * `\xNN`, invalid UTF-8 `\xNN`), then &, <, >, " and ' become
 * entities. `lines` keeps newlines (for a <pre>). NULL appends nothing.
 */
void html_add_escaped(struct strbuf *sb, const char *s, int lines);

/* The id of a branch's performance section in the page: "perf-6.12". */
#define HTML_BRANCH_ANCHOR "perf-"

#endif
