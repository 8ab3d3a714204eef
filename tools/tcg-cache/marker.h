/* tools/tcg-cache/marker.h: the no-op instructions that open and close a region tcg-cache counts. */
#ifndef TCG_CACHE_MARKER_H
#define TCG_CACHE_MARKER_H

/*
 * On x86-64 a marker is the 8-byte no-op "nopl 0x4d4b53NN(%rax,%rax,1)"
 * (0f 1f 84 00, then the displacement NN 53 4b 4d, "MKS" and the kind).
 * Compilers pad with such no-ops but with a displacement of 0, so this
 * one appears only where we put it; it does nothing on a real CPU, and
 * the plugin recognises its bytes when QEMU translates it. Regions are
 * numbered by the order their start markers run, from 1.
 *
 * Inside a region, a pause marker stops the counting and a resume marker
 * starts it again: a region counts only what runs outside its pauses, so
 * a loop can count its calls and not the work between them. A pause
 * already paused, or a resume not paused, changes nothing; an end while
 * paused closes the region at its pause.
 */
#define TCG_CACHE_MARK_START 0x01
#define TCG_CACHE_MARK_END 0x02
#define TCG_CACHE_MARK_PAUSE 0x03
#define TCG_CACHE_MARK_RESUME 0x04
#define TCG_CACHE_MARK_LEN 8
#define TCG_CACHE_MARK_BYTES(kind) 0x0f, 0x1f, 0x84, 0x00, (kind), 0x53, 0x4b, 0x4d

#if defined(__x86_64__)
#define TCG_CACHE_MARK_ASM_(kind) ".byte 0x0f,0x1f,0x84,0x00," #kind ",0x53,0x4b,0x4d"
#define TCG_CACHE_MARK(kind) __asm__ __volatile__(TCG_CACHE_MARK_ASM_(kind) ::: "memory")
#define TCG_CACHE_HAVE_MARKS 1
#else
#define TCG_CACHE_MARK(kind) do { } while (0)
#define TCG_CACHE_HAVE_MARKS 0
#endif

#endif
