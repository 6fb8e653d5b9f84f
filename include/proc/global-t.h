/* Process-wide settings from the "global" section and the command line. Written while
 * parsing (single-threaded), read-only once threads run.
 */
#ifndef PROC_GLOBAL_T_H
#define PROC_GLOBAL_T_H

#include <stdbool.h>
#include <stdint.h>

struct global {
	int nbthread;             /* threads the runtime starts (set by thread_cfg_check) */
	int maxconn;              /* global maxconn (0: computed from the fd limit) */
	int maxconnrate;          /* maxconnrate: accepted connections per second, 0 = none */
	int maxsessrate;          /* maxsessrate: sessions per second, 0 = none (a session
				   * starts at each accept: no tcp-request connection rules) */
	int ulimit_n;             /* ulimit-n, 0 = computed */
	int maxpipes;             /* "maxpipes": splice pipes at once, 0 = maxconn / 4 */
	bool pp2_never_send_local; /* "pp2-never-send-local": v2 checks send PROXY with the
				    * check connection's addresses, not LOCAL (check/check_pp.c) */
	bool nosplice;            /* "nosplice": option splice-* is off everywhere */
	int tune_pipesize;        /* "tune.pipesize": bytes, 0 = the kernel's default */
	bool daemon;              /* "daemon" or -D */
	bool quiet;               /* "quiet" or -q */
	bool debug;               /* -d */
	bool warn_fatal;          /* -dW / zero-warning */
	char *pidfile;            /* "pidfile" or -p */
	int hard_stop_after;      /* ms, 0 = none */
	uint32_t tune_bufsize;    /* tune.bufsize, default 16384 */
	uint32_t tune_maxrewrite; /* tune.maxrewrite, default 1024 */
	uint16_t tune_maxhdr;     /* tune.http.maxhdr, default 101 */
	int tune_maxpollevents;   /* tune.maxpollevents, default 200 */
	int tune_maxaccept;       /* tune.maxaccept, default 64 */
	bool h1_accept_payload_any_method;    /* h1-accept-payload-with-any-method */
	bool h1_keep_open_on_insecure_te;     /* h1-do-not-close-on-insecure-transfer-encoding */
	bool strict_limits;       /* strict-limits (an unreachable maxconn is always fatal) */
	char *node;               /* "node" (stored for the runtime API) */
	char *desc;               /* "description" */
	int spread_checks;        /* spread-checks percent: random part of check intervals */
	int max_spread_checks;    /* max-spread-checks, ms */
	int tune_logurilen;       /* tune.http.logurilen, default 1024 (for logging) */
	int tune_cookielen;       /* tune.http.cookielen, 0 = none (for captures) */
	int external_check;        /* global "external-check" (check/extcheck_cfg.c) */
	bool insecure_fork;       /* insecure-fork-wanted: external checks may fork */
	/* process life: grace, localpeer, stop state */
	int grace;                /* "grace": ms between SIGUSR1 and the soft stop, 0 = none */
	bool localpeer_cli;       /* -L given: "localpeer" lines are ignored */
	int stop_requested;       /* SIGUSR1 received (the "stopping" fetch, during "grace" too):
				   * written once by thread 0 at run time, read by all (atomic) */
	int close_spread_time;    /* "close-spread-time" ms, 0 = none, -1 = infinite */
	uint64_t stop_start_ms;   /* now_ms() when the soft stop began (after "grace"):
				   * written once by thread 0 before the stop items, atomic */
	bool no_strict_limits;    /* "no strict-limits": an fd limit that cannot be raised is
				   * a warning, not fatal (HAProxy's default is strict) */
};

extern struct global global;

#endif
