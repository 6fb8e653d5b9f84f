/* Fetches that read no traffic: constants (always_true, always_false, str, int, bool,
 * ipv4, ipv6, bin, meth), and the process's own facts.
 */
#include <sample/sample.h>

static int smp_fetch_true(const struct arg *args, struct sample *smp,
			  const struct sample_fetch *kw)
{
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = kw->private;
	return 1;
}

/* str(text), int(n), bool(n): the argument itself */
static int smp_fetch_const(const struct arg *args, struct sample *smp,
			   const struct sample_fetch *kw)
{
	smp->data.type = kw->out_type;
	if (kw->out_type == SMP_T_STR) {
		smp->data.u.str = args[0].data.str;
		smp->flags |= SMP_F_CONST;
	} else {
		smp->data.u.sint = kw->out_type == SMP_T_BOOL ? !!args[0].data.sint
							       : args[0].data.sint;
	}
	return 1;
}

static const struct sample_fetch misc_fetches[] = {
	{ "always_true", smp_fetch_true, 0, { 0 }, NULL, SMP_T_BOOL, SMP_USE_INTRN, 1 },
	{ "always_false", smp_fetch_true, 0, { 0 }, NULL, SMP_T_BOOL, SMP_USE_INTRN, 0 },
	{ "str", smp_fetch_const, 1, { ARGT_STR }, NULL, SMP_T_STR, SMP_USE_INTRN, 0 },
	{ "int", smp_fetch_const, 1, { ARGT_SINT }, NULL, SMP_T_SINT, SMP_USE_INTRN, 0 },
	{ "bool", smp_fetch_const, 1, { ARGT_SINT }, NULL, SMP_T_BOOL, SMP_USE_INTRN, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(misc_fetches)
