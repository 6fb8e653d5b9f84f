/* Streams: the state machine of one request/response exchange (stream.c), the HTTP
 * analysis of requests and responses (http_ana.c) and the rule actions (http_act.c).
 * Loop thread only. Step functions return 1 when they made progress (call again), 0 when
 * waiting for an event, -1 when the stream is gone (do not touch it any more).
 */
#ifndef STREAM_STREAM_H
#define STREAM_STREAM_H

#include <stdbool.h>
#include <stream/stream-t.h>
#include <stream/action-t.h>

struct buf;
struct http_reply;
struct smp_ctx;

/* stream.c */
void stream_init_runtime(void);
int stream_connect_server(struct stream *s);
/* Sends the error page for <status> (errorfile or canned) and ends the exchange; closes
 * the front connection afterwards when <close> or for 400/408. */
int stream_reply_error(struct stream *s, int status, bool close);
/* The same for errors HAProxy's H1 mux sends itself (parsing errors, request timeout):
 * raw page bytes, and the front connection closes. */
int stream_reply_mux_error(struct stream *s, int status);
/* Sends a response already written into the front output buffer. */
int stream_reply_local(struct stream *s);
/* Local replies in three steps: stream_reply_start() prepares the front output buffer
 * (103 Early Hints already written stay ahead) and returns where the reply starts (-1
 * without memory); the reply is written there (stream_put_error_page() writes the message
 * of a status: 0, 1 when it is empty, -1 when it does not fit); stream_reply_finish()
 * runs http-after-response on it (unless <raw>: the mux's own errors) and sends it.
 * stream_reply_finish() returns like a step function. */
int stream_reply_start(struct stream *s);
int stream_put_error_page(struct stream *s, int status, bool raw);
int stream_reply_finish(struct stream *s, int start, int status, bool raw);
/* An action answered itself (ACT_RET_DONE): its reply is complete at s->reply_off and
 * s->status is its status. Sends it like stream_reply_finish(). */
int stream_reply_done(struct stream *s);
/* The server side failed before a response was forwarded: 502/503/504 (502 and 504
 * count as response errors). */
int stream_server_error(struct stream *s, int status);
/* A header rewrite found no room, which fails the exchange (500): counted as a failed
 * rewrite and an internal error of the frontend, backend and server it has. */
void stream_count_rewrite_failed(struct stream *s);
/* http-response deny: answers <status>, counted as a denied response. */
int stream_rsp_denied(struct stream *s, int status);
/* Ends the exchange at once: both connections are closed. */
int stream_abort(struct stream *s);
/* Mode tcp: both directions are over; the stream ends, both connections close. */
int stream_end_tcp(struct stream *s);
/* http_ana.c: the backend of <s> by its use_backend rules and default_backend, evaluated
 * as rules of <from> (ACT_F_*); NULL when there is none. */
struct proxy *ana_choose_backend(struct stream *s, int from);

/* Runs the stream's processing now, from a tasklet of one of its parts (a service that
 * produces its body over several loop turns). The stream may be freed on return. */
void stream_run(struct stream *s);
/* The stream's server was shut down under it ("on-marked-down shutdown-sessions"): 502 if
 * the response has not started, else the client connection is cut, as 2.6. Called by the
 * owner thread from outside the stream's processing (stream/srv_shut.c). */
void stream_server_killed(struct stream *s);
/* "shutdown session": ends <s> (logged with 'K'): as 2.6, a request waiting for a server
 * or its response gets a 502 (the cut once the response started); otherwise both
 * connections close at once. Owner thread, outside the stream's processing
 * (stream/stream_cli.c). */
void stream_shutdown(struct stream *s);
/* The same when the client closed or failed: counted as a client abort once a backend
 * has the exchange, or as an invalid request (400) before its headers were complete. */
int stream_cli_abort(struct stream *s);
int stream_req_truncated(struct stream *s);
/* The request headers kept for a resend are consumed (the response started). */
void stream_req_consume(struct stream *s);
/* True when a reused connection failed before any response byte and the request can be
 * sent again; stream_resend() does it on a new connection. */
bool stream_can_resend(const struct stream *s);
int stream_resend(struct stream *s);

/* retry-on (L7 retries): true when the kept request may be sent again for <cause> (a
 * PR_RE_* bit) and retries are left; stream_l7_retry() then sends it again (a new
 * connection, another server on a redispatch) and returns the step's result.
 * stream_l7_status_cause() maps a response status to its PR_RE_* bit, 0 if none. */
bool stream_l7_retry_on(const struct stream *s, uint32_t cause);
/* be_route.c: the 302 of a "redir" server (a step result); what the backend's rt_flags
 * ask of a request about to be sent: SF_L7_RETRY, the "http-send-name-header" (0 or -1). */
