/* Stand-ins for "src" and "req.len" while the fetch branch (i7-fetch) has not landed: the
 * stick table and TCP rule tests need them. They register before every other keyword
 * table (constructor priority), so the real fetches, registered later, are found first and
 * these are then never used. Delete this file when i7-fetch is merged.
 */
#include <arpa/inet.h>
#include <conn/connection-t.h>
#include <sample/sample.h>

/* src: the client's address (IPv4 or IPv6). */
static int smp_fetch_src_tmp(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;

	if (!c)
		return 0;
	if (c->peer.ss_family == AF_INET) {
		smp->data.type = SMP_T_IPV4;
		smp->data.u.ipv4 = ((const struct sockaddr_in *)&c->peer)->sin_addr;
		return 1;
	}
	if (c->peer.ss_family == AF_INET6) {
		smp->data.type = SMP_T_IPV6;
		smp->data.u.ipv6 = ((const struct sockaddr_in6 *)&c->peer)->sin6_addr;
		return 1;
	}
	return 0;
}

/* req.len: bytes of the request in the buffer; more may come. */
static int smp_fetch_req_len_tmp(const struct arg *args, struct sample *smp,
				 const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;

	if (!c)
		return 0;
	smp->data.type = SMP_T_SINT;
	smp->data.u.sint = c->ibuf.data;
	smp->flags |= SMP_F_MAY_CHANGE;
	return 1;
}

static const struct sample_fetch tmp_l4_fetches[] = {
	{ "src", smp_fetch_src_tmp, 0, { 0 }, NULL, SMP_T_IPV4, SMP_USE_L4CLI, 0 },
	{ "req.len", smp_fetch_req_len_tmp, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6REQ, 0 },
	{ "req_len", smp_fetch_req_len_tmp, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6REQ, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

static struct sample_fetch_kw_list tmp_l4_fetches_list = { NULL, tmp_l4_fetches };

__attribute__((constructor(200))) static void tmp_l4_fetches_register(void)
{
	sample_register_fetches(&tmp_l4_fetches_list);
}
