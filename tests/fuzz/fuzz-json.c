/* fuzz-json.c: libFuzzer target for the JSON reader (lib/json.c) and the report loader on top of it (results/results.c). */
#include <stdint.h>
#include <stdlib.h>

#include "lib/util.h"
#include "lib/json.h"
#include "results/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jval root;
	struct run_results r;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	if (!json_parse(&root, "fuzz.json", (const char *)data, size))
		jval_release(&root);
	results_init(&r);
	results_parse_json(&r, "fuzz.json", (const char *)data, size);
	results_release(&r);
	return 0;
}
