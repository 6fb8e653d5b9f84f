/* Unit tests of the ClientHello reader (sample/tls_hello.h) and the req.ssl_* fetches over
 * client bytes: a hello built here with SNI, ALPN, groups and a session ticket; the same
 * cut short (the answer may change until final); bytes that are not TLS; an SSLv2 hello;
 * lengths that overflow their enclosing block.
 */
#include <string.h>

#include <conn/connection-t.h>
#include <sample/sample.h>
#include <sample/tls_hello.h>
#include "../test.h"

/* Builds a ClientHello record in <b>: client version 3.<minor>, optional SNI, ALPN list
 * (wire format), supported groups and session ticket of <tkt> bytes (-1: none). */
static size_t th_build(unsigned char *b, int minor, const char *sni, const char *alpn, int groups,
		       int tkt)
{
	unsigned char *p = b + 9, *ext;
	size_t l;

	*p++ = 3;
	*p++ = (unsigned char)minor;
	memset(p, 0xab, 32);
	p += 32;
	*p++ = 0;				  /* session id */
	memcpy(p, "\x00\x02\x13\x01\x01\x00", 6); /* one suite, null compression */
	p += 6;
	ext = p;
	p += 2;
	if (sni) {
		l = strlen(sni);
		memcpy(p, "\x00\x00", 2);
		p[2] = 0, p[3] = (unsigned char)(l + 5);
		p[4] = 0, p[5] = (unsigned char)(l + 3), p[6] = 0, p[7] = 0,
		p[8] = (unsigned char)l;
		memcpy(p + 9, sni, l);
		p += 9 + l;
	}
	if (alpn) {
		l = strlen(alpn);
		p[0] = 0, p[1] = 16, p[2] = 0, p[3] = (unsigned char)(l + 2), p[4] = 0;
		p[5] = (unsigned char)l;
		memcpy(p + 6, alpn, l);
		p += 6 + l;
	}
	if (groups) {
		memcpy(p, "\x00\x0a\x00\x04\x00\x02\x00\x1d", 8);
		p += 8;
	}
	if (tkt >= 0) {
		p[0] = 0, p[1] = 35, p[2] = 0, p[3] = (unsigned char)tkt;
		memset(p + 4, 0x11, (size_t)tkt);
		p += 4 + tkt;
	}
	ext[0] = (unsigned char)((p - ext - 2) >> 8), ext[1] = (unsigned char)(p - ext - 2);
	l = (size_t)(p - b);
	memcpy(b, "\x16\x03\x01", 3);
	b[3] = (unsigned char)((l - 5) >> 8), b[4] = (unsigned char)(l - 5);
	b[5] = 1, b[6] = 0, b[7] = (unsigned char)((l - 9) >> 8), b[8] = (unsigned char)(l - 9);
	return l;
}

static int th_eval(const unsigned char *bytes, size_t len, const char *expr, uint32_t opt,
		   char *out, size_t outsz, uint32_t *flags)
{
	static char area[1024];
	struct conn c;
	struct smp_ctx ctx = { 0 };
	struct sample smp = { .ctx = &ctx };
	struct sample_expr *e;
	char err[128];
	int n = -1;

	memset(&c, 0, sizeof(c));
	memcpy(area, bytes, len);
	c.ibuf.area = area;
	c.ibuf.size = sizeof(area);
	c.ibuf.data = (uint32_t)len;
	ctx.conn = &c;
	ctx.opt = opt;
	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (!e)
		return -2;
	out[0] = 0;
	if (sample_process(e, &smp))
		n = smp_to_text(&smp, out, outsz - 1);
	if (n >= 0)
		out[n] = 0;
	*flags = smp.flags;
	sample_expr_free(e);
	return n;
}

#define F SMP_OPT_FINAL

TEST(tls_hello_fetches)
{
	unsigned char h[512];
	size_t n = th_build(h, 3, "www.example.com", "\x02h2\x08http/1.1", 1, 0);
	char out[64];
	uint32_t fl;

	CHECK_INT(th_eval(h, n, "req.ssl_sni", F, out, sizeof(out), &fl), 15);
	CHECK(!strcmp(out, "www.example.com"));
	CHECK_INT(th_eval(h, n, "req_ssl_sni", F, out, sizeof(out), &fl), 15);
	CHECK_INT(th_eval(h, n, "req.ssl_alpn", F, out, sizeof(out), &fl), 2);
	CHECK(!strcmp(out, "h2"));
	CHECK_INT(th_eval(h, n, "req.ssl_hello_type", F, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "1"));
	CHECK_INT(th_eval(h, n, "req_ssl_hello_type", F, out, sizeof(out), &fl), 1);
	/* the hello's version, not the record's (3.1): 3 * 65536 + 3 */
	CHECK_INT(th_eval(h, n, "req.ssl_ver", F, out, sizeof(out), &fl), 6);
	CHECK(!strcmp(out, "196611"));
	CHECK_INT(th_eval(h, n, "req_ssl_ver", F, out, sizeof(out), &fl), 6);
	CHECK_INT(th_eval(h, n, "req.ssl_ec_ext", F, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "1"));
	CHECK_INT(th_eval(h, n, "req.ssl_st_ext", F, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "1"));
	n = th_build(h, 1, NULL, NULL, 0, 16);
	CHECK_INT(th_eval(h, n, "req.ssl_st_ext", F, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "2"));
	CHECK_INT(th_eval(h, n, "req.ssl_ver", F, out, sizeof(out), &fl), 6);
	CHECK(!strcmp(out, "196609"));
	/* absent: no SNI, no ALPN, no groups (not found, as 2.6), no ticket (0) */
	CHECK_INT(th_eval(h, n, "req.ssl_sni", F, out, sizeof(out), &fl), -1);
	CHECK_INT(th_eval(h, n, "req.ssl_alpn", F, out, sizeof(out), &fl), -1);
	CHECK_INT(th_eval(h, n, "req.ssl_ec_ext", F, out, sizeof(out), &fl), -1);
	n = th_build(h, 3, NULL, NULL, 0, -1);
	CHECK_INT(th_eval(h, n, "req.ssl_st_ext", F, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "0"));
}

