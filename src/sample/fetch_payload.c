/* The layer 6 fetches over the raw bytes a mode tcp stream has not forwarded yet: req.len,
 * res.len, req.payload / res.payload / payload, req.payload_lv / res.payload_lv /
 * payload_lv, req.proto_http, the RDP cookie fetches and distcc_body / distcc_param. The
 * client's bytes are in the front connection's input buffer, the server's in the back
 * one's, from their head. Answers "may change" while more bytes may come and the rules are
 * not final.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <base/buf.h>
#include <conn/connection-t.h>
#include <http/h1.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <sample/arg.h>
#include <sample/distcc.h>
#include <sample/payload.h>

#include "fetch_int.h"

/* The connection whose input a fetch reads: the server's for res.* (private bit 0), the
 * direction of the rule for the old names (private bit 1), else the client's. */
#define PL_RES 0x1 /* res.* */
#define PL_DIR 0x2 /* payload, payload_lv: the rule's direction */

static const struct conn *pl_conn(const struct sample *smp, int priv)
{
	const struct stream *s = smp->ctx->strm;
	bool res = (priv & PL_DIR) ? (smp->ctx->opt & SMP_OPT_DIR) == SMP_OPT_DIR_RES
				   : (priv & PL_RES);

	if (res)
		return s ? s->back : NULL;
	return smp->ctx->conn ? smp->ctx->conn : s ? s->front : NULL;
}

/* The raw bytes of <c>, or false in a mode http proxy: HAProxy 2.6 keeps its HTTP messages
 * in an internal form there and the payload fetches find nothing. */
static bool pl_bytes(const struct sample *smp, const struct conn *c, const unsigned char **d,
		     size_t *n)
{
	if (!c || (smp->ctx->px && smp->ctx->px->mode == PR_MODE_HTTP))
		return false;
	*d = (const unsigned char *)b_head(&c->ibuf);
	*n = c->ibuf.data;
	return true;
}

/* More bytes may still come into <c>: room left below the rewrite reserve, no end of
 * input, and the rules are not final. */
static bool pl_may_grow(const struct sample *smp, const struct conn *c)
{
	uint32_t limit = global.tune_bufsize > global.tune_maxrewrite
				 ? global.tune_bufsize - global.tune_maxrewrite
				 : global.tune_bufsize;

	return !(smp->ctx->opt & SMP_OPT_FINAL) && c->ibuf.data < limit &&
	       !(c->flags & (CO_FL_RD_EOF | CO_FL_ERROR));
}

/* Not there yet: not found, may change unless the rules are final. */
static int pl_short(struct sample *smp)
{
	if (!(smp->ctx->opt & SMP_OPT_FINAL))
		smp->flags |= SMP_F_MAY_CHANGE;
	return 0;
}

/* req.len, res.len: bytes waiting in the client's (server's) buffer. In mode http HAProxy
 * counts its internal message size instead, which differs. */
static int smp_fetch_len(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct conn *c = pl_conn(smp, kw->private);

	if (!c)
		return 0;
	/* more bytes may come: an ACL that does not match yet "cannot tell" while a
	 * tcp-request (tcp-response) inspect-delay runs, as in HAProxy */
	smp->flags |= SMP_F_MAY_CHANGE;
	return smp_set_int(smp, c->ibuf.data);
}

/* payload(OFF,LEN): LEN bytes at OFF; LEN 0 takes the rest of the buffer from OFF (and may
 * change while more can come). Past tune.bufsize it can never match. */
static int smp_fetch_payload(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	const struct conn *c = pl_conn(smp, kw->private);
	long long off = args[0].data.sint, len = args[1].data.sint;
	const unsigned char *d;
	size_t n;

	if (!pl_bytes(smp, c, &d, &n))
		return 0;
	if (off < 0 || len < 0 || len > global.tune_bufsize || off + len > global.tune_bufsize)
		return 0;
	if ((size_t)(off + len) > n)
		return pl_short(smp);
	smp_set_bin(smp, ist2((const char *)d + off, len ? (size_t)len : n - (size_t)off));
	if (!len && pl_may_grow(smp, c))
		smp->flags |= SMP_F_MAY_CHANGE;
	return 1;
}

/* payload_lv(OFF1,LEN1[,OFF2]): a block whose length is the LEN1-byte big-endian number at
 * OFF1; it starts right after that number, or at OFF2 (absolute), or at OFF2 from the end
 * of the number when OFF2 is signed (encoded as 2 * OFF2 + 1 by val_payload_lv). */
