/* The cache on a stream: "http-request cache-use" (the key, the lookup; a hit is handed
 * to the "<CACHE>" service, which sends the stored response with its Age, once the rest
 * of its proxy's http-request rules ran: cache_req_hook), "http-response
 * cache-store" (whether the response is stored, a snapshot of its status and headers as
 * they are then), the "cache" filter that appends the body as it passes and publishes
 * the entry at its end, and the res.cache_hit and res.cache_name fetches. Loop thread of
 * the stream; the store (shared) is cache_store.c.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <base/buf.h>
#include <base/pool.h>
#include <cache/cache.h>
#include <event/loop.h>
#include <http/meth.h>
#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <stats/counters.h>
#include <stream/stream.h>

#include "cache_int.h"

#define KEY_INLINE 200 /* keys up to this size need no allocation */

/* The cache's state on one stream, for one cache filter (fi->ctx). */
struct cache_sctx {
	uint8_t prepared; /* rq, key and sec were computed from the request */
	uint8_t has_key;  /* the request has a primary key */
	uint8_t has_sec;  /* <sec> holds the request's secondary values */
	uint32_t rq;	  /* CACHE_RQ_* */
	struct cache_sec sec;
	struct cache_key key;	     /* bytes in <kbuf> or <kheap> */
	struct cache *hit;	     /* the cache that answered the request, or NULL */
	struct cache_entry *pending; /* the hit (a reference) until the rules of its proxy
				      * are over (cache_req_hook), or NULL */
	struct cache *wc;	     /* the cache written, with: */
	struct cache_entry *wr;	     /* the entry being written (CE_PENDING), or NULL */
	int64_t expire;		     /* its expiry once published (monotonic s) */
	char *kheap;		     /* a key too long for <kbuf> (owned) */
	char kbuf[KEY_INLINE];
};

DECLARE_POOL(pool_cache_sctx, "cache", sizeof(struct cache_sctx))

static int64_t mono_s(void)
{
	return (int64_t)(now_ms() / 1000);
}

static int64_t wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec;
}

/* ---- per-stream state ---- */

/* The instance of the cache filter of <px> for cache <c> on <s>, or NULL. */
static struct flt_inst *cache_inst(struct stream *s, struct proxy *px, const struct cache *c)
{
	struct flt_conf *fc;

	list_for_each_entry(fc, flt_list(px), list)
	{
		const struct cache_fconf *cf = fc->conf;

		if (fc->kind == &cache_flt_kind && cf && cf->cache == c)
			return flt_inst_get(s, fc);
	}
	return NULL;
}

static struct cache_sctx *sctx_get(struct flt_inst *fi)
{
	struct cache_sctx *x = fi->ctx;

	if (x)
		return x;
	x = pool_alloc(&pool_cache_sctx);
	if (!x)
		return NULL;
	memset(x, 0, offsetof(struct cache_sctx, kbuf));
	fi->ctx = x;
	return x;
}

/* The request's flags, primary key and (for cache <c> with process-vary) secondary
 * values, computed once while the request's headers are there. */
static void sctx_prepare(struct stream *s, struct cache_sctx *x, const struct cache *c)
{
	long len;

	if (!x->prepared) {
		x->prepared = 1;
		x->rq = cache_req_flags(&s->req);
		if (x->rq & CACHE_RQ_SKIP)
			return;
		len = cache_req_key(&s->req, x->kbuf, sizeof(x->kbuf));
		if (len < 0) { /* host and target both come from the request's head */
			size_t room = 8 + (size_t)s->req.hdr_len;

			x->kheap = malloc(room);
			len = x->kheap ? cache_req_key(&s->req, x->kheap, room) : 0;
		}
		if (len <= 0)
			return;
		x->key.ptr = x->kheap ? x->kheap : x->kbuf;
		x->key.len = (uint32_t)len;
		x->key.hash = cache_key_hash(x->key.ptr, x->key.len);
		x->has_key = 1;
	}
	if (c->vary_on && x->has_key && !x->has_sec) {
		cache_req_sec(&s->req, &x->sec);
		x->has_sec = 1;
	}
}

