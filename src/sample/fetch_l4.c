/* Fetches of the connections under a stream: client and server addresses and ports (src,
 * dst, fc_*, bc_*), whether they are local, the listening socket (so_id, so_name,
 * dst_conn) and the kernel's TCP state (fc_rtt...). The TLS fetches are ssl/ssl_sample.c's.
 */
#include <string.h>

#include <conn/conn_addr.h>
#include <conn/connection-t.h>
#include <conn/listener-t.h>
#include <proxy/proxy-t.h>

#include "fetch_int.h"

/* The connection a fetch reads: the client one, or the server one when <back>. */
static struct conn *l4_conn(const struct sample *smp, bool back)
{
	const struct stream *s = smp->ctx->strm;

	if (!back)
		return smp->ctx->conn;
	return s ? s->back : NULL;
}

static int smp_set_addr(struct sample *smp, const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		smp->data.type = SMP_T_IPV4;
		smp->data.u.ipv4 = ((const struct sockaddr_in *)sa)->sin_addr;
		return 1;
	}
	if (sa->sa_family == AF_INET6) {
		smp->data.type = SMP_T_IPV6;
		smp->data.u.ipv6 = ((const struct sockaddr_in6 *)sa)->sin6_addr;
		return 1;
	}
	return 0;
}

static int sa_port(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return -1;
}

#define L4_BACK 0x1  /* the server connection */
#define L4_LOCAL 0x2 /* its own end (getsockname) rather than the peer */
#define L4_PORT 0x4  /* the port rather than the address */
#define L4_ISLOC 0x8 /* whether the address belongs to this host */

/* The address the fetch names: client side src is the peer and dst the local end; on the
 * server side, bc_src is the local end and bc_dst the peer. */
static const struct sockaddr *l4_addr(struct sample *smp, int priv)
{
	struct conn *c = l4_conn(smp, priv & L4_BACK);

	if (!c)
		return NULL;
	if (priv & L4_LOCAL)
		return conn_local_addr(c);
	return (const struct sockaddr *)&c->peer;
}

/* src, dst, fc_src, bc_dst..., their ports and src_is_local, dst_is_local */
static int smp_fetch_l4addr(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	const struct sockaddr *sa = l4_addr(smp, kw->private);
	int port;

	if (!sa)
		return 0;
	if (kw->private & L4_PORT) {
		port = sa_port(sa);
		return port < 0 ? 0 : smp_set_int(smp, port);
	}
	if (kw->private & L4_ISLOC) {
		if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
			return 0;
		return smp_set_bool(smp, addr_is_local(sa));
	}
	return smp_set_addr(smp, sa);
}

/* dst_conn: connections currently established on the listener, this one included */
static int smp_fetch_dst_conn(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;

	if (!c || !c->li)
		return 0;
	return smp_set_int(smp, __atomic_load_n(&c->li->nbconn, __ATOMIC_RELAXED));
}

/* so_id: the listener's id, its position among the frontend's listeners (from 1), as
 * HAProxy numbers them without an "id" option */
static int smp_fetch_so_id(const struct arg *args, struct sample *smp,
			   const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;
	const struct list *binds, *b, *l;
	int n = 0;

	if (!c || !c->li)
		return 0;
	binds = &c->li->bind->px->binds;
	for (b = binds->next; b != binds; b = b->next) {
		const struct bind_conf *bc = list_elem(b, struct bind_conf, list);

		for (l = bc->listeners.next; l != &bc->listeners; l = l->next) {
			n++;
			if (list_elem(l, struct listener, list) == c->li)
				return smp_set_int(smp, n);
		}
	}
	return 0;
}

/* so_name: the "name" of the bind line */
static int smp_fetch_so_name(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;

	if (!c || !c->li || !c->li->name)
		return 0;
	return smp_set_str(smp, ist_str(c->li->name));
}

/* fc_http_major, bc_http_major: 1, both sides speak HTTP/1 */
static int smp_fetch_http_major(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	return l4_conn(smp, kw->private) ? smp_set_int(smp, 1) : 0;
}

/* fc_err, bc_err: no connection error is reported while a stream runs on it */
static int smp_fetch_conn_err(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	return l4_conn(smp, kw->private & 1) ? smp_set_int(smp, 0) : 0;
}

/* fc_err_str, bc_err_str: HAProxy 2.6 names the absence of error "Success" */
static int smp_fetch_conn_err_str(const struct arg *args, struct sample *smp,
				  const struct sample_fetch *kw)
{
	return l4_conn(smp, kw->private & 1) ? smp_set_str(smp, IST("Success")) : 0;
}

enum tcpi_field {
	TI_RTT = 0,
	TI_RTTVAR,
	TI_UNACKED,
	TI_SACKED,
	TI_RETRANS,
	TI_FACKETS,
	TI_LOST,
	TI_REORDERING,
};

/* fc_rtt([unit]) and the other TCP_INFO counters of the client connection; the two
 * times are in milliseconds, or microseconds with "us" */
