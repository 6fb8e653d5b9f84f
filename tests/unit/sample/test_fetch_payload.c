/* Unit tests of the layer 6 payload fetches (src/sample/fetch_payload.c) over hand-built
 * client and server buffers of a bare stream: req.payload / res.payload / payload with
 * the rule's direction, payload_lv with absolute and relative offsets, req.len,
 * req.proto_http, "may change" while bytes may still come, and HAProxy 2.6's argument
 * errors.
 */
#include <stdlib.h>
#include <string.h>

#include <conn/connection-t.h>
#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <stream/stream-t.h>

#include "../test.h"

struct pl_t {
	struct stream *s;
	struct conn front, back;
	char fa[512], ba[512];
	struct smp_ctx ctx;
};

static struct pl_t *pl_new(const char *req, size_t rl, const char *res, size_t sl)
{
	struct pl_t *t = calloc(1, sizeof(*t));

	if (!t || !(t->s = calloc(1, sizeof(*t->s)))) {
		free(t);
		return NULL;
	}
	memcpy(t->fa, req, rl);
	memcpy(t->ba, res, sl);
	t->front.ibuf = (struct buf){ .area = t->fa, .size = sizeof(t->fa), .data = (uint32_t)rl };
	t->back.ibuf = (struct buf){ .area = t->ba, .size = sizeof(t->ba), .data = (uint32_t)sl };
	t->s->front = &t->front;
	t->s->back = &t->back;
	t->ctx.strm = t->s;
	t->ctx.conn = &t->front;
	return t;
}

static void pl_free(struct pl_t *t)
{
	if (t)
		free(t->s);
	free(t);
}

/* Evaluates <expr> with options <opt>: the text of the value (-1: not found, -2: does not
 * parse) and the sample's flags. */
static int pl_eval(struct pl_t *t, const char *expr, uint32_t opt, char *out, size_t outsz,
		   uint32_t *flags)
{
	struct sample smp = { .ctx = &t->ctx };
	struct sample_expr *e;
	char err[256];
	int n = -1;

	t->ctx.opt = opt;
	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (!e) {
		snprintf(out, outsz, "%s", err);
		return -2;
	}
	if (sample_process(e, &smp))
		n = smp_to_text(&smp, out, outsz - 1);
	if (n >= 0)
		out[n] = 0;
	*flags = smp.flags;
	sample_expr_free(e);
	return n;
}

#define F SMP_OPT_FINAL
#define RES SMP_OPT_DIR_RES

