/* Unit tests of the pure parsers behind the HTTP fetches (src/sample/smp_http.c): URL and
 * body parameters, cookies with HAProxy's quirks, comma-separated header values, the
 * lenient integer and IPv4 readers, url_ip/url_port, the base32 hash, the varint of
 * req.hdrs_bin and chunked decoding, and the HTTP method ids. Expected values are HAProxy
 * 2.6's, observed on Debian's build.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <http/meth.h>
#include <sample/smp_http.h>

#include "../test.h"

/* Every value of <name> in the parameters of <uri>, joined by '|'. */
static const char *params(const char *uri, const char *name, char delim, char *out)
{
	struct ist rest = smp_param_list(ist_str(uri), delim), v;
	size_t o = 0;

	out[0] = 0;
	if (!rest.ptr)
		return "(none)";
	while (smp_param_next(&rest, ist_str(name), delim, &v)) {
		if (o)
			out[o++] = '|';
		memcpy(out + o, v.ptr, v.len);
		o += v.len;
	}
	out[o] = 0;
	return out;
}

TEST(fetch_url_params)
{
	char buf[256];

	CHECK_STR(params("/p/a?a=1&b=2;c=3&a=4", "a", '?', buf), "1|4");
	CHECK_STR(params("/p/a?a=1&b=2;c=3&a=4", "c", '?', buf), "3");
	CHECK_STR(params("/p/a?a=1&b=2;c=3&a=4", "", '?', buf), "1|2|3|4");
	/* a custom delimiter starts the list and separates too, '?' no longer does */
	CHECK_STR(params("/p/a?a=1&b=2;c=3&a=4", "a", ';', buf), "4");
	CHECK_STR(params("/p;a=1?x&a=2/a=3", "a", '/', buf), "1?x|2|3");
	CHECK_STR(params("/p;a=1?x&a=2/a=3", "a", '?', buf), "2/a=3");
	/* names need '=': "b" alone is no parameter, any name takes the first with '=' */
	CHECK_STR(params("/p?b&a=1&a=2&x", "b", '?', buf), "");
	CHECK_STR(params("/p?b&a=1&a=2&x", "", '?', buf), "1|2");
	CHECK_STR(params("/p?=5&a", "", '?', buf), "5");
	CHECK_STR(params("/p?=5&a", "a", '?', buf), "");
	CHECK_STR(params("/p?&&a", "", '?', buf), "");
	CHECK_STR(params("/p?ab=1&a=", "a", '?', buf), "");
	CHECK_STR(params("/p?a=1?b=2", "b", '?', buf), "2");
	CHECK_STR(params("/p", "a", '?', buf), "(none)");
	CHECK_STR(params("/p?", "a", '?', buf), "");
}

/* The number of cookies <name> (any when NULL) in <hv>, ':', their values joined by '|'. */
static const char *cookies(const char *hv, const char *name, bool list, char *out)
{
	struct ist rest = ist_str(hv), v;
	char vals[200];
	size_t o = 0;
	int n = 0;

	while (smp_cookie_next(&rest, ist_str(name ? name : ""), !name, list, &v)) {
		if (n++)
			vals[o++] = '|';
		memcpy(vals + o, v.ptr, v.len);
		o += v.len;
	}
	vals[o] = 0;
	snprintf(out, 256, "%d:%s", n, vals);
	return out;
}

