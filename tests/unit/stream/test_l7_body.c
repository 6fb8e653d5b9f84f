/* Unit tests for the body of a request kept for an L7 retry (stream/l7_body.c): which
 * requests may be kept (no body, a content-length or chunked body wholly in the front
 * buffer), the copy behind the serialized headers at each attempt, and the fallback to
 * plain forwarding when the back buffer lacks room.
 */
#include <stdlib.h>
#include <string.h>

#include <conn/connection-t.h>
#include <mux/h1.h>
#include <stream/l7_body.h>
#include <stream/stream-t.h>
#include "../test.h"

struct l7t {
	struct stream *s;
	struct conn f, b;
	char in[256], out[64];
};

/* A stream whose front buffer holds <req>, headers <hlen> bytes long, body framed <mode>. */
static void l7t_init(struct l7t *t, const char *req, uint32_t hlen, enum xfer_mode mode,
		     uint64_t clen)
{
	memset(&t->f, 0, sizeof(t->f));
	memset(&t->b, 0, sizeof(t->b));
	t->s = calloc(1, sizeof(*t->s));
	CHECK(t->s != NULL);
	if (!t->s)
		return;
	memcpy(t->in, req, strlen(req));
	t->f.ibuf = (struct buf){ t->in, sizeof(t->in), 0, (uint32_t)strlen(req) };
	t->b.obuf = (struct buf){ t->out, sizeof(t->out), 0, 10 }; /* serialized headers */
	memset(t->out, 'H', 10);
	t->s->front = &t->f;
	t->s->back = &t->b;
	t->s->req.hdr_len = hlen;
	t->s->flags = SF_L7_RETRY;
	h1_xfer_init(&t->s->reqx, mode, clen);
}

TEST(l7_body_none_and_empty_are_kept)
{
	struct l7t t;

	l7t_init(&t, "GET / HTTP/1.1\r\n\r\n", 18, XFER_NONE, 0);
	CHECK(stream_l7_body_ready(t.s) && t.s->l7_body == 0);
	CHECK(stream_l7_body_send(t.s) && t.b.obuf.data == 10);
	free(t.s);
	l7t_init(&t, "POST / HTTP/1.1\r\n\r\n", 19, XFER_CLEN, 0);
	CHECK(stream_l7_body_ready(t.s) && t.s->l7_body == 0);
	free(t.s);
}

TEST(l7_body_clen_complete_or_not)
{
	struct l7t t;

	l7t_init(&t, "HDRS:hellonext", 5, XFER_CLEN, 5);
	CHECK(stream_l7_body_ready(t.s) && t.s->l7_body == 5);
	CHECK(stream_l7_body_send(t.s));
	CHECK(t.b.obuf.data == 15 && !memcmp(t.out + 10, "hello", 5) && t.s->reqx.done);
	/* a new attempt: the body is measured already and copied again */
	t.b.obuf.data = 10;
	CHECK(stream_l7_body_ready(t.s) && stream_l7_body_send(t.s) && t.b.obuf.data == 15);
	free(t.s);
	l7t_init(&t, "HDRS:hel", 5, XFER_CLEN, 5);
	CHECK(!stream_l7_body_ready(t.s) && t.s->l7_body == 0);
	free(t.s);
}

TEST(l7_body_chunked_complete_or_not)
{
	struct l7t t;
	const char *ok = "HDRS:5\r\nhello\r\n0\r\n\r\nGET";

	l7t_init(&t, ok, 5, XFER_CHUNKED, 0);
	CHECK(stream_l7_body_ready(t.s) && t.s->l7_body == strlen(ok) - 5 - 3);
	free(t.s);
	l7t_init(&t, "HDRS:5\r\nhello\r\n", 5, XFER_CHUNKED, 0);
	CHECK(!stream_l7_body_ready(t.s));
	free(t.s);
	l7t_init(&t, "HDRS:zz\r\nhello\r\n0\r\n\r\n", 5, XFER_CHUNKED, 0);
	CHECK(!stream_l7_body_ready(t.s)); /* invalid: left to the usual forwarding */
	free(t.s);
}

TEST(l7_body_without_room_is_forwarded_without_retry)
{
	struct l7t t;
	char req[128];

	memset(req, 'b', sizeof(req) - 1);
	req[sizeof(req) - 1] = 0;
	memcpy(req, "HDRS:", 5);
	l7t_init(&t, req, 5, XFER_CLEN, 100);
	CHECK(stream_l7_body_ready(t.s) && t.s->l7_body == 100);
	CHECK(!stream_l7_body_send(t.s)); /* 10 + 100 > 64 */
	CHECK(t.b.obuf.data == 10 && t.s->l7_body == 0 && !(t.s->flags & SF_L7_RETRY));
	CHECK(t.s->reqx.mode == XFER_CLEN && t.s->reqx.remain == 100 && !t.s->reqx.done);
	free(t.s);
}
