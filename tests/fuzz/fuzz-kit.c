/* fuzz-kit.c: libFuzzer target for the kit loader (model.c): series.yaml and a kernel file. */
#define _GNU_SOURCE	/* memmem */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/util.h"
#include "fuzz-common.h"
#include "kit/model.h"
#include "lib/gitutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An input is series.yaml, then optionally this line and kernels/t.yaml. */
#define KERNEL_MARK "\n--- kernels/t.yaml\n"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *dir = fuzz_scratch(), *buf = (const char *)data;
	const char *mark = memmem(buf, size, KERNEL_MARK, strlen(KERNEL_MARK));
	size_t series_len = mark ? (size_t)(mark - buf) : size;
	char *series = xstrfmt("%s/series.yaml", dir), *kdir = xstrfmt("%s/kernels", dir);
	char *kfile = xstrfmt("%s/t.yaml", kdir);
	struct kit kit = KIT_INIT;

	/* no one prints what the last input kept: forget it, or it piles up */
	error_drop(0);
	gitutil_init();
	mkdir(kdir, 0755);
	fuzz_write(series, buf, series_len);
	if (mark) {
		const char *k = mark + strlen(KERNEL_MARK);

		fuzz_write(kfile, k, buf + size - k);
	} else {
		unlink(kfile);
	}
	if (!kit_load(&kit, dir))
		kit_release(&kit);
	free(series);
	free(kfile);
	free(kdir);
	return 0;
}
