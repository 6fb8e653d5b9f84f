/* Server runtime state per thread: idle (reusable) connections. */
#ifndef BACKEND_SERVER_H
#define BACKEND_SERVER_H

#include <stdbool.h>
#include <base/atomic.h>
#include <base/compiler.h>
#include <base/list.h>
#include <base/tinfo.h>
#include <backend/server-t.h>
#include <proxy/proxy-t.h>

#define SRV_MAX_IDLE_PER_THREAD 1024

/* Only touched by its thread. */
struct srv_per_thread {
	struct list idle;         /* struct conn, most recently parked first */
	int nb_idle;
} ALIGNED_CL;

struct proxy;
struct cfg_ctx;
struct addr_res;

/* Server options and host-name addresses owned by an upper layer (dns/), registered by
 * it at start-up. srv_ext_opt_parse returns 1 when args[*i] is not its option, 0 when
 * parsed, -1 after an alert; srv_ext_init_addr gives a server written with a host name its
 * first address (0, or -1 after an alert); srv_ext_release frees what they allocated. */
extern int (*srv_ext_opt_parse)(struct cfg_ctx *ctx, struct server *srv, int *i);
extern int (*srv_ext_init_addr)(struct cfg_ctx *ctx, struct server *srv, const struct addr_res *res);
extern void (*srv_ext_release)(struct server *srv);

/* The "server NAME ADDR [options]" line in <ctx> (also what server-template expands to).
 * Returns 0 or -1 after an alert. Parse time. */
int srv_kw_parse(struct cfg_ctx *ctx);

/* "add server" (backend/srv_dyn.c): the server "NAME ADDR [options]" of args[1..] of
 * <ctx> for ctx->px, built as a "server" line is but without the "default-server" options
 * (as 2.6) and not appended to the backend; a host name is refused. NULL after an alert.
 * srv_cfg_free frees what parsing allocated and the server. */
struct server *srv_build_dynamic(struct cfg_ctx *ctx);
void srv_cfg_free(struct server *srv);

/* Gives each server of <px> without an "id" the lowest id no other server has, in config
 * order. Check time. */
void srv_assign_ids(struct proxy *px);

/* Up for new traffic (not DOWN or NOLB after its checks); any thread. */
static inline bool srv_is_up(const struct server *s)
{
	return HA_ATOMIC_LOAD_RLX(&s->run_state) == SRV_RS_UP;
}

/* The effective weight the algorithms use (0..256); changes at run time. Any thread. */
static inline int srv_weight(const struct server *s)
{
	return HA_ATOMIC_LOAD_RLX(&s->weight);
}

/* The weight in sixteenths, finer while "slowstart" warms the server up (roundrobin). */
static inline int srv_rr_weight(const struct server *s)
{
	int w16 = HA_ATOMIC_LOAD_RLX(&s->ss_w16);

	return w16 ? w16 : srv_weight(s) * 16;
}

/* In maintenance ("disabled", "disable server", "set server ... state maint", an agent):
 * its run state is DOWN as well, so that the LB rounds need not test this. Any thread. */
static inline bool srv_in_maint(const struct server *s)
{
	return HA_ATOMIC_LOAD_RLX(&s->admin) & SRV_ADM_FMAINT;
}

/* May take traffic in the tier <backup> (active or backup servers). */
static inline bool srv_usable(const struct server *s, bool backup)
{
	return !(s->flags & SRV_F_DISABLED) && srv_weight(s) > 0 &&
	       !!(s->flags & SRV_F_BACKUP) == backup && srv_is_up(s);
}

/* The one function that changes a server's run state (checks now, the runtime API
 * later): stores it, counts and times the change, and prints HAProxy's notice to stderr
 * ("Server be/s1 is DOWN, reason: <why>. 0 active and 0 backup servers left..."), plus
 * "backend 'be' has no server available!" when the last one goes. <why> is the
 * "reason: ..." text without the leading "reason: ". Any thread; <now> is the caller's
 * monotonic ms clock. */
void srv_set_state(struct server *s, enum srv_run_state st, const char *why, uint64_t now);

/* DNS maintenance (dns/, which prints its own notices): enters it with <on>, or leaves it
 * for <after> (what the checks say). Same bookkeeping as srv_set_state(). */
void srv_set_dns_maint(struct server *s, bool on, enum srv_run_state after, uint64_t now);
/* (<why> NULL: nothing is printed, the caller says it.) */
/* Reports that <px> has no usable server left: "[ALERT] ... backend 'be' has no server
 * available!" on stderr and the same, unquoted, at emerg in its logs (2.6). */
void srv_report_no_server(const struct proxy *px);

/* Forced drain (<on>: effective weight 0) and maintenance (DOWN whatever the checks say;
 * leaving it, UP again when <may_up>), with 2.6's notices ("Server be/s enters drain
 * state. ...", "... is going DOWN for maintenance. ...", "... is UP/READY (leaving forced
 * maintenance)."). The thread of the server's checks; <now> in monotonic ms. */
void srv_set_drain(struct server *s, bool on, uint64_t now);
void srv_set_maint(struct server *s, bool on, bool may_up, uint64_t now);

/* After srv_set_state moved <s> from <old> to <st>: slowstart and the LB tables follow.
 * The thread of the server's check. */
void srv_state_changed(struct server *s, int old, int st, uint64_t now);

/* The servers tracking <s> take its new state <st> ("via be/s"), recursively. Same thread
 * as srv_set_state. */
