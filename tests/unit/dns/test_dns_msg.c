/* dns/dns_msg: query building and the strict response parser on hand-built packets. */
#include <string.h>
#include <sys/socket.h>

#include <dns/dns_msg.h>

#include "../test.h"

/* A response builder: header, then bytes appended. */
struct pkt {
	uint8_t b[600];
	size_t n;
};

static void put(struct pkt *p, const void *d, size_t n)
{
	memcpy(p->b + p->n, d, n);
	p->n += n;
}

static void put16(struct pkt *p, unsigned v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(p, b, 2);
}

static void hdr(struct pkt *p, unsigned id, unsigned flags, unsigned qd, unsigned an, unsigned ns,
		unsigned ar)
{
	p->n = 0;
	put16(p, id);
	put16(p, flags);
	put16(p, qd);
	put16(p, an);
	put16(p, ns);
	put16(p, ar);
}

/* "\3www\7example\3com\0" at offset 12 */
static const uint8_t qname[] = "\3www\7example\3com";

static void question(struct pkt *p, unsigned type)
{
	put(p, qname, sizeof(qname));
	put16(p, type);
	put16(p, 1);
}

static void rr_a(struct pkt *p, const uint8_t *name, size_t nlen, const char ip[4])
{
	put(p, name, nlen);
	put16(p, DNS_T_A);
	put16(p, 1);
	put16(p, 0);
	put16(p, 300);
	put16(p, 4);
	put(p, ip, 4);
}

static const uint8_t ptr_q[] = { 0xc0, 12 }; /* pointer to the question name */

TEST(dns_build_query)
{
	uint8_t b[512];
	int n = dns_build_query(b, sizeof(b), 0x1234, "www.example.com.", DNS_T_A, 0);

	CHECK_INT(n, 12 + 17 + 4);
	CHECK_INT(b[0], 0x12);
	CHECK_INT(b[2], 0x01);
	CHECK(!memcmp(b + 12, qname, sizeof(qname)));
	n = dns_build_query(b, sizeof(b), 1, "www.example.com", DNS_T_AAAA, 1232);
	CHECK_INT(n, 12 + 17 + 4 + 11);
	CHECK_INT(b[11], 1);		     /* ARCOUNT */
	CHECK_INT(b[n - 11 + 2], DNS_T_OPT); /* type OPT after the root name */
	CHECK_INT(b[n - 11 + 3] << 8 | b[n - 11 + 4], 1232);
	CHECK_INT(dns_build_query(b, sizeof(b), 1, "a..b", DNS_T_A, 0), -1);
	CHECK_INT(dns_build_query(b, sizeof(b), 1, "a..", DNS_T_A, 0), -1);
	CHECK_INT(dns_build_query(b, sizeof(b), 1, "", DNS_T_A, 0), -1);
	CHECK_INT(dns_build_query(b, 20, 1, "www.example.com", DNS_T_A, 0), -1);
	{
		char lab[70];

		memset(lab, 'a', 64);
		lab[64] = 0;
		CHECK_INT(dns_build_query(b, sizeof(b), 1, lab, DNS_T_A, 0), -1);
	}
}

TEST(dns_parse_good)
{
	struct dns_result r;
	struct pkt p;

	hdr(&p, 7, 0x8180, 1, 2, 0, 0);
	question(&p, DNS_T_A);
	rr_a(&p, ptr_q, 2, "\x0a\x00\x00\x01");
	rr_a(&p, ptr_q, 2, "\x0a\x00\x00\x02");
	CHECK_INT(dns_parse_response(p.b, p.n, 7, "WWW.example.com", DNS_T_A, &r), DNS_ST_VALID);
	CHECK_INT(r.naddr, 2);
	CHECK_INT(r.addr[0].family, AF_INET);
	CHECK_INT(r.addr[1].ip[3], 2);
	CHECK_INT(r.addr[0].ttl, 300);
	/* every prefix is invalid (truncated without the TC bit) */
	for (size_t n = 0; n < p.n; n++)
		CHECK(dns_parse_response(p.b, n, 7, "www.example.com", DNS_T_A, &r) !=
		      DNS_ST_VALID);
	/* trailing garbage */
	p.b[p.n++] = 0;
	CHECK_INT(dns_parse_response(p.b, p.n, 7, "www.example.com", DNS_T_A, &r), DNS_ST_INVALID);
}

