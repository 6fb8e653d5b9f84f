/* Converters on integers and addresses: arithmetic and bitwise operators whose operand is
 * a number or a variable (add, sub, mul, div, mod, and, or, xor), neg, cpl, not, bool, odd,
 * even, iif, htonl and ipmask. Arithmetic saturates at the 64-bit limits instead of
 * wrapping, as HAProxy does.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <sample/conv.h>
#include <sample/sample.h>

/* ---- arithmetic ---- */

static long long arith_add(long long a, long long b)
{
	long long r;

	if (!__builtin_add_overflow(a, b, &r))
		return r;
	return a < 0 ? LLONG_MIN : LLONG_MAX;
}

static long long arith_sub(long long a, long long b)
{
	long long r;

	if (!__builtin_sub_overflow(a, b, &r))
		return r;
	return a < 0 ? LLONG_MIN : LLONG_MAX;
}

static long long arith_mul(long long a, long long b)
{
	long long r;

	if (!__builtin_mul_overflow(a, b, &r))
		return r;
	return (a < 0) == (b < 0) ? LLONG_MAX : LLONG_MIN;
}

/* x / 0 is the largest integer, LLONG_MIN / -1 saturates */
static long long arith_div(long long a, long long b)
{
	if (!b)
		return LLONG_MAX;
	if (a == LLONG_MIN && b == -1)
		return LLONG_MAX;
	return a / b;
}

/* x % 0 is 0, as is LLONG_MIN % -1 */
static long long arith_mod(long long a, long long b)
{
	if (!b || b == -1)
		return 0;
	return a % b;
}

enum arith_op {
	OP_ADD = 0,
	OP_SUB,
	OP_MUL,
	OP_DIV,
	OP_MOD,
	OP_AND,
	OP_OR,
	OP_XOR,
};

/* add(v) .. xor(v): <private> points to the enum arith_op. The operand is the number, or
 * the variable cast to an integer; a variable that is not set fails the converter. */
static int conv_arith(const struct arg *args, struct sample *smp, void *private)
{
	long long a = smp->data.u.sint, b;

	if (!args || args[0].type == ARGT_STOP) {
		b = 0; /* "add()": HAProxy reads the empty operand as 0 */
	} else if (!conv_arg_sint(&args[0], smp->ctx, &b)) {
		return 0;
	}
	switch ((enum arith_op)(uintptr_t) private) {
	case OP_ADD:
		a = arith_add(a, b);
		break;
	case OP_SUB:
		a = arith_sub(a, b);
		break;
	case OP_MUL:
		a = arith_mul(a, b);
		break;
	case OP_DIV:
		a = arith_div(a, b);
		break;
	case OP_MOD:
		a = arith_mod(a, b);
		break;
	case OP_AND:
		a &= b;
		break;
	case OP_OR:
		a |= b;
		break;
	case OP_XOR:
		a ^= b;
		break;
	}
	conv_set_sint(smp, SMP_T_SINT, a);
	return 1;
}

static int conv_arith_check(struct arg *args, void *private, char *err, size_t errsz)
{
	return args ? conv_arg_int_or_var(&args[0], err, errsz) : 0;
}

static int conv_neg(const struct arg *args, struct sample *smp, void *private)
{
	long long v = smp->data.u.sint;

	conv_set_sint(smp, SMP_T_SINT, v == LLONG_MIN ? LLONG_MAX : -v);
	return 1;
}

static int conv_cpl(const struct arg *args, struct sample *smp, void *private)
{
	conv_set_sint(smp, SMP_T_SINT, ~smp->data.u.sint);
	return 1;
}

/* not, bool, odd, even: <private> selects the predicate */
enum pred_op {
	PRED_NOT = 0,
	PRED_BOOL,
	PRED_ODD,
	PRED_EVEN,
};

static int conv_pred(const struct arg *args, struct sample *smp, void *private)
{
	long long v = smp->data.u.sint;
	bool r = false;

	switch ((enum pred_op)(uintptr_t) private) {
	case PRED_NOT:
		r = !v;
		break;
	case PRED_BOOL:
		r = !!v;
		break;
	case PRED_ODD:
		r = v & 1;
		break;
	case PRED_EVEN:
		r = !(v & 1);
		break;
	}
	conv_set_sint(smp, SMP_T_BOOL, r);
	return 1;
}

