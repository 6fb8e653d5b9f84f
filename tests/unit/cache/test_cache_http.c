/* Unit tests of the cache's HTTP rules (src/cache/cache_http.c): request flags and keys,
 * Accept-Encoding matching, which responses are stored and for how long, HTTP dates and
 * conditional requests. The expected values are what HAProxy 2.6 does with the same
 * messages (checked against it by tests/integration/test_cache*.py).
 */
#include <stdint.h>
#include <cache/cache_http.h>
#include <http/h1.h>
#include "../test.h"

static struct h1_hdr hdrs[64];
static struct h1_msg msg;
static const struct h1_limits lim = { .max_hdr_block = 15360, .max_hdr = 64 };

static const struct h1_msg *parse(const char *s, bool resp)
{
	memset(&msg, 0, sizeof(msg));
	msg.hdr = hdrs;
	msg.max_hdr = 64;
	if (h1_parse_headers(s, strlen(s), &msg, resp, &lim) <= 0)
		test_fail(__FILE__, __LINE__, "cannot parse:\n%s", s);
	return &msg;
}

static uint32_t rqf(const char *hdrs_text)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "GET /x HTTP/1.1\r\nHost: h\r\n%s\r\n", hdrs_text);
	return cache_req_flags(parse(buf, false));
}

TEST(cache_req_flags_rules)
{
	CHECK_INT(rqf(""), 0);
	CHECK_INT(rqf("Cache-Control: no-cache\r\n"), CACHE_RQ_IGNORE);
	CHECK_INT(rqf("Cache-Control: foo, MAX-STALE\r\n"), CACHE_RQ_IGNORE);
	CHECK_INT(rqf("Cache-Control: max-age=10\r\n"), CACHE_RQ_IGNORE);
	CHECK_INT(rqf("Cache-Control: min-fresh=1\r\n"), CACHE_RQ_IGNORE);
	CHECK_INT(rqf("Cache-Control: only-if-cached\r\n"), 0);
	CHECK_INT(rqf("Cache-Control: no-store\r\n"), CACHE_RQ_NOSTORE);
	CHECK_INT(rqf("Pragma: no-cache\r\n"), CACHE_RQ_IGNORE);
	/* Cache-Control wins over Pragma (RFC 7234 5.4) */
	CHECK_INT(rqf("Pragma: no-cache\r\nCache-Control: foo\r\n"), 0);
	CHECK_INT(rqf("Pragma: no-cache, x\r\n"), 0);
	CHECK_INT(rqf("Authorization: Basic eA==\r\n"), CACHE_RQ_IGNORE | CACHE_RQ_NOSTORE);
	CHECK_INT(cache_req_flags(
			  parse("POST /x HTTP/1.1\r\nHost: h\r\ncontent-length: 0\r\n\r\n", false)),
		  CACHE_RQ_IGNORE);
	CHECK_INT(cache_req_flags(parse("HEAD /x HTTP/1.1\r\nHost: h\r\n\r\n", false)), 0);
	CHECK(cache_req_flags(parse("GET /x HTTP/1.0\r\nHost: h\r\n\r\n", false)) & CACHE_RQ_SKIP);
}

static const char *key_of(const char *req, char *out, size_t room)
{
	long n = cache_req_key(parse(req, false), out, room - 1);

	out[n > 0 ? n : 0] = 0;
	return n < 0 ? "(too long)" : out;
}

TEST(cache_req_key_forms)
{
	char k[256];

	CHECK_STR(key_of("GET /a?b=1 HTTP/1.1\r\nHost: ex.com\r\n\r\n", k, sizeof(k)),
		  "https://ex.com/a?b=1");
	/* an absolute target is the key as it is: https:// shares the origin form's */
	CHECK_STR(key_of("GET https://ex.com/a?b=1 HTTP/1.1\r\nHost: ex.com\r\n\r\n", k, sizeof(k)),
		  "https://ex.com/a?b=1");
	CHECK_STR(key_of("GET http://ex.com/a HTTP/1.1\r\nHost: ex.com\r\n\r\n", k, sizeof(k)),
		  "http://ex.com/a");
	/* no Host, no key */
	CHECK_STR(key_of("GET /a HTTP/1.1\r\n\r\n", k, sizeof(k)), "");
	/* the Host is taken as it is (case included) */
	CHECK_STR(key_of("GET /a HTTP/1.1\r\nHost: EX.com\r\n\r\n", k, sizeof(k)),
		  "https://EX.com/a");
	CHECK_STR(key_of("GET /abcdefghij HTTP/1.1\r\nHost: ex.com\r\n\r\n", k, 12), "(too long)");
}