int stream_srv_redirect(struct stream *s);
int stream_route_request(struct stream *s);
int stream_l7_retry(struct stream *s);
uint32_t stream_l7_status_cause(int status);

/* http_ana.c */
int ana_wait_request(struct stream *s);
/* Runs (or resumes, after a yielded rule) the request rule stages. */
int ana_req_rules(struct stream *s);
int ana_wait_body(struct stream *s);
int ana_wait_response(struct stream *s);
/* SS_REQ_INSPECT: runs the tcp-request content rules again (with <expired> when the
 * inspect-delay is over) and goes on with the request when they are done. */
int ana_inspect(struct stream *s, bool expired);

/* http_ana.c: called when the http-request rules of a proxy with PR_RS_CACHE are over
 * (cache/cache_act.c): returns 1 when a cache hit of those rules answers the request
 * (*ret: the step's result), 0 to go on. */
extern int (*ana_cache_hook)(struct stream *s, struct proxy *px, int *ret);

/* http_ana.c: the reply of a rule (deny/return/auth...), counted per <kind>. */
int stream_reply_http(struct stream *s, const struct http_reply *r, const struct smp_ctx *ctx);

/* http_after.c: http-after-response on a reply the proxy made, held in the front output
 * buffer from <start>: parsed back into s->rsp, the rules run, serialized again. When they
 * fail the reply becomes the 500 page. 0, or -1 when nothing can be sent. */
int http_after_local(struct stream *s, uint32_t start);
/* Parses the local reply at <start> into s->rsp (0 or -1), and writes s->rsp with the
 * reply's body back in its place (0 or -1). */
int http_local_parse(struct stream *s, uint32_t start);
int http_local_rebuild(struct stream *s, uint32_t start);

/* http_act_misc.c: a rewrite failed while strict-mode is off (counted, not fatal). */
void stream_count_rewrite_soft(struct stream *s);

/* http_act.c */
/* Appends a header to <m> (table of capacity s->hdr_cap); returns 0 or -1. */
int http_hdr_add(struct stream *s, struct h1_msg *m, struct ist name, struct ist value);
/* Marks every header called <name> skip. */
void http_hdr_del(struct h1_msg *m, struct ist name);
/* The message a rule of <from> works on. */
struct h1_msg *act_msg(struct stream *s, int from);
/* False when <v> holds CR, LF or NUL (it cannot go into a header or a start line). */
bool http_value_is_safe(struct ist v);
/* The free space of the stream's rewrite buffer (allocated on first use), then commit
 * what was written there. NULL when no buffer can be had. */
char *stream_rw_tail(struct stream *s, size_t *room);
void stream_rw_commit(struct stream *s, size_t len);
/* Renders <lf> into the rewrite buffer (a constant format is returned as is); 0 or -1. */
struct lf_expr;
int stream_rw_render(struct stream *s, const struct lf_expr *lf, const struct smp_ctx *ctx,
		     struct ist *out);
/* Header-name checks shared by the header actions; 0 or -1 with a message. */
int act_check_hdr_name(const char *name, bool del, char *err, size_t errsz);
int act_set_name(struct ist *dst, const char *name, char *err, size_t errsz);

/* Frees s->hlua (set by lua/ when it first attaches data to a stream: stream/ cannot
 * call the layer above it). */
extern void (*stream_hlua_free)(struct stream *s);

/* Records who ended the exchange (<who>: C, S, P, L, R, I, D, c, s...) with the phase the
 * stream is in, unless an earlier cause was recorded (the log's termination state). */
void stream_set_term(struct stream *s, char who);
/* The same with an explicit phase (T: tarpit). */
static inline void stream_set_term2(struct stream *s, char who, char phase)
{
	if (!s->term[0]) {
		s->term[0] = who;
		s->term[1] = phase;
	}
}

/* Called for each stream whose frontend logs streams (fe->strm_log set at check time by
 * log/log_strm.c) at the events below: above the stream layer, hence a pointer. */
#define STRM_LOG_EV_REQ 0 /* request headers parsed: the request line is kept */
#define STRM_LOG_EV_RSP 1 /* response headers received (option logasap) */
#define STRM_LOG_EV_END 2 /* end of the stream */
extern void (*stream_log_hook)(struct stream *s, int ev);
/* Calls it, out of the request path's way (cold: a config without logging never does). */
__attribute__((cold, noinline)) void stream_log_event(struct stream *s, int ev);

/* http_act_cfg.c: check phase of every rule of every proxy; returns the error count. */
int rules_check_all(void);

#endif