/* The state holding the request's key for a cache-store rule of <fi>: its own, or that
 * of another cache filter of the stream whose cache-use rule ran (in the frontend when
 * the store is in the backend, or for another cache). */
static struct cache_sctx *key_holder(struct stream *s, struct flt_inst *fi)
{
	struct cache_sctx *x = fi->ctx;
	struct proxy *pxs[2] = { s->fe, s->be };

	if (x && x->has_key)
		return x;
	for (int i = 0; i < 2; i++) {
		struct flt_conf *fc;

		if (!pxs[i] || (i && pxs[1] == pxs[0]))
			continue;
		list_for_each_entry(fc, flt_list(pxs[i]), list)
		{
			struct flt_inst *o;

			if (fc->kind != &cache_flt_kind || !(o = flt_inst_get(s, fc)))
				continue;
			x = o->ctx;
			if (x && x->has_key)
				return x;
		}
	}
	return NULL;
}

/* ---- http-request cache-use ---- */

static const struct http_service cache_service;

enum act_return cache_act_use(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct cache *c = r->arg.gen.p[0];
	struct cache_entry *e;
	struct cache_sctx *x;
	struct flt_inst *fi;

	if (unlikely(!c || !c->store) || !(fi = cache_inst(s, px, c)) || !(x = sctx_get(fi)))
		return ACT_RET_CONT;
	sctx_prepare(s, x, c);
	if (!x->has_key || (x->rq & CACHE_RQ_IGNORE) || x->pending)
		return ACT_RET_CONT;
	if (px == s->fe)
		CNT_INC(px->fe_cnt, cache_lookups);
	else
		CNT_INC(px->be_cnt, cache_lookups);
	e = cache_get(c, &x->key, x->has_sec ? &x->sec : NULL, mono_s());
	if (!e)
		return ACT_RET_CONT;
	if (px == s->fe)
		CNT_INC(px->fe_cnt, cache_hits);
	else
		CNT_INC(px->be_cnt, cache_hits);
	x->hit = c;
	x->pending = e; /* served once the other rules of <px> ran, as HAProxy does */
	return ACT_RET_CONT;
}

/* The http-request rules of <px> are over: a hit of its cache-use rules answers the
 * request. Returns 1 with the step's result in *ret, 0 when there is none. */
static int cache_req_hook(struct stream *s, struct proxy *px, int *ret)
{
	struct flt_conf *fc;

	list_for_each_entry(fc, flt_list(px), list)
	{
		struct cache_entry *e;
		struct flt_inst *fi;
		struct cache_sctx *x;

		if (fc->kind != &cache_flt_kind || !(fi = flt_inst_get(s, fc)) || !(x = fi->ctx) ||
		    !x->pending)
			continue;
		e = x->pending;
		x->pending = NULL;
		/* the service owns the reference to <e> from here */
		*ret = service_attach(s, &cache_service, px, e);
		return 1;
	}
	return 0;
}

__attribute__((constructor)) static void cache_act_init(void)
{
	ana_cache_hook = cache_req_hook;
}

/* ---- http-response cache-store ---- */

static bool unsafe_meth(uint8_t m)
{
	return m != HTTP_METH_GET && m != HTTP_METH_HEAD && m != HTTP_METH_OPTIONS &&
	       m != HTTP_METH_TRACE;
}

/* Headers of the response that are not stored: the Age it had (<age_idx>), the
 * connection's own, and the chunked framing a hit adds again. */
static bool hdr_kept(const struct h1_hdr *h, int i, int age_idx)
{
	return !h->skip && i != age_idx && h->id != H1_HDR_CONNECTION &&
	       h->id != H1_HDR_KEEP_ALIVE && h->id != H1_HDR_PROXY_CONNECTION &&
	       h->id != H1_HDR_TRANSFER_ENCODING;
}

