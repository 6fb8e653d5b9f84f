/* The "compression" filter kind: on the request head it picks the response algorithm
 * from Accept-Encoding (removed with "offload") and may start compressing the request
 * body ("direction request"); on the response head it applies HAProxy's rules (version,
 * method, status, framing, Content-Encoding, Cache-Control, ETag, Content-Type, size,
 * limits), edits the head (chunked, weak ETag, Vary, Content-Encoding) and then
 * compresses the body as it streams, counting comp_in/out/byp/rsp. When zlib's memory
 * cannot be had (maxzlibmem), the body passes as the identity algorithm passes it,
 * counted as bypassed. A proxy's settings win over the frontend's when both have them.
 * Loop thread of the stream.
 */
#include <string.h>

#include <base/pool.h>
#include <comp/comp.h>
#include <comp/comp_cfg.h>
#include <comp/comp_sel.h>
#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <stats/counters.h>
#include <stream/filter.h>
#include <stream/http_rw.h>
#include <stream/stream.h>

/* One stream's compression. */
struct comp_state {
	const struct comp_algo *algo_res; /* for the response (Accept-Encoding), or NULL */
	struct comp_ctx ctx[2];		  /* the compressor of the request [0] / response [1] */
	uint8_t run[2];			  /* ctx[dir] is set up */
	uint8_t bypass;			  /* the response is not compressed for want of memory */
	const struct comp_algo *res_used; /* the algorithm compressing the response (res.comp),
					   * NULL while it is not */
};

DECLARE_POOL(pool_comp_state, "comp_state", sizeof(struct comp_state))

static struct flt_kind comp_kind;

/* ---- settings: the backend's win over the frontend's, field by field (HAProxy) ---- */

static const struct comp_px *comp_be(const struct stream *s)
{
	return s->be ? s->be->comp : NULL;
}

static const struct comp_px *comp_algos_px(const struct stream *s)
{
	const struct comp_px *b = comp_be(s), *f = s->fe->comp;

	return b && b->n_algos ? b : f && f->n_algos ? f : NULL;
}

static const struct comp_px *comp_types_px(const struct stream *s, bool req)
{
	const struct comp_px *b = comp_be(s), *f = s->fe->comp;

	if (req)
		return b && b->n_types_req ? b : f && f->n_types_req ? f : NULL;
	return b && b->n_types ? b : f && f->n_types ? f : NULL;
}

static uint32_t comp_flags(const struct stream *s)
{
	const struct comp_px *b = comp_be(s), *f = s->fe->comp;

	return (b ? b->flags : 0) | (f ? f->flags : 0);
}

static uint64_t comp_minsize(const struct stream *s, bool req)
{
	const struct comp_px *b = comp_be(s), *f = s->fe->comp;
	uint64_t bv = b ? (req ? b->minsize_req : b->minsize_res) : 0;

	return bv ? bv : f ? (req ? f->minsize_req : f->minsize_res) : 0;
}

static const struct comp_algo *comp_algo_req(const struct stream *s)
{
	const struct comp_px *b = comp_be(s), *f = s->fe->comp;

	return b && b->algo_req ? b->algo_req : f ? f->algo_req : NULL;
}

/* ---- headers ---- */

/* The first header <name> of <m> at or after index *i that is not deleted; *i is set to
 * its index. NULL when none. */
static struct h1_hdr *comp_hdr(struct h1_msg *m, struct ist name, uint16_t *i)
{
	for (; *i < m->nhdr; (*i)++) {
		struct h1_hdr *h = &m->hdr[*i];

		if (!h->skip && ist_ieq(h->n, name))
			return h;
	}
	return NULL;
}

static struct h1_hdr *comp_hdr_first(struct h1_msg *m, struct ist name)
{
	uint16_t i = 0;

	return comp_hdr(m, name, &i);
}

/* Content-Type rules shared by both directions: with types configured, the message must
 * have a Content-Type starting with one of them. */
