/* Health checks that send the PROXY protocol (check/check_pp.c). */
#ifndef CHECK_CHECK_PP_H
#define CHECK_CHECK_PP_H

#include <stdbool.h>

struct check;
struct server;

/* True when <s>'s checks open with a PROXY header: "check-send-proxy", or "send-proxy*"
 * with neither a check "port" nor "addr" (HAProxy 2.6's rule). */
bool chk_pp_wanted(const struct server *s);

/* Sends the header on <c>'s just connected socket. Returns 0, or -1 after ending the run
 * (chk_finish, "Socket error"). Check thread only. */
int chk_pp_send(struct check *c);

#endif
