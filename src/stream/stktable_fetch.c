/* Stick table fetches and converters: sc_*(ctr[,table]), sc0_*, sc1_*, sc2_* (the entry a
 * stream or its session tracks in a slot, or its key in another table), src_* (the entry of
 * the client's address), table_cnt/table_avl, and the converters in_table and table_*
 * (the entry of the input sample). A slot that tracks nothing makes sc_* fail; an absent
 * key reads as 0; a type the table does not store makes the fetch fail, as in HAProxy.
 * Writers (inc, clr, updt) create the entry and hold it while they write.
 */
#include <arpa/inet.h>
#include <string.h>

#include <base/atomic.h>
#include <conn/connection-t.h>
#include <event/loop.h>
#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <stream/stktable.h>
#include <stream/stktable_act.h>

/* What a fetch does, in kw->private: operation, data type, argument layout. */
enum {
	OP_GET = 0,
	OP_KB,
	OP_INC,
	OP_CLR,
	OP_UPDT,
	OP_TRACKED,
	OP_TRACKERS,
	OP_CNT,
	OP_AVL,
	CV_IN,
	CV_EXPIRE,
	CV_IDLE
};
#define F_DT(p) ((p)&0xff)
#define F_OP(p) (((p) >> 8) & 0xf)
#define F_SRC 0x01000			 /* src_*: the client's address */
#define F_SCARG 0x02000			 /* sc_*: the slot is an argument */
#define F_SCN(n) (0x04000 | ((n) << 15)) /* scN_*: slot N */
#define F_SCNUM(p) (((p) >> 15) & 3)
#define F_IDX 0x20000 /* the first argument is an array index */
#define F(op, dt) ((op) << 8 | (dt))

static inline bool stored(const struct stktable *t, int dt)
{
	return t->data_ofs[dt] != STK_DT_NONE;
}

/* gpc0/gpc1/gpt0 and their rates read the arrays' elements 0 and 1 when the table has the
 * arrays instead (HAProxy 2.5+). */
