/* What the files of src/lua/ share: the Lua states, the functions scripts register, the
 * coroutine runner that every caller (actions, services, fetches, tasks, CLI) goes
 * through, and the helpers that build the API's classes.
 *
 * States. State 0 is the shared state of "lua-load": one lua_State for the whole
 * process, entered under hlua_lock (a recursive mutex: a script running there may call a
 * fetch that is itself a Lua function of the same state). States 1..nbthread belong to
 * "lua-load-per-thread": state tid + 1 is only ever entered by thread tid, without a
 * lock. State 1 is created and loaded while the configuration is parsed (so that what its
 * files register is known to the rules parsed after them); the others are created and
 * loaded by hlua_cfg_check(), before the threads start.
 *
 * Contexts. A call runs in a coroutine (struct hlua_ctx) so that it may yield: on its own
 * (core.yield, core.sleep, a cosocket waiting) or forced by the instruction-count hook
 * every tune.lua.forced-yield instructions. Where the caller cannot wait (fetches,
 * converters, http-after-response actions, init functions), the context is not
 * yieldable: the hook then only enforces the time limits. The caller's <wake> callback is
 * run (on the owner's thread) when a yielded context should be resumed before its
 * deadline.
 */
#ifndef LUA_HLUA_INT_H
#define LUA_HLUA_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <lua.h>
#include <lauxlib.h>
#include <base/list.h>
#include <base/tinfo.h>
#include <event/loop-t.h>

struct stream;
struct proxy;

#define HLUA_STATES (MAX_THREADS + 1)

/* The global settings (tune.lua.*, lua-load lines), set while parsing. */
struct hlua_settings {
	uint32_t forced_yield;	  /* instructions between two hook calls (default 10000) */
	uint64_t maxmem;	  /* bytes, 0: no limit */
	uint32_t session_timeout; /* ms of Lua run time for actions, fetches... (4000) */
	uint32_t service_timeout; /* ms for services (4000) */
	uint32_t task_timeout;	  /* ms for tasks (0: none) */
	uint32_t burst_timeout;	  /* ms a non-yieldable run may last (1000, 0: none) */
	uint8_t log_loggers;	  /* tune.lua.log.loggers: core.log reaches the proxy's
				   * loggers (default on) */
	uint8_t log_stderr;	  /* tune.lua.log.stderr: 0 off, 1 on, 2 auto (default:
				   * only when no logger took the message) */
	uint8_t bool_smp_conv;	  /* tune.lua.bool-sample-conversion: 1 "normal" (a Lua
				   * boolean becomes a boolean sample), 0 "pre-3.1-bug" */
	uint32_t openlibs;	  /* HLUA_LIB_* bits opened in every state */
	char *prepend_path[2];	  /* lua-prepend-path for package.path [0] and cpath [1] */
};
extern struct hlua_settings hlua_set;

#define HLUA_LIB_ALL 0xffffffffu

#define HLUA_SPARE_THREADS 16

struct hlua_state {
	lua_State *L;
	int id;	      /* 0 shared, tid + 1 per thread */
	uint64_t mem; /* bytes allocated by this state */
	int nspare;   /* coroutines kept for the next calls */
	lua_State *spare[HLUA_SPARE_THREADS];
	int spare_ref[HLUA_SPARE_THREADS];
};
extern struct hlua_state *hlua_states[HLUA_STATES];
extern int hlua_nb_states;	  /* highest per-thread state id in use + 1 */
extern bool hlua_per_thread_used; /* some lua-load-per-thread was given */

/* Kinds of registered functions. */
enum hlua_fn_kind {
	HLUA_FN_ACTION = 0,
	HLUA_FN_SERVICE,
	HLUA_FN_FETCH,
	HLUA_FN_CONV,
	HLUA_FN_CLI,
	HLUA_FN_KINDS
};

/* hlua_fn->act_from: the rule sets an action was registered for (ACT_F_* bits). */

/* A function registered by core.register_*; one per (kind, name), with the reference of
 * the function in each state that registered it. */
struct hlua_fn {
	struct list list;     /* in hlua_fns */
	char *name;	      /* "NAME" of lua.NAME (CLI: the words joined by spaces) */
	int kind;	      /* enum hlua_fn_kind */
	int ref[HLUA_STATES]; /* LUA_NOREF where not registered */
	uint8_t act_from;     /* ACTION: ACT_F_* bits */
	int nargs;	      /* ACTION: mandatory arguments */
	uint8_t svc_tcp;      /* SERVICE: "tcp" (else "http") */
	char *help;	      /* CLI: help text */
	char **words;	      /* CLI: NULL-terminated keyword words */
	void *priv;	      /* what the kind's module attached (fetch/conv descs...) */
};
extern struct list hlua_fns;