/* iif(true,false): one of the two strings */
static int conv_iif(const struct arg *args, struct sample *smp, void *private)
{
	smp->data.u.str = args[smp->data.u.sint ? 0 : 1].data.str;
	smp->data.type = SMP_T_STR;
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* htonl: the low 32 bits as 4 bytes in network order */
static int conv_htonl(const struct arg *args, struct sample *smp, void *private)
{
	uint32_t n = htonl((uint32_t)smp->data.u.sint);
	char *t = smp_trash();

	if (!t)
		return 0;
	memcpy(t, &n, sizeof(n));
	conv_set_str(smp, SMP_T_BIN, t, sizeof(n));
	return 1;
}

/* ---- ipmask(mask4[,mask6]) ---- */

static bool ipv6_is_v4mapped(const struct in6_addr *a)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(a->s6_addr, pfx, sizeof(pfx));
}

/* An IPv4-mapped IPv6 address is masked as IPv4; other IPv6 addresses need <mask6>. */
static int conv_ipmask(const struct arg *args, struct sample *smp, void *private)
{
	if (smp->data.type == SMP_T_IPV6 && ipv6_is_v4mapped(&smp->data.u.ipv6)) {
		struct in_addr a;

		memcpy(&a, &smp->data.u.ipv6.s6_addr[12], sizeof(a));
		smp->data.u.ipv4 = a;
		smp->data.type = SMP_T_IPV4;
	}
	if (smp->data.type == SMP_T_IPV4) {
		smp->data.u.ipv4.s_addr &= args[0].data.ipv4.s_addr;
		return 1;
	}
	if (smp->data.type != SMP_T_IPV6 || args[1].type != ARGT_MSK6)
		return 0;
	for (int i = 0; i < 16; i++)
		smp->data.u.ipv6.s6_addr[i] &= args[1].data.ipv6.s6_addr[i];
	return 1;
}

static const struct sample_conv num_convs[] = {
	{ "add",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_ADD) },
	{ "sub",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_SUB) },
	{ "mul",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_MUL) },
	{ "div",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_DIV) },
	{ "mod",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_MOD) },
	{ "and",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_AND) },
	{ "or",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_OR) },
	{ "xor",
	  conv_arith,
	  1,
	  { ARGT_STR },
	  conv_arith_check,
	  SMP_T_SINT,
	  SMP_T_SINT,
	  CONV_PRIV(OP_XOR) },
	{ "neg", conv_neg, 0, { 0 }, NULL, SMP_T_SINT, SMP_T_SINT, NULL },
	{ "cpl", conv_cpl, 0, { 0 }, NULL, SMP_T_SINT, SMP_T_SINT, NULL },
	{ "not", conv_pred, 0, { 0 }, NULL, SMP_T_SINT, SMP_T_BOOL, CONV_PRIV(PRED_NOT) },
	{ "bool", conv_pred, 0, { 0 }, NULL, SMP_T_SINT, SMP_T_BOOL, CONV_PRIV(PRED_BOOL) },
	{ "odd", conv_pred, 0, { 0 }, NULL, SMP_T_SINT, SMP_T_BOOL, CONV_PRIV(PRED_ODD) },
	{ "even", conv_pred, 0, { 0 }, NULL, SMP_T_SINT, SMP_T_BOOL, CONV_PRIV(PRED_EVEN) },
	{ "iif", conv_iif, 2, { ARGT_STR, ARGT_STR }, NULL, SMP_T_BOOL, SMP_T_STR, NULL },
	{ "htonl", conv_htonl, 0, { 0 }, NULL, SMP_T_SINT, SMP_T_BIN, NULL },
	{ "ipmask", conv_ipmask, 1, { ARGT_MSK4, ARGT_MSK6 }, NULL, SMP_T_ADDR, SMP_T_ADDR, NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(num_convs)