static uint32_t head_size(const struct h1_msg *m, int age_idx)
{
	uint32_t n = 0;

	for (int i = 0; i < m->nhdr; i++)
		if (hdr_kept(&m->hdr[i], i, age_idx))
			n += (uint32_t)(m->hdr[i].n.len + m->hdr[i].v.len + 4);
	return n;
}

/* Writes the header lines of <m> at <p> (head_size() bytes), noting where the ETag value
 * is. A folded value is written on one line. */
static void head_write(struct cache_entry *e, const struct h1_msg *m, int age_idx, char *p)
{
	char *start = p;

	for (int i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (!hdr_kept(h, i, age_idx))
			continue;
		memcpy(p, h->n.ptr, h->n.len);
		p += h->n.len;
		*p++ = ':';
		*p++ = ' ';
		if (!e->etag_len && ist_ieq(h->n, IST("etag"))) {
			e->etag_off = (uint32_t)(p - start);
			e->etag_len = (uint32_t)h->v.len;
		}
		memcpy(p, h->v.ptr, h->v.len);
		if (h->folded)
			for (size_t j = 0; j < h->v.len; j++)
				if (p[j] == '\r' || p[j] == '\n')
					p[j] = ' ';
		p += h->v.len;
		*p++ = '\r';
		*p++ = '\n';
	}
}

/* How the response body is delimited, as an entry keeps it; -1: not storable. */
static int rsp_framing(const struct stream *s)
{
	switch (s->rspx.mode) {
	case XFER_NONE:
		return CE_FR_NONE;
	case XFER_CLEN:
		return s->rspx.remain ? CE_FR_CLEN : CE_FR_NONE;
	case XFER_CHUNKED:
		/* only "chunked" alone: a hit sends the body chunked again */
		for (int i = 0; i < s->rsp.nhdr; i++)
			if (!s->rsp.hdr[i].skip && s->rsp.hdr[i].id == H1_HDR_TRANSFER_ENCODING &&
			    !ist_ieq(s->rsp.hdr[i].v, IST("chunked")))
				return -1;
		return CE_FR_CHUNK;
	case XFER_EOF:
		return CE_FR_EOF;
	default:
		return -1;
	}
}

/* Starts the entry of the response of <s> in cache <c> for filter state <x>, with the
 * request's key from <kx>. */
static void store_begin(struct stream *s, struct cache *c, struct cache_sctx *x,
			const struct cache_sctx *kx, const struct cache_rsp *info, int framing)
{
	const struct h1_msg *m = &s->rsp;
	struct cache_wdesc d = {
		.vary = info->vary,
		.sec = { (info->vary & CACHE_VARY_AE) ? info->enc : 0,
			 (info->vary & CACHE_VARY_REFERER) ? kx->sec.referer : 0,
			 (info->vary & CACHE_VARY_ORIGIN) ? kx->sec.origin : 0 },
		.status = (uint16_t)m->status,
		.reason = m->reason,
		.head_len = head_size(m, info->age_idx),
		.body_hint = framing == CE_FR_CLEN ? s->rspx.remain : 0,
		.framing = (uint8_t)framing,
	};
	struct cache_entry *e = cache_wr_begin(c, &kx->key, &d);
	int64_t now = mono_s();

	if (!e)
		return;
	head_write(e, m, info->age_idx, cache_wr_head(e));
	e->stored = now;
	e->age = info->age;
	e->last_mod = info->last_mod;
	x->wc = c;
	x->wr = e;
	x->expire = now + info->ttl;
	if (info->age_idx >= 0) /* a stored response goes without it: hits say their own */
		s->rsp.hdr[info->age_idx].skip = 1;
}

