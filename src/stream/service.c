/* Services (include/stream/service.h): the registry, the "use-service" action, and the
 * stream side of a service: the response head it asks for (at once, or once it knows
 * it), then its body produced each time the client's output buffer has room, framed
 * (chunked, close-delimited, or as the service framed it) in that one buffer; the request
 * body for services that read it; the connection of a TCP service. What a service writes
 * is its own business (stats/, promex, lua/...).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <base/buf.h>
#include <base/pool.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <http/h1.h>
#include <http/h1_dechunk.h>
#include <http/status.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>
#include <stream/action.h>
#include <stream/filter.h>
#include <stream/service.h>
#include <stream/stream.h>

DECLARE_POOL(pool_svc, "service", sizeof(struct svc_ctx))

#define SVC_BUFS_PER_TURN 8 /* times a service fills the output per loop turn at most */
#define SVC_MIN_ROOM 1024   /* room the output needs for a dump without flushing first */

static void service_resume(struct tasklet *tl);

static struct list services = LIST_HEAD_INIT(services);

int (*service_stats_hook)(struct stream *s, struct proxy *px, int *ret);

void service_register(struct http_service *svc)
{
	list_append(&services, &svc->list);
}

const struct http_service *service_find(const char *name)
{
	const struct http_service *svc;

	list_for_each_entry(svc, &services, list) if (!strcmp(svc->name, name)) return svc;
	return NULL;
}

int svc_write(struct buf *out, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return -1;
	return b_putblk(out, s, (uint32_t)len);
}

int svc_printf(struct buf *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (int pass = 0; pass < 2; pass++) {
		va_start(ap, fmt);
		n = vsnprintf(b_tail(out), b_room(out), fmt, ap);
		va_end(ap);
		if (n >= 0 && (uint32_t)n < b_room(out)) {
			out->data += (uint32_t)n;
			return 0;
		}
		if (n < 0 || !out->head)
			break;
		b_realign(out);
	}
	return -1;
}

void svc_wake(struct svc_ctx *c)
{
	tasklet_wakeup(&c->resume);
}

void service_release(struct stream *s)
{
	struct svc_ctx *c = s->svc;

	if (!c)
		return;
	tasklet_cancel(&c->resume);
	b_release(&c->fpend);
	if (c->svc->release)
		c->svc->release(c);
	s->svc = NULL;
	pool_free(&pool_svc, c);
}

static struct svc_ctx *service_new(struct stream *s, const struct http_service *svc,
				   struct proxy *px, void *conf)
{
	struct svc_ctx *c = pool_alloc(&pool_svc);

	if (!c) {
		if (svc->owns_conf && svc->conf_free)
			svc->conf_free(conf);
		return NULL;
	}
	memset(c, 0, sizeof(*c));
	tasklet_init(&c->resume, service_resume);
	c->svc = svc;
	c->strm = s;
	c->px = px;
	c->conf = conf;
	c->status = 200;
	s->svc = c;
	s->svc_name = svc->log_name;
	/* the log's timers as HAProxy shows an applet's: it is "connected" at once (%Tw %Tc
	 * 0), its response starts when its head is written (%Tr) */
	s->t_conn = now_ms();
	return c;
}

/* Writes the response head of <c> (its extra header lines in <hdrs>) at the end of the
 * client's output buffer (s->reply_off marks where it starts). Returns 0, or -1 when it
 * does not fit (nothing written). */
static int service_write_head(struct stream *s, struct svc_ctx *c, const struct buf *hdrs)
{
	struct buf *ob = &s->front->obuf;
	const char *framing;

	if (c->framed)
		framing = ""; /* the service's own content-length */
	else if (c->head && !c->head_framing)
		framing = ""; /* no body follows, whatever its framing would be (as HAProxy) */
	else if (c->no_body)
		framing = "content-length: 0\r\n";
	else if (c->chunked)
		framing = "transfer-encoding: chunked\r\n";
	else
		framing = "";
	if (c->framed)
		c->chunked = 0;
	else if (!c->chunked && !c->no_body && !c->head)
		s->flags |= SF_FRONT_CLOSE; /* the body ends with the connection */
	if (stream_reply_start(s) < 0 ||
	    svc_printf(ob, "HTTP/1.%c %d %s\r\n", c->http10 ? '0' : '1', c->status,
		       c->reason ? c->reason : http_reason(c->status)) < 0 ||
	    svc_write(ob, b_head(hdrs), hdrs->data) < 0 ||
	    svc_write(ob, framing, strlen(framing)) < 0 || svc_write(ob, "\r\n", 2) < 0) {
		if (!b_is_null(ob))
			ob->data = s->reply_off;
		return -1;
	}
	if (c->no_body || c->head)
		c->done = 1;
	s->status = c->status;
	s->t_rsp = now_ms();
	return 0;
}

