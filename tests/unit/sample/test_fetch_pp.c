/* Unit tests of the PROXY protocol fetches (sample/fetch_pp.c) on a connection whose
 * received header (c->pp) is filled by hand: fc_rcvd_proxy, fc_pp_authority,
 * fc_pp_unique_id, fc_pp_tlv by number and by name (an SSL sub-TLV too), and bad ids.
 */
#include <stdlib.h>
#include <string.h>

#include <conn/connection-t.h>
#include <sample/sample.h>
#include "../test.h"

static int pp_eval(struct conn *c, const char *expr, char *out, size_t outsz)
{
	struct smp_ctx ctx = { .conn = c };
	struct sample smp = { .ctx = &ctx };
	struct sample_expr *e;
	char err[256];
	int n = -1;

	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (!e)
		return -2;
	if (sample_process(e, &smp))
		n = smp_to_text(&smp, out, outsz - 1);
	if (n >= 0)
		out[n] = 0;
	sample_expr_free(e);
	return n;
}

TEST(fetch_pp)
{
	/* AUTHORITY "example.com", UNIQUE_ID "u-1", 0xE0 "x", SSL (flags 1, verify 0, CN "cn") */
	static const uint8_t tlv[] = "\x02\x00\x0b"
				     "example.com"
				     "\x05\x00\x03u-1"
				     "\xe0\x00\x01x"
				     "\x20\x00\x0a\x01\x00\x00\x00\x00\x22\x00\x02"
				     "cn";
	struct conn c;
	struct conn_pp *pp = malloc(sizeof(*pp) + sizeof(tlv) - 1);
	char out[64];

	if (!pp) {
		CHECK(0);
		return;
	}
	memset(&c, 0, sizeof(c));
	CHECK_INT(pp_eval(&c, "fc_rcvd_proxy", out, sizeof(out)), 1);
	CHECK_STR(out, "0");
	CHECK_INT(pp_eval(&c, "fc_pp_authority", out, sizeof(out)), -1);
	pp->version = 2;
	pp->local = 0;
	pp->tlv_len = sizeof(tlv) - 1;
	memcpy(pp->tlv, tlv, sizeof(tlv) - 1);
	c.pp = pp;
	CHECK_INT(pp_eval(&c, "fc_rcvd_proxy", out, sizeof(out)), 1);
	CHECK_STR(out, "1");
	CHECK_INT(pp_eval(&c, "fc_pp_authority", out, sizeof(out)), 11);
	CHECK_STR(out, "example.com");
	CHECK_INT(pp_eval(&c, "fc_pp_unique_id", out, sizeof(out)), 3);
	CHECK_STR(out, "u-1");
	CHECK_INT(pp_eval(&c, "fc_pp_tlv(0xE0)", out, sizeof(out)), 1);
	CHECK_INT(pp_eval(&c, "fc_pp_tlv(224)", out, sizeof(out)), 1);
	CHECK_INT(pp_eval(&c, "fc_pp_tlv(AUTHORITY)", out, sizeof(out)), 11);
	CHECK_INT(pp_eval(&c, "fc_pp_tlv(SSL_CN)", out, sizeof(out)), 2);
	CHECK_STR(out, "cn");
	CHECK_INT(pp_eval(&c, "fc_pp_tlv(ALPN)", out, sizeof(out)), -1);
	CHECK_INT(pp_eval(&c, "fc_pp_tlv(256)", out, sizeof(out)), -2);
	CHECK_INT(pp_eval(&c, "fc_pp_tlv(FOO)", out, sizeof(out)), -2);
	CHECK_INT(pp_eval(&c, "fc_pp_tlv", out, sizeof(out)), -2);
	free(pp);
}
