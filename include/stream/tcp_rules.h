/* TCP rules (tcp_rules.c, tcp_rules_cfg.c): "tcp-request connection" and "tcp-request
 * session" rules run on a front connection when it is accepted, before the H1 mux reads
 * anything; "tcp-request content" rules run on each request once its headers are in
 * (frontend's), then once the backend is chosen (backend's), waiting up to the
 * inspect-delay while a condition cannot tell yet; "tcp-response content" rules run once
 * the response headers are in, before the http-response rules. Loop thread.
 */
#ifndef STREAM_TCP_RULES_H
#define STREAM_TCP_RULES_H

#include <stdbool.h>
#include <proxy/proxy-t.h>
#include <stream/stream-t.h>

/* Results of the content rule runners. */
#define TCP_RULES_GONE (-1) /* closed, or given to a TCP service: *ret is the step result */
#define TCP_RULES_WAIT 0    /* the rules wait for more data (s->tcp_next: where) */
#define TCP_RULES_CONT 1    /* go on with the exchange */

/* True while content rules run on data that may still grow (not final): an action whose
 * key may change then waits instead of deciding. */
bool tcp_rules_partial(void);

/* True while tcp-request content rules run with an inspect-delay that is not over (the
 * request may be complete): an action may yield there for its own event (do-resolve). */
bool tcp_rules_can_wait(void);

/* True for the stand-in stream of connection and session rules: no stream exists yet, so
 * what belongs to one (captures) is not there, as in HAProxy. */
bool tcp_rules_standin(const struct stream *s);

/* Set at parse time when some proxy has content rules of that direction: without any, the
 * request path pays one load and a branch. */
extern bool tcp_req_content_used;
extern bool tcp_res_content_used;

/* Config check: HAProxy's warning for content rules whose conditions read raw bytes
 * (req.len, req.ssl_sni...) on a proxy in mode http, where they see HTTP messages instead. */
void tcp_rules_warn_l6_http(const struct proxy *px);

/* True when <px> (or its named defaults section) has rules of that set. */
bool tcp_px_has_req_content(const struct proxy *px);
bool tcp_px_has_res_content(const struct proxy *px);

static inline bool tcp_has_req_content(const struct proxy *px)
{
	return __builtin_expect(tcp_req_content_used, 0) && tcp_px_has_req_content(px);
}

static inline bool tcp_has_res_content(const struct proxy *px)
{
	return __builtin_expect(tcp_res_content_used, 0) && tcp_px_has_res_content(px);
}

/* Runs the tcp-request content rules of <px> on <s> (again from s->tcp_next after a wait);
 * <final> when no more data will make a difference. Returns a TCP_RULES_* code; on
 * TCP_RULES_GONE *ret holds the step result (the stream is gone). */
int tcp_req_content(struct stream *s, struct proxy *px, bool final, int *ret);
/* The same for the tcp-response content rules of <px>, always final. */
int tcp_res_content(struct stream *s, struct proxy *px, int *ret);
/* Mode tcp: the tcp-response content rules of s->be on the server's bytes, again from
 * s->tcp_next after a wait; <final> when no more data will make a difference. */
int tcp_res_content_step(struct stream *s, bool final, int *ret);

/* tcp_rules_cfg.c: a connection or session rule was configured somewhere: front
 * connections now run the accept hook (conn_sess_ops). */
void tcp_rules_enable_sess(void);

#endif
