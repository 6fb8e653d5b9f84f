/* Master-worker mode (-W, global "master-worker"): the master binds the listeners, forks
 * the worker that runs the threads, forwards stop signals, and reloads (SIGUSR2, SIGHUP)
 * by re-executing itself with the listening sockets and the list of workers inherited.
 */
#ifndef PROC_MWORKER_H
#define PROC_MWORKER_H

#include <stdbool.h>
#include <sys/types.h>

/* A process the master started: a worker (current or old). */
struct mworker_proc {
	pid_t pid;
	int reloads;	 /* reloads this worker has seen (failed ones too) */
	int ready_fd;	 /* read end of its readiness pipe, -1 once ready */
	bool current;	 /* the worker of the latest successful load */
	long long start; /* wall clock at the fork, seconds */
	int link_fd;	 /* master CLI: the master's end of its socketpair, -1 if none */
};

/* The master's workers, <n> of them (master only; valid until the next reap). */
const struct mworker_proc *mworker_procs(int *n);

/* -W / -Ws / "master-worker": set before mworker_start(). */
extern bool mworker_mode;

/* At the very start: remembers argv and the executable for re-executions, reads what a
 * previous master image passed in the environment; a master re-executed after a failed
 * reload ("wait mode") runs its loop from here and never returns.
 */
void mworker_init(int argc, char **argv);

/* True in a master image re-executed for a reload (no daemonizing, no pidfile again). */
bool mworker_reexec(void);

/* Called once the config is loaded and checked: from then on, an exit no longer falls
 * back to wait mode. */
void mworker_loading_done(void);

/* After binding: forks the worker. Returns 0 in the worker; in the master it runs the
 * master loop and exits with its status. Returns -1 (alert printed) if it cannot fork.
 */
int mworker_start(void);

/* Worker: tells the master that every thread serves. No-op outside master-worker mode. */
bool mworker_worker_ready(void);

#endif
