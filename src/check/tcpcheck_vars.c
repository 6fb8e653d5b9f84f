/* Variables and sample expressions of rule-based checks: the "tcp-check"/"http-check"
 * set-var(NAME) EXPR, set-var-fmt(NAME) FMT and unset-var(NAME) rules (parse and run),
 * the check's own variable storage (check.* and sess.*, emptied at each run, as 2.6) and
 * expect's "status-code EXPR". Runs on the check's thread; owns no state but the rules'
 * variable fields and struct check's <vars>.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server-t.h>
#include <cfg/cfg.h>
#include <check/tcpcheck.h>
#include <http/h1.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <sample/vars.h>

#define TCPCHK_RSP_MAXHDR 101 /* headers of a check response the fetches see */

/* The HTTP response of the check being evaluated, parsed for the response fetches
 * (status, res.hdr...): per thread, as one check evaluates at a time on a thread. */
static __thread struct h1_hdr chk_rsp_hdrs[TCPCHK_RSP_MAXHDR];
static __thread struct h1_msg chk_rsp;

/* Parses the HTTP response head in the check's buffer for the fetches; NULL when the
 * check is not an HTTP one or the head is not complete and valid. */
static const struct h1_msg *tcpchk_rsp_parse(const struct check *c)
{
	struct h1_limits lim = { .max_hdr_block = (uint32_t)c->bufsize,
				 .max_hdr = TCPCHK_RSP_MAXHDR };

	if (!c->tcp || !c->rcvd || !c->buf || c->srv->px->tcpchk_kind != TCPCHK_K_HTTP)
		return NULL;
	memset(&chk_rsp, 0, sizeof(chk_rsp));
	chk_rsp.hdr = chk_rsp_hdrs;
	chk_rsp.max_hdr = TCPCHK_RSP_MAXHDR;
	if (h1_parse_headers(c->buf, c->rcvd, &chk_rsp, true, &lim) <= 0)
		return NULL;
	return &chk_rsp;
}

void tcpchk_smp_ctx(struct check *c, struct smp_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->px = c->srv->px;
	ctx->opt = SMP_OPT_DIR_RES | SMP_OPT_FINAL;
	vars_check_cur = c->vars; /* until tcpchk_smp_done() */
	smp_check_rsp = tcpchk_rsp_parse(c);
}

void tcpchk_smp_done(void)
{
	vars_check_cur = NULL;
	smp_check_rsp = NULL;
}

void tcpchk_vars_reset(struct check *c)
{
	vars_prune(&c->vars[0]);
	vars_prune(&c->vars[1]);
}

void tcpchk_var_clear(struct tcpchk_rule *r)
{
	struct lf_expr **lfs[] = { &r->vfmt, &r->ulf, &r->blf };

	sample_expr_free(r->vexpr);
	sample_expr_free(r->code_expr);
	r->vexpr = r->code_expr = NULL;
	for (size_t i = 0; i < sizeof(lfs) / sizeof(lfs[0]); i++) {
		if (*lfs[i])
			lf_free(*lfs[i]);
		free(*lfs[i]);
		*lfs[i] = NULL;
	}
}

struct sample_expr *tcpchk_parse_expr(struct cfg_ctx *ctx, const char *kw, const char *text)
{
	struct smp_parse_ctx pc = { .file = ctx->file,
				    .line = ctx->line,
				    .px = ctx->px,
				    .where = SMP_VAL_CHECK | SMP_VAL_BE,
				    .where_name = ctx->args[0] };
	struct sample_expr *e;
	char err[256];

	e = sample_parse_expr(text, NULL, &pc, err, sizeof(err));
	if (!e)
		cfg_alert(ctx, "'%s %s' : %s.", ctx->args[0], kw, err);
	return e;
}

/* "set-var(check.x)" etc. in args[1]: the variable name between the parentheses into
 * r->var. Returns 0 or -1 (alerted). */
