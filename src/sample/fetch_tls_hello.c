/* The TLS hello fetches of TLS pass-through: req.ssl_sni, req.ssl_hello_type, req.ssl_ver,
 * req.ssl_alpn, req.ssl_ec_ext, req.ssl_st_ext and the old req_ssl_* names over the
 * ClientHello at the head of the client's bytes, and res.ssl_hello_type / rep_ssl_hello_type
 * over the first handshake message of the server's (tcp-response content rules): a pure
 * reader (tls_hello.h), then the fetches over the connection's input buffer. Built with
 * TLS_HELLO_PURE (fuzzing), only the reader is compiled.
 */
#include <stdbool.h>
#include <string.h>

#include <sample/tls_hello.h>

#define TLS_REC_HDR 5 /* type, version (2), length (2) */
#define TLS_HS_HDR 4  /* type, length (3) */
#define TLS_REC_MAX (16384 + 2048)

static unsigned int rd16(const unsigned char *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static unsigned int rd24(const unsigned char *p)
{
	return (unsigned int)p[0] << 16 | (unsigned int)p[1] << 8 | p[2];
}

/* An SSLv3+ record may start here: change_cipher_spec, alert, handshake, application
 * data, or 0xff, as HAProxy accepts them. */
static bool tls_rec_type_ok(unsigned char t)
{
	return (t >= 0x14 && t <= 0x17) || t == 0xff;
}

int tls_hello_type(const unsigned char *d, size_t n, int *type)
{
	if (!n)
		return TLS_HELLO_AGAIN;
	if (!tls_rec_type_ok(d[0]))
		return TLS_HELLO_NOT;
	if (n < TLS_REC_HDR + TLS_HS_HDR)
		return TLS_HELLO_AGAIN;
	if (d[1] < 3 || rd16(d + 3) < TLS_HS_HDR)
		return TLS_HELLO_NOT;
	/* the whole first message must be there */
	if (n - (TLS_REC_HDR + TLS_HS_HDR) < rd24(d + 6))
		return TLS_HELLO_AGAIN;
	*type = d[5];
	return 0;
}

/* SSLv2 client hello (RFC 6101 appendix E): 2- or 3-byte header, type 1, version, then
 * the cipher, session id and challenge lengths that must add up to the record. */
static int tls_hello_v2_version(const unsigned char *d, size_t n, int *ver)
{
	size_t hl = (d[0] & 0x80) ? 2 : 3;
	unsigned int rlen, ci, si, ch;

	if (n < hl + 1 + 8)
		return TLS_HELLO_AGAIN;
	rlen = hl == 2 ? rd16(d) & 0x7fff : rd16(d) & 0x3fff;
	d += hl;
	if (d[0] != 0x01)
		return TLS_HELLO_NOT;
	ci = rd16(d + 3);
	si = rd16(d + 5);
	ch = rd16(d + 7);
	if (ci % 3 || (si && si != 16) || ch < 16 || ch > 32 || rlen != 9 + ci + si + ch)
		return TLS_HELLO_NOT;
	*ver = (int)((unsigned int)d[1] << 16 | d[2]);
	return 0;
}

int tls_hello_version(const unsigned char *d, size_t n, int *ver)
{
	unsigned int rlen;

	if (!n)
		return TLS_HELLO_AGAIN;
	if (!tls_rec_type_ok(d[0]))
		return tls_hello_v2_version(d, n, ver);
	if (n < TLS_REC_HDR)
		return TLS_HELLO_AGAIN;
	rlen = rd16(d + 3);
	if (d[1] < 3 || rlen < 6 || rlen > TLS_REC_MAX)
		return TLS_HELLO_NOT;
	/* the version follows the message's type and length */
	if (n < TLS_REC_HDR + TLS_HS_HDR + 2)
		return TLS_HELLO_AGAIN;
	*ver = (int)((unsigned int)d[9] << 16 | d[10]);
	return 0;
}

/* Skips a vector of <lsz> length bytes at <*p> within <e>; false if it overflows. */
static bool tls_skip_vec(const unsigned char **p, const unsigned char *e, size_t lsz)
{
	size_t l;

	if ((size_t)(e - *p) < lsz)
		return false;
	l = lsz == 1 ? **p : rd16(*p);
	if ((size_t)(e - *p) - lsz < l)
		return false;
	*p += lsz + l;
	return true;
}

int tls_hello_exts(const unsigned char *d, size_t n, const unsigned char **ext, size_t *len)
{
	const unsigned char *p, *e;
	size_t rlen, hlen;

	if (!n)
		return TLS_HELLO_AGAIN;
	if (d[0] != 0x16)
		return TLS_HELLO_NOT;
	if (n < TLS_REC_HDR + TLS_HS_HDR)
		return TLS_HELLO_AGAIN;
	rlen = rd16(d + 3);
	hlen = rd24(d + 6);
	if (d[1] < 3 || d[5] != 0x01 || rlen > TLS_REC_MAX || hlen + TLS_HS_HDR > rlen ||
	    hlen < 2 + 32 + 1 + 2 + 1)
		return TLS_HELLO_NOT; /* a hello split over records is not read */
	if (n - (TLS_REC_HDR + TLS_HS_HDR) < hlen)
		return TLS_HELLO_AGAIN;
	p = d + TLS_REC_HDR + TLS_HS_HDR;
	e = p + hlen;
	if (p[0] < 3 || (p[0] == 3 && p[1] < 1)) /* TLSv1.0 at least */
		return TLS_HELLO_NOT;
	p += 2 + 32;
	if (*p > 32 || !tls_skip_vec(&p, e, 1) || !tls_skip_vec(&p, e, 2) ||
	    !tls_skip_vec(&p, e, 1))
		return TLS_HELLO_NOT;
	*ext = p;
	*len = 0;
	if (p == e)
		return 0;
	if ((size_t)(e - p) < 2 || rd16(p) > (size_t)(e - p) - 2)
		return TLS_HELLO_NOT;
	*ext = p + 2;
	*len = rd16(p);
	return 0;
}

int tls_hello_ext_find(const unsigned char *ext, size_t len, unsigned int type,
		       const unsigned char **body, size_t *blen)
{
	while (len >= 4) {
		size_t l = rd16(ext + 2);

		if (l > len - 4)
			return TLS_HELLO_NOT;
		if (rd16(ext) == type) {
			*body = ext + 4;
			*blen = l;
			return 1;
		}
		ext += 4 + l;
		len -= 4 + l;
	}
	return 0;
}

int tls_hello_sni(const unsigned char *body, size_t blen, const unsigned char **name, size_t *nlen)
{
	size_t l;

	/* list length (2), then the first entry: type 0 (host_name), length (2), name */
	if (blen < 2 + 3 || rd16(body) > blen - 2 || rd16(body) < 3 || body[2] != 0)
		return TLS_HELLO_NOT;
	l = rd16(body + 3);
	if (!l || l > blen - 5 || l > (size_t)rd16(body) - 3)
		return TLS_HELLO_NOT;
	*name = body + 5;
	*nlen = l;
	return 1;
}

int tls_hello_alpn(const unsigned char *body, size_t blen, const unsigned char **proto,
		   size_t *plen)
{
	size_t l;

	/* list length (2), then length-prefixed protocol names */
	if (blen < 3 || rd16(body) > blen - 2 || rd16(body) < 1)
		return TLS_HELLO_NOT;
	l = body[2];
	if (!l || l > (size_t)rd16(body) - 1)
		return TLS_HELLO_NOT;
	*proto = body + 3;
	*plen = l;
	return 1;
}

#ifndef TLS_HELLO_PURE
#include <base/buf.h>
#include <conn/connection-t.h>
#include <proxy/proxy-t.h>
#include <sample/fetch.h>

#include "fetch_int.h"

/* The client's bytes waiting, or false when there are none to read: no connection, or a
 * proxy in mode http, whose rules see HTTP messages, never the raw bytes (HAProxy 2.6
 * warns "L6 sample fetches ignored on HTTP proxies" and its fetches find nothing). */
/* The same over <c>'s bytes: the client's, or the server's for res.ssl_hello_type. */
static bool hello_conn_bytes(const struct sample *smp, const struct conn *c,
			     const unsigned char **d, size_t *n)
{

	if (!c || (smp->ctx->px && smp->ctx->px->mode == PR_MODE_HTTP))
		return false;
	*d = (const unsigned char *)b_head(&c->ibuf);
	*n = c->ibuf.data;
	return true;
}

static bool hello_bytes(const struct sample *smp, const unsigned char **d, size_t *n)
{
	return hello_conn_bytes(smp, smp->ctx->conn, d, n);
}

/* Not found; "may change" while more bytes may come (the hello is incomplete and the
 * rules are not final yet). */
static int hello_miss(struct sample *smp, int r)
{
	if (r == TLS_HELLO_AGAIN && !(smp->ctx->opt & SMP_OPT_FINAL))
		smp->flags |= SMP_F_MAY_CHANGE;
	return 0;
}

/* req.ssl_hello_type (private 0), req.ssl_ver (1), res.ssl_hello_type (HELLO_RES: the
 * first handshake message of the server's bytes, in tcp-response content rules) */
#define HELLO_RES 2
static int smp_fetch_hello_type(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	const unsigned char *d;
	size_t n;
	int r, v;

	if (kw->private == HELLO_RES) {
		const struct stream *s = smp->ctx->strm;

		if (!hello_conn_bytes(smp, s ? s->back : NULL, &d, &n))
			return 0;
	} else if (!hello_bytes(smp, &d, &n)) {
		return 0;
	}
	r = kw->private == 1 ? tls_hello_version(d, n, &v) : tls_hello_type(d, n, &v);
	if (r < 0)
		return hello_miss(smp, r);
	return smp_set_int(smp, v);
}

/* The extension <type> of a whole ClientHello: 1 found, 0 absent (hello whole), or a
 * TLS_HELLO_* code. */
static int hello_ext(struct sample *smp, unsigned int type, const unsigned char **b, size_t *bl)
{
	const unsigned char *d, *ext;
	size_t n, len;
	int r;

	if (!hello_bytes(smp, &d, &n))
		return TLS_HELLO_NOT;
	r = tls_hello_exts(d, n, &ext, &len);
	if (r < 0)
		return r;
	return tls_hello_ext_find(ext, len, type, b, bl);
}

/* req.ssl_sni (private 0), req.ssl_alpn (1): views into the client's bytes */
static int smp_fetch_hello_str(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	unsigned int type = kw->private ? TLS_EXT_ALPN : TLS_EXT_SNI;
	const unsigned char *b, *v;
	size_t bl, vl;
	int r = hello_ext(smp, type, &b, &bl);

	if (r < 0)
		return hello_miss(smp, r);
	if (!r)
		return 0;
	r = kw->private ? tls_hello_alpn(b, bl, &v, &vl) : tls_hello_sni(b, bl, &v, &vl);
	if (r < 0)
		return 0;
	smp_set_str(smp, ist2((const char *)v, vl));
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* req.ssl_ec_ext: true when the hello has the supported groups extension, not found
 * without it (as 2.6); req.ssl_st_ext: 0 without a session ticket extension, 1 empty, 2
 * with a ticket. */
static int smp_fetch_hello_ext(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	unsigned int type = kw->private ? TLS_EXT_SESSION_TICKET : TLS_EXT_GROUPS;
	const unsigned char *b;
	size_t bl;
	int r = hello_ext(smp, type, &b, &bl);

	if (r < 0)
		return hello_miss(smp, r);
	if (!kw->private)
		return r ? smp_set_bool(smp, true) : 0;
	return smp_set_int(smp, !r ? 0 : bl ? 2 : 1);
}

/* clang-format off */
static const struct sample_fetch tls_hello_fetches[] = {
	{ "req.ssl_hello_type", smp_fetch_hello_type, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6REQ, 0 },
	{ "req_ssl_hello_type", smp_fetch_hello_type, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6REQ, 0 },
	{ "res.ssl_hello_type", smp_fetch_hello_type, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6RES, HELLO_RES },
	{ "rep_ssl_hello_type", smp_fetch_hello_type, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6RES, HELLO_RES },
	{ "req.ssl_ver", smp_fetch_hello_type, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6REQ, 1 },
	{ "req_ssl_ver", smp_fetch_hello_type, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6REQ, 1 },
	{ "req.ssl_sni", smp_fetch_hello_str, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_L6REQ, 0 },
	{ "req_ssl_sni", smp_fetch_hello_str, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_L6REQ, 0 },
	{ "req.ssl_alpn", smp_fetch_hello_str, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_L6REQ, 1 },
	{ "req.ssl_ec_ext", smp_fetch_hello_ext, 0, { 0 }, NULL, SMP_T_BOOL, SMP_USE_L6REQ, 0 },
	{ "req.ssl_st_ext", smp_fetch_hello_ext, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_L6REQ, 1 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(tls_hello_fetches)
/* clang-format on */
#endif /* TLS_HELLO_PURE */
