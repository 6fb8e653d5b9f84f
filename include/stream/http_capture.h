/* Captures (http_capture.c): the capture keywords and action, what a stream captured,
 * and the capture.req.* / capture.res.* fetches. Loop thread at run time.
 */
#ifndef STREAM_HTTP_CAPTURE_H
#define STREAM_HTTP_CAPTURE_H

#include <stdbool.h>
#include <base/ist.h>

struct proxy;
struct stream;

/* Takes the request (header, cookie, request line) captures of <s>'s frontend, once its
 * request headers are parsed and before any rule changes them. */
/* True when some expression reads capture.req.method/uri/ver (every stream keeps them). */
bool http_capture_reqline_used(void);
void http_capture_request(struct stream *s);
/* The same for the response of the server. */
void http_capture_response(struct stream *s);
/* Frees what <s> captured (end of the stream). */
void http_capture_free(struct stream *s);
/* For the log line (%hr %hs %CC %CS): the slots <s>'s frontend declares on one side
 * (<res>: the response's), what slot <idx> holds (empty when nothing was taken), and the
 * captured cookie ("name=value", empty when none). */
unsigned http_capture_nb(const struct stream *s, bool res);
struct ist http_capture_get(const struct stream *s, bool res, unsigned idx);
struct ist http_capture_cookie(const struct stream *s, bool res);
/* Stores <v> (cut to the slot's length) in slot <idx> of <s>'s frontend, on the request
 * or the response side; false when there is no such slot or no memory (capture-req/res). */
bool http_capture_store(struct stream *s, bool res, long long idx, struct ist v);
/* Computes where each slot of <px> lives in a stream's capture area. Check time. */
void http_capture_layout(struct proxy *px);

#endif
