/* "program" sections: commands the master starts beside its workers (master-worker mode
 * only), listed by "show proc", replaced or kept on reload, stopped with the workers.
 * Master process only.
 */
#ifndef PROC_PROGRAM_H
#define PROC_PROGRAM_H

#include <stdbool.h>
#include <sys/types.h>

#define PRG_NAME_MAX 64

/* A running program. */
struct program_proc {
	pid_t pid;
	int reloads;		 /* reloads it has seen */
	bool current;		 /* started or kept by the latest loaded config */
	long long start;	 /* wall clock at the fork, seconds */
	char name[PRG_NAME_MAX]; /* its section's name */
};

/* After loading: "program" sections need master-worker mode and a "command". Returns the
 * number of errors (alerts printed). */
int program_cfg_check(bool mworker);

/* Master, before forking a new worker: forks and executes each configured program, except
 * those with "no option start-on-reload" that a previous image already runs (kept).
 * What the previous image ran and is not kept becomes old. */
void program_start_all(void);

/* Sends <sig> to the programs (the old ones only if <old_only>). */
void program_signal(int sig, bool old_only);

/* A reload starts: counts it in each program's reloads. */
void program_reloading(void);

/* A child ended: logs it and forgets it if it is a program. Returns true if it was one. */
bool program_reaped(pid_t pid, int code, const char *what);

/* Running programs; their table (valid until the next reap). */
int program_count(void);
const struct program_proc *program_procs(int *n);

/* Re-exec: the running programs go through the environment. */
void program_export_env(void);
void program_import_env(void);

#endif
