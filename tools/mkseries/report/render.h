/* report/render.h: the renderers report_render() dispatches to, one file each. */
#ifndef MKSERIES_REPORTRENDER_H
#define MKSERIES_REPORTRENDER_H

#include "results/results.h"
#include "lib/util.h"

/* Each appends the whole report to sb; see report_render() in report.h. */
void render_text(struct strbuf *sb, const struct run_results *r, int color);	/* text.c */
/* html_url: the HTML report of the same results, to link each branch's charts; NULL for none. */
void render_markdown(struct strbuf *sb, const struct run_results *r, const char *html_url);	/* text.c */
void render_json(struct strbuf *sb, const struct run_results *r);	/* json.c */
void render_junit(struct strbuf *sb, const struct run_results *r);	/* junit.c */
void render_html(struct strbuf *sb, const struct run_results *r);	/* html.c */

#endif
