/* Fillers of the "show stat" lines: one line of typed fields per frontend, backend and
 * server, from the per-group counter blocks summed at read time and the process-wide
 * atomics. Fields HAProxy leaves empty for a line type stay empty; values of features
 * that do not exist yet are 0 where HAProxy prints a number. Any thread may call them.
 */
#include <stdbool.h>
#include <string.h>

#include <backend/queue-t.h>
#include <backend/server-t.h>
#include <base/addr.h>
#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <check/check-t.h>
#include <check/check.h>
#include <conn/listener-t.h>
#include <cli/cli.h>
#include <dns/dns_addr.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <stats/stat_text.h>
#include <stats/stat_time.h>
#include <stream/cookie.h>
#include <stats/stats.h>

/* Sets every column of <cols> (terminated by ST_NCOLS) to 0. */
static void st_zeros(struct stat_line *l, const enum stat_col *cols)
{
	for (; *cols != ST_NCOLS; cols++)
		STAT_NUM(l, *cols, 0);
}

/* Fields common to every line of proxy <px>: names, pid, iid, mode. */
static void st_common(struct stat_line *l, enum stat_obj obj, const struct proxy *px,
		      const char *svname, int sid)
{
	stat_line_reset(l);
	l->obj = obj;
	l->iid = stat_proxy_iid(px);
	l->sid = sid;
	STAT_STR(l, ST_pxname, px->id);
	STAT_STR(l, ST_svname, svname);
	STAT_NUM(l, ST_pid, 1);
	STAT_NUM(l, ST_iid, l->iid);
	STAT_NUM(l, ST_sid, sid);
	STAT_NUM(l, ST_type, obj);
	STAT_STR(l, ST_mode, px->mode == PR_MODE_HTTP ? "http" : "tcp");
}

/* Mode tcp: the HTTP columns are left empty, as HAProxy does (<cols> ends with
 * ST_NCOLS). */
static void st_blank(struct stat_line *l, const struct proxy *px, const enum stat_col *cols)
{
	if (px->mode == PR_MODE_HTTP)
		return;
	for (int i = ST_hrsp_1xx; i <= ST_hrsp_other; i++)
		l->f[i].type = SF_EMPTY;
	for (; *cols != ST_NCOLS; cols++)
		l->f[*cols].type = SF_EMPTY;
}

static void st_rsp(struct stat_line *l, const uint64_t *rsp)
{
	for (int i = 1; i <= 5; i++)
		STAT_NUM(l, ST_hrsp_1xx + i - 1, rsp[i]);
	STAT_NUM(l, ST_hrsp_other, rsp[0]);
}

int stat_proxy_iid(const struct proxy *px)
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
		list_for_each_entry(r, &fe->switching_rules, list) uses = uses || r->be == be;
		if (uses)
			sum += stat_fe_maxconn(fe);
	}
	return (int)((sum + 9) / 10);
}

bool stats_srv_is_up(const struct server *srv)
{
	return !(HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT) &&
	       HA_ATOMIC_LOAD_RLX(&srv->run_state) == SRV_RS_UP;
}

static const char *stat_srv_status(const struct server *srv)
{
	static const char *const st[] = { "UP", "DOWN", "NOLB" };
	int rs = HA_ATOMIC_LOAD_RLX(&srv->run_state);
	const struct server *ref = srv;

	int adm = HA_ATOMIC_LOAD_RLX(&srv->admin);

	if (adm & SRV_ADM_FMAINT) /* runtime API, stats page, "disabled" */
		return "MAINT";
	if (rs == SRV_RS_RMAINT)
		return "MAINT (resolution)";
	if (adm & SRV_ADM_FDRAIN) /* runtime API, stats page, agent */
		return "DRAIN";
	while (ref->track) /* a tracking server shows the state its checked one gives it */
		ref = ref->track;
	if (!(ref->flags & SRV_F_CHECK) ||
	    (rs == SRV_RS_UP && (HA_ATOMIC_LOAD_RLX(&ref->chk_adm) & SRV_CHK_HEALTH_OFF)))
		return "no check"; /* "disable health" (2.6: a DOWN server shows DOWN) */
	return st[rs >= 0 && rs <= SRV_RS_NOLB ? rs : 0];
}