static int smp_fetch_payload_lv(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	const struct conn *c = pl_conn(smp, kw->private);
	long long loff = args[0].data.sint, lsz = args[1].data.sint, boff;
	const unsigned char *d;
	uint32_t blen = 0; /* wraps past 4 bytes, as HAProxy's */
	size_t n;

	if (!pl_bytes(smp, c, &d, &n))
		return 0;
	if (lsz < 0 || lsz > global.tune_bufsize || (size_t)(loff + lsz) > n)
		return pl_short(smp);
	for (long long i = 0; i < lsz; i++)
		blen = blen << 8 | d[loff + i];
	boff = loff + lsz;
	if (args[2].type == ARGT_SINT) {
		long long v = args[2].data.sint;
		long long rel = v & 1;

		boff = (rel ? boff : 0) + (v - rel) / 2;
	}
	if (!blen || blen > global.tune_bufsize || boff < 0 ||
	    boff + blen > (long long)global.tune_bufsize)
		return 0;
	if ((size_t)boff + blen > n)
		return pl_short(smp);
	return smp_set_bin(smp, ist2((const char *)d + boff, blen));
}

/* Checks payload_lv's arguments as HAProxy 2.6 and turns OFF2 (a string, so that a sign
 * can say "relative") into an integer: 2 * OFF2, plus 1 when relative. */
static int val_payload_lv(struct arg *args, void *private, char *err, size_t errsz)
{
	const char *kw = ((const struct sample_fetch *)private)->kw, *s;
	long long v;
	char *end;
	bool rel;

	if (args[0].data.sint < 0 || !args[1].data.sint) {
		snprintf(err, errsz, "invalid args in fetch method '%s' : %s", kw,
			 args[0].data.sint < 0 ? "payload offset1 must be positive"
					       : "payload length must be > 0");
		return -1;
	}
	if (args[2].type != ARGT_STR)
		return 0;
	s = args[2].data.str.ptr;
	rel = *s == '+' || *s == '-';
	v = strtoll(s, &end, 10);
	if (!*s || *end || v > (1LL << 40) || v < -(1LL << 40)) {
		snprintf(err, errsz,
			 "invalid args in fetch method '%s' : payload offset2 is not a "
			 "number",
			 kw);
		return -1;
	}
	if (rel && args[0].data.sint + args[1].data.sint + v < 0) {
		snprintf(err, errsz,
			 "invalid args in fetch method '%s' : payload offset2 too "
			 "negative",
			 kw);
		return -1;
	}
	arg_set_sint(&args[2], 2 * v + rel);
	return 0;
}

/* req.proto_http: in mode http, a request is being processed; in mode tcp, the client's
 * bytes start with a whole, valid HTTP/1 request header block (may change while it is
 * incomplete), as HAProxy 2.6 parses them. */
static int smp_fetch_proto_http(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	struct h1_hdr hdr[128];
	struct h1_limits lim = { 0 };
	struct h1_msg m = { 0 };
	const struct conn *c = pl_conn(smp, 0);
	int r;

	if (smp->ctx->px && smp->ctx->px->mode == PR_MODE_HTTP)
		return smp_set_bool(smp, smp_req(smp) != NULL);
	if (!c)
		return 0;
	lim.max_hdr_block = global.tune_bufsize - global.tune_maxrewrite;
	lim.max_hdr = global.tune_maxhdr < 128 ? global.tune_maxhdr : 128;
	lim.accept_payload_any_method = true;
	m.hdr = hdr;
	m.max_hdr = lim.max_hdr;
	r = h1_parse_headers(b_head(&c->ibuf), c->ibuf.data, &m, false, &lim);
	if (r == H1_INCOMPLETE)
		return c->ibuf.data < lim.max_hdr_block ? pl_short(smp) : 0;
	if (r < 0)
		return 0;
	return smp_set_bool(smp, true);
}

/* req.rdp_cookie([name]), req.rdp_cookie_cnt([name]): the first cookie of an RDP
 * connection request at the start of the client's bytes, as HAProxy reads it. Not RDP:
 * not found (count 0); too short yet: the answer may change. */
static int rdp_cookie(const struct sample *smp, struct ist name, struct ist *val)
{
	const struct conn *c = pl_conn(smp, 0);

	if (!c)
		return 0;
	return rdp_cookie_find(b_head(&c->ibuf), c->ibuf.data, name, val);
}

static int smp_fetch_rdp_cookie(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	struct ist name = args && args[0].type == ARGT_STR ? args[0].data.str : ist2("", 0);
	struct ist v = ist2("", 0);
	int r = rdp_cookie(smp, name, &v);

	if (r < 0 && !(smp->ctx->opt & SMP_OPT_FINAL))
		smp->flags |= SMP_F_MAY_CHANGE;
	if (kw->private) /* _cnt */
		return r < 0 && !(smp->ctx->opt & SMP_OPT_FINAL) ? 0 : smp_set_int(smp, r > 0);
	if (r <= 0)
		return 0;
	return smp_set_str(smp, v);
}

