/* tests/data/tcg-cache-guest.c: a guest program for t0420: a thread, which the plugin refuses, and a fork, which it takes. */
/*
 * guest thread: start a thread and join it (a second vCPU under qemu-user);
 * guest fork:   fork, and run a marked region in the child and in the
 *               parent (each process has its own copy of the plugin).
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
	fprintf(stderr, "usage: guest thread|fork\n");
	return 2;
}
