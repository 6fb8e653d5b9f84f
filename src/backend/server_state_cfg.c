/* Server options about run-time state and weight: "slowstart". Called by server_cfg.c's
 * option parser before its "not supported yet" table. Parse time only.
 */
#include <stdio.h>
#include <string.h>

#include <backend/server.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy-t.h>

/* slowstart <time>: 0 disables it. Errors worded as 2.6's. */
static int srv_parse_slowstart(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *arg = *i + 1 < ctx->nargs ? ctx->args[*i + 1] : "";
	const char *bad;
	int ms = 0;

	bad = parse_time_ms(arg, 1, &ms);
	if (!*arg || (bad && ms != -1)) {
		cfg_alert(ctx,
			  "'server %s/%s' : unexpected character '%.1s' in 'slowstart' argument "
			  "of server %s.",
			  srv->px->id, srv->id, bad && *arg ? bad : "", srv->id);
		return -1;
	}
	if (bad) {
		cfg_alert(ctx,
			  "'server %s/%s' : timer overflow in argument '%s' to 'slowstart' of "
			  "server %s, maximum value is 2147483647 ms (~24.8 days).",
			  srv->px->id, srv->id, arg, srv->id);
		return -1;
	}
	srv->slowstart = ms;
	++*i;
	return 0;
}

int srv_state_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];

	if (!strcmp(opt, "slowstart"))
		return srv_parse_slowstart(ctx, srv, i);
	return 1;
}
