/* fuzz-diff.c: libFuzzer target for the diff reader (diff/diffscan.c, diffreverse.c): the path checks and the reversal apply and backport run before libgit2 sees a diff. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/util.h"
#include "diff/apply.h"
#include "diff/diffscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *diff = (const char *)data;
	struct strbuf why = STRBUF_INIT, rev = STRBUF_INIT, back = STRBUF_INIT;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	diff_check_paths(diff, size, &why);
	diff_check_names(diff, size, &why);
	/* reversed twice, a diff that reverses is read again from our own output */
	if (!diff_reverse(diff, size, &rev))
		diff_reverse(rev.buf, rev.len, &back);
	strbuf_release(&back);
	strbuf_release(&rev);
	strbuf_release(&why);
	return 0;
}
