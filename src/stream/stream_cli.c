/* Runtime API of streams: "show sess [all|<id>]" and "shutdown session <id>". Streams
 * belong to their threads: the CLI (thread 0) posts one request part to every thread's
 * inbox; each thread renders (or kills) its own streams and marks its part answered; the
 * handler yields until every part answered or a second passed, then prints. The request
 * is reference-counted: a thread that answers late, or a CLI session that goes away,
 * leaves the freeing to whoever lets go last.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <base/addr.h>
#include <backend/server-t.h>
#include <base/atomic.h>
#include <cli/cli.h>
#include <conn/connection-t.h>
#include <conn/listener-t.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <stream/err_capture.h>
#include <stream/stream.h>

#define SESS_WAIT_MS 1000		  /* a thread that does not answer by then is reported */
#define SESS_TEXT_MAX (64u * 1024 * 1024) /* bound on one thread's listing */

enum sess_kind {
	SESS_LIST = 0, /* one short line per stream */
	SESS_ALL,      /* the long form of every stream */
	SESS_ONE,      /* the long form of <target> */
	SESS_KILL,     /* shutdown session <target> */
};

struct sess_req;

/* One thread's share; written by that thread until <done>, then read by the CLI. */
struct sess_part {
	struct inbox_item it;
	struct sess_req *req;
	char *txt; /* the thread's text (malloc'ed), or NULL */
	size_t len, cap;
	int found; /* streams matching <target> */
	int done;  /* answered (atomic: release by the thread, acquire by the CLI) */
};

struct sess_req {
	int refs; /* atomic: the CLI's + one per part not answered yet */
	enum sess_kind kind;
	uintptr_t target;
	int nthr;
	struct sess_part parts[]; /* one per thread */
};

static void sess_req_put(struct sess_req *r)
{
	if (HA_ATOMIC_SUB(&r->refs, 1) != 0)
		return;
	for (int i = 0; i < r->nthr; i++)
		free(r->parts[i].txt);
	free(r);
}

/* Appends printf output to <p>'s text; drops it past SESS_TEXT_MAX or without memory. */
__attribute__((format(printf, 2, 3))) static void sess_put(struct sess_part *p, const char *fmt,
							   ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = p->cap - p->len;

		va_start(ap, fmt);
		n = vsnprintf(p->txt ? p->txt + p->len : NULL, p->txt ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (p->txt && (size_t)n < room) {
			p->len += (size_t)n;
			return;
		}
		size_t ncap = p->cap ? p->cap * 2 : 4096;

		while (ncap < p->len + (size_t)n + 1)
			ncap *= 2;
		if (ncap > SESS_TEXT_MAX)
			return;
		char *t = realloc(p->txt, ncap);

		if (!t)
			return;
		p->txt = t;
		p->cap = ncap;
	}
}

static const char *sess_proto(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6  ? "tcpv6"
	       : ss->ss_family == AF_UNIX ? "unix_stream"
					  : "tcpv4";
}

/* The listener's number in its frontend (HAProxy's luid: bind order from 1). */
static int sess_li_id(const struct listener *li)
{
	struct bind_conf *bc;
	struct listener *l;
	int n = 1;

	if (!li)
		return -1;
	list_for_each_entry(bc, &li->bind->px->binds, list)
		list_for_each_entry(l, &bc->listeners, list)
	{
		if (l == li)
			return n;
		n++;
	}
	return -1;
}

/* "1.2.3.4:80", "::1:80", or "unix:<listener id>" as HAProxy shows sources. */
static void sess_addr(const struct sockaddr_storage *ss, const struct listener *li, char *buf,
		      size_t size)
{
	if (!addr_to_str_plain(ss, buf, size))
		snprintf(buf, size, "unix:%d", sess_li_id(li));
}

/* A duration as HAProxy prints it ("4s", "1m30s", "2h0m5s", "3d1h"...). */
static void sess_human(uint64_t ms, char *buf, size_t size)
{
	uint64_t s = ms / 1000;
	unsigned d = (unsigned)(s / 86400), h = (unsigned)(s / 3600 % 24),
		 m = (unsigned)(s / 60 % 60);
	unsigned sec = (unsigned)(s % 60);

	if (d)
		snprintf(buf, size, "%ud%uh", d, h);
	else if (h)
		snprintf(buf, size, "%uh%um", h, m);
	else if (m)
		snprintf(buf, size, "%um%us", m, sec);
	else
		snprintf(buf, size, "%us", sec);
}

