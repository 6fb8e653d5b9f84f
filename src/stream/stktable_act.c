/* Tracking: the track-sc0/1/2 actions (http-request, http-response, tcp-request
 * connection/session/content), sc-inc-gpc0/1, sc-inc-gpc, sc-set-gpt0, sc-set-gpt; the
 * counters HAProxy keeps on tracked entries (a tracking counts in conn_cnt, conn_rate and,
 * while it lasts, conn_cur; requests, errors, failures and bytes are counted on each slot
 * of the stream, or of its session when the stream has none there; sessions count when
 * they start); and the "stick" rules: the stored server of a key is used while it is
 * usable, and the server that answered is stored. Loop thread of the stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/backend.h>
#include <backend/server-t.h>
#include <base/atomic.h>
#include <base/pool.h>
#include <event/loop.h>
#include <proxy/proxy-t.h>
#include <sample/acl.h>
#include <sample/sample.h>
#include <stream/action.h>
#include <stream/stktable.h>
#include <stream/stktable_act.h>
#include <stream/tcp_rules.h>

DECLARE_POOL(pool_stk_trk, "stk_trk", sizeof(struct stk_trk))

bool stk_used;

static struct stk_trk *stk_trk_get(struct stk_trk **pp)
{
	if (!*pp && (*pp = pool_alloc(&pool_stk_trk)))
		memset(*pp, 0, sizeof(**pp));
	return *pp;
}

struct stk_ctr *stk_ctr_get(const struct stream *s, int n)
{
	if (s->stk && s->stk->ctr[n].t)
		return &s->stk->ctr[n];
	if (s->front->stk && s->front->stk->ctr[n].t)
		return &s->front->stk->ctr[n];
	return NULL;
}

static inline bool stk_stores(const struct stktable *t, int dt)
{
	return t->data_ofs[dt] != STK_DT_NONE;
}

/* Adds <v> to a counter and its rate (the type after it) on <c>'s entry. */
static void stk_ctr_add(struct stk_ctr *c, int cnt_dt, uint64_t v, uint64_t now)
{
	struct stktable *t = c->t;

	if (!stk_stores(t, cnt_dt) && !stk_stores(t, cnt_dt + 1))
		return;
	stksess_lock(t, c->ts);
	stksess_add(t, c->ts, cnt_dt, 0, v, now);
	stksess_add(t, c->ts, cnt_dt + 1, 0, v, now);
	stksess_touch(t, c->ts, now);
	stksess_unlock(t, c->ts);
}

void stk_count_http(struct stream *s, int cnt_dt)
{
	uint64_t now = now_ms();

	for (int n = 0; n < STK_MAX_CTR; n++) {
		struct stk_ctr *c = stk_ctr_get(s, n);

		if (c)
			stk_ctr_add(c, cnt_dt, 1, now);
	}
}

void stk_count_bytes(struct stream *s, uint64_t in, uint64_t out)
{
	uint64_t now = now_ms();

	for (int n = 0; n < STK_MAX_CTR; n++) {
		struct stk_ctr *c = stk_ctr_get(s, n);

		if (c) {
			stk_ctr_add(c, STK_DT_BYTES_IN_CNT, in, now);
			stk_ctr_add(c, STK_DT_BYTES_OUT_CNT, out, now);
		}
	}
}

/* A tracking starts: conn_cnt, conn_rate and conn_cur of the entry; the entry is written
 * (its expiry is renewed). Lock held. */
static void __stk_track_start(struct stktable *t, struct stksess *ts, uint64_t now)
{
	stksess_add(t, ts, STK_DT_CONN_CUR, 0, 1, now);
	stksess_add(t, ts, STK_DT_CONN_CNT, 0, 1, now);
	stksess_add(t, ts, STK_DT_CONN_RATE, 0, 1, now);
	stksess_touch(t, ts, now);
}

/* A tracking ends: conn_cur goes down (never below 0) and the reference goes. */
static void stk_ctr_end(struct stk_ctr *c, uint64_t now)
{
	struct stktable *t = c->t;
	bool wrote = false;
	uint32_t *cur;

	stksess_lock(t, c->ts);
	cur = stksess_data(t, c->ts, STK_DT_CONN_CUR, 0);
	if (cur) {
		if (*cur)
			(*cur)--;
		wrote = true;
	}
	stksess_unlock(t, c->ts);
	stktable_release(t, c->ts, wrote, now);
	c->t = NULL;
	c->ts = NULL;
}

