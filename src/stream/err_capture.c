/* Captures of invalid HTTP messages and "show errors". On a parser error only, the owner
 * thread copies the message (at most tune.bufsize bytes) into a new snapshot and swaps it
 * into its proxy's slot; the snapshot it replaces goes to thread 0, the only reader (the
 * CLI runs there), which frees it between two calls of the CLI handler. Valid messages cost
 * nothing here. The dump follows HAProxy 2.6's layout.
 */
#include <ctype.h>
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
#include <event/inbox.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <proxy/proxy-t.h>
#include <stream/err_capture.h>

struct err_snap {
	struct inbox_item free_it; /* replaced: handed to thread 0, which frees it */
	struct timeval when;
	uint32_t ev_id;		     /* event number, process-wide */
	uint8_t dir;		     /* ERR_DIR_* */
	const struct proxy *oe;	     /* the other side: a response's frontend, a request's
				      * backend (NULL before it is chosen) */
	const struct server *srv;    /* a response's server */
	struct sockaddr_storage src; /* the client */
	uint32_t err_pos;
	uint32_t len;
	char buf[]; /* <len> bytes of the message */
};

/* Events captured since start (any thread, atomic): numbers the snapshots. */
static uint32_t err_ev_count;

static void err_snap_free(struct inbox_item *it)
{
	free(it); /* free_it is the first member */
}

static void err_capture(struct proxy *px, int dir, const struct stream *s, const struct buf *b,
			uint32_t err_pos)
{
	uint32_t len = b->data < global.tune_bufsize ? b->data : global.tune_bufsize;
	struct err_snap *es, *old;
	uint32_t id = HA_ATOMIC_FETCH_ADD(&err_ev_count, 1);

	if (!px)
		return;
	es = malloc(sizeof(*es) + len);
	if (!es)
		return;
	memset(es, 0, sizeof(*es));
	gettimeofday(&es->when, NULL);
	es->ev_id = id;
	es->dir = (uint8_t)dir;
	es->oe = dir == ERR_DIR_REQ ? s->be : s->fe;
	es->srv = dir == ERR_DIR_RSP ? s->srv : NULL;
	es->src = s->front->peer;
	es->err_pos = err_pos;
	es->len = len;
	if (len)
		memcpy(es->buf, b->area + b->head, len);
	es->free_it.fn = err_snap_free;
	/* release: the copy is complete before thread 0 can see the pointer */
	old = HA_ATOMIC_XCHG(&px->err_snap[dir], es);
	if (old)
		inbox_push(0, &old->free_it);
}

void err_capture_req(struct stream *s)
{
	err_capture(s->fe, ERR_DIR_REQ, s, &s->front->ibuf, s->req.err_pos);
}

void err_capture_rsp(struct stream *s)
{
	if (s->back)
		err_capture(s->be, ERR_DIR_RSP, s, &s->back->ibuf, s->rsp.err_pos);
}

int err_px_iid(const struct proxy *px)
{
	int n = 2;

	for (const struct proxy *p = proxies; p && p != px; p = p->next)
		n++;
	return n;
}

/* "1.2.3.4:80", "::1:80" (HAProxy writes IPv6 without brackets here), or "unix". */
static void err_addr(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	if (!addr_to_str_plain(ss, buf, size))
		snprintf(buf, size, "unix");
}

