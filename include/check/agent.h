/* Agent checks ("agent-check", "agent-port", "agent-inter", "agent-send", "agent-addr"):
 * a second check per server whose agent answers one line that sets the server's weight,
 * state or maxconn as HAProxy 2.6 reads it. The line parser is pure (agent_parse.c); the
 * runtime (agent.c) owns the agents' sockets and timers. Actions return 0 or -1.
 */
#ifndef CHECK_AGENT_H
#define CHECK_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <base/ist.h>

/* agent_reply.state: the operational word of the reply */
#define AGENT_ST_NONE 0
#define AGENT_ST_UP 1	/* "up" */
#define AGENT_ST_DOWN 2 /* "down", "fail", "stopped" */

/* agent_reply.admin: the administrative word */
#define AGENT_ADM_NONE 0
#define AGENT_ADM_READY 1 /* "ready": leave drain and maintenance */
#define AGENT_ADM_DRAIN 2 /* "drain" */
#define AGENT_ADM_MAINT 3 /* "maint" */

/* What one agent line says; every field may be absent. Views into the parsed input. */
struct agent_reply {
	int weight_pct;	 /* "N%": percent of the initial weight, -1 if absent */
	int maxconn;	 /* "maxconn:N", -1 if absent */
	int state;	 /* AGENT_ST_* (the last state word wins) */
	int admin;	 /* AGENT_ADM_* (the last admin word wins) */
	struct ist word; /* the state word as written ("DOWN"), for the notice */
	struct ist desc; /* after "#": a description of a down state, or empty */
};

/* Parses the first line of <buf> (up to '\n', '\r' or <len>): words separated by spaces,
 * tabs or commas, case-insensitive; "#" starts a description running to the end of the
 * line; unknown words are ignored, as 2.6 does. Never fails; NUL bytes are plain bytes. */
void agent_parse(const char *buf, size_t len, struct agent_reply *r);

/* Length of the agent line in <buf>: up to the first '\n' or '\r', or -1 when the line is
 * not complete yet. */
long agent_line_len(const char *buf, size_t len);

struct server;
struct cfg_ctx;

/* Server options "agent-*" and "no-agent-check" (agent_cfg.c): parses option args[*i],
 * advancing *i. Returns 0, -1 after an alert, 1 when not one of them. Parse time. */
int agent_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i);

/* Post-parse: a server with "agent-check" must have an agent port (2.6's error). Returns
 * the number of errors. */
int agent_check_all(void);

/* Builds the agents (after checks_prepare), arms the calling thread's, stops them, frees
 * them; same contracts as the checks' (check/check.h). */
int agents_prepare(void);
void agents_thread_start(void);
void agents_thread_stop(void);
void agents_release(void);

/* Dynamic servers (check_dyn.c): builds the agent of <s> on thread <thr> unless it has a
 * check (0, or -1: memory); the agent's thread (-1: none); on that thread, arms its timer
 * or stops it (socket closed, timer removed). */
int agent_dyn_build(struct server *s, int thr);
int agent_dyn_tid(const struct server *s);
void agent_dyn_arm(struct server *s);
void agent_dyn_stop(struct server *s);

/* False while the agent of <s> keeps it DOWN (or maintenance holds it): a passing health
 * check must not bring it UP then. The check's thread. */
bool agent_allows_up(const struct server *s);

#endif
