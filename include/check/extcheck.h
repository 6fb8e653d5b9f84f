/* External checks ("option external-check"): a command run per check, its exit code
 * deciding (0 = UP). Runtime in extcheck.c (on the check's thread, never blocking: the
 * child is watched through a pidfd in the loop), config in extcheck_cfg.c.
 */
#ifndef CHECK_EXTCHECK_H
#define CHECK_EXTCHECK_H

#include <check/check-t.h>

#define EXTCHK_MEM 4096 /* per check: argv, environment and their strings */

/* Starts the command of check <c> (argv and environment as 2.6 sets them). */
void extchk_start(struct check *c);
/* The child's pidfd is readable: reaps it and ends the run. */
void extchk_io(struct check *c);
/* The run's deadline: kills the command (the run ends when it is reaped). */
void extchk_timeout(struct check *c);
/* Kills and reaps a command still running (the loop is stopping). */
void extchk_stop(struct check *c);

#endif