TEST(dns_parse_cname_chain)
{
	static const uint8_t alias[] = "\5alias\3net"; /* at 12 + 21 + 12 */
	struct dns_result r;
	struct pkt p;
	size_t at;

	hdr(&p, 9, 0x8180, 1, 3, 0, 0);
	question(&p, DNS_T_A);
	/* unrelated A first: ignored */
	rr_a(&p, (const uint8_t *)"\5other\0", 7, "\1\1\1\1");
	put(&p, ptr_q, 2);
	put16(&p, DNS_T_CNAME);
	put16(&p, 1);
	put16(&p, 0);
	put16(&p, 60);
	put16(&p, sizeof(alias));
	at = p.n;
	put(&p, alias, sizeof(alias));
	{
		uint8_t ptr[2] = { 0xc0, (uint8_t)at };

		rr_a(&p, ptr, 2, "\xc0\xa8\x00\x05");
	}
	CHECK_INT(dns_parse_response(p.b, p.n, 9, "www.example.com", DNS_T_A, &r), DNS_ST_VALID);
	CHECK_INT(r.naddr, 1);
	CHECK_INT(r.addr[0].ip[0], 192);
	CHECK_INT(r.addr[0].ip[3], 5);
}

TEST(dns_parse_rcodes_and_mismatch)
{
	struct dns_result r;
	struct pkt p;

	hdr(&p, 5, 0x8183, 1, 0, 0, 0);
	question(&p, DNS_T_A);
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_A, &r), DNS_ST_NX);
	p.b[3] = 0x85;
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_A, &r), DNS_ST_REFUSED);
	p.b[3] = 0x82;
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_A, &r), DNS_ST_SERVFAIL);
	p.b[3] = 0x84;
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_A, &r), DNS_ST_OTHER);
	p.b[3] = 0x80;
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_A, &r),
		  DNS_ST_NO_ANSWER);
	CHECK_INT(dns_parse_response(p.b, p.n, 6, "www.example.com", DNS_T_A, &r), DNS_ST_WRONG_ID);
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.org", DNS_T_A, &r),
		  DNS_ST_WRONG_QUESTION);
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_AAAA, &r),
		  DNS_ST_WRONG_QUESTION);
	p.b[2] = 0x83; /* TC */
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_A, &r),
		  DNS_ST_TRUNCATED);
	p.b[2] = 0x01; /* a query, not a response */
	CHECK_INT(dns_parse_response(p.b, p.n, 5, "www.example.com", DNS_T_A, &r), DNS_ST_INVALID);
}

TEST(dns_parse_pointer_loops)
{
	char txt[DNS_TXT_MAX + 1];
	struct dns_result r;
	struct pkt p;
	size_t pos;

	/* answer owner is a pointer to itself */
	hdr(&p, 1, 0x8180, 1, 1, 0, 0);
	question(&p, DNS_T_A);
	{
		uint8_t self[2] = { 0xc0, (uint8_t)p.n };

		rr_a(&p, self, 2, "\1\2\3\4");
	}
	CHECK_INT(dns_parse_response(p.b, p.n, 1, "www.example.com", DNS_T_A, &r), DNS_ST_INVALID);
	/* two labels pointing at each other: the second points forward */
	hdr(&p, 1, 0x8180, 1, 0, 0, 0);
	put(&p, "\1a\xc0\x10", 4); /* at 12: "a" then pointer to 16 */
	put(&p, "\1b\xc0\x0c", 4); /* at 16: "b" then pointer to 12 */
	pos = 16;
	CHECK_INT(dns_read_name(p.b, p.n, &pos, txt), -1);
	pos = 12;
	CHECK_INT(dns_read_name(p.b, p.n, &pos, txt), -1);
	/* a pointer running off the end, and a reserved label type */
	p.n = 12;
	put(&p, "\xc0", 1);
	pos = 12;
	CHECK_INT(dns_read_name(p.b, p.n, &pos, txt), -1);
	p.n = 12;
	put(&p,
	    "\x41"
	    "a\0",
	    3);
	pos = 12;
	CHECK_INT(dns_read_name(p.b, p.n, &pos, txt), -1);
	/* a good backward pointer */
	p.n = 12;
	put(&p, "\3com\0\3www\xc0\x0c", 11);
	pos = 17;
	CHECK_INT(dns_read_name(p.b, p.n, &pos, txt), 0);
	CHECK_STR(txt, "www.com");
	CHECK_INT(pos, 23);
}