TEST(tls_hello_incomplete)
{
	unsigned char h[512];
	size_t n = th_build(h, 3, "a.test", NULL, 1, 0);
	char out[64];
	uint32_t fl;

	for (size_t cut = 0; cut < n; cut++) {
		CHECK_INT(th_eval(h, cut, "req.ssl_sni", 0, out, sizeof(out), &fl), -1);
		CHECK(fl & SMP_F_MAY_CHANGE);
		CHECK_INT(th_eval(h, cut, "req.ssl_sni", F, out, sizeof(out), &fl), -1);
		CHECK(!(fl & SMP_F_MAY_CHANGE));
		CHECK_INT(th_eval(h, cut, "req.ssl_hello_type", 0, out, sizeof(out), &fl), -1);
		CHECK(fl & SMP_F_MAY_CHANGE);
	}
	/* the version is known once the hello's version bytes are in */
	CHECK_INT(th_eval(h, 10, "req.ssl_ver", 0, out, sizeof(out), &fl), -1);
	CHECK(fl & SMP_F_MAY_CHANGE);
	CHECK_INT(th_eval(h, 11, "req.ssl_ver", 0, out, sizeof(out), &fl), 6);
}

TEST(tls_hello_not_tls)
{
	static const unsigned char get[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	unsigned char h[512];
	size_t n = th_build(h, 3, "a.test", NULL, 1, 0);
	char out[64];
	uint32_t fl;

	CHECK_INT(th_eval(get, sizeof(get) - 1, "req.ssl_sni", 0, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	CHECK_INT(th_eval(get, sizeof(get) - 1, "req.ssl_ver", 0, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	CHECK_INT(th_eval(get, sizeof(get) - 1, "req.ssl_hello_type", 0, out, sizeof(out), &fl),
		  -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	/* an application data record: a type and a version, but no extensions */
	h[0] = 0x17;
	CHECK_INT(th_eval(h, n, "req.ssl_hello_type", F, out, sizeof(out), &fl), 1);
	CHECK_INT(th_eval(h, n, "req.ssl_sni", 0, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	h[0] = 0x16;
	h[1] = 2; /* SSLv3 record format needs major version 3 */
	CHECK_INT(th_eval(h, n, "req.ssl_hello_type", 0, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
}

TEST(tls_hello_sslv2)
{
	/* short header, client hello, version 3.1, 3 bytes of ciphers, no session, 16 bytes
	 * of challenge */
	static const unsigned char v2[] = "\x80\x1c\x01\x03\x01\x00\x03\x00\x00\x00\x10\x00\x00\x2f"
					  "AAAAAAAAAAAAAAAA";
	int v = 0;

	CHECK_INT(tls_hello_version(v2, sizeof(v2) - 1, &v), 0);
	CHECK_INT(v, 0x30001);
	CHECK_INT(tls_hello_version(v2, 5, &v), TLS_HELLO_AGAIN);
	CHECK_INT(tls_hello_type(v2, sizeof(v2) - 1, &v), TLS_HELLO_NOT);
}

TEST(tls_hello_bounds)
{
	unsigned char h[512];
	size_t n = th_build(h, 3, "a.test", "\x02h2", 1, 0);
	const unsigned char *ext, *b, *v;
	size_t len, bl, vl;

	CHECK_INT(tls_hello_exts(h, n, &ext, &len), 0);
	CHECK_INT(tls_hello_ext_find(ext, len, TLS_EXT_SNI, &b, &bl), 1);
	/* a name longer than its extension, an extension longer than the block */
	CHECK_INT(tls_hello_sni(b, bl - 1, &v, &vl), TLS_HELLO_NOT);
	CHECK_INT(tls_hello_ext_find(ext, 8, TLS_EXT_ALPN, &b, &bl), TLS_HELLO_NOT);
	CHECK_INT(tls_hello_alpn((const unsigned char *)"\x00\x03\x05h2", 5, &v, &vl),
		  TLS_HELLO_NOT);
	/* a handshake message longer than its record: not read */
	h[4] = (unsigned char)(h[4] - 1);
	CHECK_INT(tls_hello_exts(h, n, &ext, &len), TLS_HELLO_NOT);
}
