/* Pure HTTP/1 parser: header block and chunked framing over (ptr, len). No I/O, no
 * allocation, no globals: safe to call from any thread and to fuzz.
 */
#ifndef HTTP_H1_H
#define HTTP_H1_H

#include <stddef.h>
#include <sys/types.h>
#include <http/h1-t.h>

/* Parses the start line and headers of a request (<resp> false) or response (<resp> true)
 * held in buf[0..len). <msg->hdr> and <msg->max_hdr> must be set by the caller; the views
 * written into <msg> point into <buf>. Returns the header block length (> 0) once the empty
 * line is seen, H1_INCOMPLETE if more bytes are needed, or H1_INVALID with msg->err_code
 * (400/413/414/422/431/501, or 502 for any response error) and msg->err_pos set. When
 * <len> reaches lim->max_hdr_block without a complete block, the result is H1_INVALID with
 * 414 (start line unfinished) or 431 (headers unfinished) for a request, 502 for a response.
 * Smuggling rules applied: TE+CL marks CL headers skip and sets H1_MF_FORCE_CLOSE (so does TE on
 * an HTTP/1.0 response; on a 1.0 request it is 400);
 * differing CL values 400; TE whose last coding is not chunked 400, unknown codings 422;
 * an empty/duplicated chunked or a coding after chunked 400; HTTP/1.0 GET/HEAD/DELETE with a
 * body 413 unless lim->accept_payload_any_method; invalid name/value bytes 400. Host: a
 * repeated identical one is marked skip, a different one 400; an absolute-form or CONNECT
 * target must name the Host's authority, else 400. A request TE is narrowed to "trailers"
 * or marked skip; a 204's CL is marked skip; a WebSocket upgrade without
 * Sec-WebSocket-Key is 400, a 101 to WebSocket without Sec-WebSocket-Accept 502.
 */
int h1_parse_headers(const char *buf, size_t len, struct h1_msg *msg, bool resp,
		     const struct h1_limits *lim);

/* Scans chunked body bytes buf[0..len) that the caller forwards verbatim. Returns how many
 * bytes were consumed (always all of them unless the message ends inside the buffer or
 * the framing is invalid), sets *done to 1 once the last chunk, its trailers and the final
 * CRLF have been consumed, and returns -1 on invalid framing (size overflow, bad hex, bare
 * LF or missing CRLF after data, a chunk extension outside RFC 9112's grammar, size line or
 * trailers over <max_line>).
 */
ssize_t h1_chunk_scan(struct h1_chunk *c, const char *buf, size_t len, size_t max_line,
		      int *done);

/* Bytes at the end of what h1_chunk_scan() consumed that belong to a size line not yet
 * complete (0 elsewhere). A caller that forwards as it scans holds them back, so that no
 * byte of a chunk whose size line turns out invalid leaves.
 */
size_t h1_chunk_pending(const struct h1_chunk *c);

/* request targets (http/h1_uri.c) */

/* Case-insensitive equality of two views (ASCII letters fold, no other byte does). */
bool h1_ieq(struct ist a, struct ist b);

/* Checks a request target that is not in origin-form: "*" is fine; CONNECT's authority
 * (<connect>) or the authority of an absolute-form "scheme://[userinfo@]authority[/?#...]"
 * must equal <host> (the Host value, NULL when absent) case-insensitively, a default port
 * (":80" for http, ":443" for https and CONNECT) counting as none on either side. Returns 0,
 * or -1 on a mismatch or a target in no valid form.
 */
int h1_target_check(struct ist uri, bool connect, const struct ist *host);

/* True for the idempotent methods of RFC 9110 section 9.2.2 (case-sensitive). */
bool h1_meth_idempotent(struct ist m);

/* The path and query of a request target: the target itself in origin-form, what follows
 * the authority in absolute-form ("http://h/p?q" gives "/p?q", "http://h" gives ""), empty
 * otherwise. A view into <uri>.
 */
struct ist h1_uri_pathq(struct ist uri);

/* True when a response with this status to this request may carry no body: 1xx, 204,
 * 304, or any answer to HEAD.
 */
bool h1_resp_bodyless(int status, bool head_req);

#endif