/* The function <name> of <kind>, or NULL. */
struct hlua_fn *hlua_fn_find(int kind, const char *name);

/* The state a call of <fn> runs in on this thread: the shared one when <fn> came from
 * lua-load, else this thread's. NULL when this thread's state lacks it. */
struct hlua_state *hlua_fn_state(const struct hlua_fn *fn, int *ref);

/* ---- locking of the shared state ---- */
void hlua_lock(struct hlua_state *st);
void hlua_unlock(struct hlua_state *st);

/* ---- contexts ---- */

enum hlua_ret {
	HLUA_OK = 0, /* the function returned: its results are on ctx->T */
	HLUA_YIELD,  /* it waits: resume it later (ctx->wake_ms, or a wake) */
	HLUA_ERR,    /* it failed: ctx->err holds the message */
};

struct hlua_ctx;
typedef void (*hlua_wake_fn)(struct hlua_ctx *ctx);

struct hlua_ctx {
	struct hlua_state *st;
	lua_State *T;	     /* the coroutine, NULL when not started */
	int tref;	     /* registry reference anchoring T */
	const char *fname;   /* the function's name, for messages */
	const char *what;    /* "function", "applet http", "task"... for messages */
	uint64_t run_ns;     /* Lua run time so far */
	uint64_t burst_ns;   /* start of the current resume (monotonic ns) */
	uint64_t timeout_ns; /* limit of run_ns, 0: none */
	uint64_t wake_ms;    /* yielded until this date (thread clock), 0: no date */
	uint8_t yieldable;
	uint8_t dead; /* a limit was hit: every hook call fails the script */
	uint8_t started;
	uint8_t nargs;	   /* arguments pushed for the first resume */
	uint8_t forced;	   /* the last yield was a forced one (the hook): nothing awaited */
	uint8_t done;	   /* core.done() ended it: HLUA_OK with its value on T */
	hlua_wake_fn wake; /* resumes the context before its date (owner's thread) */
	void *owner;	   /* stream, task, applet... (for wake) */
	struct proxy *px;  /* whose loggers core.log uses (NULL: the global ones) */
	char err[512];
};

/* The context running on this thread (innermost), or NULL. */
extern __thread struct hlua_ctx *hlua_cur;

/* Pushes the arguments of a call on <T> (protected: a Lua error here fails the start);
 * returns how many, or -1. */
typedef int (*hlua_push_fn)(lua_State *T, void *arg);

/* Prepares <ctx> to call the function <ref> of <st>: creates the coroutine, pushes the
 * function and what <push> pushes, all in protected mode. Returns 0, or -1 with ctx->err
 * set. The shared state's lock is taken for each step and released after it. */
int hlua_ctx_start(struct hlua_ctx *ctx, struct hlua_state *st, int ref, const char *fname,
		   const char *what, uint32_t timeout_ms, bool yieldable, hlua_push_fn push,
		   void *arg);

/* Runs (or resumes) the context. On HLUA_OK the function's results are on ctx->T (see
 * hlua_ctx_nres); the caller reads them then calls hlua_ctx_end. */
enum hlua_ret hlua_ctx_run(struct hlua_ctx *ctx);
int hlua_ctx_nres(const struct hlua_ctx *ctx);

/* Releases the coroutine (finished, failed, or abandoned while yielded). */
void hlua_ctx_end(struct hlua_ctx *ctx);

/* Reports ctx->err as HAProxy does: an alert on stderr (unless quiet) and a log at
 * level err on <px>'s loggers (NULL: the global ones). */
void hlua_report_err(const struct hlua_ctx *ctx, struct proxy *px);

/* The registry key under which core.done() leaves its value; its address is also the
 * error object that unwinds the coroutine. */
extern char hlua_done_key;

/* Sends <msg> as core.log does (level 0..7). */
void hlua_send_log(struct proxy *px, int level, const char *msg);

/* For C functions called from Lua: the context running them. */
struct hlua_ctx *hlua_ctx_of(lua_State *L);

/* Yields the running coroutine from a C function, until <wake_ms> (0: until woken, or
 * next turn when <next_turn>). <k> continues the C function after the resume. Raises a
 * Lua error when the context cannot yield. Never returns. */
int hlua_yield(lua_State *L, uint64_t wake_ms, bool next_turn, lua_KFunction k, lua_KContext kctx);

/* Monotonic ns (vDSO). */
uint64_t hlua_now_ns(void);

/* ---- classes ---- */