static struct cache_sec ae(const char *v)
{
	struct cache_sec s = { 0 };

	if (v)
		cache_ae_parse(ist_str(v), &s);
	else
		s.ae_any = 1;
	return s;
}

TEST(cache_accept_encoding_matching)
{
	struct cache_sec s;

	/* an identity response: to anyone who does not refuse it */
	s = ae("gzip;q=0");
	CHECK(cache_enc_acceptable(CACHE_ENC_IDENTITY, &s));
	s = ae("br");
	CHECK(cache_enc_acceptable(CACHE_ENC_IDENTITY, &s));
	s = ae("identity;q=0");
	CHECK(!cache_enc_acceptable(CACHE_ENC_IDENTITY, &s));
	s = ae("*;q=0");
	CHECK(!cache_enc_acceptable(CACHE_ENC_IDENTITY, &s));
	s = ae("*;q=0, identity");
	CHECK(cache_enc_acceptable(CACHE_ENC_IDENTITY, &s));
	/* a gzip response */
	s = ae(NULL);
	CHECK(cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("gzip");
	CHECK(cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("x-gzip");
	CHECK(cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("GZIP;q=0.5");
	CHECK(cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("br, gzip");
	CHECK(cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("*");
	CHECK(cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("*, gzip;q=0");
	CHECK(!cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("br");
	CHECK(!cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("gzip;q=0");
	CHECK(!cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("gzip;q=0.000");
	CHECK(!cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	s = ae("deflate");
	CHECK(!cache_enc_acceptable(CACHE_ENC_GZIP, &s));
	/* every coding of the response must be acceptable */
	s = ae("gzip");
	CHECK(!cache_enc_acceptable(CACHE_ENC_GZIP | CACHE_ENC_BR, &s));
	s = ae("gzip, br");
	CHECK(cache_enc_acceptable(CACHE_ENC_GZIP | CACHE_ENC_BR, &s));
	CHECK_INT(cache_enc_bit(IST("Zstd")), CACHE_ENC_ZSTD);
	CHECK_INT(cache_enc_bit(IST("foo")), CACHE_ENC_OTHER);
}

TEST(cache_req_secondary_values)
{
	struct cache_sec s;

	cache_req_sec(parse("GET / HTTP/1.1\r\nHost: h\r\nReferer: a\r\nOrigin: o\r\n"
			    "Accept-Encoding: gzip\r\nAccept-Encoding: br;q=0\r\n\r\n",
			    false),
		      &s);
	CHECK(!s.ae_any);
	CHECK_INT(s.ae, CACHE_ENC_GZIP);
	CHECK_INT(s.ae_rej, CACHE_ENC_BR);
	CHECK_INT(s.referer, cache_sec_hash(IST("a")));
	CHECK_INT(s.origin, cache_sec_hash(IST("o")));
	CHECK(s.referer != cache_sec_hash(IST("b")));
	cache_req_sec(parse("GET / HTTP/1.1\r\nHost: h\r\n\r\n", false), &s);
	CHECK(s.ae_any);
	CHECK_INT(s.referer, 0);
}

/* cache_rsp_check() of "HTTP/1.1 200 OK\r\n<h>\r\n" with max-age 60: the ttl, or -1. */
static int ttl(const char *h, uint32_t rq, bool vary_on, struct cache_rsp *out)
{
	char buf[1024];
	struct cache_rsp r;

	snprintf(buf, sizeof(buf), "HTTP/1.1 200 OK\r\n%s\r\n", h);
	if (cache_rsp_check(parse(buf, true), rq, 60, vary_on, 1700000000, out ? out : &r) < 0)
		return -1;
	return (out ? out : &r)->ttl;
}

TEST(cache_rsp_storable)
{
	/* an expiration time or a validator is needed */
	CHECK_INT(ttl("", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: public\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("ETag: \"x\"\r\n", 0, false, NULL), 60);
	CHECK_INT(ttl("Last-Modified: Tue, 01 Jan 2019 00:00:00 GMT\r\n", 0, false, NULL), 60);
	CHECK_INT(ttl("Cache-Control: max-age\r\n", 0, false, NULL), 60);
	/* what forbids it */
	CHECK_INT(ttl("Cache-Control: max-age=30, private\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nCache-Control: no-cache\r\n", 0, false, NULL),
		  -1);
	CHECK_INT(ttl("Cache-Control: max-age=30, no-store\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: max-age=0, s-maxage=30\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: s-maxage=0, max-age=30\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30, no-cache=\"set-cookie\"\r\n", 0, false, NULL),
		  -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nPragma: no-cache\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: public, max-age=30\r\nPragma: no-cache\r\n", 0, false, NULL),
		  -1);
	/* the order of the directives matters, "public" allows what came before */
	CHECK_INT(ttl("Cache-Control: max-age=30, private, public\r\n", 0, false, NULL), 30);
	CHECK_INT(ttl("Cache-Control: max-age=30, public, private\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\n", CACHE_RQ_NOSTORE, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: public, max-age=30\r\n", CACHE_RQ_NOSTORE, false, NULL), 30);
	CHECK_INT(ttl("Cache-Control: public, max-age=30\r\n", CACHE_RQ_SKIP, false, NULL), -1);
	/* Set-Cookie alone does not prevent it */
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nSet-Cookie: a=b\r\n", 0, false, NULL), 30);
}

TEST(cache_rsp_lifetime)
{
	CHECK_INT(ttl("Cache-Control: max-age=30\r\n", 0, false, NULL), 30);
	CHECK_INT(ttl("Cache-Control: MAX-AGE=30\r\n", 0, false, NULL), 30);
	CHECK_INT(ttl("Cache-Control: max-age=\"30\"\r\n", 0, false, NULL), 30);
	CHECK_INT(ttl("Cache-Control: max-age=30x\r\n", 0, false, NULL), 30);
	CHECK_INT(ttl("Cache-Control: max-age=300\r\n", 0, false, NULL), 60);
	CHECK_INT(ttl("Cache-Control: s-maxage=5, max-age=30\r\n", 0, false, NULL), 5);
	CHECK_INT(ttl("Cache-Control: max-age=abc\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: max-age=-1\r\n", 0, false, NULL), -1);
	/* Expires, only without max-age: 1700000000 is Tue, 14 Nov 2023 22:13:20 GMT */
	CHECK_INT(ttl("Expires: Tue, 14 Nov 2023 22:13:40 GMT\r\n", 0, false, NULL), 20);
	CHECK_INT(ttl("Expires: Tue, 14 Nov 2023 22:00:00 GMT\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Expires: garbage\r\n", 0, false, NULL), -1);
	CHECK_INT(ttl("Cache-Control: max-age=7\r\nExpires: Tue, 01 Jan 2000 00:00:00 GMT\r\n", 0,
		      false, NULL),
		  7);
}

TEST(cache_rsp_age_vary_validators)
{
	struct cache_rsp r;

	CHECK_INT(ttl("Cache-Control: max-age=30\r\nAge: 10\r\n", 0, false, &r), 30);
	CHECK_INT(r.age, 10);
	CHECK_INT(r.age_idx, 1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nAge: 30\r\n", 0, false, &r), 30);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nAge: 31\r\n", 0, false, &r), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nAge: 0\r\n", 0, false, &r), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nAge: -5\r\n", 0, false, &r), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nAge: abc\r\n", 0, false, &r), -1);
	/* without an announced lifetime any Age is too old */
	CHECK_INT(ttl("ETag: \"a\"\r\nAge: 1\r\n", 0, false, &r), -1);
	/* Vary: refused without process-vary, known headers only with it */
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nVary: accept-encoding\r\n", 0, false, &r), -1);
	CHECK_INT(
		ttl("Cache-Control: max-age=30\r\nVary: Accept-Encoding, Referer\r\n", 0, true, &r),
		30);
	CHECK_INT(r.vary, CACHE_VARY_AE | CACHE_VARY_REFERER);
	CHECK_INT(r.enc, CACHE_ENC_IDENTITY);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nVary: Origin\r\n", 0, true, &r), 30);
	CHECK_INT(r.vary, CACHE_VARY_ORIGIN);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nVary: *\r\n", 0, true, &r), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nVary: User-Agent\r\n", 0, true, &r), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nVary:\r\n", 0, true, &r), -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nVary: accept-encoding\r\n"
		      "Content-Encoding: gzip\r\n",
		      0, true, &r),
		  30);
	CHECK_INT(r.enc, CACHE_ENC_GZIP);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nVary: accept-encoding\r\n"
		      "Content-Encoding: foo\r\n",
		      0, true, &r),
		  -1);
	CHECK_INT(ttl("Cache-Control: max-age=30\r\nContent-Encoding: foo\r\n", 0, true, &r), 30);
	/* validators for conditional requests */
	CHECK_INT(ttl("ETag: W/\"v\"\r\nDate: Tue, 01 Jan 2019 00:00:00 GMT\r\n", 0, false, &r),
		  60);
	CHECK(ist_eq(r.etag, IST("W/\"v\"")));
	CHECK_INT(r.last_mod, 1546300800);
	CHECK_INT(ttl("Last-Modified: Tue, 01 Jan 2019 00:00:00 GMT\r\n"
		      "Date: Wed, 02 Jan 2019 00:00:00 GMT\r\n",
		      0, false, &r),
		  60);
	CHECK_INT(r.last_mod, 1546300800);
}

TEST(cache_status_list)
{
	static const int ok[] = { 200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501 };
	int n = 0;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		CHECK(cache_status_ok(ok[i]));
	for (int st = 100; st < 600; st++)
		n += cache_status_ok(st);
	CHECK_INT(n, 11);
}

static int64_t date(const char *s)
{
	int64_t t = -1;

	if (cache_http_date(ist_str(s), &t) < 0)
		return -1;
	return t;
}

TEST(cache_http_dates)
{
	CHECK_INT(date("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777);
	CHECK_INT(date("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777);
	CHECK_INT(date("Sun Nov  6 08:49:37 1994"), 784111777);
	CHECK_INT(date("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
	CHECK_INT(date("Tue, 29 Feb 2028 12:00:00 GMT"), 1835438400);
	CHECK_INT(date("Sun, 06 Nov 1994 08:49:37 UTC"), -1);
	CHECK_INT(date("Sun, 6 Nov 1994 08:49:37 GMT"), -1);
	CHECK_INT(date("Foo, 06 Nov 1994 08:49:37 GMT"), -1);
	CHECK_INT(date("Sun, 06 Nov 1994 08:49:37 GMT "), -1);
	CHECK_INT(date("Sun, 06 Nov 1994 25:49:37 GMT"), -1);
	CHECK_INT(date(""), -1);
}

TEST(cache_conditional_requests)
{
	CHECK(cache_etag_match(IST("\"v1\""), IST("\"v1\"")));
	CHECK(cache_etag_match(IST("W/\"v1\""), IST("\"v1\"")));
	CHECK(cache_etag_match(IST("\"v1\""), IST("W/\"v1\"")));
	CHECK(cache_etag_match(IST("\"v2\", \"v1\""), IST("\"v1\"")));
	CHECK(cache_etag_match(IST("*"), IST("\"v1\"")));
	CHECK(!cache_etag_match(IST("\"v2\""), IST("\"v1\"")));
	CHECK(!cache_etag_match(IST("\"v1,v2\""), IST("\"v1\"")));
	/* If-None-Match decides when present */
	CHECK(cache_not_modified(parse("GET / HTTP/1.1\r\nIf-None-Match: \"zz\"\r\n"
				       "If-Modified-Since: Wed, 02 Jan 2019 00:00:00 GMT\r\n\r\n",
				       false),
				 IST("\"v\""), 1546300800) == false);
	CHECK(cache_not_modified(parse("GET / HTTP/1.1\r\n"
				       "If-Modified-Since: Tue, 01 Jan 2019 00:00:00 GMT\r\n\r\n",
				       false),
				 IST(""), 1546300800));
	CHECK(!cache_not_modified(parse("GET / HTTP/1.1\r\n"
					"If-Modified-Since: Mon, 31 Dec 2018 00:00:00 GMT\r\n\r\n",
					false),
				  IST(""), 1546300800));
	CHECK(!cache_not_modified(
		parse("GET / HTTP/1.1\r\nIf-Modified-Since: garbage\r\n\r\n", false), IST(""),
		1546300800));
	CHECK(!cache_not_modified(parse("GET / HTTP/1.1\r\n\r\n", false), IST("\"v\""), 0));
}
