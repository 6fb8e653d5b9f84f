/* Runtime API commands around the stats data: "clear counters [all]" (maxima, or every
 * counter), "show backend" and "show servers conn [<backend>]" in HAProxy 2.6's layouts.
 * Counter blocks are cleared word by word with relaxed stores while their group's
 * threads may be adding to them: an update racing the clear is either kept or lost,
 * as in HAProxy; no word is ever torn.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <backend/server-t.h>
#include <backend/server.h>
#include <base/atomic.h>
#include <cli/cli.h>
#include <conn/listener.h>
#include <dns/dns_addr.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <stats/stat_time.h>
#include <stats/stats.h>

/* Zeroes <n> per-group blocks of <size> bytes made only of uint64_t words. */
static void stat_blocks_clear(void *blocks, size_t size, int n)
{
	uint64_t *w = blocks;

	for (size_t i = 0; w && i < size / sizeof(uint64_t) * (size_t)n; i++)
		HA_ATOMIC_STORE_RLX(&w[i], 0);
}

/* Zeroes the timing maxima of every group's block of <blocks> (a server's). */
static void stat_times_max_clear(struct be_counters *blocks)
{
	for (int g = 0; blocks && g < counters_ngroups; g++)
		for (int i = 0; i < STAT_T_NUM; i++)
			HA_ATOMIC_STORE_RLX(&blocks[g].t_max[i], 0);
}

static void stat_clear_proxy(struct proxy *px, bool all)
{
	struct bind_conf *bc;
	struct listener *li;

	HA_ATOMIC_STORE_RLX(&px->feconn_max, 0);
	HA_ATOMIC_STORE_RLX(&px->beconn_max, 0);
	HA_ATOMIC_STORE_RLX(&px->queue_max, 0);
	HA_ATOMIC_STORE_RLX(&px->sess_rate_max, 0);
	HA_ATOMIC_STORE_RLX(&px->req_rate_max, 0);
	HA_ATOMIC_STORE_RLX(&px->be_sess_rate_max, 0);
	for (struct server *s = px->srv; s; s = s->next) {
		HA_ATOMIC_STORE_RLX(&s->cur_conns_max, 0);
		HA_ATOMIC_STORE_RLX(&s->sess_rate_max, 0);
		stat_times_max_clear(s->cnt); /* qtime_max..ttime_max, as HAProxy */
		if (!all)
			continue;
		stat_blocks_clear(s->cnt, sizeof(*s->cnt), counters_ngroups);
		stats_time_reset(&s->tavg);
		HA_ATOMIC_STORE_RLX(&s->chk_fail, 0);
		HA_ATOMIC_STORE_RLX(&s->chk_down, 0);
	}
	if (!all)
		return;
	stat_blocks_clear(px->fe_cnt, sizeof(*px->fe_cnt), counters_ngroups);
	stat_blocks_clear(px->be_cnt, sizeof(*px->be_cnt), counters_ngroups);
	stats_time_reset(&px->tavg);
	list_for_each_entry(bc, &px->binds, list) list_for_each_entry(li, &bc->listeners, list)
		stat_blocks_clear(li->cnt, sizeof(*li->cnt), counters_ngroups);
}

/* "clear counters" (operator): the maxima; "clear counters all" (admin): every counter. */
static int stat_clear_counters(struct cli_ctx *ctx)
{
	bool all = ctx->nargs >= 3 && strcmp(ctx->args[2], "all") == 0;

	for (struct proxy *px = proxies; px; px = px->next)
		stat_clear_proxy(px, all);
	HA_ATOMIC_STORE_RLX(&conn_rate_max, 0);
	return CLI_DONE;
}

/* "show backend": the name of every proxy with a backend side. */
static int stat_show_backend(struct cli_ctx *ctx)
{
	if (ctx->st == 0) {
		if (cli_write(ctx, "# name\n", 7) < 0)
			return CLI_MORE;
		ctx->st = 1;
		ctx->p[0] = proxies;
	}
	for (; ctx->p[0]; ctx->p[0] = ((const struct proxy *)ctx->p[0])->next) {
		const struct proxy *px = ctx->p[0];

		if ((px->cap & PR_CAP_BE) && cli_printf(ctx, "%s\n", px->id) < 0)
			return CLI_MORE;
	}
	return CLI_DONE;
}

