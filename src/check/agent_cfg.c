/* Server options of agent checks: "agent-check", "no-agent-check", "agent-port",
 * "agent-inter", "agent-send", "agent-addr", with 2.6's errors; and the post-parse rule that
 * an agent needs a port. Parse time only.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <check/agent.h>
#include <proxy/proxy.h>

/* agent-inter <time> (> 0) */
static int agent_parse_inter(struct cfg_ctx *ctx, struct server *srv, const char *arg)
{
	const char *bad;
	int ms = 0;

	if (!*arg) {
		cfg_alert(ctx, "'server %s/%s' : 'agent-inter' expects a delay as argument.",
			  srv->px->id, srv->id);
		return -1;
	}
	bad = parse_time_ms(arg, 1, &ms);
	if (bad) {
		cfg_alert(ctx,
			  "'server %s/%s' : unexpected character '%c' in 'agent-inter' argument "
			  "of server %s.",
			  srv->px->id, srv->id, *bad, srv->id);
		return -1;
	}
	if (ms <= 0) {
		cfg_alert(ctx,
			  "'server %s/%s' : invalid value %d for argument 'agent-inter' of server "
			  "%s.",
			  srv->px->id, srv->id, ms, srv->id);
		return -1;
	}
	srv->agent_inter = ms;
	return 0;
}

/* agent-addr <ip> (no port) */
static int agent_parse_addr(struct cfg_ctx *ctx, struct server *srv, const char *arg)
{
	struct addr_res res;
	char err[320];

	if (!*arg) {
		cfg_alert(ctx, "'server %s/%s' : 'agent-addr' expects an address as argument.",
			  srv->px->id, srv->id);
		return -1;
	}
	if (addr_parse(arg, ADDR_F_PORT_MAP, &res, err, sizeof(err)) != ADDR_OK || !res.port_map ||
	    res.port_off || (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6)) {
		cfg_alert(ctx,
			  "'server %s/%s' : parsing agent-addr failed. Check if '%s' is correct "
			  "address.",
			  srv->px->id, srv->id, arg);
		return -1;
	}
	srv->agent_addr = res.ss;
	return 0;
}

/* agent-send <string> */
static int agent_parse_send(struct cfg_ctx *ctx, struct server *srv, const char *arg, bool has)
{
	char *s;

	if (!has) {
		cfg_alert(ctx, "'server %s/%s' : 'agent-send' expects a string as argument.",
			  srv->px->id, srv->id);
		return -1;
	}
	s = strdup(arg);
	if (!s) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(srv->agent_send);
	srv->agent_send = s;
	return 0;
}

int agent_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];
	bool has = *i + 1 < ctx->nargs;
	const char *arg = has ? ctx->args[*i + 1] : "";
	long v;
	int rc;

	if (!strcmp(opt, "agent-check") || !strcmp(opt, "no-agent-check")) {
		srv->agent_enabled = opt[0] == 'a';
		return 0;
	}
	if (!strcmp(opt, "agent-port")) {
		if (!*arg) {
			cfg_alert(ctx,
				  "'server %s/%s' : 'agent-port' expects a port number as "
				  "argument.",
				  srv->px->id, srv->id);
			return -1;
		}
		/* like 2.6, a word that is not a port leaves none (checked at the end) */
		srv->agent_port = parse_long(arg, 1, 65535, &v) == 0 ? (int)v : 0;
		++*i;
		return 0;
	}
	if (!strcmp(opt, "agent-inter"))
		rc = agent_parse_inter(ctx, srv, arg);
	else if (!strcmp(opt, "agent-addr"))
		rc = agent_parse_addr(ctx, srv, arg);
	else if (!strcmp(opt, "agent-send"))
		rc = agent_parse_send(ctx, srv, arg, has);
	else
		return 1;
	if (rc == 0)
		++*i;
	return rc;
}

int agent_check_all(void)
{
	int errs = 0;

	for (struct proxy *px = proxies; px; px = px->next) {
		for (struct server *s = px->srv; s; s = s->next) {
			if (!s->agent_enabled || s->agent_port)
				continue;
			ha_alert("[%s:%d] : 'server %s/%s' : server %s does not have agent port. "
				 "Agent "
				 "check has been disabled.",
				 s->file, s->line, px->id, s->id, s->id);
			errs++;
		}
	}
	return errs;
}
