/* Privileges of the serving process: the "user"/"uid", "group"/"gid", "chroot",
 * "set-dumpable" and "setcap" global keywords and the one function that applies them once
 * every listener is bound and every file the configuration needs has been read.
 */
#ifndef PROC_PRIVS_H
#define PROC_PRIVS_H

#include <stdbool.h>

/* Enters the chroot (then "/"), sets the supplementary groups, the gid and the uid, keeps
 * the "setcap" capabilities and sets the dumpable flag, in that order. Call it once, from
 * the process that will serve (the worker in master-worker mode), after binding and
 * before any thread but the calling one exists. Does nothing when none of the keywords
 * is set. Returns 0, or -1 after printing HAProxy's alert: the caller exits with status 1.
 */
int proc_drop_privileges(void);

/* "set-dumpable" / "no set-dumpable" (the global "no" keyword sets it too). */
void proc_privs_set_dumpable(bool on);

#endif