TEST(fetch_cookies)
{
	const char *h = "a=1; b = 42x ; $p=9; n; q=\"x;y\"; a=2";
	char buf[256];

	CHECK_STR(cookies(h, "a", true, buf), "2:1|2");
	CHECK_STR(cookies(h, NULL, true, buf), "4:1|42x|\"x;y\"|2");
	CHECK_STR(cookies(h, "q", true, buf), "1:\"x;y\"");
	CHECK_STR(cookies(h, "n", true, buf), "0:");
	CHECK_STR(cookies(h, "$p", true, buf), "0:");
	/* Cookie headers are lists: ',' separates too */
	CHECK_STR(cookies("a=3,c=4", "c", true, buf), "1:4");
	CHECK_STR(cookies("=5; b=7", NULL, true, buf), "2:5|7");
	/* HAProxy skips a last "NAME=" whose segment is not longer than "NAME=" */
	CHECK_STR(cookies("a=", "a", true, buf), "0:");
	CHECK_STR(cookies("a=", NULL, true, buf), "1:");
	CHECK_STR(cookies("x=1; a=", "a", true, buf), "1:");
	CHECK_STR(cookies("a=;b=2", "a", true, buf), "1:");
	CHECK_STR(cookies("b=1; a=  ; c=2", "a", true, buf), "1:");
	CHECK_STR(cookies("a=\"a\\\"b;c\"; d=1", "a", true, buf), "1:\"a\\\"b;c\"");
	/* Set-Cookie: only the first pair names the cookie */
	CHECK_STR(cookies("s=1, t=2; path=/", "s", false, buf), "1:1");
	CHECK_STR(cookies("s=1; path=/", "path", false, buf), "0:");
	CHECK_STR(cookies("$v=1; s=2", "s", false, buf), "1:2");
}

/* The comma-separated values of <hv>, joined by '|'. */
static const char *values(const char *hv, char *out)
{
	struct ist rest = ist_str(hv), v;
	bool done = false;
	size_t o = 0;
	int n = 0;

	while (smp_hdr_next_value(&rest, &done, &v)) {
		if (n++)
			out[o++] = '|';
		memcpy(out + o, v.ptr, v.len);
		o += v.len;
	}
	out[o] = 0;
	return out;
}

TEST(fetch_header_values)
{
	char buf[256];

	CHECK_STR(values("12, 1.5 , -3", buf), "12|1.5|-3");
	CHECK_STR(values(",  a  ,, b,", buf), "|a||b|");
	CHECK_STR(values("", buf), "");
	CHECK_STR(values("\"a,b\" , c, \"d\\\",e\"", buf), "\"a,b\"|c|\"d\\\",e\"");
}

/* The fast element reader and the word-at-a-time scanner against a byte loop, on every
 * length around the word size and every position of ',' and '"'. */
TEST(fetch_header_value_scanner)
{
	char buf[40];

	for (size_t len = 0; len <= 20; len++) {
		for (size_t at = 0; at <= len; at++) {
			for (int k = 0; k < 2; k++) {
				const char *r;

				memset(buf, 'x', sizeof(buf));
				if (at < len)
					buf[at] = k ? '"' : ',';
				r = smp_find_comma_or_quote(buf, buf + len);
				if (r != buf + at)
					test_fail(__FILE__, __LINE__, "len %zu at %zu: got %td",
						  len, at, r - buf);
			}
		}
	}
	/* a mark right after the end is not seen */
	memset(buf, 'x', sizeof(buf));
	buf[11] = ',';
	CHECK_INT((int)(smp_find_comma_or_quote(buf, buf + 11) - buf), 11);

	struct ist rest = ist_str("  bench.local \t"), v;
	bool done = false;

	CHECK(smp_hdr_next_value_fast(&rest, &done, &v));
	CHECK(done && rest.len == 0);
	CHECK(v.len == 11 && !memcmp(v.ptr, "bench.local", 11));
	CHECK(!smp_hdr_next_value_fast(&rest, &done, &v));
	/* with a comma or a quote it reads like smp_hdr_next_value() */
	rest = ist_str("a, b");
	done = false;
	CHECK(smp_hdr_next_value_fast(&rest, &done, &v) && !done && v.len == 1 && *v.ptr == 'a');
	CHECK(smp_hdr_next_value_fast(&rest, &done, &v) && done && v.len == 1 && *v.ptr == 'b');
}

/* The persistence cookie finder: pairs split on ';' or ',', spaces around '=' ignored,
 * the first pair of the name wins, names are case-sensitive. */
static const char *cpair(const char *hv, const char *name, char *out)
{
	struct ist pair, val;

	if (!smp_cookie_pair(ist_str(hv), ist_str(name), &pair, &val))
		return "-";
	snprintf(out, 128, "[%.*s]{%.*s}", (int)pair.len, pair.ptr, (int)val.len, val.ptr);
	return out;
}

