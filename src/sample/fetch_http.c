/* Fetches of HTTP messages other than headers (fetch_hdr.c): the start lines (method,
 * path, url, query, versions, status), URL parameters and addresses, base and its
 * hashes, bodies, and the stream's HTTP facts (first request, unique
 * id). Views into the parsed message where possible; rebuilt values go to a scratch chunk.
 */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <base/buf.h>
#include <conn/connection-t.h>
#include <http/h1.h>
#include <http/meth.h>
#include <sample/fetch.h>
#include <sample/smp_http.h>

#include "fetch_int.h"

struct ist (*smp_unique_id_hook)(struct stream *s);

static struct ist arg_str(const struct arg *args, int i)
{
	if (!args || args[i].type != ARGT_STR)
		return ist2("", 0);
	return args[i].data.str;
}

/* method: the request method; in response rules, once the request line is gone, one of
 * the eight standard methods only (HAProxy keeps no other). */
static int smp_fetch_meth(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);
	const struct stream *s = smp->ctx->strm;

	if (m)
		smp_set_str(smp, m->meth);
	else if (s && s->meth != HTTP_METH_OTHER)
		smp_set_str(smp, http_meth_name(s->meth));
	else
		return 0;
	smp->data.type = SMP_T_METH;
	return 1;
}

/* The path of the request target (origin or absolute form), with its query string when
 * <query>; ptr NULL when there is none ("*", authority form, "http://h"). */
static struct ist req_path(const struct h1_msg *m, bool query)
{
	/* origin-form, the usual target, is its own path and query */
	struct ist p = m->uri.len && m->uri.ptr[0] == '/' ? m->uri : h1_uri_pathq(m->uri);
	const char *q;

	if (!p.len)
		return ist2(NULL, 0);
	if (!query) {
		if (p.len <= 16) { /* short paths: cheaper than a call */
			for (size_t i = 0; i < p.len; i++)
				if (p.ptr[i] == '?')
					return ist2(p.ptr, i);
			return p;
		}
		q = memchr(p.ptr, '?', p.len);
		if (q)
			p.len = (size_t)(q - p.ptr);
	}
	return p;
}

/* path, pathq */
static int smp_fetch_path(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);
	struct ist p;

	if (!m)
		return 0;
	p = req_path(m, kw->private);
	return p.ptr ? smp_set_str(smp, p) : 0;
}

/* url: the request target as received */
static int smp_fetch_url(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);

	return m ? smp_set_str(smp, m->uri) : 0;
}

/* query: what follows the first '?' of the target (empty when nothing does) */
static int smp_fetch_query(const struct arg *args, struct sample *smp,
			   const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);
	struct ist q;

	if (!m)
		return 0;
	q = smp_param_list(m->uri, '?');
	return q.ptr ? smp_set_str(smp, q) : 0;
}

/* url_ip, url_port: the IPv4 literal host of an http:// or https:// absolute target */
static int smp_fetch_url_ip(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);
	struct in_addr ip;
	int port;

	if (!m || !smp_url_ipv4(m->uri, &ip, &port))
		return 0;
	if (kw->private)
		return smp_set_int(smp, port);
	smp->data.type = SMP_T_IPV4;
	smp->data.u.ipv4 = ip;
	return 1;
}

/* The parameters of <list> named <name> (any when empty): under an ACL each one in turn
 * (smp->it: offset of the next search + 1), otherwise the first. */
static int param_fetch(struct sample *smp, struct ist list, struct ist name, char delim)
{
	struct ist rest = list, v;

	if (smp->flags & SMP_F_ITER) {
		if (smp->it) {
			size_t off = smp->it - 1;

			rest = ist2(list.ptr + off, list.len - off);
		}
		if (!smp_param_next(&rest, name, delim, &v))
			return 0;
		smp->it = (uint32_t)(rest.ptr - list.ptr) + 1;
		smp_more(smp, smp_param_next(&rest, name, delim, &(struct ist){ 0 }));
		return smp_set_str(smp, v);
	}
	if (!smp_param_next(&rest, name, delim, &v))
		return 0;
	return smp_set_str(smp, v);
}

