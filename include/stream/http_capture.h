/* Captures (http_capture.c): the capture keywords and action, what a stream captured,
 * and the capture.req.* / capture.res.* fetches. Loop thread at run time.
 */
#ifndef STREAM_HTTP_CAPTURE_H
#define STREAM_HTTP_CAPTURE_H

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
/* Computes where each slot of <px> lives in a stream's capture area. Check time. */
void http_capture_layout(struct proxy *px);

#endif