void stk_stream_release(struct stream *s)
{
	struct stk_trk *trk = s->stk;
	uint64_t now = now_ms();

	for (int n = 0; n < STK_MAX_CTR; n++)
		if (trk->ctr[n].t)
			stk_ctr_end(&trk->ctr[n], now);
	for (int i = 0; i < trk->nb_store; i++)
		stksess_free_detached(trk->store[i].ts);
	pool_free(&pool_stk_trk, trk);
	s->stk = NULL;
}

void stk_sess_start(struct conn *c)
{
	uint64_t now = now_ms();

	for (int n = 0; c->stk && n < STK_MAX_CTR; n++)
		if (c->stk->ctr[n].t)
			stk_ctr_add(&c->stk->ctr[n], STK_DT_SESS_CNT, 1, now);
}

void stk_sess_probe(struct conn *c)
{
	uint64_t now = now_ms();

	for (int n = 0; n < STK_MAX_CTR; n++) {
		if (c->stk->ctr[n].t) {
			stk_ctr_add(&c->stk->ctr[n], STK_DT_HTTP_REQ_CNT, 1, now);
			stk_ctr_add(&c->stk->ctr[n], STK_DT_HTTP_ERR_CNT, 1, now);
		}
	}
}

void stk_sess_release(struct conn *c)
{
	uint64_t now = th_ctx ? now_ms() : 0;

	for (int n = 0; n < STK_MAX_CTR; n++)
		if (c->stk->ctr[n].t)
			stk_ctr_end(&c->stk->ctr[n], now);
	pool_free(&pool_stk_trk, c->stk);
	c->stk = NULL;
}

/* ---- track-sc0/1/2 KEY [table T] ---- */

static void act_release_gen(struct act_rule *r)
{
	sample_expr_free(r->arg.gen.expr);
	free((char *)r->arg.gen.str.ptr);
}

/* The table of a tracking rule: "table T", or the rule's proxy's own. */
static int act_track_check(struct act_rule *r, struct proxy *px, char *err, size_t errsz)
{
	const char *name = r->arg.gen.str.ptr;
	struct stktable *t = name && *name ? stktable_find(name) : px->table;

	if (!t) {
		snprintf(err, errsz, "unable to find table '%s' referenced by track-sc%lld",
			 name && *name ? name : px->id, r->arg.gen.i[0]);
		return -1;
	}
	r->arg.gen.p[0] = t;
	return 0;
}

static enum act_return act_track(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	int n = (int)r->arg.gen.i[0];
	struct stktable *t = r->arg.gen.p[0];
	bool sess = from & (ACT_F_TCP_REQ_CON | ACT_F_TCP_REQ_SES);
	struct stk_trk **pp = sess ? &s->front->stk : &s->stk, *trk;
	struct smp_ctx ctx;
	struct sample smp = { .ctx = &ctx };
	struct stk_key k;
	struct stksess *ts;
	uint64_t now = now_ms();
	int status = s->rsp.status;

	if (*pp && (*pp)->ctr[n].t)
		return ACT_RET_CONT; /* this slot is taken already */
	act_smp_ctx(&ctx, s, px, from);
	if (from == ACT_F_TCP_REQ_CNT && tcp_rules_partial())
		ctx.opt &= ~SMP_OPT_FINAL;
	if (!sample_process(r->arg.gen.expr, &smp))
		return (smp.flags & SMP_F_MAY_CHANGE) && !(ctx.opt & SMP_OPT_FINAL)
			       ? ACT_RET_YIELD
			       : ACT_RET_CONT; /* the key may still arrive */
	if (!stk_key_from_smp(t, &smp, &k) || !(trk = stk_trk_get(pp)))
		return ACT_RET_CONT;
	ts = stktable_get(t, &k, now);
	if (!ts)
		return ACT_RET_CONT; /* full of entries in use: not tracked */
	trk->ctr[n].t = t;
	trk->ctr[n].ts = ts;
	trk->ctr[n].flags = from == ACT_F_TCP_REQ_CNT && px != s->fe ? STK_CTR_BACKEND : 0;
	stksess_lock(t, ts);
	__stk_track_start(t, ts, now);
	/* tracked once the request was counted: it counts here now, and so does the
	 * response's error or failure when tracked on the response */
	if ((from & (ACT_F_HTTP_REQ | ACT_F_HTTP_RES)) || (trk->ctr[n].flags & STK_CTR_BACKEND)) {
		stksess_add(t, ts, STK_DT_HTTP_REQ_CNT, 0, 1, now);
		stksess_add(t, ts, STK_DT_HTTP_REQ_RATE, 0, 1, now);
	}
	if (from == ACT_F_HTTP_RES && status >= 400 && status < 500) {
		stksess_add(t, ts, STK_DT_HTTP_ERR_CNT, 0, 1, now);
		stksess_add(t, ts, STK_DT_HTTP_ERR_RATE, 0, 1, now);
	}
	if (from == ACT_F_HTTP_RES && status >= 500 && status < 600 && status != 501 &&
	    status != 505) {
		stksess_add(t, ts, STK_DT_HTTP_FAIL_CNT, 0, 1, now);
		stksess_add(t, ts, STK_DT_HTTP_FAIL_RATE, 0, 1, now);
	}
	stksess_unlock(t, ts);
	return ACT_RET_CONT;
}

