/* vm/regress.c: the mm-regress binaries mkseries carries (linked in by embed.S), for vm.c and `mkseries regress`. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vm/regress.h"
#include "lib/gitutil.h"
#include "lib/util.h"

const char *mm_regress_image(size_t *len)
{
	*len = (size_t)(mm_regress_end - mm_regress_start);
	return mm_regress_start;
}

const char *mm_regress_image_for(const char *machine, size_t *len, const char **why)
{
	static const struct {
		const char *machine;
		const char *start, *end, *why;
	} blobs[] = {
		{ "x86_64", mm_regress_x86_64_start, mm_regress_x86_64_end, mm_regress_x86_64_why_start },
		{ "aarch64", mm_regress_aarch64_start, mm_regress_aarch64_end, mm_regress_aarch64_why_start },
		{ "sparc64", mm_regress_sparc64_start, mm_regress_sparc64_end, mm_regress_sparc64_why_start },
	};
	size_t i;

	*len = 0;
	*why = "no such machine";
	for (i = 0; i < sizeof(blobs) / sizeof(*blobs); i++) {
		if (strcmp(blobs[i].machine, machine))
			continue;
		*len = (size_t)(blobs[i].end - blobs[i].start);
		*why = *blobs[i].why ? blobs[i].why : "its build left it empty";
		return blobs[i].start;
	}
	return NULL;
}

char *mm_regress_hash(const char *machine)
{
	size_t len = 0;
	const char *why, *image = mm_regress_image_for(machine, &len, &why);

	return blob_hash_hex(image ? image : "", len);
}

int mm_regress_write(const char *path)
{
	size_t len;
	const char *img = mm_regress_image(&len);
	int fd, ret = -1;

	if (!len)
		return error("mkseries was built without mm-regress");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		return error("cannot create '%s': %s", path, strerror(errno));
	if (write_in_full(fd, img, len)) {
		error("cannot write '%s': %s", path, strerror(errno));
		goto cleanup;
	}
	/* The umask may have taken bits away. */
	if (fchmod(fd, 0755)) {
		error("cannot make '%s' executable: %s", path, strerror(errno));
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (close(fd) && !ret)
		ret = error("cannot write '%s': %s", path, strerror(errno));
	return ret;
}
