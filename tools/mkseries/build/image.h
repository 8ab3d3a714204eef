/* build/image.h: check that a boot image holds the vmlinux of the build that made it. */
#ifndef MKSERIES_IMAGE_H
#define MKSERIES_IMAGE_H

#include "lib/util.h"

/*
 * Check that the boot image at `image` carries the kernel `vmlinux`: every
 * section of vmlinux that is loaded and has contents (not .bss, not notes,
 * whose build ids an image may drop) must be found with the same bytes in
 * the image's payload. The payload is found as the image's format says:
 *
 * - an x86 bzImage: the setup header's payload_offset and payload_length
 *   (boot protocol 2.08 and later), decompressed by libarchive (gzip, xz,
 *   lzma, bzip2, lz4, zstd, or none; a stream that does not decompress
 *   whole is taken without the four bytes of size kbuild appends, and
 *   must come out at that size), which gives the stripped vmlinux;
 * - an ELF image (sparc64's image, a kit's `image: vmlinux`): itself;
 * - any other (arm64's Image, Image.gz): the file, decompressed when it is
 *   compressed, holding each section at its load address less the lowest
 *   one, as `objcopy -O binary` writes it.
 *
 * An ELF payload's sections are matched by name, a raw one's by address.
 * Returns 0, or -1 with `why` saying what differs ("its .text differs") or
 * why the image could not be read; a caller treats both as a failed build.
 */
int image_check_payload(const char *image, const char *vmlinux, struct strbuf *why);

#endif