static int parse_track(char **args, int *pos, int nargs, const struct act_parse *ap,
		       struct act_rule *r, char *err, size_t errsz)
{
	const char *name = args[*pos - 1] + strlen("track-sc");
	const char *key;
	long n;
	char *end;

	n = strtol(name, &end, 10);
	if (!*name || *end || n < 0) {
		snprintf(err, errsz, "invalid stick counter '%s'", name);
		return -1;
	}
	if (n >= STK_MAX_CTR) {
		snprintf(err, errsz, "%ld track-sc number exceeding %d (MAX_SESS_STKCTR-1) value",
			 n, STK_MAX_CTR - 1);
		return -1;
	}
	key = act_next_word(args, pos, nargs);
	if (!key || !strcmp(key, "table")) {
		snprintf(err, errsz, "missing key expression");
		return -1;
	}
	r->release = act_release_gen;
	r->arg.gen.i[0] = n;
	r->arg.gen.expr = act_parse_expr(key, ap, err, errsz);
	if (!r->arg.gen.expr)
		return -1;
	if (*pos < nargs && !strcmp(args[*pos], "table")) {
		const char *tn;

		(*pos)++;
		tn = act_next_word(args, pos, nargs);
		if (!tn) {
			snprintf(err, errsz, "missing table name after 'table'");
			return -1;
		}
		r->arg.gen.str.ptr = strdup(tn);
		if (!r->arg.gen.str.ptr) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		r->arg.gen.str.len = strlen(tn);
	}
	r->action = act_track;
	r->check = act_track_check;
	stk_used = true;
	return 0;
}

/* ---- sc-inc-gpc0(SC), sc-inc-gpc1(SC), sc-inc-gpc(IDX,SC), sc-set-gpt0(SC) V,
 * sc-set-gpt(IDX,SC) V ---- */

enum { SC_INC_GPC0 = 0, SC_INC_GPC1, SC_INC_GPC, SC_SET_GPT0, SC_SET_GPT };

/* The storage of a general purpose counter or tag: the legacy gpc0/gpc1/gpt0 when the
 * table stores it, else element <idx> of the array (HAProxy's fallback). */
static int stk_gp_dt(const struct stktable *t, int legacy, int array)
{
	return legacy >= 0 && stk_stores(t, legacy) ? legacy : array;
}

static enum act_return act_sc_gp(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	int kind = (int)r->arg.gen.i[2];
	uint32_t idx = (uint32_t)r->arg.gen.i[1];
	struct stk_ctr *c = stk_ctr_get(s, (int)r->arg.gen.i[0]);
	long long v = r->arg.gen.i[3];
	uint64_t now = now_ms();
	struct stktable *t;
	int dt, rdt;

	if (!c)
		return ACT_RET_CONT;
	t = c->t;
	if (kind >= SC_SET_GPT0 && r->arg.gen.expr) {
		struct smp_ctx ctx;
		struct sample smp = { .ctx = &ctx };

		act_smp_ctx(&ctx, s, px, from);
		if (!sample_process_as(r->arg.gen.expr, &smp, SMP_T_SINT))
			return ACT_RET_CONT;
		v = smp.data.u.sint;
	}
	stksess_lock(t, c->ts);
	if (kind >= SC_SET_GPT0) {
		dt = stk_gp_dt(t, kind == SC_SET_GPT0 ? STK_DT_GPT0 : -1, STK_DT_GPT);
		stksess_set(t, c->ts, dt, dt == STK_DT_GPT ? idx : 0, v, now);
	} else {
		int legacy = kind == SC_INC_GPC0   ? STK_DT_GPC0
			     : kind == SC_INC_GPC1 ? STK_DT_GPC1
						   : -1;

		rdt = stk_gp_dt(t, legacy >= 0 ? legacy + 1 : -1, STK_DT_GPC_RATE);
		dt = stk_gp_dt(t, legacy, STK_DT_GPC);
		stksess_add(t, c->ts, rdt, rdt == STK_DT_GPC_RATE ? idx : 0, 1, now);
		stksess_add(t, c->ts, dt, dt == STK_DT_GPC ? idx : 0, 1, now);
	}
	stksess_touch(t, c->ts, now);
	stksess_unlock(t, c->ts);
	return ACT_RET_CONT;
}

