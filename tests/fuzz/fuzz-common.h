/* fuzz-common.h: what the fuzz targets that need files share: a scratch directory and writing an input into it. */
#ifndef MKSERIES_FUZZ_COMMON_H
#define MKSERIES_FUZZ_COMMON_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/util.h"

/*
 * A directory of the target's own under $TMPDIR (or /tmp), made once;
 * it is left behind when the fuzzer stops (libFuzzer exits without
 * running destructors on a finding, which is when it is worth a look).
 */
static const char *fuzz_scratch(void)
{
	static char *dir;

	if (!dir) {
		const char *tmp = getenv("TMPDIR");

		dir = xstrfmt("%s/mkseries-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			abort();
		}
	}
	return dir;
}

/* Write len bytes of data to path, replacing it; abort when that fails (a harness fault). */
static void fuzz_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || (len && write_in_full(fd, data, len)) || close(fd)) {
		perror(path);
		abort();
	}
}

#endif