/* Runs the service's start (again, for a head that was not ready) and writes the head it
 * gives. Returns 0 when the head is written, SVC_WAIT when it is still not known, or -1
 * (the service is released, the stream answers 500 or aborts). */
static int service_start(struct stream *s, struct svc_ctx *c)
{
	struct buf hdrs = { 0 };
	int ret;

	if (b_get(&hdrs) < 0)
		goto fail;
	ret = c->svc->start(c, &hdrs);
	if (ret == SVC_WAIT) {
		c->head_pending = 1;
		b_release(&hdrs);
		return SVC_WAIT;
	}
	c->head_pending = 0;
	if (ret < 0 || service_write_head(s, c, &hdrs) < 0)
		goto fail;
	b_release(&hdrs);
	return 0;
fail:
	b_release(&hdrs);
	service_release(s);
	s->t_rsp = now_ms(); /* the 500 that follows is its response */
	return -1;
}

/* Starts <svc> on the stream's request. Returns 0 (the head is written, or will be by
 * service_step), or -1 (500). */
static int service_head(struct stream *s, const struct http_service *svc, struct proxy *px,
			void *conf)
{
	struct svc_ctx *c;

	/* the filters see the request head (compression reads Accept-Encoding), not its
	 * body, which the service reads as it is */
	if (unlikely(s->fe->flt_svc | (s->be && s->be->flt_svc))) {
		if (flt_head(s, FLT_REQ) < 0) {
			if (svc->owns_conf && svc->conf_free)
				svc->conf_free(conf);
			return -1;
		}
		flt_body_drop(s, FLT_REQ);
	}
	c = service_new(s, svc, px, conf);
	if (!c)
		return -1;
	c->head = !!(s->req.flags & H1_MF_METH_HEAD);
	c->chunked = 1; /* to HTTP/1.0 clients too (then closed), as HAProxy does */
	if (service_start(s, c) < 0)
		return -1;
	CNT_INC(s->fe->fe_cnt, intercepted);
	return 0;
}

int service_attach(struct stream *s, const struct http_service *svc, struct proxy *px, void *conf)
{
	if (service_head(s, svc, px, conf) < 0)
		return stream_reply_error(s, 500, false);
	stream_set_term(s, 'L');
	return stream_reply_done(s);
}

static void service_resume(struct tasklet *tl)
{
	stream_run(container_of(tl, struct svc_ctx, resume)->strm);
}

/* Asks the service for more body into the output buffer <ob> (which has room) and frames
 * it. Returns 0 when bytes were written (or the body ended), 1 when the service waits
 * with nothing written, 2 when it needs an empty output to write anything, -1 when it
 * failed or could not write anything into an empty output. What it wrote before failing
 * is kept. */
static int service_fill(struct svc_ctx *c, struct buf *ob)
{
	uint32_t pre = c->chunked ? 10 : 0, post = c->chunked ? 7 : 0; /* "%x\r\n", CRLF+last */
	struct buf out;
	char line[12];
	int ret, n;

	b_realign(ob);
	if (b_room(ob) < pre + post + 256)
		return -1;
	out.area = b_tail(ob) + pre;
	out.size = b_room(ob) - pre - post;
	out.head = out.data = 0;
	ret = c->svc->dump(c, &out);
	if (out.data && c->chunked) {
		n = snprintf(line, sizeof(line), "%x\r\n", out.data);
		memmove(b_tail(ob) + n, out.area, out.data);
		memcpy(b_tail(ob), line, (size_t)n);
		memcpy(b_tail(ob) + n + out.data, "\r\n", 2);
		ob->data += (uint32_t)n + out.data + 2;
	} else {
		ob->data += out.data;
	}
	if (ret == SVC_ERR || (ret == SVC_MORE && !out.data && !ob->data))
		return -1;
	if (ret == SVC_MORE && !out.data)
		return 2;
	if (ret == SVC_DONE) {
		if (c->chunked) {
			memcpy(b_tail(ob), "0\r\n\r\n", 5);
			ob->data += 5;
		}
		c->done = 1;
	}
	return ret == SVC_WAIT && !out.data ? 1 : 0;
}