/* A sampled rate maximum (stat_rates.c) is at least the current rate: a reader right after
 * the first requests must not see a maximum below the rate it shows. */
static uint32_t stat_rate_max(uint32_t max, uint32_t cur)
{
	return cur > max ? cur : max;
}

static uint64_t stat_now_ms(void)
{
	return th_ctx ? now_ms() : 0;
}

/* The check fields of a server line: status, counters, last change, downtime. */
static void stat_fill_srv_check(struct stat_line *l, const struct server *srv)
{
	uint64_t last = HA_ATOMIC_LOAD_RLX(&srv->last_change), down;
	uint64_t now = stat_now_ms();

	if (last && now >= last)
		STAT_NUM(l, ST_lastchg, (now - last) / 1000);
	if (!(srv->flags & SRV_F_CHECK))
		return;
	down = HA_ATOMIC_LOAD_RLX(&srv->down_time);
	if (HA_ATOMIC_LOAD_RLX(&srv->run_state) == SRV_RS_DOWN && last && now >= last)
		down += now - last;
	STAT_NUM(l, ST_chkfail, HA_ATOMIC_LOAD_RLX(&srv->chk_fail));
	STAT_NUM(l, ST_chkdown, HA_ATOMIC_LOAD_RLX(&srv->chk_down));
	STAT_NUM(l, ST_downtime, down / 1000);
	STAT_STR(l, ST_check_status, chk_result_str(HA_ATOMIC_LOAD_RLX(&srv->check_status)));
	STAT_STR(l, ST_check_desc, chk_result_desc(HA_ATOMIC_LOAD_RLX(&srv->check_status)));
	if (HA_ATOMIC_LOAD_RLX(&srv->check_code))
		STAT_NUM(l, ST_check_code, HA_ATOMIC_LOAD_RLX(&srv->check_code));
	STAT_NUM(l, ST_check_duration, HA_ATOMIC_LOAD_RLX(&srv->check_duration));
	STAT_NUM(l, ST_check_rise, srv->rise);
	STAT_NUM(l, ST_check_fall, srv->fall);
	STAT_NUM(l, ST_check_health, srv->check ? HA_ATOMIC_LOAD_RLX(&srv->check->health) : 0);
	stats_text_get(l->last_chk, srv->chk_desc, sizeof(l->last_chk));
	STAT_STR(l, ST_last_chk, l->last_chk);
}

/* The agent fields of a server line: its last reply's result and what it said. */
static void stat_fill_srv_agent(struct stat_line *l, const struct server *srv)
{
	int st = HA_ATOMIC_LOAD_RLX(&srv->agent_status);

	if (!srv->agent)
		return;
	stats_text_get(l->last_agt, srv->agt_desc, sizeof(l->last_agt));
	STAT_STR(l, ST_last_agt, l->last_agt);
	STAT_STR(l, ST_agent_status, chk_result_str(st));
	STAT_STR(l, ST_agent_desc, chk_result_desc(st));
	STAT_NUM(l, ST_agent_code, 0);
	STAT_NUM(l, ST_agent_duration, HA_ATOMIC_LOAD_RLX(&srv->agent_duration));
	STAT_NUM(l, ST_agent_rise, srv->rise); /* the agent moves with the server's rise/fall */
	STAT_NUM(l, ST_agent_fall, srv->fall);
	STAT_NUM(l, ST_agent_health, HA_ATOMIC_LOAD_RLX(&srv->agent_health));
}

