/* Server and backend limits beyond "maxconn": "maxqueue", "minconn" with the backend's
 * "fullconn" (dynamic maxconn), the idle pool settings ("pool-*", tune.idle-pool.*,
 * tune.pool-*-fd-ratio). Parsing and the check; the runtime reads the fields directly.
 */
#ifndef BACKEND_SRV_LIMITS_H
#define BACKEND_SRV_LIMITS_H

#include <backend/server-t.h>
#include <cfg/cfg.h>

#define SRV_POOL_PURGE_DELAY_MS 5000 /* HAProxy's default "pool-purge-delay" */

/* Sets the defaults of the limits of a fresh <srv> (or default-server scratch). */
void srv_limits_init(struct server *srv);

/* Parses the option args[*i] of <srv> if it is one of this module's, advancing *i past its
 * value. Returns 0 (parsed), -1 (alert printed) or 1 (not an option of this module). */
int srv_limits_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i);

/* The same for "source" and "redir" (be_route_cfg.c). */
int srv_route_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i);

/* Before the threads start, once global.maxconn is known: each backend's default
 * "fullconn" (10% of the maxconn of the frontends that may use it, as HAProxy), each
 * server's "minconn" dropped when it is not below its "maxconn" (a static limit). */
void srv_limits_prepare(void);

/* The run-time limits of one server <s> of backend <px> (also for "add server"). */
void srv_limits_prepare_srv(const struct proxy *px, struct server *s);

#endif
