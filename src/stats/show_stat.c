/* "show stat": HAProxy's CSV of proxies and servers (the fixed columns of HAProxy 2.6, in
 * order, then the "-" end-of-fixed-fields marker): per proxy a FRONTEND line, one line per
 * server and a BACKEND line, from the per-group counter blocks summed at read time. Fields
 * that HAProxy leaves empty for a line type are empty here too; values of features that do
 * not exist yet (request rates, backend and server session rates, timings, checks) are 0
 * where HAProxy prints a number.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <backend/queue-t.h>
#include <backend/server-t.h>
#include <base/addr.h>
#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <check/check-t.h>
#include <check/check.h>
#include <cli/cli.h>
#include <event/loop.h>
#include <dns/dns_addr.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <stats/counters.h>

#define STAT_COLS(X) \
	X(pxname) X(svname) X(qcur) X(qmax) X(scur) X(smax) X(slim) X(stot) X(bin) X(bout) \
	X(dreq) X(dresp) X(ereq) X(econ) X(eresp) X(wretr) X(wredis) X(status) X(weight) \
	X(act) X(bck) X(chkfail) X(chkdown) X(lastchg) X(downtime) X(qlimit) X(pid) X(iid) \
	X(sid) X(throttle) X(lbtot) X(tracked) X(type) X(rate) X(rate_lim) X(rate_max) \
	X(check_status) X(check_code) X(check_duration) X(hrsp_1xx) X(hrsp_2xx) X(hrsp_3xx) \
	X(hrsp_4xx) X(hrsp_5xx) X(hrsp_other) X(hanafail) X(req_rate) X(req_rate_max) \
	X(req_tot) X(cli_abrt) X(srv_abrt) X(comp_in) X(comp_out) X(comp_byp) X(comp_rsp) \
	X(lastsess) X(last_chk) X(last_agt) X(qtime) X(ctime) X(rtime) X(ttime) \
	X(agent_status) X(agent_code) X(agent_duration) X(check_desc) X(agent_desc) \
	X(check_rise) X(check_fall) X(check_health) X(agent_rise) X(agent_fall) \
	X(agent_health) X(addr) X(cookie) X(mode) X(algo) X(conn_rate) X(conn_rate_max) \
	X(conn_tot) X(intercepted) X(dcon) X(dses) X(wrew) X(connect) X(reuse) \
	X(cache_lookups) X(cache_hits) X(srv_icur) X(src_ilim) X(qtime_max) X(ctime_max) \
	X(rtime_max) X(ttime_max) X(eint) X(idle_conn_cur) X(safe_conn_cur) X(used_conn_cur) \
	X(need_conn_est) X(uweight) X(agg_server_status) X(agg_server_check_status) \
	X(agg_check_status)

#define STAT_ENUM(n) ST_##n,
#define STAT_NAME(n) #n ",",

enum stat_col {
	STAT_COLS(STAT_ENUM)
	ST_NCOLS
};

static const char *const stat_names[ST_NCOLS] = { STAT_COLS(STAT_NAME) };

/* One CSV line being built: every field empty until set. */
struct stat_line {
	char val[ST_NCOLS][48];
};

static void st_str(struct stat_line *l, enum stat_col c, const char *s)
{
	snprintf(l->val[c], sizeof(l->val[c]), "%s", s);
}

static void st_u64(struct stat_line *l, enum stat_col c, uint64_t v)
{
	snprintf(l->val[c], sizeof(l->val[c]), "%" PRIu64, v);
}

static void st_int(struct stat_line *l, enum stat_col c, long long v)
{
	snprintf(l->val[c], sizeof(l->val[c]), "%lld", v);
}

/* Sets every column of <cols> (terminated by ST_NCOLS) to 0. */
static void st_zeros(struct stat_line *l, const enum stat_col *cols)
{
	for (; *cols != ST_NCOLS; cols++)
		st_str(l, *cols, "0");
}

/* Fields common to every line of proxy <px>: names, pid, iid, mode. */
static void st_common(struct stat_line *l, const struct proxy *px, const char *svname, int iid)
{
	memset(l, 0, sizeof(*l));
	st_str(l, ST_pxname, px->id);
	st_str(l, ST_svname, svname);
	st_str(l, ST_pid, "1");
	st_int(l, ST_iid, iid);
	st_str(l, ST_mode, px->mode == PR_MODE_HTTP ? "http" : "tcp");
}