static bool comp_type_ok(struct stream *s, struct h1_msg *m, bool req)
{
	const struct comp_px *t = comp_types_px(s, req);
	struct h1_hdr *ct = comp_hdr_first(m, IST("content-type"));

	if (ct && !req && ist_istarts(ct->v, IST("multipart")))
		return false;
	if (!t)
		return true;
	return ct && comp_type_match(ct->v, req ? t->types_req : t->types,
				     req ? t->n_types_req : t->n_types);
}

/* Makes the body of <dir> chunked and announces <a>'s coding. Returns 0 or -1. */
static int comp_hdr_coding(struct stream *s, int dir, const struct comp_algo *a)
{
	struct h1_msg *m = dir == FLT_RSP ? &s->rsp : &s->req;

	if (flt_set_chunked(s, dir) < 0)
		return -1;
	if (dir == FLT_RSP && http_hdr_add(s, m, IST("vary"), IST("Accept-Encoding")) < 0)
		return -1;
	if (a->id != COMP_IDENTITY && http_hdr_add(s, m, IST("content-encoding"), a->ua_name) < 0)
		return -1;
	return 0;
}

/* A strong ETag of the response becomes weak (W/"..."): the bytes change. 0 or -1. */
static int comp_etag_weaken(struct stream *s)
{
	struct h1_hdr *h = comp_hdr_first(&s->rsp, IST("etag"));
	struct rw_build b;

	if (!h || !h->v.len || h->v.ptr[0] != '"')
		return 0;
	rwb_begin(&b, s);
	rwb_put(&b, IST("W/"));
	rwb_put(&b, h->v);
	return rwb_end(&b, s, &h->v) ? 0 : -1;
}

/* ---- request head ---- */

/* HAProxy's choice of the response algorithm: the old Mozilla/4 browsers get none; else
 * the configured algorithm the Accept-Encoding headers prefer (q-values), removed from
 * the request with "offload"; else identity when it is configured. */
static void comp_pick_res(struct stream *s, struct comp_state *st)
{
	const struct comp_px *ap = comp_algos_px(s);
	struct h1_msg *m = &s->req;
	struct h1_hdr *ua = comp_hdr_first(m, IST("user-agent")), *ae;
	int best_q = 0;
	uint16_t i = 0;

	st->algo_res = NULL;
	if (ua && comp_ua_refused(ua->v))
		return;
	if (!ap)
		return;
	for (; (ae = comp_hdr(m, IST("accept-encoding"), &i)); i++)
		comp_ae_scan(ae->v, ap->algos, ap->n_algos, &st->algo_res, &best_q);
	if (st->algo_res) {
		if (comp_flags(s) & COMP_F_OFFLOAD)
			http_hdr_del(m, IST("accept-encoding"));
		return;
	}
	for (uint32_t k = 0; k < ap->n_algos; k++)
		if (ap->algos[k]->id == COMP_IDENTITY)
			st->algo_res = ap->algos[k];
}

/* "direction request": whether the request body is compressed (HAProxy's rules). */
static const struct comp_algo *comp_req_algo(struct stream *s)
{
	struct h1_msg *m = &s->req;
	uint64_t min = comp_minsize(s, true);

	if (!(comp_flags(s) & COMP_F_DIR_REQ) || !comp_algo_req(s))
		return NULL;
	if (s->reqx.mode != XFER_CLEN && s->reqx.mode != XFER_CHUNKED)
		return NULL;
	if (comp_hdr_first(m, IST("content-encoding")) || !(m->flags & H1_MF_VER_11))
		return NULL;
	if (!comp_type_ok(s, m, true) || comp_limits_refuse() || (m->flags & H1_MF_METH_HEAD))
		return NULL;
	if (min && (m->flags & H1_MF_CLEN) && m->body_len < min)
		return NULL;
	return comp_algo_req(s);
}