enum act_return cache_act_store(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct cache *c = r->arg.gen.p[0];
	struct cache_sctx *x, *kx;
	struct cache_rsp info;
	struct flt_inst *fi;
	int64_t wall;
	int framing;

	if (unlikely(!c || !c->store) || s->svc_name == cache_service.log_name)
		return ACT_RET_CONT; /* a hit is not stored again */
	if (!(fi = cache_inst(s, px, c)) || !(kx = key_holder(s, fi)))
		return ACT_RET_CONT; /* no cache-use computed the key */
	if (s->meth != HTTP_METH_GET) {
		/* a successful unsafe request changed the resource (RFC 7234 4.4) */
		if (unsafe_meth(s->meth) && s->rsp.status >= 200 && s->rsp.status < 400)
			cache_invalidate(c, &kx->key);
		return ACT_RET_CONT;
	}
	if (!cache_status_ok(s->rsp.status) || (framing = rsp_framing(s)) < 0)
		return ACT_RET_CONT;
	wall = wall_s();
	if (cache_rsp_check(&s->rsp, kx->rq, c->max_age, c->vary_on, wall, &info) < 0 ||
	    (info.vary && !kx->has_sec))
		return ACT_RET_CONT;
	if (!info.last_mod)
		info.last_mod = wall;
	x = sctx_get(fi);
	if (x && !x->wr)
		store_begin(s, c, x, kx, &info, framing);
	return ACT_RET_CONT;
}

/* ---- the filter ---- */

static void wr_end(struct cache_sctx *x, bool ok)
{
	if (x && x->wr) {
		cache_wr_end(x->wc, x->wr, ok, x->expire);
		x->wr = NULL;
	}
}

/* The response's body is seen while an entry is being written for it, unless a filter
 * before this one rewrites it (the stored head would not match it). */
static int cache_flt_head(struct stream *s, struct flt_inst *fi, int dir)
{
	struct cache_sctx *x = fi->ctx;

	if (dir != FLT_RSP || !x || !x->wr)
		return 0;
	if (flt_xform_before(s, fi, dir)) {
		wr_end(x, false);
		return 0;
	}
	return 1;
}

static int cache_flt_data(struct stream *s, struct flt_inst *fi, int dir, const char *p, size_t len)
{
	struct cache_sctx *x = fi->ctx;

	if (!x || !x->wr)
		return -1;
	if (cache_wr_append(x->wc, x->wr, p, len) < 0) {
		wr_end(x, false); /* larger than max-object-size, or no room */
		return -1;
	}
	return 0;
}

static void cache_flt_end(struct stream *s, struct flt_inst *fi, int dir, bool complete)
{
	if (dir == FLT_RSP)
		wr_end(fi->ctx, complete);
}

static void cache_flt_release(struct stream *s, struct flt_inst *fi)
{
	struct cache_sctx *x = fi->ctx;

	if (!x)
		return;
	wr_end(x, false);
	if (x->pending) /* a later rule answered instead */
		cache_put(x->pending);
	free(x->kheap);
	pool_free(&pool_cache_sctx, x);
	fi->ctx = NULL;
}

struct flt_kind cache_flt_kind = {
	.name = "cache",
	.parse = cache_flt_parse,
	.check = cache_flt_check,
	.implicit = cache_flt_implicit,
	.implicit_order = 10,
	.conf_free = cache_flt_conf_free,
	.head = cache_flt_head,
	.data = cache_flt_data,
	.end = cache_flt_end,
	.release = cache_flt_release,
	.bodyless = 1, /* a response without a body is stored at its head */
};

FLT_REGISTER(cache_flt_kind)

/* ---- hits: the "<CACHE>" service ---- */

/* The stored status and headers with their Age; 304 when the request's conditions
 * match the entry. The body's framing is the stored one. */