static void st_rsp(struct stat_line *l, const uint64_t *rsp)
{
	for (int i = 1; i <= 5; i++)
		st_u64(l, (enum stat_col)(ST_hrsp_1xx + i - 1), rsp[i]);
	st_u64(l, ST_hrsp_other, rsp[0]);
}

/* iid as HAProxy numbers proxies when a stats socket exists: config order from 2. */
static int stat_iid(const struct proxy *px)
{
	int n = 2;

	for (const struct proxy *p = proxies; p && p != px; p = p->next)
		n++;
	return n;
}

static int stat_fe_maxconn(const struct proxy *px)
{
	return px->maxconn ? px->maxconn : global.maxconn;
}

/* HAProxy's default fullconn: a tenth (rounded up) of the maxconn of every frontend that
 * may use the backend (default_backend, use_backend, or itself for a listen). */
static int stat_be_fullconn(const struct proxy *be)
{
	long long sum = 0;

	if (be->fullconn) /* "fullconn", or its default once computed (srv_limits.c) */
		return be->fullconn;
	for (const struct proxy *fe = proxies; fe; fe = fe->next) {
		struct switching_rule *r;
		bool uses = (fe->cap & PR_CAP_FE) && (fe == be || fe->defbe == be);

		if (!(fe->cap & PR_CAP_FE))
			continue;
		list_for_each_entry(r, &fe->switching_rules, list)
			uses = uses || r->be == be;
		if (uses)
			sum += stat_fe_maxconn(fe);
	}
	return (int)((sum + 9) / 10);
}

static bool srv_is_up(const struct server *srv)
{
	return !(HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT) &&
	       HA_ATOMIC_LOAD_RLX(&srv->run_state) == SRV_RS_UP;
}

static const char *stat_srv_status(const struct server *srv)
{
	static const char *const st[] = { "UP", "DOWN", "NOLB" };
	int rs = HA_ATOMIC_LOAD_RLX(&srv->run_state);

	if (HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT)
		return "MAINT";
	if (rs == SRV_RS_RMAINT)
		return "MAINT (resolution)";
	if (HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FDRAIN) /* runtime API, agent */
		return "DRAIN";
	if (!(srv->flags & SRV_F_CHECK) ||
	    (rs == SRV_RS_UP && (HA_ATOMIC_LOAD_RLX(&srv->chk_adm) & SRV_CHK_HEALTH_OFF)))
		return "no check"; /* "disable health" (2.6: a DOWN server shows DOWN) */
	return st[rs >= 0 && rs <= SRV_RS_NOLB ? rs : 0];
}

/* The check fields of a server line: status, counters, last change, downtime. */
static void stat_fill_srv_check(struct stat_line *l, const struct server *srv)
{
	uint64_t last = HA_ATOMIC_LOAD_RLX(&srv->last_change), down;
	uint64_t now = th_ctx ? now_ms() : 0;

	if (last && now >= last)
		st_u64(l, ST_lastchg, (now - last) / 1000);
	if (!(srv->flags & SRV_F_CHECK))
		return;
	down = HA_ATOMIC_LOAD_RLX(&srv->down_time);
	if (HA_ATOMIC_LOAD_RLX(&srv->run_state) == SRV_RS_DOWN && last && now >= last)
		down += now - last;
	st_u64(l, ST_chkfail, HA_ATOMIC_LOAD_RLX(&srv->chk_fail));
	st_u64(l, ST_chkdown, HA_ATOMIC_LOAD_RLX(&srv->chk_down));
	st_u64(l, ST_downtime, down / 1000);
	st_str(l, ST_check_status, chk_result_str(HA_ATOMIC_LOAD_RLX(&srv->check_status)));
	if (HA_ATOMIC_LOAD_RLX(&srv->check_code))
		st_int(l, ST_check_code, HA_ATOMIC_LOAD_RLX(&srv->check_code));
	st_int(l, ST_check_duration, HA_ATOMIC_LOAD_RLX(&srv->check_duration));
	st_int(l, ST_check_rise, srv->rise);
	st_int(l, ST_check_fall, srv->fall);
	st_int(l, ST_check_health, srv->check ? HA_ATOMIC_LOAD_RLX(&srv->check->health) : 0);
}

