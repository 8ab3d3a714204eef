/* tests/data/tcg-cache-guest.c: a guest program for t0420: a thread, a fork, and a load across two pages. */
/*
 * guest thread: start a thread and join it (a second vCPU under qemu-user);
 * guest fork:   fork, and run a marked region in the child and in the
 *               parent (each process has its own copy of the plugin);
 * guest cross:  load the last line of a page never touched before, then,
 *               in a region, 8 bytes from 4 before the page's end: the
 *               first 4 in that line and page, the last 4 in the next
 *               page's first line, both new. x86-64 only.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "marker.h"

static void *thread_main(void *arg)
{
	return arg;
}

static unsigned char pages[3 * 4096] __attribute__((aligned(4096)));

static int cross(void)
{
	unsigned char *end = pages + 4096;
	unsigned long v;

	__asm__ __volatile__("mov %1, %0" : "=r"(v) : "m"(*(unsigned long *)(end - 64)));
	TCG_CACHE_MARK(TCG_CACHE_MARK_START);
	__asm__ __volatile__("mov %1, %0" : "=r"(v) : "m"(*(unsigned long *)(end - 4)));
	TCG_CACHE_MARK(TCG_CACHE_MARK_END);
	printf("cross: loaded %lu\n", v);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc == 2 ? argv[1] : "";

	if (!strcmp(mode, "thread")) {
		pthread_t t;

		if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL))
			return 1;
		printf("thread: joined\n");
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		TCG_CACHE_MARK(TCG_CACHE_MARK_START);
		TCG_CACHE_MARK(TCG_CACHE_MARK_END);
		if (!pid)
			return 0;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
		printf("fork: the child exited 0\n");
		return 0;
	}
	if (!strcmp(mode, "cross"))
		return cross();
	fprintf(stderr, "usage: guest thread|fork|cross\n");
	return 2;
}