/* Idle connections of <srv>: in total, and of thread <t> (-1: total). */
static int stat_srv_idle(const struct server *srv, int t)
{
	int n = 0;

	if (!srv->per_thr)
		return 0;
	if (t >= 0)
		return HA_ATOMIC_LOAD_RLX(&srv->per_thr[t].nb_idle);
	for (int i = 0; i < global.nbthread && i < MAX_THREADS; i++)
		n += HA_ATOMIC_LOAD_RLX(&srv->per_thr[i].nb_idle);
	return n;
}

/* One "show servers conn" line into <b>; returns its length (0 when it does not fit). */
static size_t stat_srv_conn_line(char *b, size_t size, const struct proxy *px,
				 const struct server *srv)
{
	struct sockaddr_storage dyn;
	const struct sockaddr_storage *ss = dns_srv_shown_addr(srv, &dyn);
	char ip[INET6_ADDRSTRLEN] = "-";
	int port = 0, n, idle = stat_srv_idle(srv, -1), used_max;
	size_t len;

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, ip, sizeof(ip));
		port = ntohs(((const struct sockaddr_in *)ss)->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, ip, sizeof(ip));
		port = ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	}
	used_max = HA_ATOMIC_LOAD_RLX(&srv->cur_conns_max);
	/* the needed connections are estimated by the highest use (need_est) */
	n = snprintf(b, size, "%s/%s %d/%d %s %d - %d %d %d %d 0 %d %d %d", px->id, srv->id,
		     stat_proxy_iid(px), srv->puid, ip, port, srv->pool_purge_delay,
		     HA_ATOMIC_LOAD_RLX(&srv->cur_conns), used_max, used_max, idle,
		     srv->pool_max_conn, idle);
	if (n < 0 || (size_t)n >= size)
		return 0;
	len = (size_t)n;
	for (int t = 0; t < global.nbthread && t < MAX_THREADS; t++) {
		n = snprintf(b + len, size - len, " %d", stat_srv_idle(srv, t));
		if (n < 0 || (size_t)n >= size - len)
			return 0;
		len += (size_t)n;
	}
	if (len + 1 >= size)
		return 0;
	b[len++] = '\n';
	return len;
}

/* "show servers conn [<backend>]": idle and used connections per server. */
static int stat_show_servers_conn(struct cli_ctx *ctx)
{
	const struct proxy *only = NULL;
	char b[2048];
	size_t len;

	if (ctx->nargs >= 4) {
		only = proxy_find(ctx->args[3], PR_CAP_BE);
		if (!only)
			return cli_printf(ctx, "Can't find backend.\n") < 0 ? CLI_MORE : CLI_DONE;
	}
	if (ctx->st == 0) {
		if (cli_printf(ctx,
			       "# bkname/svname bkid/svid addr port - purge_delay used_cur "
			       "used_max need_est unsafe_nb safe_nb idle_lim idle_cur "
			       "idle_per_thr[%d]\n",
			       global.nbthread) < 0)
			return CLI_MORE;
		ctx->st = 1;
		ctx->p[0] = only ? only : proxies;
		ctx->p[1] = NULL;
	}
	for (; ctx->p[0]; ctx->p[0] = only ? NULL : ((const struct proxy *)ctx->p[0])->next) {
		const struct proxy *px = ctx->p[0];

		if (!(px->cap & PR_CAP_BE))
			continue;
		if (!ctx->p[1])
			ctx->p[1] = px->srv;
		for (; ctx->p[1]; ctx->p[1] = ((const struct server *)ctx->p[1])->next) {
			len = stat_srv_conn_line(b, sizeof(b), px, ctx->p[1]);
			if (!len || cli_write(ctx, b, len) < 0)
				return CLI_MORE;
		}
	}
	return CLI_DONE;
}

static const struct cli_kw stat_admin_kws[] = {
	{ { "clear", "counters" },
	  "clear counters [all]",
	  "clear max statistics counters (or all counters)",
	  CLI_LVL_OPER,
	  stat_clear_counters },
	{ { "clear", "counters", "all" }, NULL, NULL, CLI_LVL_ADMIN, stat_clear_counters },
	{ { "show", "backend" },
	  "show backend",
	  "list backends in the current running config",
	  CLI_LVL_USER,
	  stat_show_backend },
	{ { "show", "servers", "conn" },
	  "show servers conn [<backend>]",
	  "dump server connections status (all or for a single backend)",
	  CLI_LVL_USER,
	  stat_show_servers_conn },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(stat_admin_kws)
