/* Fetches of proxies and servers: names and ids of the stream's frontend, backend and
 * server, their timeouts, and the live counters of any proxy or server named in argument
 * (connections, free slots, queues, session and request rates, server state and weight).
 * They read the counters the proxy and backend layers keep; nothing is written here.
 */
#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <backend/queue-t.h>
#include <backend/server-t.h>
#include <base/tinfo.h>
#include <conn/connection-t.h>
#include <event/loop.h>
#include <proxy/proxy.h>

#include "fetch_int.h"

/* The frontend of the sample: the stream's, or the connection's before a stream exists. */
static const struct proxy *smp_fe(const struct sample *smp)
{
	const struct stream *s = smp->ctx->strm;

	if (s && s->fe)
		return s->fe;
	return smp->ctx->conn ? smp->ctx->conn->px : NULL;
}

/* The backend of the stream; before it is chosen, the frontend when it is a listen
 * section (HAProxy starts a stream on its own frontend). */
static const struct proxy *smp_be(const struct sample *smp)
{
	const struct stream *s = smp->ctx->strm;

	if (s && s->be)
		return s->be;
	if (s && s->fe && (s->fe->cap & PR_CAP_BE))
		return s->fe;
	return NULL;
}

/* The proxy named in argument, else the rule's own proxy (with the capability asked for),
 * else the stream's. */
static const struct proxy *arg_px(const struct arg *args, const struct sample *smp, bool be)
{
	const struct proxy *px = smp->ctx->px;

	if (args && (args[0].type == ARGT_BE || args[0].type == ARGT_FE) && !args[0].unresolved)
		return args[0].data.px;
	if (px && (px->cap & (be ? PR_CAP_BE : PR_CAP_FE)))
		return px;
	return be ? smp_be(smp) : smp_fe(smp);
}

static const struct server *arg_srv(const struct arg *args)
{
	if (!args || args[0].type != ARGT_SRV || args[0].unresolved)
		return NULL;
	return args[0].data.srv;
}

/* HAProxy's id of a proxy: its position in the configuration after the runtime API's. */
static int px_id(const struct proxy *px)
{
	int n = proxy_first_id;

	for (const struct proxy *p = proxies; p && p != px; p = p->next)
		n++;
	return n;
}

/* fe_name, fe_id */
static int smp_fetch_fe(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct proxy *fe = smp_fe(smp);

	if (!fe)
		return 0;
	return kw->private ? smp_set_int(smp, px_id(fe)) : smp_set_str(smp, ist_str(fe->id));
}

/* be_name, be_id */
static int smp_fetch_be(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct proxy *be = smp_be(smp);

	if (!be)
		return 0;
	return kw->private ? smp_set_int(smp, px_id(be)) : smp_set_str(smp, ist_str(be->id));
}

/* srv_name, srv_id: the server the stream was sent to */
static int smp_fetch_srv(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;

	if (!s || !s->srv)
		return 0;
	return kw->private ? smp_set_int(smp, s->srv->puid) : smp_set_str(smp, ist_str(s->srv->id));
}

/* fe_defbe: the frontend's default_backend */
static int smp_fetch_fe_defbe(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	const struct proxy *fe = smp_fe(smp);

	if (!fe || !fe->defbe)
		return 0;
	return smp_set_str(smp, ist_str(fe->defbe->id));
}

/* fe_client_timeout, be_server_timeout (private 1), be_tunnel_timeout (2): ms */
static int smp_fetch_timeout(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	const struct proxy *px = kw->private ? smp_be(smp) : smp_fe(smp);

	if (!px)
		return 0;
	return smp_set_int(smp, kw->private == 0   ? px->timeout.client
				: kw->private == 1 ? px->timeout.server
						   : px->timeout.tunnel);
}

/* cur_server_timeout, cur_tunnel_timeout (private 1): the timeouts applied to the stream,
 * its backend's once it was sent to a server, 0 before (as HAProxy, which sets them when
 * the server connection starts) */
static int smp_fetch_cur_timeout(const struct arg *args, struct sample *smp,
				 const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;

	if (!s)
		return 0;
	if (!s->srv || !s->be)
		return smp_set_int(smp, 0);
	return smp_set_int(smp, kw->private ? s->be->timeout.tunnel : s->be->timeout.server);
}

/* A server takes traffic: not in maintenance and with a weight (no health checks yet). */
static bool srv_usable(const struct server *srv)
{
	return !(HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT) && srv->weight > 0;
}

/* HAProxy's usable servers of a backend: the active ones, or when none is, one backup
 * (the first one takes all the traffic). */
