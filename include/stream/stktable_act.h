/* Tracking (stktable_act.c): the track-sc*, sc-inc-gpc*, sc-set-gpt* actions, the
 * counters a stream updates on the entries it or its session tracks (requests, errors,
 * failures, bytes, concurrent trackings), and the "stick" rules that store and find the
 * server of a key. Loop thread of the stream or connection. The stream layer calls the
 * counting functions only when stk_tracking() says something is tracked: a configuration
 * without stick tables pays one test of two pointers per request.
 */
#ifndef STREAM_STKTABLE_ACT_H
#define STREAM_STKTABLE_ACT_H

#include <stdbool.h>
#include <stdint.h>
#include <conn/connection-t.h>
#include <stream/stktable-t.h>
#include <stream/stream-t.h>

/* Set at parse time by the first track-sc or stick rule: without any, the stream layer's
 * checks cost one load and a branch. */
extern bool stk_used;

/* True when <s> or its session tracks some entry or keeps a stick store. */
static inline bool stk_tracking(const struct stream *s)
{
	return __builtin_expect(stk_used, 0) && (s->stk || s->front->stk);
}

/* The slot <n> of <s>: the stream's own when it tracks one there, else its session's;
 * NULL when neither does. */
struct stk_ctr *stk_ctr_get(const struct stream *s, int n);

/* Counts one event of <cnt_dt> (STK_DT_HTTP_REQ_CNT, _ERR_CNT or _FAIL_CNT: the rate that
 * follows it in the enum too) on every slot of <s>. */
void stk_count_http(struct stream *s, int cnt_dt);
/* Adds the exchange's bytes from and to the client. */
void stk_count_bytes(struct stream *s, uint64_t in, uint64_t out);
/* The end of a stream: its trackings end (conn_cur), its pending stores are dropped. */
void stk_stream_release(struct stream *s);

/* Sessions (front connections): a session starts (sess_cnt, sess_rate of its slots), a
 * connection without a request is counted as a failed request, a session ends. */
void stk_sess_start(struct conn *c);
void stk_sess_probe(struct conn *c);
void stk_sess_release(struct conn *c);

/* "stick match|on|store-request" before the server is chosen; "stick store-response" and
 * the stores once a server answered. */
void stk_process_sticking_rules(struct stream *s);
void stk_process_store_rules(struct stream *s);

#endif
