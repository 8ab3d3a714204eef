/* init.c: running as PID 1 of an initramfs: filesystems, console, arguments, reboot. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mm-regress.h"

#define CMDLINE_PARAM "mm_regress="

static int push_arg(char ***out, int *nr, const char *s, size_t len)
{
	char **v = realloc(*out, (*nr + 2) * sizeof(*v));
	char *copy;

	if (!v)
		return -1;
	*out = v;
	copy = strndup(s, len);
	if (!copy)
		return -1;
	v[(*nr)++] = copy;
	v[*nr] = NULL;
	return 0;
}

static int split_commas(const char *val, size_t len, char ***out, int *nr)
{
	size_t i = 0, start = 0;
	int added = 0;

	for (i = 0; i <= len; i++) {
		if (i < len && val[i] != ',')
			continue;
		if (i > start) {
			if (push_arg(out, nr, val + start, i - start))
				return -1;
			added++;
		}
		start = i + 1;
	}
	return added;
}

/*
 * Words are split on blanks outside double quotes, and the quotes are
 * dropped, as the kernel's own parser does; "--" ends the kernel's part.
 */
int mr_args_from_cmdline(const char *cmdline, char ***out, int *nr)
{
	const char *p = cmdline;
	int added = 0;

	while (*p) {
		char word[1024];
		size_t len = 0;
		int quoted = 0, n;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		for (; *p && (quoted || (*p != ' ' && *p != '\t' && *p != '\n')); p++) {
			if (*p == '"') {
				quoted = !quoted;
				continue;
			}
			if (len < sizeof(word) - 1)
				word[len++] = *p;
		}
		word[len] = '\0';
		if (!strcmp(word, "--"))
			break;
		if (strncmp(word, CMDLINE_PARAM, strlen(CMDLINE_PARAM)))
			continue;
		n = split_commas(word + strlen(CMDLINE_PARAM), len - strlen(CMDLINE_PARAM), out, nr);
		if (n < 0)
			return -1;
		added += n;
	}
	return added;
}

static void mount_if_missing(const char *probe, const char *dir, const char *type)
{
	if (access(probe, F_OK) == 0)
		return;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		mr_diag("init: cannot create '%s': %s", dir, strerror(errno));
	if (mount(type, dir, type, 0, NULL) < 0)
		mr_diag("init: cannot mount %s on '%s': %s", type, dir, strerror(errno));
}

int mr_layout_fixed(void)
{
	int cur = personality(0xffffffff);

	return cur != -1 && (cur & ADDR_NO_RANDOMIZE);
}

/*
 * As init: run again with address-space randomisation off. Where mmap()
 * and the heap land decides whether large folios and huge pages fit a
 * region, and with it the instructions a case executes; a random layout
 * made realloc_rate take one of two values per boot. The flag is read
 * at exec, so init sets it and executes itself once more (still PID 1);
 * if either step fails it carries on as it is, and says so in the header.
 */
void mr_init_fixed_layout(char **argv)
{
	int cur = personality(0xffffffff);

	if (cur == -1 || (cur & ADDR_NO_RANDOMIZE))
		return;
	if (personality((unsigned long)cur | ADDR_NO_RANDOMIZE) == -1)
		return;
	execv(argv[0], argv);
	/* exec failed: this process keeps its random layout */
	personality((unsigned long)cur);
}

void mr_init_setup(void)
{
	int fd;

	mount_if_missing("/proc/self/stat", "/proc", "proc");
	mount_if_missing("/sys/kernel", "/sys", "sysfs");
	mount_if_missing("/dev/null", "/dev", "devtmpfs");
	/* Without devtmpfs, make the two nodes we need by hand. */
	if (access("/dev/console", F_OK) < 0)
		mknod("/dev/console", S_IFCHR | 0600, makedev(5, 1));
	if (access("/dev/null", F_OK) < 0)
		mknod("/dev/null", S_IFCHR | 0666, makedev(1, 3));
	/* The kernel opens the console for init only when the archive has it. */
	if (fcntl(1, F_GETFD) < 0) {
		fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
}

int mr_init_args(int argc, char **argv, char ***out, int *nr)
{
	char buf[4096];
	const char *env;
	size_t n = 0;
	int i, fd, have = 0;

	/* Bare words the kernel did not know also land here; only options are ours. */
	for (i = 1; i < argc; i++) {
		if (argv[i][0] != '-') {
			mr_diag("init: ignoring argument '%s'", argv[i]);
			continue;
		}
		if (push_arg(out, nr, argv[i], strlen(argv[i])))
			return -1;
	}
	fd = open("/proc/cmdline", O_RDONLY);
	if (fd >= 0) {
		ssize_t r;

		while (n < sizeof(buf) - 1 && (r = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0)
			n += r;
		close(fd);
		buf[n] = '\0';
		if (strstr(buf, CMDLINE_PARAM)) {
			if (mr_args_from_cmdline(buf, out, nr) < 0)
				return -1;
			have = 1;
		}
	}
	/* The kernel hands unknown name=value parameters to init as environment. */
	env = getenv("mm_regress");
	if (!have && env && split_commas(env, strlen(env), out, nr) < 0)
		return -1;
	return 0;
}

void mr_init_finish(void)
{
	fflush(stdout);
	sync();
#ifdef __sparc__
	/*
	 * A sparc64 restart goes back through the PROM's boot command,
	 * which QEMU's OpenBIOS cannot run after a -kernel boot: the kernel
	 * panics "Reboot failed!" and QEMU dies of nested traps. Powering
	 * off ends the sun4u machine cleanly.
	 */
	reboot(RB_POWER_OFF);
#endif
	reboot(RB_AUTOBOOT);
	/* A kernel that refuses to restart may still power off. */
	reboot(RB_POWER_OFF);
	mr_diag("init: reboot failed: %s; halting here", strerror(errno));
	fflush(stdout);
	for (;;)
		pause();
}