/* "(a)" or "(a,b)" after the action name into n[0..nb) (each 0..max[i]). */
static int parse_sc_args(const char *name, int nb, long *n, const long *max, char *err,
			 size_t errsz)
{
	const char *p = strchr(name, '(');
	char *end;

	for (int i = 0; i < nb; i++) {
		if (!p || !*++p) {
			snprintf(err, errsz, "missing stick counter in '%s'", name);
			return -1;
		}
		n[i] = strtol(p, &end, 10);
		if (end == p || n[i] < 0 || n[i] > max[i] || *end != (i == nb - 1 ? ')' : ',') ||
		    (i == nb - 1 && end[1])) {
			snprintf(err, errsz, "invalid %s in '%s' (expects %s)",
				 i < nb - 1 ? "index" : "stick counter", name,
				 nb == 2 ? "(<idx>,<sc-id>)" : "(<sc-id>)");
			return -1;
		}
		p = end;
	}
	return 0;
}

static int parse_sc_gp(char **args, int *pos, int nargs, const struct act_parse *ap,
		       struct act_rule *r, char *err, size_t errsz)
{
	const char *name = args[*pos - 1];
	static const long max_idx[2] = { STK_MAX_ARRAY - 1, STK_MAX_CTR - 1 };
	static const long max_sc[1] = { STK_MAX_CTR - 1 };
	int kind = !strncmp(name, "sc-inc-gpc0(", 12)	? SC_INC_GPC0
		   : !strncmp(name, "sc-inc-gpc1(", 12) ? SC_INC_GPC1
		   : !strncmp(name, "sc-inc-gpc(", 11)	? SC_INC_GPC
		   : !strncmp(name, "sc-set-gpt0(", 12) ? SC_SET_GPT0
							: SC_SET_GPT;
	bool idx = kind == SC_INC_GPC || kind == SC_SET_GPT;
	long n[2] = { 0, 0 };

	if (parse_sc_args(name, idx ? 2 : 1, n, idx ? max_idx : max_sc, err, errsz) < 0)
		return -1;
	r->arg.gen.i[0] = idx ? n[1] : n[0];
	r->arg.gen.i[1] = idx ? n[0] : 0;
	r->arg.gen.i[2] = kind;
	r->release = act_release_gen;
	r->action = act_sc_gp;
	if (kind >= SC_SET_GPT0) {
		const char *v = act_next_word(args, pos, nargs);
		char *end;

		if (!v) {
			snprintf(err, errsz, "expects an integer or an expression");
			return -1;
		}
		r->arg.gen.i[3] = strtoll(v, &end, 10);
		if (end == v || *end) {
			r->arg.gen.expr = act_parse_expr(v, ap, err, errsz);
			if (!r->arg.gen.expr)
				return -1;
		}
	}
	return 0;
}

#define STK_ACT_ALL (ACT_F_HTTP_REQ | ACT_F_HTTP_RES | ACT_F_TCP_ANY)
#define STK_ACT_TRK                                                                \
	(ACT_F_HTTP_REQ | ACT_F_HTTP_RES | ACT_F_TCP_REQ_CON | ACT_F_TCP_REQ_SES | \
	 ACT_F_TCP_REQ_CNT)