/* url_param([name[,delim]]), urlp: the parameters after the first <delim> ('?') */
static int smp_fetch_url_param(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);
	struct ist d = arg_str(args, 1), list;
	char delim = d.len ? d.ptr[0] : '?';

	if (!m)
		return 0;
	list = smp_param_list(m->uri, delim);
	if (!list.ptr || !param_fetch(smp, list, arg_str(args, 0), delim))
		return 0;
	if (kw->private) /* urlp_val */
		return smp_set_int(smp, smp_strl2ic(smp->data.u.str));
	return 1;
}

/* The first value of the first Host header, ptr NULL when there is none. */
static struct ist req_host(const struct h1_msg *m)
{
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];
		struct ist rest = h->v, v;
		bool done = false;

		if (h->skip || !ist_ieq(h->n, IST("Host")))
			continue;
		smp_hdr_next_value(&rest, &done, &v);
		return v.ptr ? v : ist2(h->v.ptr, 0);
	}
	return ist2(NULL, 0);
}

/* base, baseq: the first Host value followed by the path (and query with baseq); the
 * path alone without Host, the host alone without path. */
static int smp_fetch_base(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);
	struct ist host, path;
	char *t;

	if (!m)
		return 0;
	host = req_host(m);
	path = req_path(m, kw->private);
	if (!host.ptr)
		return path.ptr ? smp_set_str(smp, path) : 0;
	if (!path.ptr)
		return smp_set_str(smp, host);
	t = smp_trash();
	if (!t || host.len + path.len > smp_trash_size())
		return 0;
	memcpy(t, host.ptr, host.len);
	memcpy(t + host.len, path.ptr, path.len);
	smp_set_str(smp, ist2(t, host.len + path.len));
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* The hash of base32 (host and path) or url32 (host, path and query). */
static uint32_t base_hash(const struct h1_msg *m, bool query)
{
	struct ist host = req_host(m), path = req_path(m, query);
	uint32_t h = 0;

	if (host.ptr)
		h = smp_hash_sdbm(h, host);
	if (path.ptr)
		h = smp_hash_sdbm(h, path);
	return smp_hash_final(h);
}

/* base32, url32 */
static int smp_fetch_base32(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);

	if (!m)
		return 0;
	return smp_set_int(smp, base_hash(m, kw->private));
}

/* base32+src, url32+src: the hash (4 bytes, network order) then the client address (4
 * or 16 bytes); not found for other address families. */