void stats_fill_fe(struct stat_line *l, const struct proxy *px)
{
	static const enum stat_col zeros[] = {
		ST_req_rate,
		ST_req_rate_max,
		ST_NCOLS,
	};
	struct fe_counters c;
	int adm;
	/* a session starts at each accepted connection: both rates are the same */
	uint32_t rate = freq_ctr_rate(&px->sess_rate, stat_now_ms());
	uint32_t rate_max = HA_ATOMIC_LOAD_RLX(&px->sess_rate_max);

	fe_counters_sum(px->fe_cnt, &c);
	st_common(l, STAT_OBJ_FE, px, "FRONTEND", 0);
	st_zeros(l, zeros);
	STAT_NUM(l, ST_rate, rate);
	STAT_NUM(l, ST_rate_lim, px->sess_rate_lim);
	STAT_NUM(l, ST_rate_max, rate_max);
	STAT_NUM(l, ST_conn_rate, rate);
	STAT_NUM(l, ST_conn_rate_max, rate_max);
	STAT_NUM(l, ST_scur, HA_ATOMIC_LOAD_RLX(&px->feconn));
	STAT_NUM(l, ST_smax, HA_ATOMIC_LOAD_RLX(&px->feconn_max));
	STAT_NUM(l, ST_slim, stat_fe_maxconn(px));
	/* sessions are the connections that tcp-request connection and session rules let in */
	STAT_NUM(l, ST_stot, c.cum_conn - c.denied_conn - c.denied_sess - c.failed_pp);
	STAT_NUM(l, ST_dcon, c.denied_conn);
	STAT_NUM(l, ST_dses, c.denied_sess);
	STAT_NUM(l, ST_bin, c.bytes_in);
	STAT_NUM(l, ST_bout, c.bytes_out);
	STAT_NUM(l, ST_dreq, c.denied_req);
	STAT_NUM(l, ST_dresp, c.denied_resp);
	STAT_NUM(l, ST_ereq, c.failed_req);
	adm = HA_ATOMIC_LOAD_RLX(&px->adm_state); /* "disable frontend" shows PAUSED, as 2.6 */
	STAT_STR(l, ST_status,
		 (adm & PX_ADM_STOPPED)	 ? "STOP"
		 : (adm & PX_ADM_PAUSED) ? "PAUSED"
					 : "OPEN");
	st_rsp(l, c.rsp);
	STAT_NUM(l, ST_req_tot, c.cum_req);
	STAT_NUM(l, ST_req_rate, freq_ctr_rate(&px->req_rate, stat_now_ms()));
	STAT_NUM(l, ST_req_rate_max,
		 stat_rate_max(HA_ATOMIC_LOAD_RLX(&px->req_rate_max),
			       (uint32_t)stat_field_u64(&l->f[ST_req_rate])));
	STAT_NUM(l, ST_conn_tot, c.cum_conn);
	STAT_NUM(l, ST_intercepted, c.intercepted);
	STAT_NUM(l, ST_wrew, c.failed_rewrites);
	STAT_NUM(l, ST_eint, c.internal_errors);
	STAT_NUM(l, ST_comp_in, c.comp_in);
	STAT_NUM(l, ST_comp_out, c.comp_out);
	STAT_NUM(l, ST_comp_byp, c.comp_byp);
	STAT_NUM(l, ST_comp_rsp, c.comp_rsp);
	STAT_NUM(l, ST_cache_lookups, c.cache_lookups);
	STAT_NUM(l, ST_cache_hits, c.cache_hits);
	{
		static const enum stat_col http_only[] = { ST_cache_lookups, ST_cache_hits,
							   ST_intercepted, ST_NCOLS };

		st_blank(l, px, http_only);
	}
}