static const struct action_kw stk_act_kws[] = {
	{ "track-sc", STK_ACT_TRK, 1, parse_track },
	{ "sc-inc-gpc0(", STK_ACT_ALL, 1, parse_sc_gp },
	{ "sc-inc-gpc1(", STK_ACT_ALL, 1, parse_sc_gp },
	{ "sc-inc-gpc(", STK_ACT_ALL, 1, parse_sc_gp },
	{ "sc-set-gpt0(", STK_ACT_ALL, 1, parse_sc_gp },
	{ "sc-set-gpt(", STK_ACT_ALL, 1, parse_sc_gp },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(stk_act_kws);

/* ---- stick rules ---- */

/* The key of rule <r> for <s>, evaluated where <from> says; 1 when there is one. */
static int stick_rule_key(struct stick_rule *r, struct stream *s, int from, struct stk_key *k)
{
	struct smp_ctx ctx;
	struct sample smp = { .ctx = &ctx };

	act_smp_ctx(&ctx, s, s->be, from);
	if (r->cond && !acl_cond_true(r->cond, &ctx))
		return 0;
	return sample_process(r->expr, &smp) && stk_key_from_smp(r->t, &smp, k);
}

/* Keeps the key for a store once the server is known: one per table per stream. */
static void stick_store_add(struct stream *s, struct stktable *t, const struct stk_key *k)
{
	struct stk_trk *trk = stk_trk_get(&s->stk);
	struct stksess *ts;

	if (!trk || trk->nb_store >= STK_MAX_STORE)
		return;
	for (int i = 0; i < trk->nb_store; i++)
		if (trk->store[i].t == t)
			return;
	ts = stksess_new_detached(t, k);
	if (!ts)
		return;
	trk->store[trk->nb_store].t = t;
	trk->store[trk->nb_store].ts = ts;
	trk->nb_store++;
}

struct stick_srv {
	const char *name;
	int32_t id;
};

static int stick_srv_read(void *arg, struct stktable *t, struct stksess *ts)
{
	struct stick_srv *ss = arg;
	const char **name = stksess_data(t, ts, STK_DT_SERVER_KEY, 0);
	int32_t *id = stksess_data(t, ts, STK_DT_SERVER_ID, 0);

	ss->name = name ? *name : NULL;
	ss->id = id ? *id : 0;
	return 1;
}

/* The server stored for <k> in <t> and usable in <be>, or NULL: by name when the entry
 * has one (server_key), else by id. */
static struct server *stick_find_server(struct stktable *t, const struct stk_key *k,
					struct proxy *be, bool force)
{
	struct stick_srv ss = { NULL, 0 };
	const char *name;
	struct server *srv;
	int32_t id;

	if (!stktable_with_key(t, k, now_ms(), stick_srv_read, &ss))
		return NULL;
	name = ss.name;
	id = ss.id;
	for (srv = be->srv; srv; srv = srv->next)
		if (name ? !strcmp(srv->id, name) : srv->puid == id)
			break;
	if (!srv || (!force && (HA_ATOMIC_LOAD_RLX(&srv->admin) & SRV_ADM_FMAINT)))
		return NULL; /* gone or in maintenance (unless force-persist): the LB chooses */
	return srv;
}

void stk_process_sticking_rules(struct stream *s)
{
	struct stick_rule *r;

	list_for_each_entry(r, &s->be->stick_rules, list)
	{
		struct stk_key k;
		struct server *srv;

		if (!stick_rule_key(r, s, ACT_F_HTTP_REQ, &k))
			continue;
		if (r->flags & STK_RULE_STORE)
			stick_store_add(s, r->t, &k);
		/* the first usable server found is the one; a full one is left to the
		 * load balancer (no per-server queue yet) */
		if ((r->flags & STK_RULE_MATCH) && !(s->flags & SF_HAS_SLOT) &&
		    (srv = stick_find_server(r->t, &k, s->be, s->flags & SF_FORCE_PRST)))
			backend_take_server(s, srv);
	}
}

void stk_process_store_rules(struct stream *s)
{
	struct stick_rule *r;
	struct stk_trk *trk;
	uint64_t now = now_ms();

	list_for_each_entry(r, &s->be->store_rules, list)
	{
		struct stk_key k;

		if (stick_rule_key(r, s, ACT_F_HTTP_RES, &k))
			stick_store_add(s, r->t, &k);
	}
	trk = s->stk;
	if (!trk)
		return;
	for (int i = 0; i < trk->nb_store; i++) {
		struct stktable *t = trk->store[i].t;
		struct stksess *ts;

		if (!s->srv || (s->srv->flags & SRV_F_NON_STICK)) {
			stksess_free_detached(trk->store[i].ts);
			continue;
		}
		ts = stktable_set_detached(t, trk->store[i].ts, now);
		if (!ts)
			continue;
		stksess_lock(t, ts);
		stksess_set(t, ts, STK_DT_SERVER_ID, 0, s->srv->puid, now);
		if (stksess_data(t, ts, STK_DT_SERVER_KEY, 0))
			*(const char **)stksess_data(t, ts, STK_DT_SERVER_KEY, 0) = s->srv->id;
		stksess_unlock(t, ts);
		stktable_release(t, ts, true, now);
	}
	trk->nb_store = 0;
}