void srv_propagate_state(struct server *s, enum srv_run_state st, uint64_t now);

/* Resolves every "track" of the configuration: 2.6's errors (unknown proxy or server, a
 * tracked server without checks, loops) naming the tracking server's file:line. Post-parse;
 * returns the number of errors. */
int srv_track_check_all(void);

/* Kills the streams of <s>, or with <backups> those of every backup server of its backend
 * ("on-marked-*", stream/srv_shut.c); each thread kills its own. Any thread. */
extern void (*srv_shutdown_hook)(struct server *s, bool backups);

/* The runtime API on agents (check/agent.c sets them): the thread of the agent of <s> (-1:
 * none), and its health forced up or down ("set server ... agent"), on that thread. */
extern int (*srv_agent_tid_hook)(const struct server *s);
extern void (*srv_agent_force_hook)(struct server *s, bool up, uint64_t now);

/* "set server addr" changed the address of <s> (stream/cookie_cli.c recomputes its
 * dynamic cookie, as 2.6). Thread 0. */
extern void (*srv_addr_changed_hook)(struct server *s);

/* "observe": live traffic results of servers (HANA_*), handled by check/check_hana.c. */
extern void (*srv_observe_hook)(struct server *s, int status);

/* A stream on any thread saw <status> (HANA_*) from <s>, which has "observe". */
static inline void srv_observe(struct server *s, int status)
{
	if (srv_observe_hook)
		srv_observe_hook(s, status);
}

/* The HANA_* status of an HTTP response status <code> (2.6's "correct" codes). */
static inline int srv_hana_http(int code)
{
	return (code >= 100 && code < 500) || code == 501 || code == 505 ? HANA_HTTP_OK
									 : HANA_HTTP_STS;
}

/* Records the configured weight as the initial and user weight (backend_init). */
void srv_init_weights(struct server *s);

/* The one function that changes a server's weight at run time (runtime API, agent checks):
 * sets the user weight <w> (0..256), recomputes the effective weight (a server warming up
 * under "slowstart" gets its share of it) and lets the backend's algorithm follow
 * (px->lb->update). Returns NULL, or HAProxy's message when refused: a static algorithm
 * (static-rr, map-based hashing) accepts only 0 and the initial weight. Any thread, off the
 * request path; <now> is the caller's monotonic ms clock. */
const char *srv_set_weight(struct server *s, int w, uint64_t now);

struct cfg_ctx;
/* Server options of run-time state and weight (server_state_cfg.c): parses option args[*i]
 * of <srv> and advances *i past its value. Returns 0, -1 after an alert, or 1 when the
 * option is not one of them. Parse time. */
int srv_state_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i);

/* First usable backup server of <px> in config order (the only one used without "option
 * allbackups" when no active server is usable), or NULL. */
struct server *srv_first_backup(struct proxy *px);

/* The "maxconn" of <s> with "minconn" and its backend's "fullconn": between minconn and
 * maxconn in proportion of the backend's load, its streams and queued ones (HAProxy's
 * beconn counts both). Only when s->minconn (see srv_limits.c). Inline and without a call,
 * so that srv_full() keeps the LB rounds leaf functions. Any thread. */
static inline int srv_dyn_maxconn(const struct server *s)
{
	const struct proxy *px = s->px;
	int load = HA_ATOMIC_LOAD_RLX(&px->beconn) + HA_ATOMIC_LOAD_RLX(&px->nb_queued);
	int smax = HA_ATOMIC_LOAD_RLX(&s->maxconn); /* an agent or the CLI may change it */
	long max;

	if (load >= px->fullconn)
		return smax;
	max = (long)load * smax / px->fullconn;
	if (max < s->minconn)
		max = s->minconn;
	return max > 0 ? (int)max : 1;
}

/* The number of slots of <s> now (0: unlimited). */
static inline int srv_cur_maxconn(const struct server *s)
{
	return likely(!s->minconn) ? HA_ATOMIC_LOAD_RLX(&s->maxconn) : srv_dyn_maxconn(s);
}

/* Every slot allowed by "maxconn" (and "minconn") is taken. A server without maxconn
 * costs one test, as before minconn existed. */
static inline bool srv_full(const struct server *s)
{
	int max = HA_ATOMIC_LOAD_RLX(&s->maxconn); /* an agent may change it */
	int cur;

	if (!max)
		return false;
	cur = HA_ATOMIC_LOAD_RLX(&s->cur_conns);
	if (cur >= max)
		return true;
	if (likely(!s->minconn))
		return false;
	/* cur >= max(minconn, load * maxconn / fullconn), without a division */
	return cur >= s->minconn &&
	       (long)cur * s->px->fullconn >=
		       (long)(HA_ATOMIC_LOAD_RLX(&s->px->beconn) + HA_ATOMIC_LOAD_RLX(&s->px->nb_queued)) *
			       max;
}

/* One candidate <s> of an LB round (lb_pick_tiered), already known usable: sets *usable, skips it when full,
 * and keeps <avoid> as a last resort (*avoid_free). True when <s> is the pick. */
static inline bool lb_take_candidate(const struct server *s, const struct server *avoid,
				     bool *usable, bool *avoid_free)
{
	*usable = true;
	if (srv_full(s))
		return false;
	if (s == avoid) {
		*avoid_free = true;
		return false;
	}
	return true;
}

#endif