static int smp_fetch_tcpi(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;
	struct tcp_info ti;
	long long v;
	bool us = args && args[0].type == ARGT_STR && !strcmp(args[0].data.str.ptr, "us");

	if (!c || conn_tcp_info(c, &ti) < 0)
		return 0;
	switch (kw->private) {
	case TI_RTT:
		v = us ? ti.tcpi_rtt : ti.tcpi_rtt / 1000;
		break;
	case TI_RTTVAR:
		v = us ? ti.tcpi_rttvar : ti.tcpi_rttvar / 1000;
		break;
	case TI_UNACKED:
		v = ti.tcpi_unacked;
		break;
	case TI_SACKED:
		v = ti.tcpi_sacked;
		break;
	case TI_RETRANS:
		v = ti.tcpi_retrans;
		break;
	case TI_FACKETS:
		v = ti.tcpi_fackets;
		break;
	case TI_LOST:
		v = ti.tcpi_lost;
		break;
	default:
		v = ti.tcpi_reordering;
		break;
	}
	return smp_set_int(smp, v);
}

/* The unit of fc_rtt and fc_rttvar: "ms" or "us". */
static int val_time_unit(struct arg *args, void *private, char *err, size_t errsz)
{
	if (!args || args[0].type != ARGT_STR)
		return 0;
	if (!strcmp(args[0].data.str.ptr, "ms") || !strcmp(args[0].data.str.ptr, "us"))
		return 0;
	snprintf(err, errsz, "fetch argument: unknown unit '%s', expects 'ms' or 'us'",
		 args[0].data.str.ptr);
	return -1;
}

/* clang-format off */
#define CLI SMP_USE_L4CLI
#define SRV SMP_USE_SERVR
#define A_UNIT { ARGT_STR }

static const struct sample_fetch l4_fetches[] = {
	{ "src", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_IPV4, CLI, 0 },
	{ "src_port", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_SINT, CLI, L4_PORT },
	{ "src_is_local", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_BOOL, CLI, L4_ISLOC },
	{ "dst", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_IPV4, CLI, L4_LOCAL },
	{ "dst_port", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_SINT, CLI, L4_LOCAL | L4_PORT },
	{ "dst_is_local", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_BOOL, CLI, L4_LOCAL | L4_ISLOC },
	{ "fc_src", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_IPV4, CLI, 0 },
	{ "fc_src_port", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_SINT, CLI, L4_PORT },
	{ "fc_src_is_local", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_BOOL, CLI, L4_ISLOC },
	{ "fc_dst", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_IPV4, CLI, L4_LOCAL },
	{ "fc_dst_port", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_SINT, CLI, L4_LOCAL | L4_PORT },
	{ "fc_dst_is_local", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_BOOL, CLI,
	  L4_LOCAL | L4_ISLOC },
	{ "bc_src", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_IPV4, SRV, L4_BACK | L4_LOCAL },
	{ "bc_src_port", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_SINT, SRV,
	  L4_BACK | L4_LOCAL | L4_PORT },
	{ "bc_dst", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_IPV4, SRV, L4_BACK },
	{ "bc_dst_port", smp_fetch_l4addr, 0, { 0 }, NULL, SMP_T_SINT, SRV, L4_BACK | L4_PORT },
	{ "dst_conn", smp_fetch_dst_conn, 0, { 0 }, NULL, SMP_T_SINT, CLI, 0 },
	{ "so_id", smp_fetch_so_id, 0, { 0 }, NULL, SMP_T_SINT, CLI, 0 },
	{ "so_name", smp_fetch_so_name, 0, { 0 }, NULL, SMP_T_STR, CLI, 0 },
	{ "fc_http_major", smp_fetch_http_major, 0, { 0 }, NULL, SMP_T_SINT, CLI, 0 },
	{ "bc_http_major", smp_fetch_http_major, 0, { 0 }, NULL, SMP_T_SINT, SRV, 1 },
	{ "fc_err", smp_fetch_conn_err, 0, { 0 }, NULL, SMP_T_SINT, CLI, 0 },
	{ "bc_err", smp_fetch_conn_err, 0, { 0 }, NULL, SMP_T_SINT, SRV, 1 },
	{ "fc_err_str", smp_fetch_conn_err_str, 0, { 0 }, NULL, SMP_T_STR, CLI, 0 },
	{ "bc_err_str", smp_fetch_conn_err_str, 0, { 0 }, NULL, SMP_T_STR, SRV, 1 },
	{ "fc_rtt", smp_fetch_tcpi, 0, A_UNIT, val_time_unit, SMP_T_SINT, CLI, TI_RTT },
	{ "fc_rttvar", smp_fetch_tcpi, 0, A_UNIT, val_time_unit, SMP_T_SINT, CLI, TI_RTTVAR },
	{ "fc_unacked", smp_fetch_tcpi, 0, A_UNIT, NULL, SMP_T_SINT, CLI, TI_UNACKED },
	{ "fc_sacked", smp_fetch_tcpi, 0, A_UNIT, NULL, SMP_T_SINT, CLI, TI_SACKED },
	{ "fc_retrans", smp_fetch_tcpi, 0, A_UNIT, NULL, SMP_T_SINT, CLI, TI_RETRANS },
	{ "fc_fackets", smp_fetch_tcpi, 0, A_UNIT, NULL, SMP_T_SINT, CLI, TI_FACKETS },
	{ "fc_lost", smp_fetch_tcpi, 0, A_UNIT, NULL, SMP_T_SINT, CLI, TI_LOST },
	{ "fc_reordering", smp_fetch_tcpi, 0, A_UNIT, NULL, SMP_T_SINT, CLI, TI_REORDERING },

	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(l4_fetches)
/* clang-format on */
