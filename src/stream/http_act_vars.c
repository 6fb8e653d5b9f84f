/* Variable actions of the HTTP rule sets: set-var(NAME[,COND...]) EXPR,
 * set-var-fmt(NAME[,COND...]) FMT and unset-var(NAME), with the set-var conditions
 * ifexists, ifnotexists, ifempty, ifnotempty, ifset, ifnotset, ifgt and iflt (all must
 * hold for the variable to be set).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/logfmt.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stream/action.h>
#include <stream/stream.h>

static enum act_return act_set_var(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct smp_ctx ctx;
	struct sample smp;

	act_smp_ctx(&ctx, s, px, from);
	memset(&smp, 0, sizeof(smp));
	smp.ctx = &ctx;
	if (r->arg.vars.expr) {
		if (!sample_process(r->arg.vars.expr, &smp))
			return ACT_RET_CONT;
	} else {
		char *out = smp_trash();
		int n = out ? lf_render(&r->arg.vars.fmt, &ctx, out, smp_trash_size()) : -1;

		if (n < 0)
			return ACT_RET_CONT;
		smp.data.type = SMP_T_STR;
		smp.data.u.str = ist2(out, (size_t)n);
	}
	if (vars_conds_hold(&ctx, &r->arg.vars.var, r->arg.vars.conds, &smp))
		vars_set(&ctx, &r->arg.vars.var, &smp);
	return ACT_RET_CONT;
}

static enum act_return act_unset_var(struct act_rule *r, struct proxy *px, struct stream *s,
				     int from)
{
	struct smp_ctx ctx;

	act_smp_ctx(&ctx, s, px, from);
	vars_unset(&ctx, &r->arg.vars.var);
	return ACT_RET_CONT;
}

static void act_vars_release(struct act_rule *r)
{
	sample_expr_free(r->arg.vars.expr);
	lf_free(&r->arg.vars.fmt);
}

/* Parses "KW(name[,cond...])" from the action word <word>. */
static int parse_var_word(const char *word, struct act_rule *r, bool conds_ok, char *err,
			  size_t errsz)
{
	const char *open = strchr(word, '('), *close = open ? strrchr(open, ')') : NULL;
	char name[256], *p, *comma;
	size_t len;

	if (!open || !close || close[1]) {
		snprintf(err, errsz,
			 "incomplete argument after action '%s'. Expects "
			 "'set-var(<var-name>)', 'set-var-fmt(<var-name>)' or "
			 "'unset-var(<var-name>)'",
			 word);
		return -1;
	}
	len = (size_t)(close - open - 1);
	if (len >= sizeof(name)) {
		snprintf(err, errsz, "variable name too long in '%s'", word);
		return -1;
	}
	memcpy(name, open + 1, len);
	name[len] = 0;
	comma = strchr(name, ',');
	if (comma && !conds_ok) {
		snprintf(err, errsz,
			 "unset-var does not expect parameters after the variable "
			 "name. Only \"set-var\" and \"set-var-fmt\" manage conditions");
		return -1;
	}
	for (p = comma; p; p = comma) {
		uint32_t bit;

		*p++ = 0;
		comma = strchr(p, ',');
		if (comma)
			*comma = 0;
		bit = vars_cond_bit(p);
		if (!bit) {
			snprintf(err, errsz, "unknown condition \"%s\"", p);
			return -1;
		}
		r->arg.vars.conds |= bit;
		if (comma)
			*comma = ',';
	}
	return vars_parse_desc(name, &r->arg.vars.var, err, errsz);
}

/* set-var(NAME[,COND...]) EXPR | set-var-fmt(NAME[,COND...]) [FMT] | unset-var(NAME) */
static int parse_var(char **args, int *pos, int nargs, const struct act_parse *ap,
		     struct act_rule *r, char *err, size_t errsz)
{
	const char *word = args[*pos - 1];
	bool unset = !strncmp(word, "unset-var(", 10);
	bool fmt = !strncmp(word, "set-var-fmt(", 12);
	const char *arg;

	r->release = act_vars_release;
	r->action = unset ? act_unset_var : act_set_var;
	if (parse_var_word(word, r, !unset, err, errsz) < 0)
		return -1;
	if (unset)
		return 0;
	arg = act_next_word(args, pos, nargs);
	if (fmt)
		return act_parse_fmt(&r->arg.vars.fmt, arg ? arg : "", ap, err, errsz);
	r->arg.vars.expr = act_parse_expr(arg ? arg : "", ap, err, errsz);
	return r->arg.vars.expr ? 0 : -1;
}

static const struct action_kw http_act_vars_kws[] = {
	{ "set-var(", ACT_F_HTTP_ANY | ACT_F_TCP_ANY, 1, parse_var },
	{ "set-var-fmt(", ACT_F_HTTP_ANY | ACT_F_TCP_ANY, 1, parse_var },
	{ "unset-var(", ACT_F_HTTP_ANY | ACT_F_TCP_ANY, 1, parse_var },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_vars_kws);
