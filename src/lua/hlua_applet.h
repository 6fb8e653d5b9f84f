/* What the files of the Lua services share (hlua_svc.c, hlua_applet_http.c,
 * hlua_applet_tcp.c): a running service (struct hlua_applet) with its coroutine and what
 * it waits for, the Lua objects (AppletHTTP, AppletTCP) that reach it, and the reading of
 * its input (the request body, or the client's bytes) common to both classes.
 *
 * A service's coroutine runs when the stream asks the service for its head or its body
 * (stream/service.h: start, dump), and only when what it waits for is there: output room
 * (send), input (receive, getline), or a wake-up (core.sleep's date, core.yield, a forced
 * yield, a cosocket). Its Lua object is anchored for the service's life and made
 * detectably dead when the service is released (the stream may go first).
 */
#ifndef LUA_HLUA_APPLET_H
#define LUA_HLUA_APPLET_H

#include <base/buf-t.h>
#include <event/loop-t.h>

#include "hlua_int.h"

struct svc_ctx;
struct http_service;

#define CLASS_APPLET_HTTP "AppletHTTP"
#define CLASS_APPLET_TCP "AppletTCP"

/* hlua_applet.wait: why the coroutine last yielded */
enum hlua_applet_wait {
	APW_RUN = 0, /* runnable (first run, forced yield, woken) */
	APW_OTHER,   /* a wait of another module (sleep, cosocket): a wake-up or the date */
	APW_ROOM,    /* send: room in the output */
	APW_INPUT,   /* receive, getline: input, or its end */
};

struct hlua_applet {
	struct hlua_ctx ctx;
	struct svc_ctx *svc;
	struct hlua_fn *fn;
	struct hlua_txn *txn;	   /* the hidden TXN behind f, sf, c, sc, the variables and priv */
	struct hlua_applet **back; /* the Lua object's pointer to this, cleared at release */
	int obj_ref;		   /* registry reference anchoring the Lua object */
	struct timer tmr;	   /* the date an APW_OTHER wait ends */
	uint8_t tcp;		   /* an AppletTCP (else AppletHTTP) */
	uint8_t txn_from;	   /* the rule set (ACT_F_*) of the hidden TXN */
	uint8_t wait;		   /* enum hlua_applet_wait */
	uint8_t failed;		   /* the first run failed: start answers 500 on its next call */
	uint8_t in_failed;	   /* the input failed under the script (the client left, or sent an
				    * invalid body): its error is not the script's */
	/* AppletHTTP */
	uint8_t http10;	    /* the request is HTTP/1.0: so is the response */
	uint8_t head_ready; /* start_response was called */
	uint8_t clen_set;   /* a content-length header was added: <clen_left> bytes to send */
	uint8_t cut;	    /* the body does not match its content-length: the connection
			     * closes after it */
	uint8_t discard;    /* a status without body: what send gives is dropped */
	int status;
	uint64_t clen_left;
	struct buf head;  /* the header lines added ("name: value\r\n"), NULL until the first */
	struct buf *out;  /* while the stream's dump runs it: where send writes */
	char reason[128]; /* set_status' reason, "" for the status' own */
};

/* The service callbacks of each kind (hlua_applet_http.c, hlua_applet_tcp.c). */
int hlua_applet_http_start(struct svc_ctx *c, struct buf *hdrs);
int hlua_applet_http_dump(struct svc_ctx *c, struct buf *out);
int hlua_applet_tcp_start(struct svc_ctx *c, struct buf *hdrs);
int hlua_applet_tcp_dump(struct svc_ctx *c, struct buf *out);

/* hlua_svc.c */

/* A new running service for <c> (its priv), its coroutine started on the function of
 * <c>'s Lua service with the object that <push> pushes. NULL without memory; with
 * <failed> set when the coroutine could not start (the error is reported). */
struct hlua_applet *hlua_applet_new(struct svc_ctx *c, bool tcp, hlua_push_fn push);
/* Runs the coroutine if what it waits for is there. Returns an enum hlua_ret, or -1
 * when it is not runnable. */
int hlua_applet_run(struct hlua_applet *a);
/* Frees a running service (the service's release). */
void hlua_applet_release(struct svc_ctx *c);

/* Pushes a new object of class <cls> for <a>, with room for <nfields> fields of its kind
 * (user values 3.., in the order of the class' field names, set by the caller) and, when
 * first used, a hidden TXN of rule set <from> behind f, sf, c, sc, the variables and priv.
 * Protected mode only (it allocates). */
void hlua_applet_push_obj(lua_State *L, struct hlua_applet *a, const char *cls, int from,
			  int nfields);
/* The running service of the applet object at <idx>, or raises an error. */
struct hlua_applet *hlua_applet_check(lua_State *L, int idx, const char *cls);

/* The methods common to both classes (variables, priv, receive, getline). */
extern const luaL_Reg hlua_applet_methods[];
/* Creates class <cls> (once per state) with the common methods, <methods> and the fields
 * named in the NULL-terminated <fields> (read from the object's user values 3..). */
void hlua_applet_class(lua_State *L, const char *cls, const luaL_Reg *methods,
		       const char *const *fields);

/* The continuation of send: the stack holds the applet, the data and the number of its
 * bytes to send; <k> is how many went already. */
int hlua_applet_send_k(lua_State *L, int status, lua_KContext k);

/* Input of the service: 1 with bytes at *p (*len > 0), 0 when none yet, 2 at its end, -1
 * when it failed (invalid or cut request body). */
int hlua_applet_in_peek(struct hlua_applet *a, const char **p, size_t *len);
void hlua_applet_in_take(struct hlua_applet *a, size_t n);

#endif
