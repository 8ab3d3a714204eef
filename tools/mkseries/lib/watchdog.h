/* lib/watchdog.h: end the process when one step runs past its time limit. */
#ifndef MKSERIES_WATCHDOG_H
#define MKSERIES_WATCHDOG_H

/*
 * Arm the watchdog for `seconds` (SIGALRM): when it fires, `message`
 * (copied now, up to 1 KiB; it should end in a newline) goes to stderr
 * and the process ends at once with _exit(status), running no atexit
 * handler: whatever the step was doing is not safe to clean up after.
 * Locks held through flock() are released by the kernel with the
 * process. Only one watchdog is armed at a time; arming again replaces
 * it. stdout is flushed now so that nothing already printed is lost.
 */
void watchdog_arm(unsigned seconds, const char *message, int status);

/* Disarm the watchdog and put back the SIGALRM action it replaced. */
void watchdog_disarm(void);

/*
 * Seconds from environment variable `name` when it holds a positive
 * whole number, else `dflt`.
 */
unsigned watchdog_seconds(const char *name, unsigned dflt);

#endif
