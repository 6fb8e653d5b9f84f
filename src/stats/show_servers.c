/* "show servers state [<backend>]": the server state file format of HAProxy (version 1):
 * one line per server with its ids, address, operational and administrative states and
 * weights. Health checks do not exist yet: servers show the values HAProxy shows for
 * servers without "check".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <base/atomic.h>
#include <stdio.h>
#include <string.h>

#include <backend/server-t.h>
#include <cli/cli.h>
#include <dns/dns_addr.h>
#include <proxy/proxy.h>
#include <ssl/ssl-t.h>

static const char srv_state_hdr[] =
	"1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight "
	"srv_iweight srv_time_since_last_change srv_check_status srv_check_result "
	"srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id "
	"srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr "
	"srv_agent_port\n";

static int srv_state_iid(const struct proxy *px)
{
	int n = 2; /* as "show stat" numbers proxies */

	for (const struct proxy *p = proxies; p && p != px; p = p->next)
		n++;
	return n;
}

static void srv_state_addr(const struct server *srv, char *ip, size_t ipsz, int *port)
{
	struct sockaddr_storage dyn;
	const struct sockaddr_storage *ss = dns_srv_shown_addr(srv, &dyn);

	*port = 0;
	snprintf(ip, ipsz, "-");
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, ip, (socklen_t)ipsz);
		*port = ntohs(in->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, (socklen_t)ipsz);
		*port = ntohs(in6->sin6_port);
	}
}

/* "addr" / "agent-addr" of a server as srv_check_addr / srv_agent_addr show them: the
 * address, or "-" when not set. */
static void srv_state_cfg_addr(const struct sockaddr_storage *ss, char *ip, size_t ipsz)
{
	snprintf(ip, ipsz, "-");
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, ip,
			  (socklen_t)ipsz);
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, ip,
			  (socklen_t)ipsz);
}

/* srv_agent_port: "agent-port", else the check's "port" (2.6 takes it for the agent). */
static int srv_state_agent_port(const struct server *srv)
{
	return srv->agent_port ? srv->agent_port : srv->check_port;
}

static int srv_state_line(struct cli_ctx *ctx, const struct proxy *px, const struct server *srv)
{
	bool maint = (HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT);
	int adm = HA_ATOMIC_LOAD_RLX(&srv->admin);
	/* 2.6's srv_admin_state bits: FMAINT 1, CMAINT 4, FDRAIN 8 */
	int adm26 = (adm & SRV_ADM_FMAINT ? 1 : 0) | (adm & SRV_ADM_CMAINT ? 4 : 0) |
		    (adm & SRV_ADM_FDRAIN ? 8 : 0);
	char ip[INET6_ADDRSTRLEN], chk_ip[INET6_ADDRSTRLEN], agt_ip[INET6_ADDRSTRLEN];
	int rs = HA_ATOMIC_LOAD_RLX(&srv->run_state);
	/* 2.6's srv_op_state: 0 stopped (down, maintenance), 2 running, 3 stopping (nolb) */
	int op = maint || rs == SRV_RS_DOWN || rs == SRV_RS_RMAINT ? 0 : rs == SRV_RS_NOLB ? 3 : 2;
	int port;

	srv_state_addr(srv, ip, sizeof(ip), &port);
	srv_state_cfg_addr(&srv->check_addr, chk_ip, sizeof(chk_ip));
	srv_state_cfg_addr(&srv->agent_addr, agt_ip, sizeof(agt_ip));
	return cli_printf(ctx,
			  "%d %s %d %s %s %d %d %d %d %llu %d %d %d %d %d %d %d %s %d %s %d "
			  "%d %s %s %d\n",
			  srv_state_iid(px), px->id, srv->puid, srv->id, ip, op, adm26,
			  HA_ATOMIC_LOAD_RLX(&srv->uweight), srv->iweight, cli_uptime_ms() / 1000,
			  1, 0, maint ? 0 : 2, maint ? 8 : 0, 0, 0, 0, "-", port, "-",
			  srv->ssl && srv->ssl->ctx ? 1 : 0, /* srv_use_ssl */
			  srv->check_port, chk_ip, agt_ip, srv_state_agent_port(srv));
}

/* States: st 0 header, 1 rows; p[0] backend, p[1] next server. */
static int srv_state_show(struct cli_ctx *ctx)
{
	const struct proxy *only = NULL;

	if (ctx->nargs > 3) {
		only = proxy_find(ctx->args[3], PR_CAP_BE);
		if (!only)
			return cli_printf(ctx, "Can't find backend.\n") < 0 ? CLI_MORE : CLI_DONE;
	}
	if (ctx->st == 0) {
		if (cli_write(ctx, srv_state_hdr, sizeof(srv_state_hdr) - 1) < 0)
			return CLI_MORE;
		ctx->st = 1;
		ctx->p[0] = only ? only : proxies;
		ctx->p[1] = ctx->p[0] ? ((const struct proxy *)ctx->p[0])->srv : NULL;
	}
	while (ctx->p[0]) {
		const struct proxy *px = ctx->p[0];

		for (; (px->cap & PR_CAP_BE) && ctx->p[1];
		     ctx->p[1] = ((const struct server *)ctx->p[1])->next)
			if (srv_state_line(ctx, px, ctx->p[1]) < 0)
				return CLI_MORE;
		ctx->p[0] = only ? NULL : px->next;
		ctx->p[1] = ctx->p[0] ? ((const struct proxy *)ctx->p[0])->srv : NULL;
	}
	return CLI_DONE;
}

static const struct cli_kw srv_state_kws[] = {
	{ { "show", "servers", "state" },
	  "show servers state [<backend>]",
	  "dump volatile server information (all or for a single backend)",
	  CLI_LVL_USER,
	  srv_state_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(srv_state_kws)
