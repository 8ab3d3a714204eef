/* fuzz-binary.c: libFuzzer target for the checks of "GIT binary patch" hunks (diff/diffbinary.c) made before libgit2 inflates them. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/util.h"
#include "diff/apply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf why = STRBUF_INIT;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	diff_check_binary((const char *)data, size, &why);
	strbuf_release(&why);
	return 0;
}