static int tcpchk_var_name(struct cfg_ctx *ctx, struct tcpchk_rule *r, const char *word)
{
	const char *open = strchr(word, '('), *close = open ? strrchr(open, ')') : NULL;
	char name[256], err[256];
	size_t len;

	if (!open || !close || close[1] || close == open + 1) {
		cfg_alert(ctx, "'%s %s' : expects a variable name between parentheses.",
			  ctx->args[0], word);
		return -1;
	}
	len = (size_t)(close - open - 1);
	if (len >= sizeof(name)) {
		cfg_alert(ctx, "'%s %s' : variable name too long.", ctx->args[0], word);
		return -1;
	}
	memcpy(name, open + 1, len);
	name[len] = 0;
	for (char *p = strchr(name, ','), *next; p; p = next) {
		uint32_t bit;

		*p++ = 0;
		next = strchr(p, ',');
		if (next)
			*next = 0;
		bit = r->act == TCPCHK_ACT_SETVAR ? vars_cond_bit(p) : 0;
		if (!bit) {
			cfg_alert(ctx, "'%s %s' : %s.", ctx->args[0], word,
				  r->act == TCPCHK_ACT_SETVAR
					  ? "unknown condition"
					  : "unset-var does not expect parameters after the "
					    "variable name");
			return -1;
		}
		r->vconds |= bit;
		if (next)
			*next = ',';
	}
	if (vars_parse_desc(name, &r->var, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "'%s %s' : %s.", ctx->args[0], word, err);
		return -1;
	}
	return 0;
}

int tcpchk_kw_var(struct cfg_ctx *ctx, struct tcpchk_rules *rs)
{
	const char *w = ctx->args[1];
	bool unset = !strncmp(w, "unset-var(", 10), fmt = !strncmp(w, "set-var-fmt(", 12);
	struct tcpchk_rule *r;

	if (!unset && !fmt && strncmp(w, "set-var(", 8)) {
		cfg_alert(ctx, "'%s' : unknown action '%s'.", ctx->args[0], w);
		return -1;
	}
	if (ctx->nargs != (unset ? 2 : 3)) {
		cfg_alert(ctx,
			  unset ? "'%s %s' does not expect any argument."
				: "'%s %s' expects exactly one argument.",
			  ctx->args[0], w);
		return -1;
	}
	r = tcpchk_add(rs, unset ? TCPCHK_ACT_UNSETVAR : TCPCHK_ACT_SETVAR);
	if (!r) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (tcpchk_var_name(ctx, r, w) < 0)
		return -1;
	if (unset)
		return 0;
	if (!fmt) {
		r->vexpr = tcpchk_parse_expr(ctx, w, ctx->args[2]);
		return r->vexpr ? 0 : -1;
	}
	return tcpchk_lf_compile(ctx, w, ctx->args[2], &r->vfmt);
}

void tcpchk_do_var(struct check *c, const struct tcpchk_rule *r)
{
	struct smp_ctx ctx;
	struct sample smp;

	tcpchk_smp_ctx(c, &ctx);
	if (r->act == TCPCHK_ACT_UNSETVAR) {
		vars_unset(&ctx, &r->var);
		tcpchk_smp_done();
		return;
	}
	memset(&smp, 0, sizeof(smp));
	smp.ctx = &ctx;
	if (r->vexpr) {
		if (!sample_process(r->vexpr, &smp))
			goto out;
	} else {
		char *o = smp_trash();
		int n = o ? lf_render(r->vfmt, &ctx, o, smp_trash_size()) : -1;

		if (n < 0)
			goto out;
		smp.data.type = SMP_T_STR;
		smp.data.u.str = ist2(o, (size_t)n);
	}
	if (vars_conds_hold(&ctx, &r->var, r->vconds, &smp))
		vars_set(&ctx, &r->var, &smp);
out:
	tcpchk_smp_done();
}

int tcpchk_code(struct check *c, const struct tcpchk_rule *r, int dflt)
{
	struct smp_ctx ctx;
	struct sample smp;

	if (!r->code_expr)
		return dflt;
	tcpchk_smp_ctx(c, &ctx);
	memset(&smp, 0, sizeof(smp));
	smp.ctx = &ctx;
	if (!sample_process_as(r->code_expr, &smp, SMP_T_SINT))
		smp.data.u.sint = dflt;
	tcpchk_smp_done();
	if (smp.data.u.sint < INT32_MIN || smp.data.u.sint > INT32_MAX)
		return dflt;
	return (int)smp.data.u.sint;
}