static int comp_head_req(struct stream *s, struct comp_state *st)
{
	const struct comp_algo *a;

	if (comp_flags(s) & COMP_F_DIR_RES)
		comp_pick_res(s, st);
	a = comp_req_algo(s);
	if (!a || comp_ctx_init(&st->ctx[FLT_REQ], a) < 0)
		return 0; /* without memory, the request goes as it is */
	st->run[FLT_REQ] = 1;
	if (comp_hdr_coding(s, FLT_REQ, a) < 0)
		return -1;
	return 1;
}

/* ---- response head ---- */

/* HAProxy's reasons not to compress a response (the Content-Range added). */
static bool comp_res_ok(struct stream *s, struct comp_state *st)
{
	struct h1_msg *m = &s->rsp;
	struct h1_hdr *h;
	enum xfer_mode x = s->rspx.mode;
	uint64_t min = comp_minsize(s, false);
	uint16_t i = 0;

	if (!st->algo_res || !(m->flags & H1_MF_VER_11) || !(s->req.flags & H1_MF_VER_11))
		return false;
	if ((s->req.flags & H1_MF_METH_HEAD) || m->status < 200 || m->status > 203)
		return false;
	if (x != XFER_CLEN && x != XFER_CHUNKED && !(x == XFER_EOF && s->svc))
		return false; /* no body, or one only the server's close ends */
	if (x == XFER_CLEN && !s->rspx.remain)
		return false; /* "Content-Length: 0" has no body */
	if (comp_hdr_first(m, IST("content-encoding")) || comp_hdr_first(m, IST("content-range")))
		return false;
	for (; (h = comp_hdr(m, IST("cache-control"), &i)); i++)
		if (comp_list_has(h->v, IST("no-transform")))
			return false;
	i = 0;
	h = comp_hdr(m, IST("etag"), &i);
	if (h) { /* a malformed ETag, or more than one */
		if (comp_etag_type(h->v) == COMP_ETAG_INVALID)
			return false;
		i++;
		if (comp_hdr(m, IST("etag"), &i))
			return false;
	}
	if (!comp_type_ok(s, m, false))
		return false;
	if (min && (m->flags & H1_MF_CLEN) && m->body_len < min)
		return false;
	return !comp_limits_refuse();
}

static int comp_head_res(struct stream *s, struct comp_state *st)
{
	const struct comp_algo *a = st->algo_res;

	if (!comp_res_ok(s, st))
		return 0;
	if (comp_ctx_init(&st->ctx[FLT_RSP], a) < 0) {
		/* no memory for zlib: the body passes as identity passes it */
		st->bypass = 1;
		a = &comp_algos[COMP_IDENTITY];
		comp_ctx_init(&st->ctx[FLT_RSP], a);
	}
	if (comp_etag_weaken(s) < 0) { /* no room to rewrite it: sent as it is */
		comp_ctx_end(&st->ctx[FLT_RSP]);
		return 0;
	}
	st->run[FLT_RSP] = 1;
	if (!st->bypass)
		st->res_used = a;
	if (comp_hdr_coding(s, FLT_RSP, a) < 0)
		return -1;
	return 1;
}

/* ---- the kind ---- */

static int comp_head(struct stream *s, struct flt_inst *fi, int dir)
{
	struct comp_state *st = fi->ctx;

	if (dir == FLT_RSP)
		return st ? comp_head_res(s, st) : 0;
	if (!s->fe->comp && !comp_be(s))
		return 0;
	if (!st) {
		st = pool_alloc(&pool_comp_state);
		if (!st)
			return -1;
		memset(st, 0, sizeof(*st));
		fi->ctx = st;
	}
	return comp_head_req(s, st);
}

/* Counts what went through the compressor of the response: compressed (level > 0) or
 * bypassed, on the frontend and the backend, and in the process-wide rates. */
