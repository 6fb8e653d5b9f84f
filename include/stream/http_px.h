/* The unique id of a request and the monitor-uri status (http_px_cfg.c). Loop thread. */
#ifndef STREAM_HTTP_PX_H
#define STREAM_HTTP_PX_H

#include <base/ist.h>

struct stream;

/* The unique id of <s>: rendered from its frontend's unique-id-format at the first call
 * (into the stream's rewrite buffer), the same view afterwards. 0, or -1 when the
 * frontend has no format or the rendering failed. */
int http_unique_id(struct stream *s, struct ist *out);
/* Adds unique-id-header to the request when the frontend sets one; 0 or -1 (no room). */
int http_unique_id_header(struct stream *s);
/* The status of a monitor-uri request: 503 when a "monitor fail" condition holds. */
int http_monitor_status(struct stream *s);

#endif