TEST(fetch_cookie_pair)
{
	char buf[128];

	CHECK_STR(cpair("x=1; SRV=B; y=2", "SRV", buf), "[SRV=B]{B}");
	CHECK_STR(cpair("a=1, SRV=A", "SRV", buf), "[SRV=A]{A}");
	CHECK_STR(cpair("SRV = B ;x", "SRV", buf), "[SRV = B]{B}");
	CHECK_STR(cpair("SRV=1;SRV=2", "SRV", buf), "[SRV=1]{1}");
	CHECK_STR(cpair("srv=1", "SRV", buf), "-");
	CHECK_STR(cpair("SRVX=1; XSRV=2", "SRV", buf), "-");
	CHECK_STR(cpair("SRV", "SRV", buf), "-");
	CHECK_STR(cpair("SRV=", "SRV", buf), "[SRV=]{}");
	CHECK_STR(cpair("", "SRV", buf), "-");
	CHECK_STR(cpair(";;; ,, SRV=E~abc", "SRV", buf), "[SRV=E~abc]{E~abc}");
}

TEST(fetch_strl2ic)
{
	CHECK_INT(smp_strl2ic(ist_str("12")), 12);
	CHECK_INT(smp_strl2ic(ist_str("-3")), -3);
	CHECK_INT(smp_strl2ic(ist_str("abc")), 0);
	CHECK_INT(smp_strl2ic(ist_str("42x")), 42);
	CHECK_INT(smp_strl2ic(ist_str("")), 0);
	/* HAProxy's quirk: bytes below '0' are accumulated */
	CHECK_INT(smp_strl2ic(ist_str("1.5")), 85);
	CHECK_INT(smp_strl2ic(ist_str("1 2")), -58);
	CHECK_INT(smp_strl2ic(ist_str("\" q \"")), -156);
	CHECK_INT(smp_strl2ic(ist_str("1.2.3.4.5")), 81828385);
	/* 32-bit wrap */
	CHECK_INT(smp_strl2ic(ist_str("4294967297")), 1);
}

TEST(fetch_ipv4_prefix)
{
	struct in_addr a;

	CHECK_INT(smp_ipv4_prefix(ist_str("1.2.3.4"), &a), 7);
	CHECK_INT(ntohl(a.s_addr), 0x01020304);
	CHECK_INT(smp_ipv4_prefix(ist_str("010.1.2.3"), &a), 9);
	CHECK_INT(ntohl(a.s_addr), 0x0a010203);
	CHECK_INT(smp_ipv4_prefix(ist_str("1.2.3.4:80"), &a), 7);
	CHECK_INT(smp_ipv4_prefix(ist_str("1.2.3.4junk"), &a), 7);
	CHECK_INT(smp_ipv4_prefix(ist_str("1.2.3.4.5"), &a), 0);
	CHECK_INT(smp_ipv4_prefix(ist_str("1.2.3"), &a), 0);
	CHECK_INT(smp_ipv4_prefix(ist_str("1.2.3."), &a), 0);
	CHECK_INT(smp_ipv4_prefix(ist_str("256.1.1.1"), &a), 0);
	CHECK_INT(smp_ipv4_prefix(ist_str("1..2.3"), &a), 0);
	CHECK_INT(smp_ipv4_prefix(ist_str(""), &a), 0);
}

TEST(fetch_url_ipv4)
{
	struct in_addr a;
	int port;

	CHECK(smp_url_ipv4(ist_str("http://10.1.2.3:8080/x/y?z"), &a, &port));
	CHECK_INT(ntohl(a.s_addr), 0x0a010203);
	CHECK_INT(port, 8080);
	CHECK(smp_url_ipv4(ist_str("HTTP://10.1.2.3/x"), &a, &port));
	CHECK_INT(port, 80);
	CHECK(smp_url_ipv4(ist_str("https://10.1.2.3/x"), &a, &port));
	CHECK_INT(port, 443);
	CHECK(!smp_url_ipv4(ist_str("http://foo.com/x"), &a, &port));
	CHECK(!smp_url_ipv4(ist_str("http://[::1]:81/x"), &a, &port));
	CHECK(!smp_url_ipv4(ist_str("ftp://10.1.2.3/x"), &a, &port));
	CHECK(!smp_url_ipv4(ist_str("/x?u=http://1.2.3.4/"), &a, &port));
	CHECK(!smp_url_ipv4(ist_str("*"), &a, &port));
}