int fetch_be_usable(const struct proxy *be)
{
	int act = 0, bck = 0;

	for (const struct server *srv = be->srv; srv; srv = srv->next) {
		if (!srv_usable(srv))
			continue;
		if (srv->flags & SRV_F_BACKUP)
			bck++;
		else
			act++;
	}
	return act ? act : bck ? 1 : 0;
}

static int be_queued(const struct proxy *be)
{
	int n = 0;

	if (!be->queues)
		return 0;
	for (int g = 0; g < MAX_TGROUPS; g++)
		n += HA_ATOMIC_LOAD_RLX(&be->queues[g].len);
	return n;
}

static uint64_t smp_now_ms(void)
{
	return th_ctx ? now_ms() : 0;
}

enum px_counter {
	PXC_NBSRV = 0,
	PXC_BE_CONN,
	PXC_BE_CONN_FREE,
	PXC_BE_SESS_RATE,
	PXC_CONNSLOTS,
	PXC_QUEUE,
	PXC_AVG_QUEUE,
	PXC_FE_CONN,
	PXC_FE_REQ_RATE,
	PXC_FE_SESS_RATE,
};

/* be_conn_free: free slots over the servers that take traffic; -1 when one of them has
 * no maxconn. */
static long long be_conn_free(const struct proxy *be)
{
	bool any_act = false;
	long long n = 0;

	for (const struct server *srv = be->srv; srv; srv = srv->next)
		if (srv_usable(srv) && !(srv->flags & SRV_F_BACKUP))
			any_act = true;
	for (const struct server *srv = be->srv; srv; srv = srv->next) {
		int cur;

		if (!srv_usable(srv) || !!(srv->flags & SRV_F_BACKUP) == any_act)
			continue;
		if (!srv->maxconn)
			return -1;
		cur = HA_ATOMIC_LOAD_RLX(&srv->cur_conns);
		if (srv->maxconn > cur)
			n += srv->maxconn - cur;
		if (!any_act)
			break; /* only the first backup */
	}
	return n;
}

/* connslots: HAProxy adds (maxconn - in use) + (maxqueue - queued) over the servers not
 * in maintenance, and answers -1 as soon as one has no maxconn or no maxqueue. */
static long long be_connslots(const struct proxy *be)
{
	long long n = 0;

	for (const struct server *srv = be->srv; srv; srv = srv->next) {
		if (HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT)
			continue;
		if (!srv->maxconn || !srv->maxqueue)
			return -1;
		n += srv->maxconn - HA_ATOMIC_LOAD_RLX(&srv->cur_conns);
		n += srv->maxqueue - HA_ATOMIC_LOAD_RLX(&srv->queued);
	}
	return n;
}

/* nbsrv, be_conn, be_conn_free, be_sess_rate, connslots, queue, avg_queue ([backend]),
 * fe_conn, fe_req_rate, fe_sess_rate ([frontend]) */
static int smp_fetch_px_counter(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	bool be_side = kw->private < PXC_FE_CONN;
	const struct proxy *px = arg_px(args, smp, be_side);
	int nb;

	if (!px)
		return 0;
	switch (kw->private) {
	case PXC_NBSRV:
		return smp_set_int(smp, fetch_be_usable(px));
	case PXC_BE_CONN:
		return smp_set_int(smp, HA_ATOMIC_LOAD_RLX(&px->beconn));
	case PXC_BE_CONN_FREE:
		return smp_set_int(smp, be_conn_free(px));
	case PXC_BE_SESS_RATE:
		return smp_set_int(smp, freq_ctr_rate(&px->be_sess_rate, smp_now_ms()));
	case PXC_CONNSLOTS:
		return smp_set_int(smp, be_connslots(px));
	case PXC_QUEUE:
		return smp_set_int(smp, be_queued(px));
	case PXC_AVG_QUEUE:
		nb = fetch_be_usable(px);
		return smp_set_int(smp, nb ? (be_queued(px) + nb - 1) / nb : be_queued(px) * 2);
	case PXC_FE_CONN:
		return smp_set_int(smp, HA_ATOMIC_LOAD_RLX(&px->feconn));
	case PXC_FE_REQ_RATE:
		return smp_set_int(smp, freq_ctr_rate(&px->req_rate, smp_now_ms()));
	default:
		return smp_set_int(smp, freq_ctr_rate(&px->sess_rate, smp_now_ms()));
	}
}

enum srv_counter {
	SRVC_IS_UP = 0,
	SRVC_CONN,
	SRVC_CONN_FREE,
	SRVC_QUEUE,
	SRVC_SESS_RATE,
	SRVC_WEIGHT,
};

