/* Runtime API of the variables: "get var" and "set var", proc scope only as in HAProxy
 * 2.6, on top of the variable store (vars.c) and the sample expression and log-format
 * compilers. Kept apart so that vars.c links without the CLI (fuzz targets, unit tests).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <base/ist.h>
#include <cli/cli.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <sample/vars.h>

static int vars_cli_say(struct cli_ctx *ctx, const char *msg)
{
	return cli_write(ctx, msg, strlen(msg)) < 0 ? CLI_MORE : CLI_DONE;
}

/* get var proc.NAME: "proc.NAME: type=TYPE value=<TEXT>" */
static int vars_cli_get(struct cli_ctx *ctx)
{
	struct smp_ctx sctx = { NULL, NULL, NULL, SMP_OPT_FINAL };
	struct sample smp = { .ctx = &sctx };
	struct var_desc d;
	int type;

	if (ctx->nargs < 3)
		return vars_cli_say(ctx, "Missing process-wide variable identifier.\n");
	if (vars_lookup_desc(ctx->args[2], strlen(ctx->args[2]), &d) < 0 || d.scope != VS_PROC ||
	    !vars_get(&sctx, &d, &smp))
		return vars_cli_say(ctx, "Variable not found.\n");
	type = smp.data.type;
	if (!sample_cast(&smp, SMP_T_STR))
		return vars_cli_say(ctx, "Variable not found.\n");
	return cli_printf(ctx, "%s: type=%s value=<%.*s>\n", ctx->args[2], smp_type_name(type),
			  (int)smp.data.u.str.len, smp.data.u.str.ptr) < 0
		       ? CLI_MORE
		       : CLI_DONE;
}

/* "set var NAME fmt FORMAT": renders FORMAT into smp (the scratch chunk). 0, or -1 with a
 * message in err. */
static int vars_cli_fmt(const char *fmt, struct smp_parse_ctx *pc, struct sample *smp, char *err,
			size_t errsz)
{
	struct lf_expr lf = { 0 };
	char *out;
	int n;

	if (lf_compile(&lf, fmt, pc, err, errsz) < 0)
		return -1;
	out = smp_trash();
	n = out ? lf_render(&lf, smp->ctx, out, smp_trash_size()) : -1;
	lf_free(&lf);
	if (n < 0) {
		snprintf(err, errsz, "the value does not fit");
		return -1;
	}
	smp->data.type = SMP_T_STR;
	smp->data.u.str = ist2(out, (size_t)n);
	return 0;
}

/* set var proc.NAME [expr] EXPR | fmt FORMAT: evaluated now, with the fetches that need
 * nothing but the process (as global set-var / set-var-fmt). */
static int vars_cli_set(struct cli_ctx *ctx)
{
	struct smp_parse_ctx pc = { NULL, 0, NULL, SMP_VAL_CFG, "set var" };
	struct smp_ctx sctx = { NULL, NULL, NULL, SMP_OPT_FINAL };
	struct sample smp = { .ctx = &sctx };
	struct sample_expr *e;
	struct var_desc d;
	char err[512];
	int i = 3;
	bool fmt = false;

	if (ctx->nargs < 3)
		return vars_cli_say(ctx, "Missing variable name.\n");
	if (ctx->nargs > 3 && (!strcmp(ctx->args[3], "expr") || !strcmp(ctx->args[3], "fmt"))) {
		fmt = ctx->args[3][0] == 'f';
		i++;
	}
	if (vars_lookup_desc(ctx->args[2], strlen(ctx->args[2]), &d) < 0 &&
	    vars_parse_desc(ctx->args[2], &d, err, sizeof(err)) < 0)
		return cli_printf(ctx, "'set var': %s.\n", err) < 0 ? CLI_MORE : CLI_DONE;
	if (d.scope != VS_PROC)
		return cli_printf(ctx,
				  "'set var': cannot set variable '%s', only scope 'proc' is "
				  "permitted here.\n",
				  ctx->args[2]) < 0
			       ? CLI_MORE
			       : CLI_DONE;
	if (i >= ctx->nargs)
		return vars_cli_say(ctx, "Missing either 'expr', 'fmt' or expression.\n");
	if (fmt) {
		if (vars_cli_fmt(ctx->args[i], &pc, &smp, err, sizeof(err)) < 0)
			return cli_printf(ctx, "%s\n", err) < 0 ? CLI_MORE : CLI_DONE;
		return vars_set(&sctx, &d, &smp)
			       ? CLI_DONE
			       : vars_cli_say(ctx, "failed to set the variable.\n");
	}
	e = sample_parse_expr(ctx->args[i], NULL, &pc, err, sizeof(err));
	if (!e)
		return cli_printf(ctx, "%s\n", err) < 0 ? CLI_MORE : CLI_DONE;
	if (!sample_process(e, &smp) || !vars_set(&sctx, &d, &smp)) {
		sample_expr_free(e);
		return vars_cli_say(ctx, "failed to set the variable.\n");
	}
	sample_expr_free(e);
	return CLI_DONE;
}

static const struct cli_kw vars_cli_kws[] = {
	{ { "get", "var" },
	  "get var <name>",
	  "retrieve contents of a process-wide variable",
	  CLI_LVL_OPER,
	  vars_cli_get },
	{ { "set", "var" },
	  "set var <var> [fmt|expr] {<fmt>|<expr>}",
	  "set a process-wide variable from an expression",
	  CLI_LVL_OPER,
	  vars_cli_set },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(vars_cli_kws)