static void stat_fill_fe(struct stat_line *l, const struct proxy *px)
{
	static const enum stat_col zeros[] = {
		ST_req_rate, ST_req_rate_max, ST_comp_in, ST_comp_out, ST_comp_byp, ST_comp_rsp,
		ST_cache_lookups, ST_cache_hits, ST_NCOLS,
	};
	struct fe_counters c;
	/* a session starts at each accepted connection: both rates are the same */
	uint32_t rate = freq_ctr_rate(&px->sess_rate, th_ctx ? now_ms() : 0);
	uint32_t rate_max = HA_ATOMIC_LOAD_RLX(&px->sess_rate_max);

	fe_counters_sum(px->fe_cnt, &c);
	st_common(l, px, "FRONTEND", stat_iid(px));
	st_zeros(l, zeros);
	st_u64(l, ST_rate, rate);
	st_int(l, ST_rate_lim, px->sess_rate_lim);
	st_u64(l, ST_rate_max, rate_max);
	st_u64(l, ST_conn_rate, rate);
	st_u64(l, ST_conn_rate_max, rate_max);
	st_int(l, ST_scur, HA_ATOMIC_LOAD_RLX(&px->feconn));
	st_int(l, ST_smax, HA_ATOMIC_LOAD_RLX(&px->feconn_max));
	st_int(l, ST_slim, stat_fe_maxconn(px));
	/* sessions are the connections that tcp-request connection and session rules let in */
	st_u64(l, ST_stot, c.cum_conn - c.denied_conn - c.denied_sess);
	st_u64(l, ST_dcon, c.denied_conn);
	st_u64(l, ST_dses, c.denied_sess);
	st_u64(l, ST_bin, c.bytes_in);
	st_u64(l, ST_bout, c.bytes_out);
	st_u64(l, ST_dreq, c.denied_req);
	st_u64(l, ST_dresp, c.denied_resp);
	st_u64(l, ST_ereq, c.failed_req);
	st_str(l, ST_status, HA_ATOMIC_LOAD_RLX(&px->adm_state) & PX_ADM_STOPPED ? "STOP" : "OPEN");
	st_str(l, ST_sid, "0");
	st_str(l, ST_type, "0");
	st_rsp(l, c.rsp);
	st_u64(l, ST_req_tot, c.cum_req);
	st_u64(l, ST_conn_tot, c.cum_conn);
	st_u64(l, ST_intercepted, c.intercepted);
	st_u64(l, ST_wrew, c.failed_rewrites);
	st_u64(l, ST_eint, c.internal_errors);
}

/* Fields servers and backends share, from their summed be_counters. <sess> is the
 * sessions (stot) of the line, <connect> and <reuse> its server connections. */
static void stat_fill_be_common(struct stat_line *l, const struct be_counters *c, uint64_t sess,
				uint64_t connect, uint64_t reuse)
{
	static const enum stat_col zeros[] = {
		ST_qmax, ST_rate, ST_rate_max, ST_qtime, ST_ctime, ST_rtime, ST_ttime,
		ST_qtime_max, ST_ctime_max, ST_rtime_max, ST_ttime_max, ST_NCOLS,
	};

	st_zeros(l, zeros);
	st_u64(l, ST_stot, sess);
	st_u64(l, ST_connect, connect);
	st_u64(l, ST_reuse, reuse);
	st_u64(l, ST_wrew, c->failed_rewrites);
	st_u64(l, ST_eint, c->internal_errors);
	st_u64(l, ST_cli_abrt, c->cli_aborts);
	st_u64(l, ST_srv_abrt, c->srv_aborts);
	st_u64(l, ST_bin, c->bytes_in);
	st_u64(l, ST_bout, c->bytes_out);
	st_u64(l, ST_dresp, c->denied_resp);
	st_u64(l, ST_econ, c->failed_conns);
	st_u64(l, ST_eresp, c->failed_resp);
	st_u64(l, ST_wretr, c->retries);
	st_u64(l, ST_wredis, c->redispatches);
	st_rsp(l, c->rsp);
	st_u64(l, ST_lastchg, cli_uptime_ms() / 1000);
	if (!sess)
		st_str(l, ST_lastsess, "-1"); /* the time of the last one is not kept yet */
}

/* A server's requests are the responses it gave. */
static uint64_t stat_srv_req_tot(const struct be_counters *c)
{
	uint64_t n = 0;

	for (int i = 0; i < 6; i++)
		n += c->rsp[i];
	return n;
}