/* Creates (at state setup) the metatable <name> in the registry with <methods> as its
 * __index table (or <index> as __index function, the methods table as its upvalue),
 * plus __gc when given. */
void hlua_class_new(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction index,
		    lua_CFunction gc);
/* A new full userdata of <size> bytes (zeroed) with class <name>; leaves it on the stack. */
void *hlua_obj_new(lua_State *L, const char *name, size_t size);
/* The userdata at <idx> if it is of class <name>, else raises an error. */
void *hlua_obj_check(lua_State *L, int idx, const char *name);

/* Each module fills a new state (called by hlua_state_new, in this order). */
void hlua_core_setup(lua_State *L, int id); /* hlua_core.c: the "core" table */
void hlua_txn_setup(lua_State *L);	    /* hlua_txn.c: TXN, Fetches, Converters */
void hlua_http_setup(lua_State *L);	    /* hlua_http.c: HTTP */
void hlua_ext_setup(lua_State *L);	    /* hlua_ext.c: the other classes */
/* what hlua_ext_setup() calls, one per file of the same name */
void hlua_proxy_setup(lua_State *L);
void hlua_stktable_setup(lua_State *L);
void hlua_map_setup(lua_State *L);
void hlua_util_setup(lua_State *L);
void hlua_socket_setup(lua_State *L);
void hlua_httpclient_setup(lua_State *L);

/* ---- conversions ---- */
struct sample;
/* Pushes <smp> as a Lua value (string-safe <as_str>: always a string). */
void hlua_push_sample(lua_State *L, const struct sample *smp, bool as_str);
/* Converts the Lua value at <idx> into <smp> (strings are views into the Lua string:
 * valid while it stays on the stack). Returns 0, or -1 for a type with no sample form. */
int hlua_to_sample(lua_State *L, int idx, struct sample *smp);

/* Registers with the sample engine / action registry what a loaded file declared
 * (hlua_act.c); called after each load of the shared state or of state 1. */
int hlua_fetch_register(struct hlua_fn *fn, char *err, size_t errsz);
int hlua_conv_register(struct hlua_fn *fn, char *err, size_t errsz);

/* Tasks and init functions registered while loading (hlua_task.c). */
int hlua_task_add(lua_State *L, int fidx, int state_id);
int hlua_init_add(lua_State *L, int fidx, int state_id);
int hlua_init_run_all(void);
int hlua_tasks_thread_start(void);
void hlua_tasks_thread_stop(void);

/* The stream's Lua data (hlua_act.c): created on first use, freed with the stream. */
struct hlua_strm {
	struct hlua_ctx act;  /* the action being run (may be yielded) */
	struct hlua_txn *txn; /* its TXN object, closed when the call ends */
	struct stream *strm;
	struct tasklet wake;	   /* resumes the action at the next loop turn */
	int priv_ref[HLUA_STATES]; /* txn:set_priv per state, LUA_NOREF when none */
	uint8_t woken;		   /* its context asked to be resumed (act_wake) */
	uint8_t done;		   /* txn:done() was called */
	uint8_t reply;		   /* txn:done() or a reply filled the output */
	int loglevel;		   /* txn:set_loglevel: level + 1, 0 when unchanged */
};
struct hlua_strm *hlua_strm_get(struct stream *s);

/* The TXN object of <s> for a call from rule set <from> (ACT_F_*) of <px>; pushes it.
 * <can_reply>: txn:done()/txn:reply() may end the exchange. */
struct hlua_txn;
struct hlua_txn *hlua_txn_push(lua_State *L, struct stream *s, struct proxy *px, int from,
			       bool can_reply);
/* Invalidates a TXN object once its call is over (its stream may go away). */
void hlua_txn_close(struct hlua_txn *t);

struct hlua_txn {
	struct stream *s; /* NULL once the call is over */
	struct proxy *px;
	uint8_t from; /* ACT_F_* of the call (0: a fetch or converter) */
	uint8_t can_reply;
	uint8_t dir_res;	/* the response is the current message */
	int *done;		/* set by txn:done() (points into hlua_strm) */
	struct hlua_state *st;	/* its state, and its anchor there until hlua_txn_close(): */
	int ref;		/* the caller writes into it once the call is over, when another
				 * thread may have collected it (shared state) */
	struct hlua_ctx *owner; /* the call it was made for: only that call may use it (a
				 * global of the shared state is seen by other requests) */
};

/* The TXN of a sub-object or TXN <t> if the running call may use it, else raises an
 * error (its call is over, or it belongs to another call). */
struct hlua_txn *hlua_txn_live(lua_State *L, struct hlua_txn *t);