static int smp_fetch_base32_src(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_req(smp);
	const struct conn *c = smp->ctx->conn;
	char *t = smp_trash();
	uint32_t h;
	size_t n;

	if (!m || !c || !t)
		return 0;
	h = base_hash(m, kw->private);
	t[0] = (char)(h >> 24);
	t[1] = (char)(h >> 16);
	t[2] = (char)(h >> 8);
	t[3] = (char)h;
	if (c->peer.ss_family == AF_INET) {
		memcpy(t + 4, &((const struct sockaddr_in *)&c->peer)->sin_addr, 4);
		n = 8;
	} else if (c->peer.ss_family == AF_INET6) {
		memcpy(t + 4, &((const struct sockaddr_in6 *)&c->peer)->sin6_addr, 16);
		n = 20;
	} else {
		return 0;
	}
	smp_set_bin(smp, ist2(t, n));
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* req.ver, res.ver: "1.1" or "1.0" */
static int smp_fetch_ver(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = kw->private ? smp_rsp(smp) : smp_req(smp);

	if (!m || m->vsn.len < 8)
		return 0;
	return smp_set_str(smp, ist2(m->vsn.ptr + 5, m->vsn.len - 5));
}

/* status: the response status; for a reply made by the proxy, its status */
static int smp_fetch_status(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_rsp(smp);
	const struct stream *s = smp->ctx->strm;

	if (m)
		return smp_set_int(smp, m->status);
	if (s && s->status)
		return smp_set_int(smp, s->status);
	if (s && s->err_status)
		return smp_set_int(smp, s->err_status);
	return 0;
}

/* http_first_req: the first request of its client connection */
static int smp_fetch_first_req(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;

	if (!c || !smp->ctx->strm)
		return 0;
	return smp_set_bool(smp, c->nb_req == 0);
}

/* ---- bodies ---- */

struct body_view {
	struct ist data;    /* the body bytes present (decoded when chunked) */
	uint64_t announced; /* content-length, or the decoded length */
	bool complete;
	bool copied; /* <data> is a scratch chunk (writable) */
};

/* The body of <m>, whose bytes follow its headers in <ib>: a view for content-length
 * (or close-delimited response) bodies, a decoded copy in a scratch chunk for chunked
 * ones. */
static bool body_get(const struct h1_msg *m, const struct buf *ib, bool eof, struct body_view *bv)
{
	const char *p = b_head(ib) + m->hdr_len;
	size_t have = ib->data > m->hdr_len ? ib->data - m->hdr_len : 0;

	bv->complete = true;
	bv->copied = false;
	if (m->flags & H1_MF_CHNK) {
		char *t = smp_trash();
		size_t n;

		if (!t)
			return false;
		n = smp_dechunk(ist2(p, have), t, smp_trash_size(), &bv->complete);
		bv->data = ist2(t, n);
		bv->announced = n;
		bv->copied = true;
		return true;
	}
	if (m->flags & H1_MF_CLEN) {
		if (have >= m->body_len)
			have = (size_t)m->body_len;
		else
			bv->complete = false;
		bv->data = ist2(p, have);
		bv->announced = m->body_len;
		return true;
	}
	if ((m->flags & H1_MF_RESP) && (m->flags & H1_MF_HAS_BODY)) {
		bv->data = ist2(p, have);
		bv->announced = have;
		bv->complete = eof;
		return true;
	}
	bv->data = ist2(p, 0);
	bv->announced = 0;
	return true;
}

/* The body of the request, or of the response when <res>, of the sample's stream. Sets
 * SMP_F_MAY_CHANGE while more of it can still arrive in the buffer. */
static bool smp_body(struct sample *smp, bool res, struct body_view *bv)
{
	const struct stream *s = smp->ctx->strm;
	const struct h1_msg *m = res ? smp_rsp(smp) : smp_req(smp);
	const struct conn *c = !s ? NULL : res ? s->back : s->front;

	if (!m || !c)
		return false;
	if (res && h1_resp_bodyless(m->status, s->meth == HTTP_METH_HEAD)) {
		*bv = (struct body_view){ .data = ist2(b_head(&c->ibuf), 0), .complete = true };
		return true;
	}
	if (!body_get(m, &c->ibuf, c->flags & (CO_FL_RD_EOF | CO_FL_ERROR), bv))
		return false;
	if (!bv->complete && b_room(&c->ibuf) && !(c->flags & (CO_FL_RD_EOF | CO_FL_ERROR)))
		smp->flags |= SMP_F_MAY_CHANGE;
	return true;
}

/* req.body, res.body: the bytes of the body already received */
static int smp_fetch_body(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	struct body_view bv;

	if (!smp_body(smp, kw->private, &bv))
		return 0;
	smp_set_bin(smp, bv.data);
	if (bv.copied)
		smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* req.body_len, req.body_size (private 2), res.* (private | 1) */
static int smp_fetch_body_len(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	struct body_view bv;

	if (!smp_body(smp, kw->private & 1, &bv))
		return 0;
	return smp_set_int(smp,
			   (kw->private & 2) ? (long long)bv.announced : (long long)bv.data.len);
}

/* req.body_param([name]): the parameters of a url-encoded body */
static int smp_fetch_body_param(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	struct body_view bv;

	if (!smp_body(smp, false, &bv) || !param_fetch(smp, bv.data, arg_str(args, 0), '&'))
		return 0;
	smp->data.type = SMP_T_BIN;
	return 1;
}

/* unique-id: the stream's unique id, when the frontend has a unique-id-format */
static int smp_fetch_unique_id(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	struct ist id;

	if (!smp->ctx->strm || !smp_unique_id_hook)
		return 0;
	id = smp_unique_id_hook(smp->ctx->strm);
	return id.ptr ? smp_set_str(smp, id) : 0;
}

/* last_rule_file, last_rule_line (private 1): where the last verdict rule that ended a
 * rule set (allow, deny, tarpit, accept, reject) was written; nothing before one did. */
static int smp_fetch_last_rule(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;

	if (!s || !s->last_rule_file)
		return 0;
	if (kw->private)
		return smp_set_int(smp, s->last_rule_line);
	return smp_set_str(smp, ist_str(s->last_rule_file));
}

/* clang-format off */
#define HRQ SMP_USE_HRQHV
#define HRS SMP_USE_HRSHV
#define HBQ SMP_USE_HRQBO
#define HBS SMP_USE_HRSBO
#define A_PRM { ARGT_STR, ARGT_STR }

static const struct sample_fetch http_fetches[] = {
	{ "method", smp_fetch_meth, 0, { 0 }, NULL, SMP_T_METH, HRQ | HRS, 0 },
	{ "path", smp_fetch_path, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "pathq", smp_fetch_path, 0, { 0 }, NULL, SMP_T_STR, HRQ, 1 },
	{ "url", smp_fetch_url, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "query", smp_fetch_query, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "url_ip", smp_fetch_url_ip, 0, { 0 }, NULL, SMP_T_IPV4, HRQ, 0 },
	{ "url_port", smp_fetch_url_ip, 0, { 0 }, NULL, SMP_T_SINT, HRQ, 1 },
	{ "url_param", smp_fetch_url_param, 0, A_PRM, NULL, SMP_T_STR, HRQ, 0 },
	{ "urlp", smp_fetch_url_param, 0, A_PRM, NULL, SMP_T_STR, HRQ, 0 },
	{ "urlp_val", smp_fetch_url_param, 0, A_PRM, NULL, SMP_T_SINT, HRQ, 1 },
	{ "base", smp_fetch_base, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "baseq", smp_fetch_base, 0, { 0 }, NULL, SMP_T_STR, HRQ, 1 },
	{ "base32", smp_fetch_base32, 0, { 0 }, NULL, SMP_T_SINT, HRQ, 0 },
	{ "url32", smp_fetch_base32, 0, { 0 }, NULL, SMP_T_SINT, HRQ, 1 },
	{ "base32+src", smp_fetch_base32_src, 0, { 0 }, NULL, SMP_T_BIN, HRQ, 0 },
	{ "url32+src", smp_fetch_base32_src, 0, { 0 }, NULL, SMP_T_BIN, HRQ, 1 },
	{ "req.ver", smp_fetch_ver, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "req_ver", smp_fetch_ver, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "res.ver", smp_fetch_ver, 0, { 0 }, NULL, SMP_T_STR, HRS, 1 },
	{ "resp_ver", smp_fetch_ver, 0, { 0 }, NULL, SMP_T_STR, HRS, 1 },
	{ "status", smp_fetch_status, 0, { 0 }, NULL, SMP_T_SINT, HRS, 0 },
	{ "http_first_req", smp_fetch_first_req, 0, { 0 }, NULL, SMP_T_BOOL, HRQ | HRS, 0 },
	{ "req.body", smp_fetch_body, 0, { 0 }, NULL, SMP_T_BIN, HBQ, 0 },
	{ "req.body_len", smp_fetch_body_len, 0, { 0 }, NULL, SMP_T_SINT, HBQ, 0 },
	{ "req.body_size", smp_fetch_body_len, 0, { 0 }, NULL, SMP_T_SINT, HBQ, 2 },
	{ "req.body_param", smp_fetch_body_param, 0, { ARGT_STR }, NULL, SMP_T_BIN, HBQ, 0 },
	{ "res.body", smp_fetch_body, 0, { 0 }, NULL, SMP_T_BIN, HBS, 1 },
	{ "res.body_len", smp_fetch_body_len, 0, { 0 }, NULL, SMP_T_SINT, HBS, 1 },
	{ "res.body_size", smp_fetch_body_len, 0, { 0 }, NULL, SMP_T_SINT, HBS, 3 },
	{ "unique-id", smp_fetch_unique_id, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_INTRN, 0 },
	{ "last_rule_file", smp_fetch_last_rule, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_INTRN, 0 },
	{ "last_rule_line", smp_fetch_last_rule, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_INTRN, 1 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(http_fetches)
/* clang-format on */
