/* De-chunking for readers that take the data of a chunked body (services reading the
 * request body) rather than forward the body verbatim. The framing is validated by the
 * chunked scanner (http/h1.h), whose state the reader drives, so that both accept exactly
 * the same messages and a forwarder may take the same state over where a reader stopped.
 * Pure: no I/O, no allocation, no globals.
 */
#ifndef HTTP_H1_DECHUNK_H
#define HTTP_H1_DECHUNK_H

#include <stddef.h>
#include <sys/types.h>
#include <http/h1-t.h>

/* Finds the next run of chunk data in buf[0..len): consumes through <c> the framing that
 * precedes it (size line and extensions, the CRLF after the previous data, the last chunk
 * and its trailers). Returns the number of framing bytes consumed (the data starts there),
 * with *data set to how many data bytes follow in <buf> (0 when the input ends before
 * any) and *done set once the whole message has been consumed; -1 on invalid framing
 * (the rules and limits of h1_chunk_scan, <max_line> included). The caller takes data
 * bytes with h1_dechunk_take() before asking for the next run.
 */
ssize_t h1_dechunk_next(struct h1_chunk *c, const char *buf, size_t len, size_t max_line,
			size_t *data, int *done);

/* The caller took the <n> data bytes at <buf>, at most the *data of the last call. */
void h1_dechunk_take(struct h1_chunk *c, const char *buf, size_t n);

#endif
