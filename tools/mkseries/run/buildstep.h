/* run/buildstep.h: the line of a cell's build step, one renderer for `mkseries build` and `mkseries run`. */
#ifndef MKSERIES_BUILDSTEP_H
#define MKSERIES_BUILDSTEP_H

#include "build/build.h"
#include "lib/util.h"

/*
 * How build_variant() went for `label` ("6.12 kit"), as lines: "LABEL:
 * STEPbuilt in 1m2s (IMAGE)", "up to date (IMAGE)", "up to date (FAILED
 * WHY)" for a failure recorded with the same inputs, "FAILED WHY" with
 * its details and log; then its notes, and with `verbose` how the
 * source was written. err is build_variant()'s return: nonzero, the
 * build could not run (MKS_ECONFIG: the kit's build settings do not
 * do). STEP is "build: " for run, "" for build.
 */
void build_step_say(struct strbuf *out, const char *label, const char *step, int err,
		    const struct build_result *res, int verbose);

#endif