/* service_fill for a body the response filters see: the service fills <fpend>, the
 * filters take from it and write into <ob>, framed. Returns as service_fill. */
static int service_fill_filtered(struct stream *s, struct svc_ctx *c, struct buf *ob)
{
	int ret = SVC_MORE;
	size_t wrote;
	long took;

	if (!c->fpend.data && !c->fend) {
		if (b_get(&c->fpend) < 0)
			return -1;
		c->fpend.head = 0;
		ret = c->svc->dump(c, &c->fpend);
		if (ret == SVC_ERR || (ret == SVC_MORE && !c->fpend.data))
			return -1;
		c->fend = ret == SVC_DONE;
		if (ret == SVC_WAIT && !c->fpend.data) {
			/* the service pauses: the transformer gives what it holds */
			if (flt_push(s, NULL, 0, false, ob, &wrote) < 0)
				return -1;
			return 1;
		}
	}
	took = flt_push(s, b_head(&c->fpend), c->fpend.data, c->fend, ob, &wrote);
	if (took < 0)
		return -1;
	b_del(&c->fpend, (uint32_t)took);
	if (!flt_body_on(s, FLT_RSP)) {
		c->done = 1;
		b_release(&c->fpend);
		return 0;
	}
	return took || wrote ? 0 : 2;
}

int service_filters(struct stream *s, uint32_t start)
{
	struct svc_ctx *c = s->svc;
	enum xfer_mode mode;

	if (likely(!(s->fe->flt_svc | (s->be && s->be->flt_svc))) || c->svc->tcp)
		return 0;
	if (http_local_parse(s, start) < 0)
		return -1;
	if (c->done)
		mode = XFER_NONE;
	else if (c->framed)
		mode = (s->rsp.flags & H1_MF_CLEN) ? XFER_CLEN : XFER_EOF;
	else
		mode = c->chunked ? XFER_CHUNKED : XFER_EOF;
	h1_xfer_init(&s->rspx, mode, s->rsp.body_len);
	if (flt_head(s, FLT_RSP) < 0 || http_local_rebuild(s, start) < 0)
		return -1;
	if (flt_body_on(s, FLT_RSP)) {
		c->filtered = 1;
		c->chunked = 0; /* the filters frame it */
	}
	return 0;
}

/* The service failed in the middle of its body: what it wrote goes out if the socket
 * takes it at once, then the connection is cut. */
static int service_failed(struct stream *s)
{
	struct conn *f = s->front;

	if (f->obuf.data)
		conn_flush(f);
	stream_set_term(s, 'L');
	return stream_abort(s);
}

int service_step(struct stream *s)
{
	struct conn *f = s->front;
	struct svc_ctx *c = s->svc;
	int budget = SVC_BUFS_PER_TURN, ret = 0;

	if (unlikely(c->head_pending)) {
		/* the head comes first, behind anything already in the output (100 Continue) */
		if (f->obuf.data && conn_flush(f) < 0)
			return stream_abort(s);
		if (f->obuf.data)
			return 0;
		ret = service_start(s, c);
		if (ret == SVC_WAIT)
			return 0;
		if (ret < 0)
			return stream_reply_error(s, 500, false);
		/* http-after-response and the connection header, as for a head given at once */
		if (stream_reply_finish(s, (int)s->reply_off, c->status, false) < 0)
			return -1;
	}
	/* each pass fills the output; it is sent when its room runs low, when the service
	 * waits, or after a few passes (going on at the next loop turn) */
	for (;;) {
		if (c->done) { /* sent before the log counts its bytes, if the client takes it */
			if (f->obuf.data && conn_flush(f) < 0)
				return stream_abort(s);
			service_release(s);
			return 1;
		}
		if (f->obuf.data && (ret == 2 || b_room(&f->obuf) + f->obuf.head < SVC_MIN_ROOM)) {
			if (conn_flush(f) < 0)
				return stream_abort(s);
			if (f->obuf.data)
				return 0; /* the client's next read wakes us */
		}
		if (!budget--) {
			if (f->obuf.data && conn_flush(f) < 0)
				return stream_abort(s);
			tasklet_wakeup(&c->resume);
			return 0;
		}
		if (b_get(&f->obuf) < 0)
			return stream_abort(s);
		ret = unlikely(c->filtered) ? service_fill_filtered(s, c, &f->obuf)
					    : service_fill(c, &f->obuf);
		if (ret < 0)
			return service_failed(s);
		if (ret == 1) {
			if (f->obuf.data && conn_flush(f) < 0)
				return stream_abort(s);
			return 0;
		}
	}
}