void stats_fill_li(struct stat_line *l, const struct proxy *px, const struct listener *li, int sid)
{
	static const enum stat_col zeros[] = {
		ST_smax, ST_slim, ST_bin,  ST_bout, ST_dreq, ST_dresp,
		ST_ereq, ST_dcon, ST_dses, ST_wrew, ST_eint, ST_NCOLS,
	};
	struct li_counters c;
	char addr[160];

	li_counters_sum(li->cnt, &c);
	st_common(l, STAT_OBJ_LI, px, "", sid);
	if (li->name)
		STAT_STR(l, ST_svname, li->name);
	else
		stat_set_fmt(l, stat_cols, ST_svname, "sock-%d", sid);
	st_zeros(l, zeros);
	STAT_NUM(l, ST_scur, HA_ATOMIC_LOAD_RLX(&li->nbconn));
	STAT_NUM(l, ST_stot, c.cum_conn);
	STAT_STR(l, ST_status, "OPEN");
	stat_set_fmt(l, stat_cols, ST_addr, "%s", addr_to_str(&li->addr, addr, sizeof(addr)));
}

/* Fields servers and backends share, from their summed be_counters. <sess> is the
 * sessions (stot) of the line, <connect> and <reuse> its server connections. */
static void stat_fill_be_common(struct stat_line *l, const struct be_counters *c, uint64_t sess,
				uint64_t connect, uint64_t reuse)
{
	static const enum stat_col zeros[] = { ST_qmax, ST_rate, ST_rate_max, ST_NCOLS };

	st_zeros(l, zeros);
	STAT_NUM(l, ST_stot, sess);
	STAT_NUM(l, ST_connect, connect);
	STAT_NUM(l, ST_reuse, reuse);
	STAT_NUM(l, ST_wrew, c->failed_rewrites);
	STAT_NUM(l, ST_eint, c->internal_errors);
	STAT_NUM(l, ST_cli_abrt, c->cli_aborts);
	STAT_NUM(l, ST_srv_abrt, c->srv_aborts);
	STAT_NUM(l, ST_bin, c->bytes_in);
	STAT_NUM(l, ST_bout, c->bytes_out);
	STAT_NUM(l, ST_dresp, c->denied_resp);
	STAT_NUM(l, ST_econ, c->failed_conns);
	STAT_NUM(l, ST_eresp, c->failed_resp);
	STAT_NUM(l, ST_wretr, c->retries);
	STAT_NUM(l, ST_wredis, c->redispatches);
	st_rsp(l, c->rsp);
	STAT_NUM(l, ST_lastchg, cli_uptime_ms() / 1000);
	if (!sess)
		STAT_NUM(l, ST_lastsess, -1); /* the time of the last one is not kept yet */
}

/* qtime..ttime (averages over the last 1024 exchanges, stats/stat_time.c) and their
 * maxima, from the timing totals <t> of the line. <a> is the line's averaging state: the
 * fillers take const objects, but the state is the averages' own, written under their
 * lock only. */
static void stat_fill_times(struct stat_line *l, const struct stat_tavg *a,
			    const struct be_counters *t)
{
	static const enum stat_col avg_col[STAT_T_NUM] = { ST_qtime, ST_ctime, ST_rtime, ST_ttime };
	static const enum stat_col max_col[STAT_T_NUM] = { ST_qtime_max, ST_ctime_max, ST_rtime_max,
							   ST_ttime_max };
	uint32_t avg[STAT_T_NUM];

	stats_time_read((struct stat_tavg *)a, t, avg);
	for (int i = 0; i < STAT_T_NUM; i++) {
		STAT_NUM(l, avg_col[i], avg[i]);
		STAT_NUM(l, max_col[i], t->t_max[i]);
	}
}

/* A server's requests are the responses it gave. */
static uint64_t stat_srv_req_tot(const struct be_counters *c)
{
	uint64_t n = 0;

	for (int i = 0; i < 6; i++)
		n += c->rsp[i];
	return n;
}

