/* The log-line variables with HAProxy 2.6's presentation: dates (%t %tr %trg %trl %T %Tl
 * %Ts %ms), timers (%TR %Tw %Tc %Tr %Ta %Th %Ti %Tq %Tt %Tu, -1 when a step did not
 * happen), bytes (%B %U), termination state (%ts %tsc), counts (%ac %sc %rc %sq %bq %lc
 * %rt), addresses (%bi %bp %si %sp), the request line (%r, <BADREQ>) and the captures
 * (%hr %hrl %hs %hsl %CC %CS). Integers and dates are written by hand (no snprintf).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <conn/connection-t.h>
#include <conn/listener.h>
#include <event/loop.h>
#include <log/log_strm-t.h>
#include <log/log_vars.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>
#include <sample/sample-t.h>
#include <stream/cookie.h>
#include <stream/http_capture.h>
#include <stream/stream-t.h>

_Thread_local struct log_rctx log_rctx;
static _Thread_local struct log_rctx log_rctx_tmp;
static uint64_t log_req_counter; /* %rt: streams numbered, all threads (atomic) */

/* ---- render context ---- */

static uint64_t log_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* As HAProxy 2.6: a stream starts at the accept, or at the end of the previous request
 * of its connection (%t); its request at its first byte (%tr), which is the stream's start
 * again for a request that never completed; %Ti is the time between them. */
static void log_rctx_fill(struct log_rctx *r, const struct stream *s, bool logasap)
{
	uint64_t now = now_ms(), wall = log_wall_ms();
	uint64_t req = s->req_start, acc = s->front ? s->front->idle_start : req;

	if (acc > req)
		acc = req;
	if (!s->t_hdrs)
		req = acc;
	r->strm = s;
	r->end_ms = now;
	r->accept_ms = acc;
	r->req_ms = req;
	r->accept_wall_ms = wall - (now >= acc ? now - acc : 0);
	r->req_wall_ms = wall - (now >= req ? now - req : 0);
	r->logasap = logasap;
	r->lc = s->fe && s->fe->strm_log ? HA_ATOMIC_LOAD_RLX(&s->fe->strm_log->nb_lines) : 0;
}

void log_stream_number(struct stream *s)
{
	if (!s->log_id)
		s->log_id = HA_ATOMIC_FETCH_ADD(&log_req_counter, 1) + 1;
}

void log_rctx_set(const struct stream *s, bool logasap)
{
	log_rctx_fill(&log_rctx, s, logasap);
}

/* The context of <s>: the log line's, else computed now (a set-header value). */
static const struct log_rctx *lv_rctx(const struct stream *s)
{
	if (log_rctx.strm == s)
		return &log_rctx;
	log_rctx_fill(&log_rctx_tmp, s, false);
	return &log_rctx_tmp;
}

/* ---- number writers ---- */

/* "00".."99": integers are written two digits at a time */
static const char lv_d2[201] =
	"0001020304050607080910111213141516171819202122232425262728293031323334"
	"3536373839404142434445464748495051525354555657585960616263646566676869"
	"707172737475767778798081828384858687888990919293949596979899";

/* Writes <v> (< 10^9) in decimal, two digits at a time from the end. */
static int lv_put_u32(char *out, uint32_t v)
{
	int n = 1 + (v >= 10) + (v >= 100) + (v >= 1000) + (v >= 10000) + (v >= 100000) +
		(v >= 1000000) + (v >= 10000000) + (v >= 100000000);
	char *p = out + n;

	while (v >= 100) {
		uint32_t r = v % 100;

		v /= 100;
		p -= 2;
		p[0] = lv_d2[2 * r];
		p[1] = lv_d2[2 * r + 1];
	}
	if (v >= 10) {
		p[-2] = lv_d2[2 * v];
		p[-1] = lv_d2[2 * v + 1];
	} else {
		p[-1] = (char)('0' + v);
	}
	return n;
}

int log_put_u64(char *out, uint64_t v)
{
	int n;

	if (v < 10) { /* most timers and counts */
		out[0] = (char)('0' + v);
		return 1;
	}
	if (v < 1000000000)
		return lv_put_u32(out, (uint32_t)v);
	/* the high part, then 9 digits */
	n = log_put_u64(out, v / 1000000000);
	v %= 1000000000;
	for (int i = 8; i >= 0; i--) {
		out[n + i] = (char)('0' + v % 10);
		v /= 10;
	}
	return n + 9;
}

