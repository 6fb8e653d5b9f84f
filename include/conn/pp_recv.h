/* Receiving the PROXY header on a front connection (conn/pp_recv.c). Loop thread only.
 */
#ifndef CONN_PP_RECV_H
#define CONN_PP_RECV_H

#include <conn/connection-t.h>

/* Reads the PROXY header that must open <c>, without reading a byte past it (what follows
 * may be TLS). Returns 1 once it is in: its addresses are now the connection's (but for
 * LOCAL/UNKNOWN) and c->pp keeps its version and TLVs; 0 while more is needed (or the peer
 * closed: the caller looks at c->flags); -1 when it is invalid, with *why set to the
 * message HAProxy logs. */
int pp_recv(struct conn *c, const char **why);

#endif
