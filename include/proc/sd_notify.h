/* systemd notify protocol for -Ws, without libsystemd: one datagram per state change to
 * the unix socket named by $NOTIFY_SOCKET (a path, or "@name" for the abstract namespace).
 */
#ifndef PROC_SD_NOTIFY_H
#define PROC_SD_NOTIFY_H

#include <stdbool.h>

/* -Ws was given: the master sends its states. */
extern bool sd_notify_mode;

/* Sends <msg> to $NOTIFY_SOCKET when sd_notify_mode is set and the variable exists.
 * Returns 0 when sent (or nothing to do), -1 on error. */
int sd_notify_send(const char *msg);

/* printf-like wrapper of sd_notify_send(). */
int sd_notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
