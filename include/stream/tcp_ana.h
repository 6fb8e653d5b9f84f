/* Mode tcp streams (stream/tcp_ana.c): content rules and backend choice, then bytes both
 * ways with half-closes and the tcp-response content rules. Loop thread only.
 */
#ifndef STREAM_TCP_ANA_H
#define STREAM_TCP_ANA_H

#include <stdbool.h>
#include <conn/connection-t.h>
#include <stream/stream-t.h>

/* A new stream of a mode tcp frontend: its state is set, it runs with stream_process. */
int tcp_stream_begin(struct stream *s);
/* SS_TCP_INSPECT: the content rules (<expired>: the inspect-delay is over), the backend,
 * the server. Returns the step result (> 0 go on, 0 wait, < 0 the stream is gone). */
int tcp_inspect(struct stream *s, bool expired);
/* The server connection is usable: the stream forwards from now on. */
int tcp_established(struct stream *s);
/* SS_TCP_FWD: bytes both ways. */
int tcp_forward(struct stream *s);
/* The deadlines of SS_TCP_FWD. */
void tcp_set_timers(struct stream *s);
/* A deadline of a mode tcp stream in SS_TCP_INSPECT or SS_TCP_FWD expired: on <c>, or the
 * stream's own timer (inspect-delay) when NULL. Returns the step result. */
int tcp_timeout(struct stream *s, struct conn *c);

/* Config check (tcp_mode_cfg.c): warns about what a proxy in mode tcp ignores, as HAProxy
 * does, and turns off what the stream would otherwise act on. */
struct proxy;
void tcp_mode_check(struct proxy *px);

#endif