/* ---- the request body, for services that read it ---- */

/* Removes <n> bytes at <off> from the input buffer. */
static void body_cut(struct buf *ib, uint32_t off, uint32_t n)
{
	if (!off) {
		b_del(ib, n);
		return;
	}
	memmove(b_head(ib) + off, b_head(ib) + off + n, ib->data - off - n);
	ib->data -= n;
}

/* Where the body starts in the input buffer: after the request headers while they are
 * there (the first start of a service runs before they leave). */
static uint32_t body_off(const struct stream *s)
{
	return (s->flags & SF_REQ_HDRS_SENT) ? 0 : s->req.hdr_len;
}

/* "100 Continue" to a client that waits for it, once, before the response head. */
static void body_continue(struct svc_ctx *c)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
	struct stream *s = c->strm;
	struct conn *f = s->front;

	if (!(s->req.flags & H1_MF_EXPECT_100) || (s->flags & SF_SENT_100) || !c->head_pending ||
	    f->obuf.data)
		return;
	s->flags |= SF_SENT_100;
	if (b_get(&f->obuf) == 0 && b_putblk(&f->obuf, cont, sizeof(cont) - 1) == 0)
		conn_flush(f);
}

int svc_body_peek(struct svc_ctx *c, const char **ptr, size_t *len)
{
	struct stream *s = c->strm;
	struct conn *f = s->front;
	struct h1_xfer *x = &s->reqx;
	struct buf *ib = &f->ibuf;
	uint32_t off = body_off(s);

	for (;;) {
		uint32_t have = ib->data > off ? ib->data - off : 0;
		size_t data = 0;
		int done = 0;

		if (x->done)
			return SVC_BODY_END;
		if (x->mode == XFER_CLEN && have) {
			*ptr = b_head(ib) + off;
			*len = have < x->remain ? have : (size_t)x->remain;
			return 1;
		}
		if (x->mode == XFER_CHUNKED && have) {
			ssize_t n = h1_dechunk_next(&x->chunk, b_head(ib) + off, have,
						    global.tune_bufsize, &data, &done);

			if (n < 0)
				return -1;
			body_cut(ib, off, (uint32_t)n);
			if (done) {
				x->done = x->eom_seen = 1;
				return SVC_BODY_END;
			}
			if (data) {
				*ptr = b_head(ib) + off;
				*len = data;
				return 1;
			}
		}
		if (x->mode != XFER_CLEN && x->mode != XFER_CHUNKED)
			return SVC_BODY_END;
		if (off)
			return 0; /* the socket is read once the headers have left the buffer */
		if (conn_recv(f) > 0)
			continue;
		if (f->flags & (CO_FL_RD_EOF | CO_FL_ERROR))
			return -1;
		body_continue(c);
		return 0;
	}
}

void svc_body_take(struct svc_ctx *c, size_t n)
{
	struct stream *s = c->strm;
	struct h1_xfer *x = &s->reqx;
	struct buf *ib = &s->front->ibuf;
	uint32_t off = body_off(s);

	if (x->mode == XFER_CLEN) {
		x->remain -= n;
		x->done = !x->remain;
	} else {
		h1_dechunk_take(&x->chunk, b_head(ib) + off, n);
	}
	body_cut(ib, off, (uint32_t)n);
}

