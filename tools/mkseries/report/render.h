/* report/render.h: the renderers report_render() dispatches to, one file each. */
#ifndef MKSERIES_REPORTRENDER_H
#define MKSERIES_REPORTRENDER_H

#include "results/results.h"
#include "lib/util.h"

/* Each appends the whole report to sb; see report_render() in report.h. */
void render_text(struct strbuf *sb, const struct run_results *r, int color);	/* reporttext.c */
void render_markdown(struct strbuf *sb, const struct run_results *r);	/* reporttext.c */
void render_json(struct strbuf *sb, const struct run_results *r);	/* reportjson.c */
void render_junit(struct strbuf *sb, const struct run_results *r);	/* reportjunit.c */
void render_html(struct strbuf *sb, const struct run_results *r);	/* html.c */

#endif