TEST(fetch_payload)
{
	struct pl_t *t = pl_new("ABCDEFG", 7, "\x00\x03xyz!", 6);
	char out[256];
	uint32_t fl;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_INT(pl_eval(t, "req.payload(0,4),hex", F, out, sizeof(out), &fl), 8);
	CHECK(!strcmp(out, "41424344"));
	/* length 0: the rest, which may grow until the rules are final */
	CHECK_INT(pl_eval(t, "req.payload(4,0),hex", 0, out, sizeof(out), &fl), 6);
	CHECK(!strcmp(out, "454647"));
	CHECK(fl & SMP_F_MAY_CHANGE);
	CHECK_INT(pl_eval(t, "req.payload(4,0),hex", F, out, sizeof(out), &fl), 6);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	/* not all there yet */
	CHECK_INT(pl_eval(t, "req.payload(5,4)", 0, out, sizeof(out), &fl), -1);
	CHECK(fl & SMP_F_MAY_CHANGE);
	CHECK_INT(pl_eval(t, "req.payload(5,4)", F, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	/* past tune.bufsize: never */
	CHECK_INT(pl_eval(t, "req.payload(0,20000)", 0, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	CHECK_INT(pl_eval(t, "req.payload(0,-1)", 0, out, sizeof(out), &fl), -1);
	/* the server's bytes, and "payload" following the rule's direction */
	CHECK_INT(pl_eval(t, "res.payload(2,3)", F | RES, out, sizeof(out), &fl), 3);
	CHECK(!strcmp(out, "xyz"));
	CHECK_INT(pl_eval(t, "payload(2,3)", F | RES, out, sizeof(out), &fl), 3);
	CHECK(!strcmp(out, "xyz"));
	CHECK_INT(pl_eval(t, "payload(2,3)", F, out, sizeof(out), &fl), 3);
	CHECK(!strcmp(out, "CDE"));
	CHECK_INT(pl_eval(t, "req.len", 0, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "7"));
	CHECK_INT(pl_eval(t, "res.len", RES, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "6"));
	pl_free(t);
}

TEST(fetch_payload_lv)
{
	struct pl_t *t = pl_new("\x03"
				"abc"
				"\x02"
				"XYZ",
				8, "\x00\x03xyz!", 6);
	char out[256];
	uint32_t fl;

	if (!t)
		return;
	CHECK_INT(pl_eval(t, "req.payload_lv(0,1)", F, out, sizeof(out), &fl), 3);
	CHECK(!strcmp(out, "abc"));
	/* relative: one byte after the length field; absolute: at 6 */
	CHECK_INT(pl_eval(t, "req.payload_lv(4,1,+1)", F, out, sizeof(out), &fl), 2);
	CHECK(!strcmp(out, "YZ"));
	CHECK_INT(pl_eval(t, "req.payload_lv(4,1,5)", F, out, sizeof(out), &fl), 2);
	CHECK(!strcmp(out, "XY"));
	CHECK_INT(pl_eval(t, "req.payload_lv(4,1,-1)", F, out, sizeof(out), &fl), 2);
	CHECK(!memcmp(out, "\x02X", 2));
	/* a block longer than the bytes there: may change */
	CHECK_INT(pl_eval(t, "req.payload_lv(4,1,7)", 0, out, sizeof(out), &fl), -1);
	CHECK(fl & SMP_F_MAY_CHANGE);
	CHECK_INT(pl_eval(t, "res.payload_lv(0,2)", F | RES, out, sizeof(out), &fl), 3);
	CHECK(!strcmp(out, "xyz"));
	/* a zero length never matches */
	CHECK_INT(pl_eval(t, "res.payload_lv(0,1)", RES, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	/* HAProxy 2.6's argument errors */
	CHECK_INT(pl_eval(t, "req.payload_lv(0,0)", 0, out, sizeof(out), &fl), -2);
	CHECK(strstr(out, "payload length must be > 0") != NULL);
	CHECK_INT(pl_eval(t, "req.payload_lv(-1,1)", 0, out, sizeof(out), &fl), -2);
	CHECK(strstr(out, "payload offset1 must be positive") != NULL);
	CHECK_INT(pl_eval(t, "req.payload_lv(0,1,x)", 0, out, sizeof(out), &fl), -2);
	CHECK(strstr(out, "payload offset2 is not a number") != NULL);
	CHECK_INT(pl_eval(t, "req.payload_lv(1,1,-3)", 0, out, sizeof(out), &fl), -2);
	CHECK(strstr(out, "payload offset2 too negative") != NULL);
	CHECK_INT(pl_eval(t, "req.payload(0)", 0, out, sizeof(out), &fl), -2);
	pl_free(t);
}

TEST(fetch_payload_proto_http)
{
	static const char get[] = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	struct pl_t *t = pl_new(get, sizeof(get) - 1, "", 0);
	struct proxy *px = calloc(1, sizeof(*px));
	char out[64];
	uint32_t fl;

	if (!t || !px)
		goto out;
	CHECK_INT(pl_eval(t, "req.proto_http", F, out, sizeof(out), &fl), 1);
	CHECK(!strcmp(out, "1"));
	t->front.ibuf.data = 20; /* headers not whole yet */
	CHECK_INT(pl_eval(t, "req.proto_http", 0, out, sizeof(out), &fl), -1);
	CHECK(fl & SMP_F_MAY_CHANGE);
	memcpy(t->fa, "\x16\x03\x01\x00\x05hello", 10);
	t->front.ibuf.data = 10;
	CHECK_INT(pl_eval(t, "req.proto_http", 0, out, sizeof(out), &fl), -1);
	CHECK(!(fl & SMP_F_MAY_CHANGE));
	/* mode http: the raw payload is never shown (HAProxy 2.6 finds nothing) */
	px->mode = PR_MODE_HTTP;
	t->ctx.px = px;
	CHECK_INT(pl_eval(t, "req.payload(0,1)", F, out, sizeof(out), &fl), -1);
	CHECK_INT(pl_eval(t, "req.payload_lv(0,1)", F, out, sizeof(out), &fl), -1);
out:
	free(px);
	pl_free(t);
}
