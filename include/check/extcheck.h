/* External checks ("option external-check"): a command run per check, its exit code
 * deciding (0 = UP). Runtime in extcheck.c (on the check's thread, never blocking: the
 * child is watched through a pidfd in the loop), config in extcheck_cfg.c.
 */
#ifndef CHECK_EXTCHECK_H
#define CHECK_EXTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <check/check-t.h>

#define EXTCHK_MEM 4096 /* per check: argv, environment and their strings */

/* "external-check preserve-env" (global, extcheck_cfg.c): the command inherits the
 * process's environment, the HAPROXY_* variables (and PATH when set) replacing theirs. */
extern bool extchk_preserve_env;

/* Bytes of a check's ext_mem: EXTCHK_MEM, plus room for the process's environment with
 * preserve-env (counted once, at start, before the threads). */
size_t extchk_mem_size(void);

/* Starts the command of check <c> (argv and environment as 2.6 sets them). */
void extchk_start(struct check *c);
/* The child's pidfd is readable: reaps it and ends the run. */
void extchk_io(struct check *c);
/* The run's deadline: kills the command (the run ends when it is reaped). */
void extchk_timeout(struct check *c);
/* Kills and reaps a command still running (the loop is stopping). */
void extchk_stop(struct check *c);

#endif