/* The stream's next deadline, relative: "" when none, "<PAST>" when due. */
static void sess_exp(const struct stream *s, char *buf, size_t size)
{
	uint64_t e = s->tmr.expire, now = now_ms();

	if (s->front->tmr.expire && (!e || s->front->tmr.expire < e))
		e = s->front->tmr.expire;
	if (s->back && s->back->tmr.expire && (!e || s->back->tmr.expire < e))
		e = s->back->tmr.expire;
	if (!e)
		buf[0] = '\0';
	else if (e <= now)
		snprintf(buf, size, "<PAST>");
	else
		sess_human(e - now, buf, size);
}

static const char *sess_px_name(const struct stream *s)
{
	return s->be ? s->be->id : s->fe->id; /* HAProxy's stream starts with be = fe */
}

static void sess_short(struct sess_part *p, const struct stream *s)
{
	char src[INET6_ADDRSTRLEN + 16], age[32], exp[32];

	sess_addr(&s->front->peer, s->front->li, src, sizeof(src));
	sess_human(now_ms() - s->req_start, age, sizeof(age));
	sess_exp(s, exp, sizeof(exp));
	sess_put(p,
		 "%p: proto=%s src=%s fe=%s be=%s srv=%s age=%s rq[i=%u] rp[i=%u] scf=[fd=%d] "
		 "scb=[fd=%d] exp=%s rc=%d\n",
		 (const void *)s, sess_proto(&s->front->peer), src, s->fe->id, sess_px_name(s),
		 s->srv ? s->srv->id : "<none>", age, s->front->ibuf.data,
		 s->back ? s->back->ibuf.data : 0, s->front->h.fd, s->back ? s->back->h.fd : -1,
		 exp, s->retries);
}

/* HAProxy's request/response analysis states for the stream's own state. */
static void sess_msg_states(const struct stream *s, const char **rq, const char **rp)
{
	*rq = "MSG_DONE";
	*rp = "MSG_RPBEFORE";
	switch (s->state) {
	case SS_REQ_HDRS:
		*rq = s->front->ibuf.data ? "MSG_HDR_NAME" : "MSG_RQBEFORE";
		break;
	case SS_REQ_BODY_WAIT:
	case SS_REQ_INSPECT:
	case SS_REQ_RULE_WAIT:
		*rq = "MSG_BODY";
		break;
	case SS_EXCHANGE:
		if (!(s->flags & SF_REQ_DONE))
			*rq = "MSG_DATA";
		if (s->flags & SF_RSP_HDRS_SENT)
			*rp = "MSG_DATA";
		break;
	case SS_LOCAL_REPLY:
	case SS_CLOSING:
		*rp = "MSG_DONE";
		break;
	case SS_TUNNEL:
		*rq = *rp = "MSG_TUNNEL";
		break;
	default:
		break;
	}
}

static void sess_conn(struct sess_part *p, const char *sc, int n, const struct conn *c,
		      const char *target, const void *tptr)
{
	if (!c) {
		sess_put(p, "  %s=<NONE>\n", sc);
		return;
	}
	sess_put(p,
		 "  %s=%p flags=0x%08x\n"
		 "      co%d=%p ctrl=%s xprt=RAW mux=H1 data=STRM target=%s:%p\n"
		 "      fd=%d\n",
		 sc, (const void *)c, c->flags, n, (const void *)c, sess_proto(&c->peer), target,
		 tptr, c->h.fd);
}

