/* Splicing for mode tcp ("option splice-request|splice-response|splice-auto"): bytes move
 * from one socket to the other through a kernel pipe without being copied into the
 * process (stream/splice.c). Loop thread only.
 */
#ifndef STREAM_SPLICE_H
#define STREAM_SPLICE_H

#include <stdbool.h>
#include <conn/connection-t.h>
#include <stream/stream-t.h>

/* Forwards from <src> to <dst> through the pipe *<pp> (taken from the thread's pipes on
 * first use, given back whenever it is empty), like h1_xfer(): 1 if bytes moved, 0 if
 * waiting, XFER_ERR_SRC or XFER_ERR_DST; x->done once <src> closed and the pipe is empty.
 * -3 when no pipe could be had: the caller forwards through its buffer. The caller
 * ensures src->ibuf and dst->obuf are empty and neither side uses TLS. */
int splice_xfer(struct conn *src, struct conn *dst, struct splice_pipe **pp, struct h1_xfer *x);
/* Bytes waiting in pipe <p> (NULL: none). */
uint32_t splice_pending(const struct splice_pipe *p);
/* Gives back the pipe of a stream that ends (its bytes, if any, are lost with it). */
void splice_release(struct splice_pipe **pp);
/* Pipes in use, process-wide ("show info" PipesUsed), and free in the threads' caches. */
int splice_pipes_used(void);
int splice_pipes_free(void);

#endif