uint64_t svc_body_length(const struct svc_ctx *c)
{
	const struct stream *s = c->strm;
	const struct buf *ib = &s->front->ibuf;
	struct h1_chunk ck = s->reqx.chunk;
	uint32_t off = body_off(s), pos = off;
	uint64_t total = 0;

	if (s->req.flags & H1_MF_CLEN)
		return s->req.body_len;
	if (s->reqx.mode != XFER_CHUNKED || s->reqx.done)
		return 0;
	/* the data received so far, as HAProxy counts it for a chunked body */
	while (pos < ib->data) {
		size_t data;
		int done;
		ssize_t n = h1_dechunk_next(&ck, b_head(ib) + pos, ib->data - pos,
					    global.tune_bufsize, &data, &done);

		if (n < 0 || done)
			break;
		pos += (uint32_t)n;
		if (!data)
			break;
		total += data;
		h1_dechunk_take(&ck, b_head(ib) + pos, data);
		pos += (uint32_t)data;
	}
	return total;
}

/* ---- use-service NAME ---- */

/* A TCP service takes the client connection of a mode tcp stream: the content rules are
 * over, the service runs in the local reply state until it ends the connection. */
static enum act_return service_tcp_attach(struct stream *s, const struct http_service *svc,
					  struct proxy *px, void *conf)
{
	struct svc_ctx *c = service_new(s, svc, px, conf);

	if (!c)
		return ACT_RET_ERR;
	if (svc->start(c, NULL) < 0) {
		service_release(s);
		return ACT_RET_ERR;
	}
	timer_del(&s->tmr); /* the inspect-delay, if it was running */
	s->tcp_next = NULL;
	s->flags |= SF_FRONT_CLOSE;
	s->state = SS_LOCAL_REPLY;
	return ACT_RET_DONE;
}

static enum act_return act_use_service(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	const struct http_service *svc = r->arg.gen.p[0];

	if (svc->tcp)
		return service_tcp_attach(s, svc, px, r->arg.gen.p[1]);
	if (service_head(s, svc, px, r->arg.gen.p[1]) < 0)
		return ACT_RET_ERR;
	return ACT_RET_DONE;
}

static void act_use_service_release(struct act_rule *r)
{
	const struct http_service *svc = r->arg.gen.p[0];

	if (svc && svc->conf_free)
		svc->conf_free(r->arg.gen.p[1]);
}

/* A TCP service in the tcp-request content rules of a proxy that turned out to be in
 * mode http (its mode may be set after the rule). */
static int check_use_service(struct act_rule *r, struct proxy *px, char *err, size_t errsz)
{
	const struct http_service *svc = r->arg.gen.p[0];

	if (svc->tcp && px->mode == PR_MODE_HTTP && !(px->cap & PR_CAP_DEF)) {
		snprintf(err, errsz, "'%s': TCP services cannot be used on HTTP proxies",
			 svc->name);
		return -1;
	}
	return 0;
}

static int parse_use_service(char **args, int *pos, int nargs, const struct act_parse *ap,
			     struct act_rule *r, char *err, size_t errsz)
{
	const char *name = act_next_word(args, pos, nargs);
	const struct http_service *svc;

	if (!name) {
		snprintf(err, errsz, "'use-service' expects a service name");
		return -1;
	}
	svc = service_find(name);
	if (!svc) {
		snprintf(err, errsz, "'use-service' : unknown service '%s'", name);
		return -1;
	}
	if (svc->tcp && ap->from == ACT_F_HTTP_REQ) {
		snprintf(err, errsz, "'%s': TCP services cannot be used on HTTP proxies", name);
		return -1;
	}
	if (!svc->tcp && ap->from != ACT_F_HTTP_REQ) {
		snprintf(err, errsz, "'%s': HTTP services are forbidden from '%s' rulesets", name,
			 ap->set);
		return -1;
	}
	r->action = act_use_service;
	r->release = act_use_service_release;
	r->check = check_use_service;
	r->flags |= ACT_FL_FINAL;
	r->arg.gen.p[0] = (void *)svc;
	if (svc->parse && svc->parse(args, pos, nargs, ap, &r->arg.gen.p[1], err, errsz) < 0)
		return -1;
	return 0;
}

static const struct action_kw svc_act_kws[] = {
	{ "use-service", ACT_F_HTTP_REQ | ACT_F_TCP_REQ_CNT, 0, parse_use_service },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(svc_act_kws);