static uint32_t base32(const char *host, const char *path)
{
	uint32_t h = smp_hash_sdbm(0, ist_str(host));

	return smp_hash_final(smp_hash_sdbm(h, ist_str(path)));
}

TEST(fetch_base32_hash)
{
	/* values printed by HAProxy 2.6 for the same Host and path */
	CHECK_INT(base32("Example.com:80", "/p/a"), 2611721983u);
	CHECK_INT(base32("10.1.2.3:8080", "/x/y"), 3293389285u);
	CHECK_INT(base32("10.1.2.3:8080", "/x/y?z"), 2182180904u);
	CHECK_INT(base32("x", ""), 2246094376u);
	CHECK_INT(base32("", "/"), 2118074832u);
	CHECK_INT(base32("a", ""), 0x6d1eff97u);
}

TEST(fetch_varint)
{
	char out[16];
	size_t pos = 0;

	CHECK_INT(smp_varint_put(out, sizeof(out), &pos, 5), 0);
	CHECK_INT(pos, 1);
	CHECK_INT((uint8_t)out[0], 5);
	pos = 0;
	CHECK_INT(smp_varint_put(out, sizeof(out), &pos, 239), 0);
	CHECK_INT(pos, 1);
	pos = 0;
	/* 240: 0xf0 then (240 - 240) >> 4 = 0 */
	CHECK_INT(smp_varint_put(out, sizeof(out), &pos, 240), 0);
	CHECK_INT(pos, 2);
	CHECK_INT((uint8_t)out[0], 0xf0);
	CHECK_INT((uint8_t)out[1], 0);
	pos = 0;
	/* 1000: 1000 | 240 -> 0xf8, (1000 - 240) >> 4 = 47 */
	CHECK_INT(smp_varint_put(out, sizeof(out), &pos, 1000), 0);
	CHECK_INT(pos, 2);
	CHECK_INT((uint8_t)out[0], 0xf8);
	CHECK_INT((uint8_t)out[1], 47);
	pos = 0;
	/* 100000: 0xf0 | 0, then 6235 -> 0xdb (6235 | 128), (6235 - 128) >> 7 = 47 */
	CHECK_INT(smp_varint_put(out, sizeof(out), &pos, 100000), 0);
	CHECK_INT(pos, 3);
	CHECK_INT((uint8_t)out[0], 0xf0);
	CHECK_INT((uint8_t)out[1], 0xdb);
	CHECK_INT((uint8_t)out[2], 47);
	pos = 0;
	CHECK_INT(smp_varint_put(out, 1, &pos, 1000), -1);
}

TEST(fetch_dechunk)
{
	const char *in = "3\r\nk=v\r\n4;ext=1\r\n&x=y\r\n0\r\n\r\n";
	char out[64];
	bool end;
	size_t n;

	n = smp_dechunk(ist_str(in), out, sizeof(out), &end);
	CHECK_INT(n, 7);
	CHECK(end);
	CHECK(!memcmp(out, "k=v&x=y", 7));
	/* a partial chunk gives what arrived */
	n = smp_dechunk(ist_str("5\r\nab"), out, sizeof(out), &end);
	CHECK_INT(n, 2);
	CHECK(!end);
	/* bounded by the output */
	n = smp_dechunk(ist_str(in), out, 4, &end);
	CHECK_INT(n, 4);
	CHECK(!end);
	/* an invalid size line stops */
	n = smp_dechunk(ist_str("zz\r\nab"), out, sizeof(out), &end);
	CHECK_INT(n, 0);
}

TEST(http_meth_ids)
{
	CHECK_INT(http_meth_id(ist_str("GET")), HTTP_METH_GET);
	CHECK_INT(http_meth_id(ist_str("CONNECT")), HTTP_METH_CONNECT);
	CHECK_INT(http_meth_id(ist_str("get")), HTTP_METH_OTHER);
	CHECK_INT(http_meth_id(ist_str("PURGE")), HTTP_METH_OTHER);
	CHECK(ist_eq(http_meth_name(HTTP_METH_OPTIONS), IST("OPTIONS")));
	CHECK_INT(http_meth_name(HTTP_METH_OTHER).len, 0);
}
