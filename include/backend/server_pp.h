/* Parsing of the server options that send the PROXY protocol (backend/server_pp_cfg.c). */
#ifndef BACKEND_SERVER_PP_H
#define BACKEND_SERVER_PP_H

struct cfg_ctx;
struct server;

/* Parses option args[*i] of <srv> if it is a PROXY protocol one (send-proxy*,
 * proxy-v2-options LIST, check-send-proxy and the "no-" forms), advancing *i past its
 * value. Returns 0 when parsed, -1 after an alert, 1 when the option is not one of these. */
int srv_pp_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i);

#endif