/* The sub-objects txn.f, sf, c, sc and http point at their TXN (kept alive by their
 * user value) and are cached in its user value table. */
struct hlua_sub {
	struct hlua_txn *t;
	uint8_t as_str; /* sf, sc: results as strings ("" when none) */
};

/* The TXN object at <idx> with a live stream, or raises an error. */
struct hlua_txn *hlua_txn_check(lua_State *L, int idx);

/* ---- sockets: cosockets and the HTTP client (hlua_sockio.c) ----
 * An outgoing connection of a script. It belongs to the thread whose poller holds it: only
 * that thread uses it (the Lua methods refuse others). Functions below run on that thread;
 * hsock_release() runs on any. I/O returns bytes, 0 at the end of the input, HSOCK_AGAIN
 * when it would block (try again after hsock_wait), or -1 on failure. */
#include <sys/socket.h>
#include <event/inbox.h>

#define HSOCK_BUFSZ 16384 /* input buffer of a socket */
#define HSOCK_AGAIN (-2)

enum hsock_state {
	HS_IDLE = 0,   /* created, not connected */
	HS_CONNECTING, /* connect() in progress */
	HS_TLS,	       /* connected, TLS handshake in progress */
	HS_READY,      /* usable */
	HS_CLOSED,     /* closed, or failed: nothing more */
};

struct ssl_ctx_st;
struct ssl_st;

struct hsock {
	struct fd_handler h;	 /* the socket in its thread's poller; fd -1 when none */
	struct tasklet tl;	 /* its release after the current batch of events */
	struct inbox_item it;	 /* its release handed to its thread by another one */
	struct list wait;	 /* in the thread's list while <waiter> is set */
	struct hlua_ctx *waiter; /* the context yielded on it: woken by its events */
	unsigned int tid;	 /* the thread that connected it */
	uint8_t state;		 /* enum hsock_state */
	uint8_t registered;	 /* it was in a poller once */
	uint8_t ev_out, ev_err;	 /* EPOLLOUT / EPOLLERR|HUP seen (connect completion) */
	uint8_t eof;		 /* nothing more to read: closed by the peer, or failed */
	struct ssl_st *ssl;	 /* TLS over the socket, or NULL */
	struct sockaddr_storage peer;
	socklen_t peer_len;
	char *ibuf;	      /* HSOCK_BUFSZ bytes once anything was read */
	uint32_t ihead, ilen; /* bytes received, not consumed: ibuf[ihead, ihead + ilen) */
};

/* A new idle socket created by a script of <st> (NULL on allocation failure). Once the
 * running context ends, <st> gets a full collection that closes the sockets nothing
 * references any more, as HAProxy does. */
struct hsock *hsock_new(struct hlua_state *st);
/* Starts connecting to <ss>: 0, or -1 (errno set; the socket stays idle). */
int hsock_connect(struct hsock *s, const struct sockaddr_storage *ss, socklen_t len);
/* 1 connected, 0 still connecting, -1 failed. */
int hsock_connect_poll(struct hsock *s);
/* Starts TLS over the connected socket, <name> as SNI and name to verify (see
 * ssl_client_new): 0 or -1. hsock_tls_poll(): 1 done, 0 again later, -1 failed. */
int hsock_tls_start(struct hsock *s, struct ssl_ctx_st *ctx, const char *name);
int hsock_tls_poll(struct hsock *s);
/* Reads what fits into the input buffer: bytes added, 0 at the end, HSOCK_AGAIN (nothing
 * now, or the buffer is full), -1. */
ssize_t hsock_recv(struct hsock *s);
/* Drops <n> bytes from the head of the input buffer. */
void hsock_consume(struct hsock *s, size_t n);
/* Sends from <p>: bytes sent (maybe fewer), HSOCK_AGAIN, -1. */
ssize_t hsock_send(struct hsock *s, const char *p, size_t len);
/* True when the running context may wait on <s>: a yieldable one, on its thread. */
bool hsock_usable(lua_State *L, const struct hsock *s);
/* Yields the running context until an event of <s> or <deadline> (0: none); <k> is
 * called on resume and must call hsock_unwait() first. Never returns. */
int hsock_wait(lua_State *L, struct hsock *s, uint64_t deadline, lua_KFunction k,
	       lua_KContext kctx);
void hsock_unwait(struct hsock *s);
/* Closes the connection (the memory stays). */
void hsock_close(struct hsock *s);
/* Closes and frees <s> (a Lua __gc: any thread). */
void hsock_release(struct hsock *s);
/* Called by hlua_ctx_end(): no socket waits for <ctx> any more, and the collection asked
 * by hsock_new() runs once no context runs on this thread. */