/* distcc_body(TOKEN[,OCC]) (private 0), distcc_param(TOKEN[,OCC]) (private 1): the body or
 * the value of occurrence OCC of TOKEN in the client's distcc request (sample/distcc.h). */
static int smp_fetch_distcc(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	const struct conn *c = pl_conn(smp, 0);
	long long occ = args[1].type == ARGT_SINT ? args[1].data.sint : 0;
	const unsigned char *d, *body;
	uint32_t param;
	size_t n, blen;

	if (!pl_bytes(smp, c, &d, &n))
		return 0;
	switch (distcc_find(d, n, args[0].data.str.ptr, occ, !kw->private, &param, &body, &blen)) {
	case DISTCC_FOUND:
		if (kw->private)
			return smp_set_int(smp, param);
		return smp_set_bin(smp, ist2((const char *)body, blen));
	case DISTCC_MORE:
		if (pl_may_grow(smp, c))
			smp->flags |= SMP_F_MAY_CHANGE;
		return 0;
	default:
		return 0;
	}
}

/* The token is 4 characters (2.6's message). */
static int val_distcc(struct arg *args, void *private, char *err, size_t errsz)
{
	if (args[0].type == ARGT_STR && args[0].data.str.len == 4)
		return 0;
	snprintf(err, errsz, "token name must be exactly 4 characters");
	return -1;
}

/* clang-format off */
#define L6Q SMP_USE_L6REQ
#define L6S SMP_USE_L6RES
#define HRQ SMP_USE_HRQHV
#define A_PL { ARGT_SINT, ARGT_SINT }
#define A_LV { ARGT_SINT, ARGT_SINT, ARGT_STR }
#define A_DCC { ARGT_STR, ARGT_SINT }

static const struct sample_fetch payload_fetches[] = {
	{ "req.len", smp_fetch_len, 0, { 0 }, NULL, SMP_T_SINT, L6Q, 0 },
	{ "req_len", smp_fetch_len, 0, { 0 }, NULL, SMP_T_SINT, L6Q, 0 },
	{ "res.len", smp_fetch_len, 0, { 0 }, NULL, SMP_T_SINT, L6S, PL_RES },
	{ "req.payload", smp_fetch_payload, 2, A_PL, NULL, SMP_T_BIN, L6Q, 0 },
	{ "res.payload", smp_fetch_payload, 2, A_PL, NULL, SMP_T_BIN, L6S, PL_RES },
	{ "payload", smp_fetch_payload, 2, A_PL, NULL, SMP_T_BIN, L6Q | L6S, PL_DIR },
	{ "req.payload_lv", smp_fetch_payload_lv, 2, A_LV, val_payload_lv, SMP_T_BIN, L6Q, 0 },
	{ "res.payload_lv", smp_fetch_payload_lv, 2, A_LV, val_payload_lv, SMP_T_BIN, L6S, PL_RES },
	{ "payload_lv", smp_fetch_payload_lv, 2, A_LV, val_payload_lv, SMP_T_BIN, L6Q | L6S, PL_DIR },
	{ "req.proto_http", smp_fetch_proto_http, 0, { 0 }, NULL, SMP_T_BOOL, HRQ, 0 },
	{ "req_proto_http", smp_fetch_proto_http, 0, { 0 }, NULL, SMP_T_BOOL, HRQ, 0 },
	{ "req.rdp_cookie", smp_fetch_rdp_cookie, 0, { ARGT_STR }, NULL, SMP_T_STR, L6Q, 0 },
	{ "rdp_cookie", smp_fetch_rdp_cookie, 0, { ARGT_STR }, NULL, SMP_T_STR, L6Q, 0 },
	{ "req.rdp_cookie_cnt", smp_fetch_rdp_cookie, 0, { ARGT_STR }, NULL, SMP_T_SINT, L6Q, 1 },
	{ "rdp_cookie_cnt", smp_fetch_rdp_cookie, 0, { ARGT_STR }, NULL, SMP_T_SINT, L6Q, 1 },
	{ "distcc_body", smp_fetch_distcc, 1, A_DCC, val_distcc, SMP_T_BIN, L6Q, 0 },
	{ "distcc_param", smp_fetch_distcc, 1, A_DCC, val_distcc, SMP_T_SINT, L6Q, 1 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(payload_fetches)
/* clang-format on */