static int err_date(char *buf, size_t size, const struct timeval *tv)
{
	static const char mon[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = tv->tv_sec;
	struct tm tm;

	localtime_r(&t, &tm);
	return snprintf(buf, size, "[%02d/%s/%04d:%02d:%02d:%02d.%03d]", tm.tm_mday, mon[tm.tm_mon],
			tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec,
			(int)(tv->tv_usec / 1000));
}

/* ---- show errors [<px>|-1] [request|response] ---- */

/* ctx->st: 0 start, 1 looking for the next capture, 2 dumping one.
 * ctx->p[0]: proxy; ctx->n[0]: direction | event id << 1 of the capture being dumped;
 * ctx->n[1]: dump position | start of its text line << 32. */

struct err_filter {
	int iid; /* -1: every proxy */
	int dir; /* -1: both directions */
};

/* Parses the arguments. Returns 0, or -1 when the proxy does not exist. */
static int err_filter_parse(const struct cli_ctx *ctx, struct err_filter *f)
{
	const char *a = ctx->nargs > 2 ? ctx->args[2] : "";
	const char *d = ctx->nargs > 3 ? ctx->args[3] : "";
	struct proxy *px;

	f->iid = -1;
	f->dir = strcmp(d, "request") == 0    ? ERR_DIR_REQ
		 : strcmp(d, "response") == 0 ? ERR_DIR_RSP
					      : -1;
	if (!*a || strcmp(a, "-1") == 0)
		return 0;
	for (px = proxies; px; px = px->next)
		if (strcmp(px->id, a) == 0)
			break;
	if (!px) {
		const char *num = *a == '#' ? a + 1 : a;
		char *end;
		long v = strtol(num, &end, 10);

		if (*num && !*end && v >= 2)
			for (px = proxies; px; px = px->next)
				if (err_px_iid(px) == v)
					break;
	}
	if (!px)
		return -1;
	f->iid = err_px_iid(px);
	return 0;
}

static bool err_match(const struct err_filter *f, const struct proxy *px, const struct err_snap *es)
{
	if (f->dir >= 0 && es->dir != f->dir)
		return false;
	return f->iid < 0 || err_px_iid(px) == f->iid || (es->oe && err_px_iid(es->oe) == f->iid);
}

static int err_print_head(struct cli_ctx *ctx, const struct proxy *px, const struct err_snap *es)
{
	const char *oe_kind = es->dir == ERR_DIR_REQ ? "backend" : "frontend";
	char date[64], src[INET6_ADDRSTRLEN + 8];
	const char *stname;
	int st = err_h1_state(es->buf, es->len, es->err_pos, es->dir == ERR_DIR_RSP, &stname);

	err_date(date, sizeof(date), &es->when);
	err_addr(&es->src, src, sizeof(src));
	return cli_printf(ctx,
			  " \n%s %s %s (#%d): invalid %s\n"
			  "  %s %s (#%d), server %s (#%d), event #%u, src %s\n"
			  "  buffer starts at 0 (including 0 out), %u free,\n"
			  "  len %u, wraps at %u, error at position %u\n"
			  "  H1 msg state %s(%d)\n"
			  "  H1 chunk len 0 bytes, H1 body len 0 bytes :\n"
			  "  \n",
			  date, es->dir == ERR_DIR_REQ ? "frontend" : "backend", px->id,
			  err_px_iid(px), es->dir == ERR_DIR_REQ ? "request" : "response", oe_kind,
			  es->oe ? es->oe->id : "<NONE>", es->oe ? err_px_iid(es->oe) : -1,
			  es->srv ? es->srv->id : "<NONE>", es->srv ? es->srv->puid : -1, es->ev_id,
			  src, global.tune_bufsize - es->len, es->len, global.tune_bufsize,
			  es->err_pos, stname, st);
}

/* Moves the cursor past the capture just dumped (or skipped). */
static void err_next(struct cli_ctx *ctx)
{
	const struct proxy *px = ctx->p[0];

	if ((ctx->n[0] & 1) == ERR_DIR_REQ) {
		ctx->n[0] = ERR_DIR_RSP;
	} else {
		ctx->p[0] = px->next;
		ctx->n[0] = ERR_DIR_REQ;
	}
	ctx->st = 1;
}

/* Dumps the lines of the capture under the cursor. Returns CLI_MORE when the output is full. */
static int err_dump(struct cli_ctx *ctx, const struct err_snap *es)
{
	size_t pos = (size_t)(ctx->n[1] & 0xffffffffu), ls = (size_t)(ctx->n[1] >> 32);
	char line[128];

	while (pos < es->len) {
		size_t p2 = pos, ls2 = ls;
		size_t n = err_dump_line(line, sizeof(line), es->buf, es->len, &p2, &ls2);

		if (cli_write(ctx, line, n) < 0) {
			ctx->n[1] = (uint64_t)pos | ((uint64_t)ls << 32);
			return CLI_MORE;
		}
		pos = p2;
		ls = ls2;
	}
	return CLI_DONE;
}

static int err_cli_show(struct cli_ctx *ctx)
{
	struct err_filter f;

	if (err_filter_parse(ctx, &f) < 0)
		return cli_printf(ctx, "No such proxy.\n") < 0 ? CLI_MORE : CLI_DONE;
	if (ctx->st == 0) {
		struct timeval now;
		char date[64];

		gettimeofday(&now, NULL);
		err_date(date, sizeof(date), &now);
		if (cli_printf(ctx, "Total events captured on %s : %u\n", date,
			       HA_ATOMIC_LOAD_RLX(&err_ev_count)) < 0)
			return CLI_MORE;
		ctx->p[0] = proxies;
		ctx->n[0] = ERR_DIR_REQ;
		ctx->st = 1;
	}
	while (ctx->p[0]) {
		struct proxy *px = (struct proxy *)ctx->p[0];
		int dir = (int)(ctx->n[0] & 1);
		/* acquire: pairs with the writer's exchange; thread 0 frees replaced
		 * snapshots only between calls of this handler */
		struct err_snap *es = HA_ATOMIC_LOAD(&px->err_snap[dir]);

		if (ctx->st == 1) {
			if (!es || !err_match(&f, px, es)) {
				err_next(ctx);
				continue;
			}
			if (err_print_head(ctx, px, es) < 0)
				return CLI_MORE;
			ctx->n[0] = (uint64_t)dir | ((uint64_t)es->ev_id << 1);
			ctx->n[1] = 0;
			ctx->st = 2;
		}
		if (!es || es->ev_id != (uint32_t)(ctx->n[0] >> 1)) {
			if (cli_printf(ctx, "  WARNING! update detected on this snapshot, dump "
					    "interrupted. Please re-check!\n") < 0)
				return CLI_MORE;
		} else if (err_dump(ctx, es) == CLI_MORE) {
			return CLI_MORE;
		}
		err_next(ctx);
	}
	return CLI_DONE;
}

static const struct cli_kw err_cli_kws[] = {
	{ { "show", "errors" },
	  "show errors [<px>] [request|response]",
	  "report last request and/or response errors for each proxy",
	  CLI_LVL_OPER,
	  err_cli_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(err_cli_kws);
