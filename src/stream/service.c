/* HTTP services (include/stream/service.h): the registry, the "use-service" action, and
 * the stream side of a service: the response head it asks for, then its body produced
 * each time the client's output buffer is empty, framed (chunked, or close-delimited) in
 * that one buffer. What a service writes is its own business (stats/, promex...).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <base/buf.h>
#include <base/pool.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <http/h1.h>
#include <http/status.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>
#include <stream/action.h>
#include <stream/service.h>
#include <stream/stream.h>

DECLARE_POOL(pool_svc, "service", sizeof(struct svc_ctx))

#define SVC_BUFS_PER_TURN 8 /* buffers of body a service produces per loop turn at most */

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

void service_release(struct stream *s)
{
	struct svc_ctx *c = s->svc;

	if (!c)
		return;
	tasklet_cancel(&c->resume);
	if (c->svc->release)
		c->svc->release(c);
	s->svc = NULL;
	pool_free(&pool_svc, c);
}

/* Runs the service's start and writes the response head at the end of the client's output
 * buffer (s->reply_off marks where it starts). Returns 0, or -1 (the service is released,
 * the stream answers 500 or aborts). */
static int service_head(struct stream *s, const struct http_service *svc, struct proxy *px,
			void *conf)
{
	struct svc_ctx *c = pool_alloc(&pool_svc);
	char hb[1024];
	struct buf hdrs = { .area = hb, .size = sizeof(hb) };
	struct buf *ob = &s->front->obuf;
	const char *framing;

	if (!c) {
		if (svc->owns_conf && svc->conf_free)
			svc->conf_free(conf);
		return -1;
	}
	memset(c, 0, sizeof(*c));
	tasklet_init(&c->resume, service_resume);
	c->svc = svc;
	c->strm = s;
	c->px = px;
	c->conf = conf;
	c->status = 200;
	c->head = !!(s->req.flags & H1_MF_METH_HEAD);
	c->chunked = 1; /* to HTTP/1.0 clients too (then closed), as HAProxy does */
	s->svc = c;
	if (svc->start(c, &hdrs) < 0)
		goto fail;
	if (c->head)
		framing = ""; /* no body follows, whatever its framing would be (as HAProxy) */
	else if (c->no_body)
		framing = "content-length: 0\r\n";
	else if (c->chunked)
		framing = "transfer-encoding: chunked\r\n";
	else
		framing = "";
	if (!c->chunked && !c->no_body && !c->head)
		s->flags |= SF_FRONT_CLOSE; /* the body ends with the connection */
	if (stream_reply_start(s) < 0 ||
	    svc_printf(ob, "HTTP/1.1 %d %s\r\n", c->status, http_reason(c->status)) < 0 ||
	    svc_write(ob, hb, hdrs.data) < 0 || svc_write(ob, framing, strlen(framing)) < 0 ||
	    svc_write(ob, "\r\n", 2) < 0)
		goto fail;
	if (c->no_body || c->head)
		c->done = 1;
	s->status = c->status;
	CNT_INC(s->fe->fe_cnt, intercepted);
	return 0;
fail:
	service_release(s);
	if (!b_is_null(ob))
		ob->data = s->reply_off;
	return -1;
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

/* Asks the service for more body into the empty output buffer <ob> and frames it.
 * Returns 0, or -1 when the service failed or could not write anything. */
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
	if (ret == SVC_ERR || (ret == SVC_MORE && !out.data))
		return -1;
	if (out.data && c->chunked) {
		n = snprintf(line, sizeof(line), "%x\r\n", out.data);
		memmove(b_tail(ob) + n, out.area, out.data);
		memcpy(b_tail(ob), line, (size_t)n);
		memcpy(b_tail(ob) + n + out.data, "\r\n", 2);
		ob->data += (uint32_t)n + out.data + 2;
	} else {
		ob->data += out.data;
	}
	if (ret == SVC_DONE) {
		if (c->chunked) {
			memcpy(b_tail(ob), "0\r\n\r\n", 5);
			ob->data += 5;
		}
		c->done = 1;
	}
	return 0;
}

int service_step(struct stream *s)
{
	struct conn *f = s->front;
	struct svc_ctx *c = s->svc;
	int budget = SVC_BUFS_PER_TURN;

	/* each pass sends a buffer; stops when the socket is full (the client's next read
	 * wakes us), or after a few buffers, going on at the next loop turn */
	for (;;) {
		if (f->obuf.data && conn_flush(f) < 0)
			return -1;
		if (f->obuf.data)
			return 0;
		if (c->done) {
			service_release(s);
			return 1;
		}
		if (!budget--) {
			tasklet_wakeup(&c->resume);
			return 0;
		}
		if (b_get(&f->obuf) < 0 || service_fill(c, &f->obuf) < 0)
			return -1;
	}
}

/* ---- http-request use-service NAME ---- */

static enum act_return act_use_service(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	if (service_head(s, r->arg.gen.p[0], px, r->arg.gen.p[1]) < 0)
		return ACT_RET_ERR;
	return ACT_RET_DONE;
}

static void act_use_service_release(struct act_rule *r)
{
	const struct http_service *svc = r->arg.gen.p[0];

	if (svc && svc->conf_free)
		svc->conf_free(r->arg.gen.p[1]);
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
		if (!strncmp(name, "lua.", 4))
			snprintf(err, errsz, "Lua services are not supported yet");
		else
			snprintf(err, errsz, "'use-service' : unknown service '%s'", name);
		return -1;
	}
	r->action = act_use_service;
	r->release = act_use_service_release;
	r->flags |= ACT_FL_FINAL;
	r->arg.gen.p[0] = (void *)svc;
	if (svc->parse && svc->parse(args, pos, nargs, ap, &r->arg.gen.p[1], err, errsz) < 0)
		return -1;
	return 0;
}

static const struct action_kw svc_act_kws[] = {
	{ "use-service", ACT_F_HTTP_REQ, 0, parse_use_service },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(svc_act_kws);
