/* L7 retries (retry-on) of requests with a body, as HAProxy 2.6 allows them: only when the
 * whole request is in the front buffer when it is sent. Loop thread. See
 * stream/l7_body.c.
 */
#ifndef STREAM_L7_BODY_H
#define STREAM_L7_BODY_H

#include <stdbool.h>

struct stream;

/* True when the request of <s> may be kept for an L7 retry: no body, or a body that is
 * wholly in the front buffer after the headers (its length then goes to s->l7_body). */
bool stream_l7_body_ready(struct stream *s);

/* Called once the headers are serialized into the back buffer of a request kept for an L7
 * retry: copies the kept body after them and marks the body forwarded. Returns true, or
 * false when it does not fit: the request is then sent the usual way, without retry. */
bool stream_l7_body_send(struct stream *s);

#endif