static void stat_fill_srv(struct stat_line *l, const struct proxy *px, const struct server *srv)
{
	static const enum stat_col zeros[] = {
		ST_qcur, ST_srv_icur, ST_idle_conn_cur, ST_safe_conn_cur, ST_used_conn_cur,
		ST_need_conn_est, ST_NCOLS,
	};
	struct be_counters c;
	char addr[160];
	struct sockaddr_storage dyn;
	const struct sockaddr_storage *sa;

	be_counters_sum(srv->cnt, &c);
	st_common(l, px, srv->id, stat_iid(px));
	/* a server's sessions are the exchanges sent to it, each attempt counted */
	stat_fill_be_common(l, &c, c.connect + c.reuse, c.connect, c.reuse);
	st_u64(l, ST_req_tot, stat_srv_req_tot(&c));
	st_zeros(l, zeros);
	st_int(l, ST_scur, HA_ATOMIC_LOAD_RLX(&srv->cur_conns));
	st_int(l, ST_smax, HA_ATOMIC_LOAD_RLX(&srv->cur_conns_max));
	if (srv->maxconn)
		st_int(l, ST_slim, srv->maxconn);
	if (srv->maxqueue)
		st_int(l, ST_qlimit, srv->maxqueue);
	st_int(l, ST_qcur, HA_ATOMIC_LOAD_RLX(&srv->queued)); /* waiting for it (maxqueue) */
	st_str(l, ST_status, stat_srv_status(srv));
	st_int(l, ST_weight, HA_ATOMIC_LOAD_RLX(&srv->weight)); /* effective (server_weight.c) */
	st_int(l, ST_uweight, HA_ATOMIC_LOAD_RLX(&srv->uweight));
	st_str(l, ST_act, (srv->flags & SRV_F_BACKUP) ? "0" : "1");
	st_str(l, ST_bck, (srv->flags & SRV_F_BACKUP) ? "1" : "0");
	st_int(l, ST_sid, srv->puid);
	st_u64(l, ST_lbtot, c.cum_lbconn);
	st_str(l, ST_type, "2");
	sa = dns_srv_shown_addr(srv, &dyn);
	if (sa == &dyn || HA_ATOMIC_LOAD_RLX(&srv->run_state) != SRV_RS_RMAINT) /* else none */
		st_str(l, ST_addr, addr_to_str(sa, addr, sizeof(addr)));
	stat_fill_srv_check(l, srv);
}

static const char *stat_algo(const struct proxy *px)
{
	switch (px->lbalgo) {
	case LB_ALGO_LEASTCONN:
		return "leastconn";
	case LB_ALGO_RANDOM:
		return "random";
	case LB_ALGO_FIRST:
		return "first";
	case LB_ALGO_SOURCE:
		return "source";
	case LB_ALGO_URI:
		return "uri";
	case LB_ALGO_URL_PARAM:
		return "url_param";
	case LB_ALGO_HDR:
		return "hdr";
	case LB_ALGO_RDP_COOKIE:
		return "rdp-cookie";
	case LB_ALGO_HASH:
		return "hash";
	default:
		return "roundrobin";
	}
}

static void stat_fill_be(struct stat_line *l, const struct proxy *px)
{
	static const enum stat_col zeros[] = {
		ST_chkdown, ST_downtime, ST_comp_in, ST_comp_out, ST_comp_byp,
		ST_comp_rsp, ST_cache_lookups, ST_cache_hits, ST_agg_server_status,
		ST_agg_server_check_status, ST_agg_check_status, ST_NCOLS,
	};
	struct be_counters c;
	uint64_t lbtot = 0, qcur = 0, connect = 0, reuse = 0;
	int act = 0, bck = 0, wact = 0, wbck = 0;

	be_counters_sum(px->be_cnt, &c);
	for (const struct server *s = px->srv; s; s = s->next) {
		struct be_counters sc;

		be_counters_sum(s->cnt, &sc);
		lbtot += sc.cum_lbconn;
		connect += sc.connect;
		reuse += sc.reuse;
		if (!srv_is_up(s))
			continue;
		if (s->flags & SRV_F_BACKUP) {
			bck++;
			wbck += s->weight;
		} else {
			act++;
			wact += s->weight;
		}
	}
	for (int g = 0; px->queues && g < counters_ngroups; g++)
		qcur += (uint64_t)HA_ATOMIC_LOAD_RLX(&px->queues[g].len);
	st_common(l, px, "BACKEND", stat_iid(px));
	stat_fill_be_common(l, &c, c.cum_sess, connect, reuse);
	st_u64(l, ST_req_tot, c.cum_sess);
	st_u64(l, ST_dreq, c.denied_req);
	st_zeros(l, zeros);
	st_u64(l, ST_qcur, qcur);
	st_int(l, ST_qmax, HA_ATOMIC_LOAD_RLX(&px->queue_max));
	/* HAProxy counts the queued streams among the backend's */
	st_u64(l, ST_scur, (uint64_t)HA_ATOMIC_LOAD_RLX(&px->beconn) + qcur);
	st_int(l, ST_smax, HA_ATOMIC_LOAD_RLX(&px->beconn_max));
	st_int(l, ST_slim, stat_be_fullconn(px));
	st_str(l, ST_status, act || bck ? "UP" : "DOWN");
	st_int(l, ST_weight, act ? wact : wbck);
	st_int(l, ST_uweight, act ? wact : wbck);
	st_int(l, ST_act, act);
	st_int(l, ST_bck, bck);
	st_str(l, ST_sid, "0");
	st_u64(l, ST_lbtot, lbtot);
	st_str(l, ST_type, "1");
	st_str(l, ST_algo, stat_algo(px));
}