static int lv_hex(char *out, size_t outsz, uint64_t v)
{
	static const char hex[] = "0123456789ABCDEF";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	if ((size_t)n > outsz)
		return -1;
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* A signed number with an optional '+' before it; "+X" writes it in hexadecimal. */
static int lv_num(char *out, size_t outsz, unsigned flags, int64_t v, bool plus)
{
	size_t o = 0;

	if (outsz < 24)
		return -1;
	if (plus)
		out[o++] = '+';
	if (v < 0) {
		out[o++] = '-';
		v = -v;
	}
	if (flags & LF_F_HEX) {
		int n = lv_hex(out + o, outsz - o, (uint64_t)v);

		return n < 0 ? -1 : (int)o + n;
	}
	return (int)o + log_put_u64(out + o, (uint64_t)v);
}

static int lv_str(char *out, size_t outsz, const char *s, size_t len)
{
	if (len > outsz)
		return -1;
	memcpy(out, s, len);
	return (int)len;
}

static void lv_2d(char *p, int v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/* ---- dates, cached per second per thread ---- */

static const char mon_names[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

struct lv_date_cache {
	time_t sec;   /* the second these strings are for, -1: none */
	char str[32]; /* "dd/Mmm/yyyy:HH:MM:SS" */
	size_t len;   /* of str */
	char tz[8];   /* " +hhmm" */
};

static _Thread_local struct lv_date_cache lv_local = { -1, "", 0, "" }, lv_gmt = { -1, "", 0, "" };

static const struct lv_date_cache *lv_date(time_t sec, bool gmt)
{
	struct lv_date_cache *c = gmt ? &lv_gmt : &lv_local;
	struct tm tm;
	long off;
	char *p;

	if (c->sec == sec)
		return c;
	if (gmt)
		gmtime_r(&sec, &tm);
	else
		localtime_r(&sec, &tm);
	p = c->str;
	lv_2d(p, tm.tm_mday);
	p[2] = '/';
	memcpy(p + 3, mon_names[tm.tm_mon % 12], 3);
	p[6] = '/';
	p += 7;
	p += log_put_u64(p, (uint64_t)(tm.tm_year + 1900));
	*p++ = ':';
	lv_2d(p, tm.tm_hour);
	p[2] = ':';
	lv_2d(p + 3, tm.tm_min);
	p[5] = ':';
	lv_2d(p + 6, tm.tm_sec);
	p[8] = 0;
	c->len = (size_t)(p + 8 - c->str);
	off = gmt ? 0 : tm.tm_gmtoff;
	c->tz[0] = ' ';
	c->tz[1] = off < 0 ? '-' : '+';
	if (off < 0)
		off = -off;
	lv_2d(c->tz + 2, (int)(off / 3600));
	lv_2d(c->tz + 4, (int)(off / 60 % 60));
	c->tz[6] = 0;
	c->sec = sec;
	return c;
}

/* The stream's start as a date: <ms> appends ".mmm", <tz> the zone, in local time or GMT */
/* <req>: the request's date (%tr...), else the stream's (%t...) */
static int lv_date_tag(char *out, size_t outsz, const struct smp_ctx *ctx, bool gmt, bool ms,
		       bool tz, bool req)
{
	const struct lv_date_cache *c;
	uint64_t w;
	size_t o;

	if (!ctx->strm)
		return 0;
	w = req ? lv_rctx(ctx->strm)->req_wall_ms : lv_rctx(ctx->strm)->accept_wall_ms;
	c = lv_date((time_t)(w / 1000), gmt);
	o = c->len;
	if (outsz < o + 8)
		return -1;
	if (o == 20) /* a 4-digit year: a fixed-size copy */
		memcpy(out, c->str, 20);
	else
		memcpy(out, c->str, o);
	if (ms) {
		out[o++] = '.';
		out[o++] = (char)('0' + w % 1000 / 100);
		lv_2d(out + o, (int)(w % 100));
		o += 2;
	}
	if (tz) {
		memcpy(out + o, c->tz, 6);
		o += 6;
	}
	return (int)o;
}

/* clang-format off */
#define DATE_TAG(fn, gmt, ms, tz, req)                                                   \
	static int fn(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags) \
	{                                                                                \
		return lv_date_tag(out, outsz, ctx, gmt, ms, tz, req);                   \
	}
/* clang-format on */

DATE_TAG(lv_t, false, true, false, true)	   /* %tr: local, with ms */
DATE_TAG(lv_tgmt, true, false, true, true)	   /* %trg: GMT with "+0000" */
DATE_TAG(lv_tlocal, false, false, true, true)	   /* %trl: local with the zone */
DATE_TAG(lv_tacc, false, true, false, false)	   /* %t */
DATE_TAG(lv_tacc_gmt, true, false, true, false)	   /* %T */
DATE_TAG(lv_tacc_local, false, false, true, false) /* %Tl */

static int lv_Ts(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	if (!ctx->strm)
		return 0;
	return lv_num(out, outsz, flags, (int64_t)(lv_rctx(ctx->strm)->accept_wall_ms / 1000),
		      false);
}

static int lv_ms(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	uint64_t w;

	if (!ctx->strm)
		return 0;
	w = lv_rctx(ctx->strm)->accept_wall_ms % 1000;
	if (flags & LF_F_HEX)
		return lv_num(out, outsz, flags, (int64_t)w, false);
	if (outsz < 3)
		return -1;
	out[0] = (char)('0' + w / 100);
	lv_2d(out + 1, (int)(w % 100));
	return 3;
}

/* ---- timers (ms, -1 when the step was not reached) ---- */

enum lv_timer { LV_TR = 0, LV_TW, LV_TC, LV_TRSP, LV_TA, LV_TT, LV_TQ, LV_TH, LV_TI, LV_TU };

static int64_t lv_timer(const struct stream *s, enum lv_timer t)
{
	const struct log_rctx *r = lv_rctx(s);
	int64_t TR = s->t_hdrs ? (int64_t)(s->t_hdrs - s->req_start) : -1;

	int64_t Ti = (int64_t)(r->req_ms - r->accept_ms);

	switch (t) {
	case LV_TR:
		return TR;
	case LV_TQ: /* Th + Ti + TR (no handshake without TLS) */
		return TR < 0 ? -1 : Ti + TR;
	case LV_TW: /* 0 for a stream that went to a server without queueing */
		if (s->t_queue && s->t_hdrs)
			return (int64_t)(s->t_queue - s->t_hdrs);
		/* mode tcp: no server at all is -1 there too, as in HAProxy */
		return s->t_conn || s->srv || (s->term[1] == 'C' && s->fe->mode == PR_MODE_HTTP)
			       ? 0
			       : -1;
	case LV_TC:
		if (!s->t_conn)
			return -1;
		return (int64_t)(s->t_conn - (s->t_queue ? s->t_queue : s->t_hdrs));
	case LV_TRSP:
		return s->t_rsp && s->t_conn ? (int64_t)(s->t_rsp - s->t_conn) : -1;
	case LV_TA:
		return (int64_t)(r->end_ms - r->req_ms);
	case LV_TT:
		return (int64_t)(r->end_ms - r->accept_ms);
	case LV_TU: /* Tt without the idle time */
		return (int64_t)(r->end_ms - r->req_ms);
	case LV_TI:
		return Ti;
	default: /* Th: no handshake without TLS */
		return 0;
	}
}

/* clang-format off */
#define TIMER_TAG(fn, t, plus)                                                           \
	static int fn(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags) \
	{                                                                                \
		if (!ctx->strm)                                                          \
			return 0;                                                        \
		return lv_num(out, outsz, flags, lv_timer(ctx->strm, t),                 \
			      (plus) && lv_rctx(ctx->strm)->logasap);                    \
	}
/* clang-format on */

TIMER_TAG(lv_TR, LV_TR, false)
TIMER_TAG(lv_Tw, LV_TW, false)
TIMER_TAG(lv_Tc, LV_TC, false)
TIMER_TAG(lv_Tr, LV_TRSP, false)
TIMER_TAG(lv_Ta, LV_TA, true)
TIMER_TAG(lv_Tt, LV_TT, true)
TIMER_TAG(lv_Tq, LV_TQ, false)
TIMER_TAG(lv_Th, LV_TH, false)
TIMER_TAG(lv_Ti, LV_TI, false)
TIMER_TAG(lv_Tu, LV_TU, true)

/* ---- bytes, counts ---- */

static int lv_B(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;

	if (!s)
		return 0;
	return lv_num(out, outsz, flags, (int64_t)s->front->bytes_out, lv_rctx(s)->logasap);
}

static int lv_U(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return ctx->strm ? lv_num(out, outsz, flags, (int64_t)ctx->strm->front->bytes_in, false)
			 : 0;
}

static int lv_ac(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_num(out, outsz, flags, HA_ATOMIC_LOAD_RLX(&actconn), false);
}

static int lv_sc(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;
	const struct server *srv = s ? s->srv : NULL;
	int n = srv ? HA_ATOMIC_LOAD_RLX(&srv->cur_conns) : 0;

	/* HAProxy logs once the stream released its slot */
	if (srv && log_rctx.strm == s && (s->flags & SF_HAS_SLOT) && n > 0)
		n--;
	return lv_num(out, outsz, flags, n, false);
}

static int lv_sq(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct server *srv = ctx->strm ? ctx->strm->srv : NULL;

	return lv_num(out, outsz, flags, srv ? HA_ATOMIC_LOAD_RLX(&srv->queued) : 0, false);
}

static int lv_bq(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct proxy *be = ctx->strm ? ctx->strm->be : NULL;

	const struct stream *s = ctx->strm;
	/* a stream whose queue timeout struck still counts itself there, as in HAProxy */
	int self = s && log_rctx.strm == s && s->term[0] == 's' && s->term[1] == 'Q';

	return lv_num(out, outsz, flags, be ? HA_ATOMIC_LOAD_RLX(&be->nb_queued) + self : 0, false);
}

/* %bc: the backend's streams (the frontend until one is chosen), this one excepted in
 * its log line as HAProxy logs after releasing it */
static int lv_bc(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;
	const struct proxy *px = s ? (s->be ? s->be : s->fe) : ctx->px;
	int n = px ? HA_ATOMIC_LOAD_RLX(&px->beconn) : 0;

	if (s && s->be && log_rctx.strm == s && n > 0 && !(s->term[0] == 's' && s->term[1] == 'Q'))
		n--; /* but for a queue timeout, as HAProxy logs it before leaving the queue */
	return px ? lv_num(out, outsz, flags, n, false) : 0;
}

/* %ST: the status sent to the client, or the server's while its response is processed;
 * -1 in a log line when there was none (as HAProxy), nothing elsewhere */
static int lv_ST(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;
	int st = !s ? 0 : s->status ? s->status : s->rsp.hdr_len ? s->rsp.status : 0;

	if (!st && s && log_rctx.strm == s)
		st = -1;
	return st ? lv_num(out, outsz, 0, st, false) : 0; /* never in hex, as HAProxy */
}

/* %rc: retries, '+' before it after a redispatch */
static int lv_rc(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;

	return s ? lv_num(out, outsz, flags, s->retries, s->redisp) : 0;
}

/* %rt: the stream's number (HAProxy's counts every stream of the process; here those of
 * the frontends that log, or that show it elsewhere, from 0) */
static int lv_rt(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	if (!ctx->strm)
		return 0;
	/* the stream is never const itself: only this view of it is */
	log_stream_number((struct stream *)(uintptr_t)ctx->strm);
	return lv_num(out, outsz, flags, (int64_t)(ctx->strm->log_id - 1), false);
}

/* %lc: the frontend's lines sent before this one */
static int lv_lc(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return ctx->strm ? lv_num(out, outsz, flags, (int64_t)lv_rctx(ctx->strm)->lc, false) : 0;
}

/* ---- termination state ---- */

static int lv_term(char *out, size_t outsz, const struct smp_ctx *ctx, bool cookies)
{
	const struct stream *s = ctx->strm;

	if (!s)
		return 0;
	if (outsz < 4)
		return -1;
	out[0] = s->term[0] ? s->term[0] : '-';
	out[1] = s->term[0] ? s->term[1] : '-';
	if (!cookies)
		return 2;
	cookie_log_chars(s, out + 2);
	return 4;
}

static int lv_ts(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_term(out, outsz, ctx, false);
}

static int lv_tsc(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_term(out, outsz, ctx, true);
}

/* ---- addresses ---- */

/* The last IPv4 address written by this thread: clients send many requests in a row. */
static _Thread_local struct {
	uint32_t addr;
	int len; /* 0: none */
	char str[16];
} lv_ipv4_last;

/* a.b.c.d by hand: inet_ntop goes through sprintf */
static int lv_ipv4(char *out, size_t outsz, const struct sockaddr_in *sin)
{
	const uint8_t *b = (const uint8_t *)&sin->sin_addr;
	size_t o = 0;

	if (outsz < 16)
		return -1;
	if (lv_ipv4_last.len && lv_ipv4_last.addr == sin->sin_addr.s_addr) {
		memcpy(out, lv_ipv4_last.str, 16);
		return lv_ipv4_last.len;
	}
	for (int i = 0; i < 4; i++) {
		if (i)
			out[o++] = '.';
		o += (size_t)log_put_u64(out + o, b[i]);
	}
	memcpy(lv_ipv4_last.str, out, 16);
	lv_ipv4_last.addr = sin->sin_addr.s_addr;
	lv_ipv4_last.len = (int)o;
	return (int)o;
}

static int lv_ip(char *out, size_t outsz, const struct sockaddr_storage *ss)
{
	const void *a;

	if (ss->ss_family == AF_INET)
		return lv_ipv4(out, outsz, (const struct sockaddr_in *)ss);
	else if (ss->ss_family == AF_INET6)
		a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	else if (ss->ss_family == AF_UNIX)
		return lv_str(out, outsz, "unix", 4);
	else
		return 0;
	if (!inet_ntop(ss->ss_family, a, out, (socklen_t)outsz))
		return -1;
	return (int)strlen(out);
}

static int lv_port(char *out, size_t outsz, const struct sockaddr_storage *ss, unsigned flags)
{
	if (ss->ss_family == AF_INET)
		return lv_num(out, outsz, flags, ntohs(((const struct sockaddr_in *)ss)->sin_port),
			      false);
	if (ss->ss_family == AF_INET6)
		return lv_num(out, outsz, flags,
			      ntohs(((const struct sockaddr_in6 *)ss)->sin6_port), false);
	return ss->ss_family == AF_UNIX ? lv_str(out, outsz, "unix", 4) : 0;
}

/* %si %sp: the server's address (the one it was connected to) */
static int lv_si(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;

	if (!s || !s->srv)
		return 0;
	return lv_ip(out, outsz, s->back ? &s->back->peer : &s->srv->addr);
}

static int lv_sp(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;

	if (!s || !s->srv)
		return 0;
	return lv_port(out, outsz, s->back ? &s->back->peer : &s->srv->addr, flags);
}

/* %ci %cp: the client's address and port ("unix" on a unix socket) */
static const struct conn *lv_cli(const struct smp_ctx *ctx)
{
	return ctx->strm ? ctx->strm->front : ctx->conn;
}

static int lv_ci(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct conn *c = lv_cli(ctx);

	return c ? lv_ip(out, outsz, &c->peer) : 0;
}

static int lv_cp(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct conn *c = lv_cli(ctx);

	return c ? lv_port(out, outsz, &c->peer, flags) : 0;
}

/* %f %ft: the frontend; %fc: its connections */
static const struct proxy *lv_fe(const struct smp_ctx *ctx)
{
	return ctx->strm ? ctx->strm->fe : ctx->conn ? ctx->conn->px : NULL;
}

static int lv_f(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct proxy *fe = lv_fe(ctx);

	return fe ? lv_str(out, outsz, fe->id, strlen(fe->id)) : 0;
}

/* %ft: the frontend, followed by '~' on a TLS connection */
static int lv_ft(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct conn *c = lv_cli(ctx);
	int n = lv_f(out, outsz, ctx, flags);

	if (n < 0 || !c || !(c->flags & CO_FL_XPRT))
		return n;
	if ((size_t)n >= outsz)
		return -1;
	out[n] = '~';
	return n + 1;
}

static int lv_fc(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct proxy *fe = lv_fe(ctx);

	return fe ? lv_num(out, outsz, flags, HA_ATOMIC_LOAD_RLX(&fe->feconn), false) : 0;
}

/* %b: the backend, the frontend itself until one is chosen (as HAProxy shows it) */
static int lv_b(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;
	const struct proxy *px = s ? (s->be ? s->be : s->fe) : ctx->px;

	return px ? lv_str(out, outsz, px->id, strlen(px->id)) : 0;
}

/* %s: the server, "<NOSRV>" without one */
static int lv_s(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct server *srv = ctx->strm ? ctx->strm->srv : NULL;

	if (!srv && ctx->strm && ctx->strm->svc_name)
		return lv_str(out, outsz, ctx->strm->svc_name, strlen(ctx->strm->svc_name));
	if (!srv)
		return lv_str(out, outsz, "<NOSRV>", 7);
	return lv_str(out, outsz, srv->id, strlen(srv->id));
}

/* ---- request line, captures ---- */

/* %r: the request line as received, "<BADREQ>" when none could be parsed */
static int lv_r(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	const struct stream *s = ctx->strm;
	const struct h1_msg *m = s ? &s->req : NULL;
	size_t o = 0, n;

	if (!s)
		return 0;
	if (s->log_rline.len)
		return lv_str(out, outsz, s->log_rline.ptr, s->log_rline.len);
	/* outside a log line: the request while it is there */
	if (!s->t_hdrs || !m->meth.len || !s->req.hdr_len ||
	    ((s->flags & SF_REQ_HDRS_SENT) && !(s->flags & SF_REQ_KEPT)))
		return lv_str(out, outsz, "<BADREQ>", 8);
	n = m->meth.len + 1 + m->uri.len + 10;
	if (n > outsz)
		return -1;
	memcpy(out, m->meth.ptr, m->meth.len);
	o = m->meth.len;
	out[o++] = ' ';
	memcpy(out + o, m->uri.ptr, m->uri.len);
	o += m->uri.len;
	memcpy(out + o, (m->flags & H1_MF_VER_11) ? " HTTP/1.1" : " HTTP/1.0", 9);
	return (int)(o + 9);
}

/* The request target: the request's own while it is there, else the one kept for the log
 * line (empty when neither) */
static struct ist lv_uri(const struct stream *s)
{
	struct ist l = s->log_rline;
	const char *sp;

	if (s->req.hdr_len && !((s->flags & SF_REQ_HDRS_SENT) && !(s->flags & SF_REQ_KEPT)))
		return s->req.uri;
	if (l.len < 10)
		return ist2(NULL, 0);
	sp = memchr(l.ptr, ' ', l.len - 9);
	return sp ? ist2(sp + 1, (size_t)(l.ptr + l.len - 9 - (sp + 1))) : ist2(NULL, 0);
}

/* %HU %HP %HQ (with its '?') %HV, at any time of the stream */
static int lv_uri_part(char *out, size_t outsz, const struct smp_ctx *ctx, int part)
{
	const struct stream *s = ctx->strm;
	struct ist u;
	const char *q;

	if (!s || !s->t_hdrs)
		return 0;
	if (part == 3)
		return lv_str(out, outsz, (s->req.flags & H1_MF_VER_11) ? "HTTP/1.1" : "HTTP/1.0",
			      8);
	u = lv_uri(s);
	if (!u.len)
		return 0;
	q = memchr(u.ptr, '?', u.len);
	if (part == 1 && q)
		u.len = (size_t)(q - u.ptr);
	if (part == 2) {
		if (!q)
			return 0;
		u = ist2(q, (size_t)(u.ptr + u.len - q));
	}
	return lv_str(out, outsz, u.ptr, u.len);
}

static int lv_HU(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_uri_part(out, outsz, ctx, 0);
}

static int lv_HP(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_uri_part(out, outsz, ctx, 1);
}

static int lv_HQ(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_uri_part(out, outsz, ctx, 2);
}

static int lv_HV(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_uri_part(out, outsz, ctx, 3);
}

/* Copies a captured value with control bytes as "#XX", as HAProxy escapes captures */
static int lv_cap_put(char *out, size_t outsz, size_t *o, struct ist v)
{
	static const char hex[] = "0123456789ABCDEF";

	for (size_t i = 0; i < v.len; i++) {
		unsigned char c = (unsigned char)v.ptr[i];
		bool esc = c < 0x20 || c >= 0x7f || c == '#' || c == '"' || c == '|' || c == '{' ||
			   c == '}';

		if (*o + (esc ? 3 : 1) > outsz)
			return -1;
		if (esc) {
			out[(*o)++] = '#';
			out[(*o)++] = hex[c >> 4];
			out[(*o)++] = hex[c & 15];
		} else {
			out[(*o)++] = (char)c;
		}
	}
	return 0;
}

/* %hr %hs: "{v1|v2}"; %hrl %hsl: the values separated by spaces; nothing without slots */
static int lv_caps(char *out, size_t outsz, const struct smp_ctx *ctx, bool res, bool list)
{
	const struct stream *s = ctx->strm;
	unsigned nb = s && s->t_hdrs ? http_capture_nb(s, res) : 0;
	size_t o = 0;

	if (!nb)
		return 0;
	if (!list && outsz < 2)
		return -1;
	if (!list)
		out[o++] = '{';
	for (unsigned i = 0; i < nb; i++) {
		struct ist v = http_capture_get(s, res, i);

		if (i && o >= outsz)
			return -1;
		if (i)
			out[o++] = list ? ' ' : '|';
		if (list && !v.len) {
			if (o >= outsz)
				return -1;
			out[o++] = '-';
			continue;
		}
		if (lv_cap_put(out, outsz, &o, v) < 0)
			return -1;
	}
	if (!list) {
		if (o >= outsz)
			return -1;
		out[o++] = '}';
	}
	return (int)o;
}

static int lv_hr(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_caps(out, outsz, ctx, false, false);
}

static int lv_hs(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_caps(out, outsz, ctx, true, false);
}

static int lv_hrl(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_caps(out, outsz, ctx, false, true);
}

static int lv_hsl(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_caps(out, outsz, ctx, true, true);
}

static int lv_ck(char *out, size_t outsz, const struct smp_ctx *ctx, bool res)
{
	size_t o = 0;

	if (!ctx->strm)
		return 0;
	return lv_cap_put(out, outsz, &o, http_capture_cookie(ctx->strm, res)) < 0 ? -1 : (int)o;
}

static int lv_CC(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_ck(out, outsz, ctx, false);
}

static int lv_CS(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lv_ck(out, outsz, ctx, true);
}

/* ---- the default httplog line, written directly ---- */

/* Writes <v> as a number, '-' before a negative one ('+' first when <plus>). */
static inline __attribute__((always_inline)) char *hl_num(char *p, int64_t v, bool plus)
{
	if (plus)
		*p++ = '+';
	if (v < 0) {
		*p++ = '-';
		v = -v;
	}
	if (v < 10) { /* most timers and counts: no call */
		*p = (char)('0' + v);
		return p + 1;
	}
	if (v < 100) {
		p[0] = lv_d2[2 * v];
		p[1] = lv_d2[2 * v + 1];
		return p + 2;
	}
	return p + log_put_u64(p, (uint64_t)v);
}

/* An id (proxy, server) or "-" when empty; <p> has room (checked by the caller). Names
 * are short: a byte loop is cheaper than a call to memcpy. */
static char *hl_id(char *p, const char *id, size_t len)
{
	if (!len) {
		*p++ = '-';
		return p;
	}
	if (len > 32) {
		memcpy(p, id, len);
		return p + len;
	}
	for (size_t i = 0; i < len; i++)
		p[i] = id[i];
	return p + len;
}

/* %cp of an inet client (other families go through lv_port) */
static char *hl_port(char *p, const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return p + log_put_u64(p, ntohs(((const struct sockaddr_in *)ss)->sin_port));
	if (ss->ss_family == AF_INET6)
		return p + log_put_u64(p, ntohs(((const struct sockaddr_in6 *)ss)->sin6_port));
	return NULL;
}

/* A variable-length field through its tag function: "-" when it writes nothing, NULL when
 * it does not fit. <opt>: nothing (and no space) when empty, else a space after it. */
static char *hl_var(char *p, char *end, const struct smp_ctx *ctx,
		    int (*fn)(char *, size_t, const struct smp_ctx *, unsigned), bool opt)
{
	int n = fn(p, (size_t)(end - p), ctx, 0);

	if (n < 0 || p + n + 1 > end)
		return NULL;
	if (!n)
		return opt ? p : (*p = '-', p + 1);
	p += n;
	if (opt)
		*p++ = ' ';
	return p;
}

/* The room the fixed fields take at most: an IPv6 address and port, the date, ten
 * timers and counters of at most 21 chars, the status, the termination state and the
 * separators. */
#define HL_FIXED_MAX 400

/* option httplog's line, "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc
 * %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r", written field by field for the stream of
 * log_rctx (the generic rendering of that format gives the same bytes: unit tests). */
size_t log_httplog_render(const struct smp_ctx *ctx, char *out, size_t outsz)
{
	const struct stream *s = ctx->strm;
	const struct proxy *fe, *be;
	const struct server *srv;
	size_t flen, blen, slen;
	char *p = out, *end = out + outsz, *q;
	const struct lv_date_cache *dc;
	uint64_t w;
	bool caps;
	int n;

	if (!s || log_rctx.strm != s)
		return SIZE_MAX;
	fe = s->fe;
	be = s->be ? s->be : s->fe;
	srv = s->srv;
	flen = strlen(fe->id);
	blen = strlen(be->id);
	slen = srv ? strlen(srv->id) : s->svc_name ? strlen(s->svc_name) : 7;
	if (outsz < HL_FIXED_MAX + flen + blen + slen + 1) /* + the '~' of TLS */
		return SIZE_MAX;

	n = lv_ip(p, 64, &s->front->peer);
	p = n > 0 ? p + n : (*p = '-', p + 1);
	*p++ = ':';
	if ((q = hl_port(p, &s->front->peer))) {
		p = q;
	} else {
		n = lv_port(p, 24, &s->front->peer, 0);
		p = n > 0 ? p + n : (*p = '-', p + 1);
	}
	*p++ = ' ';
	*p++ = '[';
	w = log_rctx.accept_wall_ms; /* %tr: lv_date_tag() inline */
	dc = lv_date((time_t)(w / 1000), false);
	if (dc->len == 20)
		memcpy(p, dc->str, 20);
	else
		memcpy(p, dc->str, dc->len);
	p += dc->len;
	w %= 1000;
	p[0] = '.';
	p[1] = (char)('0' + w / 100);
	p[2] = lv_d2[2 * (w % 100)];
	p[3] = lv_d2[2 * (w % 100) + 1];
	p += 4;
	*p++ = ']';
	*p++ = ' ';
	p = hl_id(p, fe->id, flen);
	if (s->front->flags & CO_FL_XPRT)
		*p++ = '~';
	*p++ = ' ';
	p = hl_id(p, be->id, blen);
	*p++ = '/';
	p = hl_id(p, srv ? srv->id : s->svc_name ? s->svc_name : "<NOSRV>", slen);
	*p++ = ' ';
	/* the timers of lv_timer(), inline */
	p = hl_num(p, s->t_hdrs ? (int64_t)(s->t_hdrs - s->req_start) : -1, false);
	*p++ = '/';
	p = hl_num(p,
		   s->t_queue && s->t_hdrs		   ? (int64_t)(s->t_queue - s->t_hdrs)
		   : s->t_conn || srv || s->term[1] == 'C' ? 0
							   : -1,
		   false);
	*p++ = '/';
	p = hl_num(p, s->t_conn ? (int64_t)(s->t_conn - (s->t_queue ? s->t_queue : s->t_hdrs)) : -1,
		   false);
	*p++ = '/';
	p = hl_num(p, s->t_rsp && s->t_conn ? (int64_t)(s->t_rsp - s->t_conn) : -1, false);
	*p++ = '/';
	p = hl_num(p, (int64_t)(log_rctx.end_ms - s->req_start), log_rctx.logasap);
	*p++ = ' ';
	n = s->status ? s->status : s->rsp.hdr_len ? s->rsp.status : -1;
	p = hl_num(p, n ? n : -1, false);
	*p++ = ' ';
	p = hl_num(p, (int64_t)s->front->bytes_out, log_rctx.logasap);
	*p++ = ' ';
	/* without captures (the usual case), %CC %CS are "-" and %hr %hs write nothing */
	caps = s->caps || http_capture_nb(s, false) || http_capture_nb(s, true);
	if (!caps) {
		*p++ = '-';
		*p++ = ' ';
		*p++ = '-';
	} else if (!(p = hl_var(p, end, ctx, lv_CC, false)) || (*p++ = ' ', false) ||
		   !(p = hl_var(p, end, ctx, lv_CS, false)) || end - p < HL_FIXED_MAX / 2) {
		return SIZE_MAX;
	}
	*p++ = ' ';
	p += lv_term(p, 4, ctx, true);
	*p++ = ' ';
	p = hl_num(p, HA_ATOMIC_LOAD_RLX(&actconn), false);
	*p++ = '/';
	p = hl_num(p, HA_ATOMIC_LOAD_RLX(&fe->feconn), false);
	*p++ = '/';
	n = HA_ATOMIC_LOAD_RLX(&be->beconn);
	p = hl_num(p, s->be && n > 0 ? n - 1 : n, false); /* HAProxy logs after releasing it */
	*p++ = '/';
	n = srv ? HA_ATOMIC_LOAD_RLX(&srv->cur_conns) : 0;
	p = hl_num(p, srv && (s->flags & SF_HAS_SLOT) && n > 0 ? n - 1 : n, false);
	*p++ = '/';
	p = hl_num(p, s->retries, s->redisp);
	*p++ = ' ';
	p = hl_num(p, srv ? HA_ATOMIC_LOAD_RLX(&srv->queued) : 0, false);
	*p++ = '/';
	p = hl_num(p, s->be ? HA_ATOMIC_LOAD_RLX(&s->be->nb_queued) : 0, false);
	*p++ = ' ';
	if (caps &&
	    (!(p = hl_var(p, end, ctx, lv_hr, true)) || !(p = hl_var(p, end, ctx, lv_hs, true))))
		return SIZE_MAX;
	if (end - p < 3)
		return SIZE_MAX;
	*p++ = '"';
	if (s->log_rline.len) {
		if ((size_t)(end - p) < s->log_rline.len + 1)
			return SIZE_MAX;
		memcpy(p, s->log_rline.ptr, s->log_rline.len);
		p += s->log_rline.len;
	} else if (!(p = hl_var(p, end - 1, ctx, lv_r, false))) {
		return SIZE_MAX;
	}
	*p++ = '"';
	return (size_t)(p - out);
}

/* clang-format off */
#define RT(n, f) { n, f, 0, NULL, NULL, NULL }
#define EX(n, e) { n, NULL, 0, e, NULL, NULL }
/* clang-format on */

static const struct lf_tag lv_num_tags[] = {
	RT("t", lv_tacc),   RT("tr", lv_t),	     RT("T", lv_tacc_gmt),
	RT("trg", lv_tgmt), RT("Tl", lv_tacc_local), RT("trl", lv_tlocal),
	RT("Ts", lv_Ts),    RT("ms", lv_ms),	     RT("TR", lv_TR),
	RT("Tw", lv_Tw),    RT("Tc", lv_Tc),	     RT("Tr", lv_Tr),
	RT("Ta", lv_Ta),    RT("Tt", lv_Tt),	     RT("Tq", lv_Tq),
	RT("Th", lv_Th),    RT("Ti", lv_Ti),	     RT("Tu", lv_Tu),
	RT("B", lv_B),	    RT("U", lv_U),	     RT("ts", lv_ts),
	RT("tsc", lv_tsc),  RT("ac", lv_ac),	     RT("sc", lv_sc),
	RT("rc", lv_rc),    RT("sq", lv_sq),	     RT("bq", lv_bq),
	RT("rt", lv_rt),    RT("lc", lv_lc),	     RT("bc", lv_bc),
	RT("cp", lv_cp),    RT("fc", lv_fc),	     RT("ST", lv_ST),
	RT("sp", lv_sp),    EX("bp", "bc_src_port"), { NULL, NULL, 0, NULL, NULL, NULL },
};

static const struct lf_tag lv_str_tags[] = {
	RT("ci", lv_ci),   RT("b", lv_b),   RT("f", lv_f),   RT("ft", lv_ft),
	RT("s", lv_s),	   RT("r", lv_r),   RT("si", lv_si), EX("bi", "bc_src"),
	EX("HPO", "path"), RT("HU", lv_HU), RT("HP", lv_HP), RT("HQ", lv_HQ),
	RT("HV", lv_HV),   RT("CC", lv_CC), RT("CS", lv_CS), { NULL, NULL, 0, NULL, NULL, NULL },
};

static const struct lf_tag lv_opt_tags[] = {
	RT("hr", lv_hr),
	RT("hs", lv_hs),
	RT("hrl", lv_hrl),
	RT("hsl", lv_hsl),
	{ NULL, NULL, 0, NULL, NULL, NULL },
};

LF_REGISTER_TAGS(lv_num_tags)
LF_REGISTER_TAGS(lv_str_tags)
LF_REGISTER_TAGS(lv_opt_tags)

static bool lv_in(const struct lf_tag *t, const struct lf_tag *tbl, size_t n)
{
	return t >= tbl && t < tbl + n;
}

enum log_tag_kind log_tag_kind(const struct lf_tag *t)
{
	/* the numeric tags of the request tag table (sample/logfmt_tags.c) */
	static const char *const num_names[] = { "fp", "pid" };

	if (lv_in(t, lv_num_tags, sizeof(lv_num_tags) / sizeof(lv_num_tags[0])))
		return LOG_TK_NUM;
	if (lv_in(t, lv_opt_tags, sizeof(lv_opt_tags) / sizeof(lv_opt_tags[0])))
		return LOG_TK_OPT;
	for (size_t i = 0; i < sizeof(num_names) / sizeof(num_names[0]); i++)
		if (!strcmp(t->name, num_names[i]))
			return LOG_TK_NUM;
	return LOG_TK_STR;
}
