/* results/collect.h: the results of a branch from what its work directory records. */
#ifndef MKSERIES_COLLECT_H
#define MKSERIES_COLLECT_H

#include "results/results.h"

/*
 * The records a branch's work directory holds, one per step, read
 * through record/record.h, which names every field:
 *   state/run.import       status, evidence, base, at
 *   state/run.apply        status, evidence, tip, series (a count) and
 *                          series.<n>.id, .title, .state, .detail, at;
 *                          variants (names, in order) and variant.<v>.status,
 *                          .evidence, .tip for each declared variant
 *   state/<v>.build        written by build/: key, status (error, failure:
 *                          it could not run; running: interrupted), commit,
 *                          log, seconds, bzimage
 *   state/<v>.test         written by vm/: key, status, failure, repeat,
 *                          bzimage_hash, the console log it names
 *                          (and expect_fail, without for a declared variant);
 *                          timing (hardware, instructions or emulated;
 *                          absent: derived from accel), boots (N; a
 *                          record without it had one) with console.2 .. console.N for the later
 *                          boots, reused=base when the cell is base's
 *                          tree and its build and test are base's
 * Fill b (named already) from them. `variants` limits the cells read;
 * NULL reads every variant with anything recorded: base, kit, those
 * run.apply lists, then any other the state directory has, by name. Returns 1 when
 * anything at all was recorded, 0 when nothing, -1 on a read error
 * (printed).
 */
int results_collect_branch(struct branch_result *b, const char *workdir,
			   const struct strvec *variants);

#endif
