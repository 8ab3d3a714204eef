/* fuzz-mail.c: libFuzzer target for the patch mail parser (mail.c): format-patch files and mboxes. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/util.h"
#include "patches/mail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mail_patch *patches = NULL;
	size_t nr = 0, i;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	if (!mail_parse_buffer(&patches, &nr, (const char *)data, size, "fuzz.patch")) {
		for (i = 0; i < nr; i++)
			free(subject_clean(patches[i].subject ? patches[i].subject : "",
					   NULL, NULL, NULL));
		mail_patches_free(patches, nr);
	}
	return 0;
}