/* Writes one line: every field followed by ',', then the "-" marker. */
static int stat_emit(struct cli_ctx *ctx, const struct stat_line *l)
{
	char out[ST_NCOLS * 49 + 8];
	size_t len = 0;

	for (int i = 0; i < ST_NCOLS; i++) {
		size_t n = strlen(l->val[i]);

		memcpy(out + len, l->val[i], n);
		len += n;
		out[len++] = ',';
	}
	memcpy(out + len, "-,\n", 3);
	return cli_write(ctx, out, len + 3);
}

static int stat_emit_header(struct cli_ctx *ctx)
{
	char out[2048] = "# ";
	size_t len = 2;

	for (int i = 0; i < ST_NCOLS; i++) {
		size_t n = strlen(stat_names[i]);

		memcpy(out + len, stat_names[i], n);
		len += n;
	}
	memcpy(out + len, "-,\n", 3);
	return cli_write(ctx, out, len + 3);
}

/* Options: "up" shows only usable servers, "no-maint" hides servers in maintenance. */
static bool stat_srv_hidden(const struct cli_ctx *ctx, const struct server *srv)
{
	for (int i = 2; i < ctx->nargs; i++)
		if ((strcmp(ctx->args[i], "up") == 0 || strcmp(ctx->args[i], "no-maint") == 0) &&
		    !srv_is_up(srv))
			return true;
	return false;
}

/* States: st 0 header, 1 proxies; p[0] proxy, n[0] part (0 FE, 1 servers, 2 BE), p[1]
 * next server. */
static int stat_show(struct cli_ctx *ctx)
{
	struct stat_line l;

	for (int i = 2; i < ctx->nargs; i++) {
		if (strcmp(ctx->args[i], "typed") == 0 || strcmp(ctx->args[i], "json") == 0 ||
		    strcmp(ctx->args[i], "desc") == 0)
			return cli_printf(ctx, "'show stat %s' is not supported yet.\n",
					  ctx->args[i]) < 0 ? CLI_MORE : CLI_DONE;
	}
	if (ctx->st == 0) {
		if (stat_emit_header(ctx) < 0)
			return CLI_MORE;
		ctx->st = 1;
		ctx->p[0] = proxies;
	}
	while (ctx->p[0]) {
		const struct proxy *px = ctx->p[0];

		if (ctx->n[0] == 0) {
			if (px->cap & PR_CAP_FE) {
				stat_fill_fe(&l, px);
				if (stat_emit(ctx, &l) < 0)
					return CLI_MORE;
			}
			ctx->n[0] = 1;
			ctx->p[1] = (px->cap & PR_CAP_BE) ? px->srv : NULL;
		}
		for (; ctx->n[0] == 1 && ctx->p[1];
		     ctx->p[1] = ((const struct server *)ctx->p[1])->next) {
			const struct server *srv = ctx->p[1];

			if (stat_srv_hidden(ctx, srv))
				continue;
			stat_fill_srv(&l, px, srv);
			if (stat_emit(ctx, &l) < 0)
				return CLI_MORE;
		}
		if (px->cap & PR_CAP_BE) {
			stat_fill_be(&l, px);
			if (stat_emit(ctx, &l) < 0)
				return CLI_MORE;
		}
		ctx->n[0] = 0;
		ctx->p[0] = px->next;
	}
	return CLI_DONE;
}

static const struct cli_kw stat_kws[] = {
	{ { "show", "stat" }, "show stat [desc|json|no-maint|typed|up]*",
	  "report counters for each proxy and server", CLI_LVL_USER, stat_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(stat_kws)