static int cache_svc_start(struct svc_ctx *c, struct buf *hdrs)
{
	const struct cache_entry *e = c->conf;
	int64_t now = mono_s();
	unsigned long long age =
		e->age + (unsigned long long)(now > e->stored ? now - e->stored : 0);
	struct ist etag = ist2(cache_entry_head(e) + e->etag_off, e->etag_len);
	bool nm = cache_not_modified(&c->strm->req, etag, e->last_mod);
	char line[32], *p = line + sizeof(line);

	c->status = nm ? 304 : e->status;
	c->reason = !nm && e->reason_len > 1 ? cache_entry_reason(e) : NULL;
	/* "age: N\r\n", written backwards (no printf on the hit path) */
	*--p = '\n';
	*--p = '\r';
	do {
		*--p = (char)('0' + age % 10);
		age /= 10;
	} while (age);
	p -= 5;
	memcpy(p, "age: ", 5);
	if (svc_write(hdrs, cache_entry_head(e), e->head_len) < 0 ||
	    svc_write(hdrs, p, (size_t)(line + sizeof(line) - p)) < 0)
		return -1;
	c->framed = c->chunked = 0;
	if (nm || e->framing == CE_FR_NONE) {
		c->framed = c->no_body = 1;
	} else if (e->framing == CE_FR_CLEN) {
		c->framed = 1; /* its content-length is among the stored headers */
	} else if (e->framing == CE_FR_CHUNK) {
		c->chunked = c->head_framing = 1;
	} /* else close-delimited, as it came */
	return 0;
}

static int cache_svc_dump(struct svc_ctx *c, struct buf *out)
{
	const struct cache_entry *e = c->conf;
	uint64_t left = e->body_len - c->n[0];
	uint32_t n = left < b_room(out) ? (uint32_t)left : b_room(out);

	memcpy(b_tail(out), cache_entry_body(e) + c->n[0], n);
	out->data += n;
	c->n[0] += n;
	return c->n[0] == e->body_len ? SVC_DONE : SVC_MORE;
}

static void cache_svc_release(struct svc_ctx *c)
{
	cache_put(c->conf);
}

static void cache_svc_conf_free(void *conf)
{
	cache_put(conf);
}

static const struct http_service cache_service = {
	.name = "<CACHE>", /* not reachable by use-service (it is not registered) */
	.conf_free = cache_svc_conf_free,
	.start = cache_svc_start,
	.dump = cache_svc_dump,
	.release = cache_svc_release,
	.log_name = "<CACHE>",
	.owns_conf = 1,
};

/* ---- fetches ---- */

/* The cache that answered <s>, or NULL. */
static struct cache *strm_hit(struct stream *s)
{
	struct proxy *pxs[2] = { s->fe, s->be };

	if (s->svc_name != cache_service.log_name)
		return NULL;
	for (int i = 0; i < 2; i++) {
		struct flt_conf *fc;

		if (!pxs[i] || (i && pxs[1] == pxs[0]))
			continue;
		list_for_each_entry(fc, flt_list(pxs[i]), list)
		{
			struct flt_inst *fi;
			struct cache_sctx *x;

			if (fc->kind == &cache_flt_kind && (fi = flt_inst_get(s, fc)) &&
			    (x = fi->ctx) && x->hit)
				return x->hit;
		}
	}
	return NULL;
}

/* res.cache_hit: the response came from a cache */
static int smp_fetch_cache_hit(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;

	if (!s)
		return 0;
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = s->svc_name == cache_service.log_name;
	return 1;
}

/* res.cache_name: the name of the cache that answered, not found otherwise */
static int smp_fetch_cache_name(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	const struct cache *c = smp->ctx->strm ? strm_hit(smp->ctx->strm) : NULL;

	if (!c)
		return 0;
	smp->data.type = SMP_T_STR;
	smp->data.u.str = ist_str(c->id);
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* clang-format off */
static const struct sample_fetch cache_fetches[] = {
	{ "res.cache_hit", smp_fetch_cache_hit, 0, { 0 }, NULL, SMP_T_BOOL, SMP_USE_HRSHV, 0 },
	{ "res.cache_name", smp_fetch_cache_name, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_HRSHV, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(cache_fetches)
/* clang-format on */