/* srv_is_up, srv_conn, srv_conn_free, srv_queue, srv_sess_rate, srv_*weight (server) */
static int smp_fetch_srv_counter(const struct arg *args, struct sample *smp,
				 const struct sample_fetch *kw)
{
	const struct server *srv = arg_srv(args);
	int cur;

	if (!srv)
		return 0;
	cur = HA_ATOMIC_LOAD_RLX(&srv->cur_conns);
	switch (kw->private) {
	case SRVC_IS_UP:
		return smp_set_bool(smp, !(HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT));
	case SRVC_CONN:
		return smp_set_int(smp, cur);
	case SRVC_CONN_FREE:
		if (!srv->maxconn)
			return smp_set_int(smp, -1);
		return smp_set_int(smp, srv->maxconn > cur ? srv->maxconn - cur : 0);
	case SRVC_QUEUE:
		/* the streams waiting for this server (its qcur in "show stat") */
		return smp_set_int(smp, HA_ATOMIC_LOAD_RLX(&srv->queued));
	case SRVC_SESS_RATE:
		return smp_set_int(smp, freq_ctr_rate(&srv->sess_rate, smp_now_ms()));
	default: /* the configured weight, maintenance or not */
		return smp_set_int(smp, srv->weight);
	}
}

/* clang-format off */
#define A_BE { ARGT_BE }
#define A_FE { ARGT_FE }
#define A_SRV { ARGT_SRV }
#define FE SMP_USE_L4CLI
#define BE SMP_USE_BKEND
#define PXC(kw, args, c) { kw, smp_fetch_px_counter, 0, args, NULL, SMP_T_SINT, SMP_USE_INTRN, c }
#define SRVC(kw, t, c) { kw, smp_fetch_srv_counter, 1, A_SRV, NULL, t, SMP_USE_INTRN, c }

static const struct sample_fetch px_fetches[] = {
	{ "fe_name", smp_fetch_fe, 0, { 0 }, NULL, SMP_T_STR, FE, 0 },
	{ "fe_id", smp_fetch_fe, 0, { 0 }, NULL, SMP_T_SINT, FE, 1 },
	{ "fe_defbe", smp_fetch_fe_defbe, 0, { 0 }, NULL, SMP_T_STR, FE, 0 },
	{ "fe_client_timeout", smp_fetch_timeout, 0, { 0 }, NULL, SMP_T_SINT, FE, 0 },
	{ "be_name", smp_fetch_be, 0, { 0 }, NULL, SMP_T_STR, BE, 0 },
	{ "be_id", smp_fetch_be, 0, { 0 }, NULL, SMP_T_SINT, BE, 1 },
	{ "be_server_timeout", smp_fetch_timeout, 0, { 0 }, NULL, SMP_T_SINT, BE, 1 },
	{ "be_tunnel_timeout", smp_fetch_timeout, 0, { 0 }, NULL, SMP_T_SINT, BE, 2 },
	{ "cur_server_timeout", smp_fetch_cur_timeout, 0, { 0 }, NULL, SMP_T_SINT, BE, 0 },
	{ "cur_tunnel_timeout", smp_fetch_cur_timeout, 0, { 0 }, NULL, SMP_T_SINT, BE, 1 },
	{ "srv_name", smp_fetch_srv, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_SERVR, 0 },
	{ "srv_id", smp_fetch_srv, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_SERVR, 1 },
	PXC("nbsrv", A_BE, PXC_NBSRV),
	PXC("be_conn", A_BE, PXC_BE_CONN),
	PXC("be_conn_free", A_BE, PXC_BE_CONN_FREE),
	PXC("be_sess_rate", A_BE, PXC_BE_SESS_RATE),
	PXC("connslots", A_BE, PXC_CONNSLOTS),
	PXC("queue", A_BE, PXC_QUEUE),
	PXC("avg_queue", A_BE, PXC_AVG_QUEUE),
	PXC("fe_conn", A_FE, PXC_FE_CONN),
	PXC("fe_req_rate", A_FE, PXC_FE_REQ_RATE),
	PXC("fe_sess_rate", A_FE, PXC_FE_SESS_RATE),
	SRVC("srv_is_up", SMP_T_BOOL, SRVC_IS_UP),
	SRVC("srv_conn", SMP_T_SINT, SRVC_CONN),
	SRVC("srv_conn_free", SMP_T_SINT, SRVC_CONN_FREE),
	SRVC("srv_queue", SMP_T_SINT, SRVC_QUEUE),
	SRVC("srv_sess_rate", SMP_T_SINT, SRVC_SESS_RATE),
	SRVC("srv_weight", SMP_T_SINT, SRVC_WEIGHT),
	SRVC("srv_iweight", SMP_T_SINT, SRVC_WEIGHT),
	SRVC("srv_uweight", SMP_T_SINT, SRVC_WEIGHT),
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(px_fetches)
/* clang-format on */
