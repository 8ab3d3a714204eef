/* lib/watchdog.c: a SIGALRM watchdog that ends a process stuck in a step it cannot interrupt. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/watchdog.h"

/* Read by the handler: written only while the alarm is off. */
static char fire_message[1024];
static size_t fire_len;
static volatile sig_atomic_t fire_status = 1;
static struct sigaction saved;
static int armed;

/* Async-signal-safe: write(2) and _exit(2) only. */
static void watchdog_fire(int sig)
{
	const char *p = fire_message;
	size_t left = fire_len;

	(void)sig;
	while (left) {
		ssize_t n = write(STDERR_FILENO, p, left);

		if (n <= 0)
			break;
		p += n;
		left -= n;
	}
	_exit(fire_status);
}

void watchdog_arm(unsigned seconds, const char *message, int status)
{
	struct sigaction sa;

	watchdog_disarm();
	fire_len = strlen(message);
	if (fire_len > sizeof(fire_message))
		fire_len = sizeof(fire_message);
	memcpy(fire_message, message, fire_len);
	if (fire_len == sizeof(fire_message))
		fire_message[fire_len - 1] = '\n';
	fire_status = status;
	fflush(stdout);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog_fire;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, &saved);
	armed = 1;
	alarm(seconds ? seconds : 1);
}

void watchdog_disarm(void)
{
	if (!armed)
		return;
	alarm(0);
	sigaction(SIGALRM, &saved, NULL);
	armed = 0;
}

unsigned watchdog_seconds(const char *name, unsigned dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return dflt;
	v = strtoul(s, &end, 10);
	if (*end || !v || v > 1000000)
		return dflt;
	return (unsigned)v;
}