static void sess_long(struct sess_part *p, const struct stream *s)
{
	const struct conn *f = s->front, *b = s->back;
	char src[INET6_ADDRSTRLEN + 16], la[INET6_ADDRSTRLEN + 16], sa[INET6_ADDRSTRLEN + 16];
	char date[64], age[32], exp[32];
	struct timeval tv;
	struct tm tm;
	time_t t;
	uint64_t age_ms = now_ms() - s->req_start;
	const char *rq, *rp;
	static const char mon[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

	gettimeofday(&tv, NULL);
	t = tv.tv_sec - (time_t)(age_ms / 1000);
	if ((uint64_t)tv.tv_usec / 1000 < age_ms % 1000)
		t--;
	localtime_r(&t, &tm);
	snprintf(date, sizeof(date), "%02d/%s/%04d:%02d:%02d:%02d.%06u", tm.tm_mday, mon[tm.tm_mon],
		 tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned)(((uint64_t)tv.tv_usec + 1000000 - (age_ms % 1000) * 1000) % 1000000));
	sess_addr(&f->peer, f->li, src, sizeof(src));
	sess_addr(f->li ? &f->li->addr : &f->peer, f->li, la, sizeof(la));
	sess_human(age_ms, age, sizeof(age));
	sess_exp(s, exp, sizeof(exp));
	sess_msg_states(s, &rq, &rp);
	sess_put(p, "%p: [%s] proto=%s source=%s\n", (const void *)s, date, sess_proto(&f->peer),
		 src);
	sess_put(p, "  flags=0x%x, conn_retries=%d, srv_conn=%p, pend_pos=%p waiting=%d\n",
		 s->flags, s->retries, (const void *)s->srv,
		 s->queue_state == Q_QUEUED ? (const void *)&s->queue : NULL,
		 s->queue_state == Q_QUEUED);
	sess_put(p, "  frontend=%s (id=%d mode=%s), listener=%s (id=%d) addr=%s\n", s->fe->id,
		 err_px_iid(s->fe), s->fe->mode == PR_MODE_HTTP ? "http" : "tcp",
		 f->li && f->li->name ? f->li->name : "?", sess_li_id(f->li), la);
	if (s->be)
		sess_put(p, "  backend=%s (id=%d mode=%s)\n", s->be->id, err_px_iid(s->be),
			 s->be->mode == PR_MODE_HTTP ? "http" : "tcp");
	else
		sess_put(p, "  backend=<NONE> (id=-1 mode=-)\n");
	if (s->srv && b) {
		sess_addr(&b->peer, NULL, sa, sizeof(sa));
		sess_put(p, "  server=%s (id=%d) addr=%s\n", s->srv->id, s->srv->puid, sa);
	} else if (s->srv) {
		sess_put(p, "  server=%s (id=%d)\n", s->srv->id, s->srv->puid);
	} else {
		sess_put(p, "  server=<NONE> (id=-1)\n");
	}
	sess_put(p, "  task=%p (state=0x00 nice=%d calls=0 rate=0 exp=%s tmask=0x%llx age=%s)\n",
		 (const void *)&s->tmr, s->nice, *exp ? exp : "<NEVER>", 1ULL << (s->tid & 63),
		 age);
	sess_put(p, "  txn=%p flags=0x0 meth=%d status=%d req.st=%s rsp.st=%s\n",
		 (const void *)&s->req, s->meth, s->status ? s->status : -1, rq, rp);
	sess_conn(p, "scf", 0, f, "LISTENER", f->li);
	sess_conn(p, "scb", 1, b, "SERVER", s->srv);
	sess_put(p, "  req=%p (i=%u size=%u)\n  res=%p (i=%u size=%u)\n", (const void *)&f->ibuf,
		 f->ibuf.data, f->ibuf.size, b ? (const void *)&b->ibuf : NULL,
		 b ? b->ibuf.data : 0, b ? b->ibuf.size : 0);
}

/* The thread's streams: those of its front connections. */
#define for_each_thread_stream(c)                                                           \
	list_for_each_entry(c, &th_ctx->conns, by_thread) if (!((c)->flags & CO_FL_BACK) && \
							      (c)->strm &&                  \
							      (c)->strm->front == (c))

/* On each thread: renders or kills its streams for the request. */
static void sess_part_run(struct inbox_item *it)
{
	struct sess_part *p = (struct sess_part *)it;
	struct sess_req *r = p->req;
	struct conn *c;

	for_each_thread_stream(c)
	{
		struct stream *s = c->strm;

		if (r->kind == SESS_LIST) {
			sess_short(p, s);
		} else if (r->kind == SESS_ALL) {
			sess_long(p, s);
		} else if ((uintptr_t)s == r->target) {
			p->found++;
			if (r->kind == SESS_ONE)
				sess_long(p, s);
			else
				stream_shutdown(s); /* closes <c>: stop walking */
			break;
		}
	}
	HA_ATOMIC_STORE(&p->done, 1);
	sess_req_put(r);
}

static void sess_release(struct cli_ctx *ctx)
{
	struct sess_req *r = (struct sess_req *)ctx->p[0];

	ctx->p[0] = NULL;
	ctx->release = NULL;
	if (r)
		sess_req_put(r);
}

/* Posts the request to every thread. Returns 0, or -1 without memory. */
static int sess_post(struct cli_ctx *ctx, enum sess_kind kind, uintptr_t target)
{
	int n = global.nbthread > 0 ? global.nbthread : 1;
	struct sess_req *r = calloc(1, sizeof(*r) + (size_t)n * sizeof(struct sess_part));

	if (!r)
		return -1;
	r->kind = kind;
	r->target = target;
	r->nthr = n;
	r->refs = n + 1;
	ctx->p[0] = r;
	ctx->n[0] = now_ms();
	ctx->release = sess_release;
	for (int t = 0; t < n; t++) {
		r->parts[t].req = r;
		r->parts[t].it.fn = sess_part_run;
		inbox_push(t, &r->parts[t].it);
	}
	return 0;
}

