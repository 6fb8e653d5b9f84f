/* The PROXY header sent to servers (stream/pp_send.c). Loop thread only.
 */
#ifndef STREAM_PP_SEND_H
#define STREAM_PP_SEND_H

#include <stdint.h>
#include <conn/connection-t.h>
#include <stream/stream-t.h>

/* Builds the header that s->srv (SRV_F_SEND_PROXY) is sent for <s> into thread storage;
 * returns the reuse key of a connection opened with it (> 1: an idle connection is
 * reused only for the same header), or 0 when it cannot be built. */
uint64_t stream_pp_prepare(struct stream *s);
/* Queues the header prepared last at the head of the new connection <b>'s output (before
 * the request, before the TLS handshake: h1_back_check_connect sends it raw). 0 or -1. */
int stream_pp_queue(struct conn *b);

#endif
