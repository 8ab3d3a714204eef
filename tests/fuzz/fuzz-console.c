/* fuzz-console.c: libFuzzer target for the KTAP parser, the splat finder and the reading of a cell's console. */
#include <stdint.h>
#include <string.h>

#include "console/ktap.h"
#include "results/results.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *log = (const char *)data;
	struct console_splat splat = CONSOLE_SPLAT_INIT;
	struct strvec problems = STRVEC_INIT;
	struct ktap_result res;
	struct cell_result c;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	ktap_result_init(&res);
	if (!ktap_parse(&res, log, size)) {
		ktap_all_good(&res);
		ktap_problems(&res, &problems);
	}
	ktap_release(&res);
	strvec_clear(&problems);

	console_find_splat(&splat, log, size);
	console_splat_release(&splat);

	/* What a run does with a console: with an expected failure, as a variant declares one. */
	memset(&c, 0, sizeof(c));
	c.variant = xstrdup("kit");
	cell_expect_fail(&c, "pte_batch_wrbit");
	cell_read_console(&c, log, size, NULL);
	cell_result_release(&c);
	return 0;
}