TEST(dns_parse_bad_records)
{
	struct dns_result r;
	struct pkt p;

	/* A record with a 5-byte rdata */
	hdr(&p, 3, 0x8180, 1, 1, 0, 0);
	question(&p, DNS_T_A);
	put(&p, ptr_q, 2);
	put16(&p, DNS_T_A);
	put16(&p, 1);
	put16(&p, 0);
	put16(&p, 1);
	put16(&p, 5);
	put(&p, "\1\2\3\4\5", 5);
	CHECK_INT(dns_parse_response(p.b, p.n, 3, "www.example.com", DNS_T_A, &r), DNS_ST_INVALID);
	/* rdlength past the end */
	p.b[p.n - 6] = 0x40;
	CHECK_INT(dns_parse_response(p.b, p.n, 3, "www.example.com", DNS_T_A, &r), DNS_ST_INVALID);
	/* more answers announced than present */
	hdr(&p, 3, 0x8180, 1, 2, 0, 0);
	question(&p, DNS_T_A);
	rr_a(&p, ptr_q, 2, "\1\2\3\4");
	CHECK_INT(dns_parse_response(p.b, p.n, 3, "www.example.com", DNS_T_A, &r), DNS_ST_INVALID);
	/* two questions */
	hdr(&p, 3, 0x8180, 2, 0, 0, 0);
	question(&p, DNS_T_A);
	question(&p, DNS_T_A);
	CHECK_INT(dns_parse_response(p.b, p.n, 3, "www.example.com", DNS_T_A, &r),
		  DNS_ST_WRONG_QUESTION);
	/* an EDNS0 OPT record in the additional section is accepted */
	hdr(&p, 3, 0x8180, 1, 1, 0, 1);
	question(&p, DNS_T_A);
	rr_a(&p, ptr_q, 2, "\1\2\3\4");
	put(&p, "\0", 1);
	put16(&p, DNS_T_OPT);
	put16(&p, 1232);
	put16(&p, 0);
	put16(&p, 0);
	put16(&p, 0);
	CHECK_INT(dns_parse_response(p.b, p.n, 3, "www.example.com", DNS_T_A, &r), DNS_ST_VALID);
}

TEST(dns_tcp_frame)
{
	const uint8_t two[] = { 0, 3, 'a', 'b', 'c', 0, 0, 0, 5, 'x' };
	size_t mlen = 99;

	CHECK_INT(dns_tcp_frame(two, 0, &mlen), 0);
	CHECK_INT(dns_tcp_frame(two, 1, &mlen), 0);
	CHECK_INT(dns_tcp_frame(two, 4, &mlen), 0); /* 2 of 3 body bytes */
	CHECK_INT(mlen, 99);
	CHECK_INT(dns_tcp_frame(two, 5, &mlen), 5);
	CHECK_INT(mlen, 3);
	CHECK_INT(dns_tcp_frame(two + 5, 2, &mlen), 2); /* an empty message */
	CHECK_INT(mlen, 0);
	CHECK_INT(dns_tcp_frame(two + 7, 3, &mlen), 0); /* 5 announced, 1 there */
}