static int stk_fb_dt(const struct stktable *t, int dt, uint32_t *idx)
{
	static const struct {
		int8_t legacy, array, idx;
	} fb[] = {
		{ STK_DT_GPC0, STK_DT_GPC, 0 },		  { STK_DT_GPC1, STK_DT_GPC, 1 },
		{ STK_DT_GPT0, STK_DT_GPT, 0 },		  { STK_DT_GPC0_RATE, STK_DT_GPC_RATE, 0 },
		{ STK_DT_GPC1_RATE, STK_DT_GPC_RATE, 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(fb); i++) {
		if (dt == fb[i].legacy && !stored(t, dt) && stored(t, fb[i].array)) {
			*idx = (uint32_t)fb[i].idx;
			return fb[i].array;
		}
	}
	return dt;
}

struct stk_op {
	int op, dt;
	uint32_t idx;
	uint64_t now;
	long long v;
	bool wrote;
};

/* Runs <o> on <ts> under its lock; 1 with o->v, or 0 when the table lacks the type. */
static int stk_op_run(void *arg, struct stktable *t, struct stksess *ts)
{
	struct stk_op *o = arg;
	uint32_t idx = o->idx;
	int dt = stk_fb_dt(t, o->dt, &idx), rdt;
	long long v;

	switch (o->op) {
	case OP_TRACKERS:
		o->v = stksess_refs(ts);
		return 1;
	case OP_KB:
		if (!stksess_get(t, ts, dt, idx, o->now, &v))
			return 0;
		o->v = v >> 10;
		return 1;
	case OP_INC:
		/* the rate is the type after a legacy counter, the rate array after gpc */
		rdt = dt == STK_DT_GPC ? STK_DT_GPC_RATE : dt + 1;
		if (!stored(t, dt) && !stored(t, rdt))
			return 0;
		stksess_add(t, ts, rdt, idx, 1, o->now);
		stksess_add(t, ts, dt, idx, 1, o->now);
		stksess_get(t, ts, dt, idx, o->now, &o->v);
		o->wrote = true;
		return 1;
	case OP_CLR:
		if (!stksess_get(t, ts, dt, idx, o->now, &o->v))
			return 0;
		stksess_set(t, ts, dt, idx, 0, o->now);
		o->wrote = true;
		return 1;
	case OP_UPDT:
		if (!stksess_add(t, ts, STK_DT_CONN_CNT, 0, 1, o->now))
			return 0;
		stksess_get(t, ts, STK_DT_CONN_CNT, 0, o->now, &o->v);
		o->wrote = true;
		return 1;
	}
	return stksess_get(t, ts, dt, idx, o->now, &o->v);
}

static bool op_writes(int op)
{
	return op == OP_INC || op == OP_CLR || op == OP_UPDT;
}

/* Runs <o> on the entry of <k> in <t>: writers create it and hold it; readers look. An
 * absent key reads as 0. Returns 1 with o->v set, or 0 (type not stored, table full). */
static int stk_op_key(struct stktable *t, const struct stk_key *k, struct stk_op *o)
{
	struct stksess *ts;
	int ret;

	o->v = 0;
	if (!op_writes(o->op)) {
		uint32_t idx = o->idx;

		if (o->op != OP_TRACKERS && !stored(t, stk_fb_dt(t, o->dt, &idx)))
			return 0;
		stktable_with_key(t, k, o->now, stk_op_run, o);
		return 1;
	}
	ts = stktable_get(t, k, o->now);
	if (!ts)
		return 1; /* no room: HAProxy answers 0 too */
	stksess_lock(t, ts);
	ret = stk_op_run(o, t, ts);
	stksess_unlock(t, ts);
	stktable_release(t, ts, o->wrote, o->now);
	return ret;
}

/* The client's address as a key of <t>. */
static int stk_src_key(const struct smp_ctx *ctx, struct stktable *t, struct stk_key *k)
{
	struct sample smp = { .ctx = ctx };
	const struct conn *c = ctx->conn;

	if (!c)
		return 0;
	if (c->peer.ss_family == AF_INET) {
		smp.data.type = SMP_T_IPV4;
		smp.data.u.ipv4 = ((const struct sockaddr_in *)&c->peer)->sin_addr;
	} else if (c->peer.ss_family == AF_INET6) {
		smp.data.type = SMP_T_IPV6;
		smp.data.u.ipv6 = ((const struct sockaddr_in6 *)&c->peer)->sin6_addr;
	} else {
		return 0;
	}
	return stk_key_from_smp(t, &smp, k);
}

static int smp_fetch_stk(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	int p = kw->private, ai = 0, num = F_SCNUM(p);
	struct stk_op o = { .op = F_OP(p), .dt = F_DT(p), .now = now_ms() };
	const struct smp_ctx *ctx = smp->ctx;
	struct stktable *argt;
	struct stk_ctr *c;
	struct stk_key k;

	if (p & F_IDX) {
		if (args[0].data.sint < 0 || args[0].data.sint >= STK_MAX_ARRAY)
			return 0;
		o.idx = (uint32_t)args[ai++].data.sint;
	}
	if (p & F_SCARG) {
		if (args[ai].data.sint < 0 || args[ai].data.sint >= STK_MAX_CTR)
			return 0;
		num = (int)args[ai++].data.sint;
	}
	argt = args[ai].type == ARGT_TAB ? args[ai].data.t : NULL;
	smp->data.type = SMP_T_SINT;
	smp->flags |= SMP_F_VOL_TXN;
	if (p & F_SRC) {
		struct stktable *t = argt ? argt : ctx->px ? ctx->px->table : NULL;

		if (!t || !stk_src_key(ctx, t, &k) || !stk_op_key(t, &k, &o))
			return 0;
		smp->data.u.sint = o.v;
		return 1;
	}
	c = ctx->strm ? stk_ctr_get(ctx->strm, num) : NULL;
	if (o.op == OP_TRACKED) {
		smp->data.type = SMP_T_BOOL;
		smp->data.u.sint = c != NULL;
		return 1;
	}
	if (!c)
		return 0;
	if (argt && argt != c->t) {
		/* the tracked key, looked up in another table */
		k.ptr = c->ts->kd;
		k.len = c->ts->klen;
		if (argt->type != c->t->type || !stk_op_key(argt, &k, &o))
			return 0;
	} else {
		int ok;

		stksess_lock(c->t, c->ts);
		ok = stk_op_run(&o, c->t, c->ts);
		if (o.wrote)
			stksess_touch(c->t, c->ts, o.now);
		stksess_unlock(c->t, c->ts);
		if (!ok)
			return 0;
	}
	smp->data.u.sint = o.v;
	return 1;
}

/* table_cnt([table]), table_avl([table]) */
static int smp_fetch_table_cnt(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	struct stktable *t = args[0].type == ARGT_TAB ? args[0].data.t
			     : smp->ctx->px	      ? smp->ctx->px->table
						      : NULL;
	long long used;

	if (!t)
		return 0;
	used = stktable_used(t);
	smp->data.type = SMP_T_SINT;
	smp->data.u.sint = F_OP(kw->private) == OP_CNT ? used : (long long)t->size - used;
	smp->flags |= SMP_F_VOL_TXN;
	return 1;
}

#define SC(n, f, ...)                                                                 \
	{                                                                             \
		"sc_" n, smp_fetch_stk, 1, { ARGT_SINT, ARGT_TAB }, NULL, SMP_T_SINT, \
			SMP_USE_INTRN, F_SCARG | (f)                                  \
	}
#define SCN(i, n, f)                                                                            \
	{                                                                                       \
		"sc" #i "_" n, smp_fetch_stk, 0, { ARGT_TAB }, NULL, SMP_T_SINT, SMP_USE_INTRN, \
			F_SCN(i) | (f)                                                          \
	}
#define SRC(n, f)                                                                          \
	{                                                                                  \
		"src_" n, smp_fetch_stk, 0, { ARGT_TAB }, NULL, SMP_T_SINT, SMP_USE_L4CLI, \
			F_SRC | (f)                                                        \
	}
#define ALL(n, f) SC(n, f), SCN(0, n, f), SCN(1, n, f), SCN(2, n, f), SRC(n, f)
/* with an array index first: sc_get_gpc(idx,ctr[,table]), src_get_gpc(idx[,table]) */
#define IDX(n, f)                                                                      \
	{ "sc_" n,                                                                     \
	  smp_fetch_stk,                                                               \
	  2,                                                                           \
	  { ARGT_SINT, ARGT_SINT, ARGT_TAB },                                          \
	  NULL,                                                                        \
	  SMP_T_SINT,                                                                  \
	  SMP_USE_INTRN,                                                               \
	  F_SCARG | F_IDX | (f) },                                                     \
	{                                                                              \
		"src_" n, smp_fetch_stk, 1, { ARGT_SINT, ARGT_TAB }, NULL, SMP_T_SINT, \
			SMP_USE_L4CLI, F_SRC | F_IDX | (f)                             \
	}

static const struct sample_fetch stk_fetches[] = {
	ALL("bytes_in_rate", F(OP_GET, STK_DT_BYTES_IN_RATE)),
	ALL("bytes_out_rate", F(OP_GET, STK_DT_BYTES_OUT_RATE)),
	ALL("clr_gpc0", F(OP_CLR, STK_DT_GPC0)),
	ALL("clr_gpc1", F(OP_CLR, STK_DT_GPC1)),
	ALL("conn_cnt", F(OP_GET, STK_DT_CONN_CNT)),
	ALL("conn_cur", F(OP_GET, STK_DT_CONN_CUR)),
	ALL("conn_rate", F(OP_GET, STK_DT_CONN_RATE)),
	ALL("get_gpc0", F(OP_GET, STK_DT_GPC0)),
	ALL("get_gpc1", F(OP_GET, STK_DT_GPC1)),
	ALL("get_gpt0", F(OP_GET, STK_DT_GPT0)),
	ALL("gpc0_rate", F(OP_GET, STK_DT_GPC0_RATE)),
	ALL("gpc1_rate", F(OP_GET, STK_DT_GPC1_RATE)),
	ALL("http_err_cnt", F(OP_GET, STK_DT_HTTP_ERR_CNT)),
	ALL("http_err_rate", F(OP_GET, STK_DT_HTTP_ERR_RATE)),
	ALL("http_fail_cnt", F(OP_GET, STK_DT_HTTP_FAIL_CNT)),
	ALL("http_fail_rate", F(OP_GET, STK_DT_HTTP_FAIL_RATE)),
	ALL("http_req_cnt", F(OP_GET, STK_DT_HTTP_REQ_CNT)),
	ALL("http_req_rate", F(OP_GET, STK_DT_HTTP_REQ_RATE)),
	ALL("inc_gpc0", F(OP_INC, STK_DT_GPC0)),
	ALL("inc_gpc1", F(OP_INC, STK_DT_GPC1)),
	ALL("kbytes_in", F(OP_KB, STK_DT_BYTES_IN_CNT)),
	ALL("kbytes_out", F(OP_KB, STK_DT_BYTES_OUT_CNT)),
	ALL("sess_cnt", F(OP_GET, STK_DT_SESS_CNT)),
	ALL("sess_rate", F(OP_GET, STK_DT_SESS_RATE)),
	IDX("clr_gpc", F(OP_CLR, STK_DT_GPC)),
	/* 2.6 has this one form with a fixed slot (no sc0_ nor sc2_ one) */
	{ "sc1_clr_gpc",
	  smp_fetch_stk,
	  1,
	  { ARGT_SINT, ARGT_TAB },
	  NULL,
	  SMP_T_SINT,
	  SMP_USE_INTRN,
	  F_SCN(1) | F_IDX | F(OP_CLR, STK_DT_GPC) },
	IDX("get_gpc", F(OP_GET, STK_DT_GPC)),
	IDX("get_gpt", F(OP_GET, STK_DT_GPT)),
	IDX("gpc_rate", F(OP_GET, STK_DT_GPC_RATE)),
	IDX("inc_gpc", F(OP_INC, STK_DT_GPC)),
	{ "sc_tracked",
	  smp_fetch_stk,
	  1,
	  { ARGT_SINT, ARGT_TAB },
	  NULL,
	  SMP_T_BOOL,
	  SMP_USE_INTRN,
	  F_SCARG | F(OP_TRACKED, 0) },
	SCN(0, "tracked", F(OP_TRACKED, 0)),
	SCN(1, "tracked", F(OP_TRACKED, 0)),
	SCN(2, "tracked", F(OP_TRACKED, 0)),
	SC("trackers", F(OP_TRACKERS, 0)),
	SCN(0, "trackers", F(OP_TRACKERS, 0)),
	SCN(1, "trackers", F(OP_TRACKERS, 0)),
	SCN(2, "trackers", F(OP_TRACKERS, 0)),
	SRC("updt_conn_cnt", F(OP_UPDT, STK_DT_CONN_CNT)),
	{ "table_cnt",
	  smp_fetch_table_cnt,
	  0,
	  { ARGT_TAB },
	  NULL,
	  SMP_T_SINT,
	  SMP_USE_INTRN,
	  F(OP_CNT, 0) },
	{ "table_avl",
	  smp_fetch_table_cnt,
	  0,
	  { ARGT_TAB },
	  NULL,
	  SMP_T_SINT,
	  SMP_USE_INTRN,
	  F(OP_AVL, 0) },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(stk_fetches)

/* ---- converters: the input sample is the key ---- */

struct stk_peek {
	int what;
	uint64_t now;
	long long v;
};

static int stk_peek_cb(void *arg, struct stktable *t, struct stksess *ts)
{
	struct stk_peek *pk = arg;

	if (pk->what == CV_EXPIRE)
		pk->v = stksess_expires_in(t, ts, pk->now);
	else if (pk->what == CV_IDLE)
		pk->v = (long long)(pk->now - ts->touch);
	return 1;
}

static int smp_conv_table(const struct arg *args, struct sample *smp, void *private)
{
	int p = (int)(intptr_t) private, ai = 0;
	struct stk_op o = { .op = F_OP(p), .dt = F_DT(p), .now = now_ms() };
	struct stktable *t;
	struct stk_key k;

	if (p & F_IDX) {
		if (args[0].data.sint < 0 || args[0].data.sint >= STK_MAX_ARRAY)
			return 0;
		o.idx = (uint32_t)args[ai++].data.sint;
	}
	t = args[ai].data.t;
	if (!t || !stk_key_from_smp(t, smp, &k))
		return 0;
	if (o.op >= CV_IN) { /* in_table, table_expire, table_idle */
		struct stk_peek pk = { o.op, o.now, 0 };
		int found = stktable_with_key(t, &k, o.now, stk_peek_cb, &pk);

		if (o.op == CV_IN) {
			smp->data.type = SMP_T_BOOL;
			smp->data.u.sint = found;
			return 1;
		}
		if (!found) { /* the default given, else no sample */
			if (args[ai + 1].type != ARGT_SINT)
				return 0;
			pk.v = args[ai + 1].data.sint;
		}
		smp->data.type = SMP_T_SINT;
		smp->data.u.sint = pk.v;
		return 1;
	}
	if (!stk_op_key(t, &k, &o))
		return 0;
	smp->data.type = SMP_T_SINT;
	smp->data.u.sint = o.v;
	return 1;
}

#define CV(n, f)                                                                          \
	{                                                                                 \
		"table_" n, smp_conv_table, 1, { ARGT_TAB }, NULL, SMP_T_ANY, SMP_T_SINT, \
			(void *)(intptr_t)(f)                                             \
	}
#define CVI(n, f)                                                                        \
	{                                                                                \
		"table_" n, smp_conv_table, 2, { ARGT_SINT, ARGT_TAB }, NULL, SMP_T_ANY, \
			SMP_T_SINT, (void *)(intptr_t)(F_IDX | (f))                      \
	}

static const struct sample_conv stk_convs[] = {
	{ "in_table",
	  smp_conv_table,
	  1,
	  { ARGT_TAB },
	  NULL,
	  SMP_T_ANY,
	  SMP_T_BOOL,
	  (void *)(intptr_t)F(CV_IN, 0) },
	CV("bytes_in_rate", F(OP_GET, STK_DT_BYTES_IN_RATE)),
	CV("bytes_out_rate", F(OP_GET, STK_DT_BYTES_OUT_RATE)),
	CV("conn_cnt", F(OP_GET, STK_DT_CONN_CNT)),
	CV("conn_cur", F(OP_GET, STK_DT_CONN_CUR)),
	CV("conn_rate", F(OP_GET, STK_DT_CONN_RATE)),
	{ "table_expire",
	  smp_conv_table,
	  1,
	  { ARGT_TAB, ARGT_SINT },
	  NULL,
	  SMP_T_ANY,
	  SMP_T_SINT,
	  (void *)(intptr_t)F(CV_EXPIRE, 0) },
	CVI("gpc", F(OP_GET, STK_DT_GPC)),
	CVI("gpc_rate", F(OP_GET, STK_DT_GPC_RATE)),
	CV("gpc0", F(OP_GET, STK_DT_GPC0)),
	CV("gpc0_rate", F(OP_GET, STK_DT_GPC0_RATE)),
	CV("gpc1", F(OP_GET, STK_DT_GPC1)),
	CV("gpc1_rate", F(OP_GET, STK_DT_GPC1_RATE)),
	CVI("gpt", F(OP_GET, STK_DT_GPT)),
	CV("gpt0", F(OP_GET, STK_DT_GPT0)),
	CV("http_err_cnt", F(OP_GET, STK_DT_HTTP_ERR_CNT)),
	CV("http_err_rate", F(OP_GET, STK_DT_HTTP_ERR_RATE)),
	CV("http_fail_cnt", F(OP_GET, STK_DT_HTTP_FAIL_CNT)),
	CV("http_fail_rate", F(OP_GET, STK_DT_HTTP_FAIL_RATE)),
	CV("http_req_cnt", F(OP_GET, STK_DT_HTTP_REQ_CNT)),
	CV("http_req_rate", F(OP_GET, STK_DT_HTTP_REQ_RATE)),
	{ "table_idle",
	  smp_conv_table,
	  1,
	  { ARGT_TAB, ARGT_SINT },
	  NULL,
	  SMP_T_ANY,
	  SMP_T_SINT,
	  (void *)(intptr_t)F(CV_IDLE, 0) },
	CV("kbytes_in", F(OP_KB, STK_DT_BYTES_IN_CNT)),
	CV("kbytes_out", F(OP_KB, STK_DT_BYTES_OUT_CNT)),
	CV("server_id", F(OP_GET, STK_DT_SERVER_ID)),
	CV("sess_cnt", F(OP_GET, STK_DT_SESS_CNT)),
	CV("sess_rate", F(OP_GET, STK_DT_SESS_RATE)),
	CV("trackers", F(OP_TRACKERS, 0)),
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(stk_convs)