static void comp_count(struct stream *s, int dir, int level, size_t in, size_t out)
{
	if (level > 0) {
		comp_rate_in(in);
		comp_rate_out(out);
	}
	if (dir != FLT_RSP)
		return;
	if (level > 0) {
		CNT_ADD(s->fe->fe_cnt, comp_in, in);
		CNT_ADD(s->fe->fe_cnt, comp_out, out);
		if (s->be) {
			CNT_ADD(s->be->be_cnt, comp_in, in);
			CNT_ADD(s->be->be_cnt, comp_out, out);
		}
	} else if (in) {
		CNT_ADD(s->fe->fe_cnt, comp_byp, in);
		if (s->be)
			CNT_ADD(s->be->be_cnt, comp_byp, in);
	}
}

static long comp_xform(struct stream *s, struct flt_inst *fi, int dir, const char *in, size_t len,
		       struct flt_out *out, bool end)
{
	struct comp_state *st = fi->ctx;
	struct comp_ctx *c = &st->ctx[dir];
	int level = c->level;
	long took = comp_ctx_step(c, in, len, out, end);

	if (took < 0)
		return -1;
	comp_count(s, dir, level, (size_t)took, out->len);
	return took;
}

static void comp_end(struct stream *s, struct flt_inst *fi, int dir, bool complete)
{
	struct comp_state *st = fi->ctx;

	if (!st->run[dir])
		return;
	if (dir == FLT_RSP && complete && !st->bypass) {
		CNT_INC(s->fe->fe_cnt, comp_rsp);
		if (s->be)
			CNT_INC(s->be->be_cnt, comp_rsp);
	}
	comp_ctx_end(&st->ctx[dir]); /* zlib's memory goes back now */
	st->run[dir] = 0;
}

static void comp_release(struct stream *s, struct flt_inst *fi)
{
	struct comp_state *st = fi->ctx;

	if (!st)
		return;
	for (int dir = 0; dir < 2; dir++)
		if (st->run[dir])
			comp_ctx_end(&st->ctx[dir]);
	pool_free(&pool_comp_state, st);
	fi->ctx = NULL;
}

static int comp_implicit(struct proxy *px)
{
	return comp_flt_implicit(px, &comp_kind);
}

static struct flt_kind comp_kind = {
	.name = "compression",
	.parse = comp_flt_parse,
	.implicit = comp_implicit,
	.implicit_order = 20,
	.head = comp_head,
	.xform = comp_xform,
	.end = comp_end,
	.release = comp_release,
	.bodyless = 1,
	.svc_rsp = 1, /* the stats page and cache hits are compressed too */
};

FLT_REGISTER(comp_kind)

/* ---- fetches: res.comp, res.comp_algo ---- */

/* The algorithm that compressed the stream's response, or NULL. */
static const struct comp_algo *comp_res_algo(const struct stream *s)
{
	const struct flt_inst *fi = s ? flt_inst_of_kind(s, &comp_kind) : NULL;
	const struct comp_state *st = fi ? fi->ctx : NULL;

	return st ? st->res_used : NULL;
}

/* res.comp: true when the proxy compressed the response */
static int smp_fetch_res_comp(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = comp_res_algo(smp->ctx->strm) != NULL;
	return 1;
}

/* res.comp_algo: the name of the algorithm that compressed it, not found otherwise */
static int smp_fetch_res_comp_algo(const struct arg *args, struct sample *smp,
				   const struct sample_fetch *kw)
{
	const struct comp_algo *a = comp_res_algo(smp->ctx->strm);

	if (!a)
		return 0;
	smp->data.type = SMP_T_STR;
	smp->data.u.str = ist_str(a->cfg_name);
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* clang-format off */
static const struct sample_fetch comp_fetches[] = {
	{ "res.comp", smp_fetch_res_comp, 0, { 0 }, NULL, SMP_T_BOOL, SMP_USE_HRSHV, 0 },
	{ "res.comp_algo", smp_fetch_res_comp_algo, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_HRSHV, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(comp_fetches)
/* clang-format on */
