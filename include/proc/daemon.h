/* Launch helpers for main(): daemonizing with a readiness pipe back to the launcher, the
 * pidfile, and the signals sent to old processes by -sf/-st. Single-threaded startup only.
 */
#ifndef PROC_DAEMON_H
#define PROC_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

/* Forks. The parent waits on a pipe for the child's readiness byte and exits 0 once it
 * comes, or exits with the child's status (1 if it had none) when the pipe closes without
 * it; the parent never returns. The child becomes a session leader, moves to "/", and gets
 * /dev/null as stdin and stdout; stderr is kept until daemon_report_ready() so that startup
 * errors still reach the launcher's terminal. Returns 0 in the child, -1 (alert printed)
 * if the process could not fork.
 */
int daemon_start(void);

/* Tells the waiting launcher that startup succeeded, then points stderr to /dev/null unless
 * <keep_stderr>. Does nothing when the process was not daemonized. Idempotent.
 */
void daemon_report_ready(bool keep_stderr);

/* Creates (truncates) <path> now, so that an unwritable path fails before forking; the pid
 * is written later by pidfile_write(). A relative path is remembered as absolute, for
 * removal after a chdir. Returns 0, or -1 after printing an alert.
 */
int pidfile_open(const char *path);

/* Writes the calling process's pid into the file opened by pidfile_open() and closes it.
 * Returns 0 (also when no pidfile was opened), or -1 after printing an alert.
 */
int pidfile_write(void);

/* Removes the pidfile created by this process, if any. */
void pidfile_remove(void);

/* Forgets the pidfile without removing it: called before a chroot or a uid change, after
 * which its path would name another file or could not be unlinked (HAProxy leaves it too).
 */
void pidfile_forget(void);

/* Sends <sig> to each of pids[0..nb), as -sf (SIGUSR1) and -st (SIGTERM) ask once the new
 * process is ready. A pid that no longer exists is skipped silently; other failures print a
 * warning.
 */
void daemon_signal_pids(const pid_t *pids, int nb, int sig);

#endif