void hlua_sock_ctx_end(struct hlua_ctx *ctx);
/* From hlua_deinit(), once every loop has ended: sockets are freed where they are
 * collected. */
void hlua_sock_teardown(void);

/* ---- the HTTP client's settings (hlua_hc_cfg.c) ---- */
struct dns_resolvers;

struct hlua_hc_conf {
	int verify;		   /* httpclient.ssl.verify: -1 not given (required), 0, 1 */
	char *ca_file;		   /* httpclient.ssl.ca-file, NULL: the system's CAs */
	char *res_id;		   /* httpclient.resolvers.id, NULL: "default" if it exists */
	int prefer;		   /* httpclient.resolvers.prefer: AF_INET or AF_INET6 */
	bool res_disabled;	   /* httpclient.resolvers.disabled on */
	int timeout_connect;	   /* httpclient.timeout.connect, ms (5000) */
	struct ssl_ctx_st *ctx;	   /* built at the check; NULL: no HTTPS */
	struct dns_resolvers *res; /* found at the check; NULL: host names fail */
};
extern struct hlua_hc_conf hlua_hc_conf;

/* Check phase (from hlua_cfg_check): builds what the settings name. Returns the number of
 * errors (alerted). */
int hlua_httpclient_check(void);
void hlua_httpclient_deinit(void);
/* ---- replies (hlua_reply.c) ---- */

/* hlua_strm->reply after txn:done(reply): */
#define HLUA_REPLY_SENT 1   /* the reply is in the client's output buffer (ACT_RET_DONE) */
#define HLUA_REPLY_FAILED 2 /* it did not fit in a buffer: the exchange fails (500) */

/* txn:done()'s reply: renders the Reply (or plain table) at <idx> into the client's output
 * buffer of <t>'s stream. Returns HLUA_REPLY_SENT, HLUA_REPLY_FAILED, or 0 when there is
 * no reply to send (not a table, not an HTTP exchange, a status outside 100..599, a
 * response already started): the exchange then just ends. Raises a Lua error, before
 * writing anything, for a header name or value that would break the message. */
int hlua_reply_send(lua_State *L, struct hlua_txn *t, int idx);
/* ---- proxies, servers, listeners, stick tables and CLI commands (hlua_proxy.c,
 * hlua_server.c, hlua_stktable.c, hlua_admin.c, hlua_cli.c) ---- */
struct server;
struct stktable;
struct stat_line;
struct stat_desc;

/* Pushes a new Proxy, Server or StickTable object for <px>, <s> or <t>. */
void hlua_proxy_push(lua_State *L, struct proxy *px);
void hlua_server_push(lua_State *L, struct server *s);
void hlua_stktable_push(lua_State *L, struct stktable *t);
/* The Server class and the handles of hlua_admin_call (called by hlua_proxy_setup). */
void hlua_server_setup(lua_State *L);
void hlua_admin_setup(lua_State *L);
/* hlua_cli.c: the applet class of Lua CLI commands (called by hlua_proxy_setup). */
void hlua_cli_setup(lua_State *L);

/* Pushes a table of the non-empty fields of <l> named by <d>[0..n): numbers as
 * integers, strings as strings. */
void hlua_push_stat_fields(lua_State *L, const struct stat_line *l, const struct stat_desc *d,
			   int n);

/* Sets core.proxies, core.frontends and core.backends in every state, once the
 * configuration is checked (before the init functions run). Returns 0 or -1. */
int hlua_proxy_publish_all(void);

/* What hlua_admin_call() returns to the script: nothing, nil on success or the
 * command's message, or the message always (nil when empty). */
enum hlua_adm_ret {
	HLUA_ADM_NONE = 0,
	HLUA_ADM_ERR,
	HLUA_ADM_MSG,
};

/* Runs the runtime API command <argv>[0..argc) with the admin level, as the CLI runs it
 * (on thread 0, waiting for what it posted to other threads), for a Lua C function that
 * returns what this returns. A yieldable context waits for the end of the command; any
 * other gets nothing back when the command could not end at once (it still runs). Its
 * message has "stats socket command" replaced with "Lua script" and no final LF. Raises
 * an error before the threads run (init functions). */
int hlua_admin_call(lua_State *L, enum hlua_adm_ret ret, int argc, const char *const *argv);
/* ---- configuration: tune.lua.maxmem (hlua.c) ---- */
/* Counts what the existing states hold into the total that tune.lua.maxmem limits. */
void hlua_mem_recount(void);

#endif