void stats_fill_srv(struct stat_line *l, const struct proxy *px, const struct server *srv)
{
	static const enum stat_col zeros[] = {
		ST_srv_icur,	  ST_idle_conn_cur, ST_safe_conn_cur,
		ST_used_conn_cur, ST_need_conn_est, ST_NCOLS,
	};
	struct be_counters c;
	char addr[160];
	struct sockaddr_storage dyn;
	const struct sockaddr_storage *sa;

	be_counters_sum(srv->cnt, &c);
	st_common(l, STAT_OBJ_SRV, px, srv->id, srv->puid);
	/* a server's sessions are the exchanges sent to it, each attempt counted */
	stat_fill_be_common(l, &c, c.connect + c.reuse - c.resent, c.connect, c.reuse);
	STAT_NUM(l, ST_req_tot, stat_srv_req_tot(&c));
	STAT_NUM(l, ST_rate, freq_ctr_rate(&srv->sess_rate, stat_now_ms()));
	STAT_NUM(l, ST_rate_max,
		 stat_rate_max(HA_ATOMIC_LOAD_RLX(&srv->sess_rate_max),
			       (uint32_t)stat_field_u64(&l->f[ST_rate])));
	st_zeros(l, zeros);
	STAT_NUM(l, ST_scur, HA_ATOMIC_LOAD_RLX(&srv->cur_conns));
	STAT_NUM(l, ST_smax, HA_ATOMIC_LOAD_RLX(&srv->cur_conns_max));
	if (srv->maxconn)
		STAT_NUM(l, ST_slim, srv->maxconn);
	if (srv->maxqueue)
		STAT_NUM(l, ST_qlimit, srv->maxqueue);
	STAT_NUM(l, ST_qcur, HA_ATOMIC_LOAD_RLX(&srv->queued)); /* waiting for it (maxqueue) */
	STAT_STR(l, ST_status, stat_srv_status(srv));
	STAT_NUM(l, ST_weight, HA_ATOMIC_LOAD_RLX(&srv->weight)); /* effective (server_weight.c) */
	STAT_NUM(l, ST_uweight, HA_ATOMIC_LOAD_RLX(&srv->uweight));
	STAT_NUM(l, ST_act, (srv->flags & SRV_F_BACKUP) ? 0 : 1);
	STAT_NUM(l, ST_bck, (srv->flags & SRV_F_BACKUP) ? 1 : 0);
	STAT_NUM(l, ST_lbtot, c.cum_lbconn);
	stat_fill_times(l, &srv->tavg, &c);
	sa = dns_srv_shown_addr(srv, &dyn);
	if (sa == &dyn || HA_ATOMIC_LOAD_RLX(&srv->run_state) != SRV_RS_RMAINT) /* else none */
		stat_set_fmt(l, stat_cols, ST_addr, "%s", addr_to_str(sa, addr, sizeof(addr)));
	if (srv->cookie)
		STAT_STR(l, ST_cookie, srv->cookie);
	if (srv->track && srv->track->px)
		stat_set_fmt(l, stat_cols, ST_tracked, "%s/%s", srv->track->px->id, srv->track->id);
	stat_fill_srv_check(l, srv);
	stat_fill_srv_agent(l, srv);
	{
		static const enum stat_col http_only[] = { ST_req_tot, ST_NCOLS };

		st_blank(l, px, http_only);
	}
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

/* Totals a backend line takes from its servers. */
struct stat_be_srv_sum {
	uint64_t lbtot, connect, reuse;
	int act, bck, wact, wbck;
};

static void stat_be_sum_servers(const struct proxy *px, struct stat_be_srv_sum *t)
{
	memset(t, 0, sizeof(*t));
	for (const struct server *s = px->srv; s; s = s->next) {
		struct be_counters sc;

		be_counters_sum(s->cnt, &sc);
		t->lbtot += sc.cum_lbconn;
		t->connect += sc.connect;
		t->reuse += sc.reuse;
		if (!stats_srv_is_up(s) || !HA_ATOMIC_LOAD_RLX(&s->weight))
			continue; /* 2.6 counts the servers that take traffic */
		if (s->flags & SRV_F_BACKUP) {
			t->bck++;
			t->wbck += s->weight;
		} else {
			t->act++;
			t->wact += s->weight;
		}
	}
}

void stats_fill_be(struct stat_line *l, const struct proxy *px)
{
	static const enum stat_col zeros[] = {
		ST_chkdown,	     ST_downtime, ST_agg_server_status, ST_agg_server_check_status,
		ST_agg_check_status, ST_NCOLS,
	};
	struct be_counters c, times;
	struct stat_be_srv_sum t;
	uint64_t qcur = 0;

	be_counters_sum(px->be_cnt, &c);
	stat_be_sum_servers(px, &t);
	for (int g = 0; px->queues && g < counters_ngroups; g++)
		qcur += (uint64_t)HA_ATOMIC_LOAD_RLX(&px->queues[g].len);
	st_common(l, STAT_OBJ_BE, px, "BACKEND", 0);
	stat_fill_be_common(l, &c, c.cum_sess, t.connect, t.reuse);
	STAT_NUM(l, ST_req_tot, c.cum_sess);
	STAT_NUM(l, ST_rate, freq_ctr_rate(&px->be_sess_rate, stat_now_ms()));
	STAT_NUM(l, ST_rate_max,
		 stat_rate_max(HA_ATOMIC_LOAD_RLX(&px->be_sess_rate_max),
			       (uint32_t)stat_field_u64(&l->f[ST_rate])));
	STAT_NUM(l, ST_dreq, c.denied_req);
	st_zeros(l, zeros);
	STAT_NUM(l, ST_comp_in, c.comp_in);
	STAT_NUM(l, ST_comp_out, c.comp_out);
	STAT_NUM(l, ST_comp_byp, c.comp_byp);
	STAT_NUM(l, ST_comp_rsp, c.comp_rsp);
	STAT_NUM(l, ST_cache_lookups, c.cache_lookups);
	STAT_NUM(l, ST_cache_hits, c.cache_hits);
	STAT_NUM(l, ST_qcur, qcur);
	STAT_NUM(l, ST_qmax, HA_ATOMIC_LOAD_RLX(&px->queue_max));
	/* HAProxy counts the queued streams among the backend's */
	STAT_NUM(l, ST_scur, (uint64_t)HA_ATOMIC_LOAD_RLX(&px->beconn) + qcur);
	STAT_NUM(l, ST_smax, HA_ATOMIC_LOAD_RLX(&px->beconn_max));
	STAT_NUM(l, ST_slim, stat_be_fullconn(px));
	/* 2.6: UP while the servers have weight, or when it has none at all */
	STAT_STR(l, ST_status, !px->srv || t.wact || t.wbck ? "UP" : "DOWN");
	STAT_NUM(l, ST_weight, t.act ? t.wact : t.wbck);
	STAT_NUM(l, ST_uweight, t.act ? t.wact : t.wbck);
	STAT_NUM(l, ST_act, t.act);
	STAT_NUM(l, ST_bck, t.bck);
	STAT_NUM(l, ST_lbtot, t.lbtot);
	STAT_STR(l, ST_algo, stat_algo(px));
	if (cookie_name(px))
		STAT_STR(l, ST_cookie, cookie_name(px));
	stats_time_be_totals(px, &times);
	stat_fill_times(l, &px->tavg, &times);
	/* HAProxy tags these as gauges on backend lines */
	stat_set_tags(l, ST_act, "MGP");
	stat_set_tags(l, ST_bck, "MGP");
	stat_set_tags(l, ST_rate, "MGP");
	stat_set_tags(l, ST_rate_max, "MGP");
	{
		static const enum stat_col http_only[] = { ST_req_tot, ST_cache_lookups,
							   ST_cache_hits, ST_NCOLS };

		st_blank(l, px, http_only);
	}
}
