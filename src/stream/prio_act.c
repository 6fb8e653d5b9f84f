/* Queue priorities: the actions "set-priority-class EXPR" and "set-priority-offset EXPR"
 * (http-request and tcp-request content) and the fetches prio_class and prio_offset. The
 * actions only set the stream's fields; the backend's queues (backend/backend.c) order
 * the streams by them when every server is full.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sample/sample.h>
#include <stream/action.h>
#include <stream/stream-t.h>
#include <stream/stream_opts.h>

#define PRIO_CLASS_MAX 2047    /* -2047..2047 */
#define PRIO_OFFSET_MAX 524287 /* ms, -524287..524287 */

/* The value HAProxy 2.6 uses: the sample's low 32 bits as a signed int, clamped to
 * [-max, max] (so 4294967297 gives 1). */
static int32_t prio_clamp(long long v, int32_t max)
{
	int64_t low = (int64_t)(uint32_t)(unsigned long long)v;

	if (low > INT32_MAX)
		low -= (int64_t)1 << 32;
	if (low < -max)
		return -max;
	return low > max ? max : (int32_t)low;
}

void stream_set_prio_class(struct stream *s, long long v)
{
	s->prio_class = (int16_t)prio_clamp(v, PRIO_CLASS_MAX);
}

void stream_set_prio_offset(struct stream *s, long long v)
{
	s->prio_offset = prio_clamp(v, PRIO_OFFSET_MAX);
}

/* rule->arg.gen.expr: the value; rule->arg.gen.i[0]: 1 for the offset, 0 for the class.
 * No value leaves the stream's as it was, as in HAProxy. */
static enum act_return act_set_prio(struct act_rule *r, struct proxy *px, struct stream *s,
				    int from)
{
	struct smp_ctx ctx;
	struct sample smp = { 0 };

	if (!s)
		return ACT_RET_CONT;
	act_smp_ctx(&ctx, s, px, from);
	smp.ctx = &ctx;
	if (!sample_process_as(r->arg.gen.expr, &smp, SMP_T_SINT))
		return ACT_RET_CONT;
	if (r->arg.gen.i[0])
		stream_set_prio_offset(s, smp.data.u.sint);
	else
		stream_set_prio_class(s, smp.data.u.sint);
	return ACT_RET_CONT;
}

static void prio_release(struct act_rule *r)
{
	sample_expr_free(r->arg.gen.expr);
}

/* set-priority-class EXPR, set-priority-offset EXPR. As in HAProxy 2.6, the fetch must
 * give what the request headers stage has, whichever rule set the action is in. */
static int parse_set_prio(char **args, int *pos, int nargs, const struct act_parse *ap,
			  struct act_rule *r, char *err, size_t errsz)
{
	const char *e = act_next_word(args, pos, nargs);
	struct act_parse hrq = *ap;
	char why[128];

	r->action = act_set_prio;
	r->arg.gen.i[0] = strcmp(r->kw, "set-priority-class") != 0;
	r->release = prio_release;
	hrq.pc.where = 0; /* checked below, for the fetch only */
	r->arg.gen.expr = act_parse_expr(e ? e : "", &hrq, err, errsz);
	if (!r->arg.gen.expr)
		return -1;
	if (sample_check_use(r->arg.gen.expr->fetch->use,
			     SMP_VAL_HRQ_HDR | (ap->pc.where & SMP_VAL_BE), why, sizeof(why)) < 0) {
		snprintf(err, errsz,
			 "fetch method '%s' extracts information from '%s', none of which is "
			 "available here",
			 r->arg.gen.expr->fetch->kw, why);
		return -1;
	}
	return 0;
}

/* prio_class, prio_offset: the stream's values (0 until an action sets them). */
static int smp_fetch_prio(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;

	if (!s)
		return 0;
	smp->data.type = SMP_T_SINT;
	smp->data.u.sint = kw->private ? s->prio_offset : s->prio_class;
	return 1;
}

/* clang-format off */
static const struct action_kw prio_act_kws[] = {
	{ "set-priority-class", ACT_F_HTTP_REQ | ACT_F_TCP_REQ_CNT, 0, parse_set_prio },
	{ "set-priority-offset", ACT_F_HTTP_REQ | ACT_F_TCP_REQ_CNT, 0, parse_set_prio },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(prio_act_kws);

static const struct sample_fetch prio_fetches[] = {
	{ "prio_class", smp_fetch_prio, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_INTRN, 0 },
	{ "prio_offset", smp_fetch_prio, 0, { 0 }, NULL, SMP_T_SINT, SMP_USE_INTRN, 1 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(prio_fetches)
/* clang-format on */
