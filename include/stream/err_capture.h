/* Captures of invalid HTTP messages ("show errors"): the last invalid request of each
 * frontend and the last invalid response of each backend, with the bytes around the
 * error. Taken only on a parser error (nothing on valid messages); read by the CLI.
 */
#ifndef STREAM_ERR_CAPTURE_H
#define STREAM_ERR_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stream/stream-t.h>

#define ERR_DIR_REQ 0 /* invalid request, kept by the frontend */
#define ERR_DIR_RSP 1 /* invalid response, kept by the backend */

/* The request of <s> failed to parse (s->req.err_pos) in the front input buffer; the
 * response of <s> in the back input buffer. Owner thread of <s>; a capture that cannot be
 * allocated is dropped (still counted as an event). */
void err_capture_req(struct stream *s);
void err_capture_rsp(struct stream *s);

/* HAProxy's parser state names ("MSG_RQMETH") and numbers for an error at <pos> in the
 * message buf[0..len): pure, from the position in the start line or the header line.
 * Returns the state number and sets *name. */
int err_h1_state(const char *buf, size_t len, uint32_t pos, bool resp, const char **name);

/* Writes one line of HAProxy's escaped dump of buf[0..len) starting at *pos into
 * out[0..outsz) ("  00000  GET / HTTP/1.1\r\n" with its LF; '+' after the offset when the
 * line continues a cut one, <line_start> being where the current text line began).
 * Advances *pos and *line_start. Returns the length written (outsz must be >= 96). */
size_t err_dump_line(char *out, size_t outsz, const char *buf, size_t len, size_t *pos,
		     size_t *line_start);

/* The number HAProxy gives <px> when a stats socket exists (config order from 2). */
int err_px_iid(const struct proxy *px);

#endif