/* Waits for the threads: true when all answered or the wait is over. */
static bool sess_wait_over(const struct cli_ctx *ctx)
{
	const struct sess_req *r = ctx->p[0];

	for (int t = 0; t < r->nthr; t++)
		if (!HA_ATOMIC_LOAD(&r->parts[t].done))
			return now_ms() - ctx->n[0] >= SESS_WAIT_MS;
	return true;
}

/* Writes the answered parts' text from thread ctx->n[1] >> 32, offset low 32 bits, one
 * line at a time; then one error line per thread that did not answer. */
static int sess_output(struct cli_ctx *ctx)
{
	struct sess_req *r = (struct sess_req *)ctx->p[0];
	int t = (int)(ctx->n[1] >> 32);
	size_t off = (size_t)(ctx->n[1] & 0xffffffffu);

	for (; t < r->nthr; t++, off = 0) {
		struct sess_part *p = &r->parts[t];

		if (!HA_ATOMIC_LOAD(&p->done))
			continue;
		while (off < p->len) {
			const char *lf = memchr(p->txt + off, '\n', p->len - off);
			size_t l = lf ? (size_t)(lf - (p->txt + off)) + 1 : p->len - off;

			if (cli_write(ctx, p->txt + off, l) < 0) {
				ctx->n[1] = ((uint64_t)t << 32) | off;
				return CLI_MORE;
			}
			off += l;
		}
	}
	ctx->n[1] = (uint64_t)r->nthr << 32;
	for (t = 0; t < r->nthr; t++) {
		if (HA_ATOMIC_LOAD(&r->parts[t].done) || ctx->st >= 3 + t)
			continue;
		if (cli_printf(ctx, "Thread %d did not answer within %d ms.\n", t + 1,
			       SESS_WAIT_MS) < 0)
			return CLI_MORE;
		ctx->st = 3 + t;
	}
	return CLI_DONE;
}

static int sess_found(const struct sess_req *r)
{
	int n = 0;

	for (int t = 0; t < r->nthr; t++)
		if (HA_ATOMIC_LOAD(&r->parts[t].done))
			n += r->parts[t].found;
	return n;
}

static int sess_msg(struct cli_ctx *ctx, const char *msg)
{
	return cli_printf(ctx, "%s", msg) < 0 ? CLI_MORE : CLI_DONE;
}

/* Common body of both commands: post, wait, print. */
static int sess_run(struct cli_ctx *ctx, enum sess_kind kind, uintptr_t target)
{
	int ret;

	if (ctx->st == 0) {
		if (sess_post(ctx, kind, target) < 0)
			return sess_msg(ctx, "Out of memory.\n");
		ctx->st = 1;
	}
	if (ctx->st == 1) {
		if (!sess_wait_over(ctx))
			return CLI_YIELD;
		ctx->st = 2;
	}
	if (kind == SESS_KILL)
		ret = sess_found(ctx->p[0]) ? CLI_DONE
					    : sess_msg(ctx, "No such session (use 'show sess').\n");
	else if (kind == SESS_ONE && !sess_found(ctx->p[0]) && sess_wait_over(ctx))
		ret = sess_msg(ctx, "Session not found.\n");
	else
		ret = sess_output(ctx);
	if (ret == CLI_DONE)
		sess_release(ctx);
	return ret;
}

/* "0x55d0..." as "show sess" prints stream ids; 0 when not a number. */
static uintptr_t sess_parse_id(const char *a)
{
	char *end;
	unsigned long long v = strtoull(a, &end, 0);

	return (uintptr_t)v;
}

static int sess_cli_show(struct cli_ctx *ctx)
{
	const char *a = ctx->nargs > 2 ? ctx->args[2] : "";
	uintptr_t id = 0;

	if (strcmp(a, "all") == 0)
		return sess_run(ctx, SESS_ALL, 0);
	if (*a)
		id = sess_parse_id(a); /* as 2.6: a word that is no number lists them all */
	return sess_run(ctx, id ? SESS_ONE : SESS_LIST, id);
}

static int sess_cli_shutdown(struct cli_ctx *ctx)
{
	const char *a = ctx->nargs > 2 ? ctx->args[2] : "";
	uintptr_t id;

	if (!*a)
		return sess_msg(ctx, "Session pointer expected (use 'show sess').\n");
	id = sess_parse_id(a);
	if (!id)
		return sess_msg(ctx, "No such session (use 'show sess').\n");
	return sess_run(ctx, SESS_KILL, id);
}

static const struct cli_kw sess_cli_kws[] = {
	{ { "show", "sess" },
	  "show sess [id]",
	  "report the list of current sessions or dump this exact session",
	  CLI_LVL_OPER,
	  sess_cli_show },
	{ { "shutdown", "session" },
	  "shutdown session [id]",
	  "kill a specific session",
	  CLI_LVL_ADMIN,
	  sess_cli_shutdown },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(sess_cli_kws);
