/* "option transparent" and its old spelling "transparent" (backend/be_transp.c): their
 * parsing, the check that builds the pseudo-server and the run-time destination of its
 * connections.
 */
#ifndef BACKEND_BE_TRANSP_H
#define BACKEND_BE_TRANSP_H

#include <stdbool.h>
#include <sys/socket.h>

struct cfg_ctx;
struct conn;
struct proxy;

/* "[no] option transparent" with args[a] "transparent" (the proxy_option.c table; the
 * backend capability is checked there). Returns 0 or -1 after an alert. */
int be_transp_parse_opt(struct cfg_ctx *ctx, int a, bool neg);

/* Post-parse check of <px>: "option transparent" with "balance" is an error; without a
 * "dispatch", a "<transparent>" pseudo-server (SRV_F_TRANSP) becomes px->dispatch.
 * Returns the number of errors (printed); main thread, before the threads start. */
int be_transp_check(struct proxy *px);

/* The destination to connect a SRV_F_TRANSP server to for client connection <front>: the
 * address the client connected to before any NAT (conn_local_addr()). False when there is
 * none (a client on a unix socket). Owner thread of <front>. */
bool be_transp_addr(struct conn *front, struct sockaddr_storage *to);

#endif
