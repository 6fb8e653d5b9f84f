/* Unit tests of the RDP cookie fetches on client bytes: an RDP connection request with a
 * cookie, a name that does not match, bytes that are not RDP, and a request still too
 * short to tell (the answer may change until it is final).
 */
#include <string.h>

#include <conn/connection-t.h>
#include <sample/sample.h>
#include "../test.h"

static int rdp_eval(const char *bytes, size_t len, const char *expr, uint32_t opt, char *out,
		    size_t outsz, uint32_t *flags)
{
	static char area[256];
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
	if (sample_process(e, &smp))
		n = smp_to_text(&smp, out, outsz - 1);
	if (n >= 0)
		out[n] = 0;
	*flags = smp.flags;
	sample_expr_free(e);
	return n;
}

TEST(fetch_rdp_cookie)
{
	static const char req[] = "\x03\x00\x00\x2a\x25\xe0\x00\x00\x00\x00\x00"
				  "Cookie: mstshash=alice\r\n\x01\x00\x08\x00\x03\x00\x00\x00";
	char out[64];
	uint32_t fl;

	CHECK_INT(rdp_eval(req, sizeof(req) - 1, "req.rdp_cookie", SMP_OPT_FINAL, out,
			   sizeof(out), &fl), 5);
	CHECK(!strcmp(out, "alice"));
	CHECK_INT(rdp_eval(req, sizeof(req) - 1, "req.rdp_cookie(MSTSHASH)", SMP_OPT_FINAL, out,
			   sizeof(out), &fl), 5);
	CHECK_INT(rdp_eval(req, sizeof(req) - 1, "req.rdp_cookie(other)", SMP_OPT_FINAL, out,
			   sizeof(out), &fl), -1);
	CHECK_INT(rdp_eval(req, sizeof(req) - 1, "req.rdp_cookie_cnt", SMP_OPT_FINAL, out,
			   sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "1"));
	CHECK_INT(rdp_eval("GET / HTTP/1.1\r\n\r\n", 18, "req.rdp_cookie_cnt", SMP_OPT_FINAL, out,
			   sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "0"));
	/* too short yet: not final, the answer may change */
	CHECK_INT(rdp_eval(req, 14, "req.rdp_cookie_cnt", 0, out, sizeof(out), &fl), -1);
	CHECK(fl & SMP_F_MAY_CHANGE);
	CHECK_INT(rdp_eval(req, 14, "req.rdp_cookie_cnt", SMP_OPT_FINAL, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "0"));
}
