/* The sample engine's core: keyword registries, expression parsing, casts between sample
 * types, evaluation, and the per-thread scratch chunks converters write into. Argument
 * parsing is in arg.c; fetches and converters live in the fetch_*.c and conv_*.c files
 * that register them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/compiler.h>
#include <proc/global-t.h>
#include <sample/conv.h>
#include <sample/sample.h>

static struct sample_fetch_kw_list *fetch_kws;
static struct sample_conv_kw_list *conv_kws;

void sample_register_fetches(struct sample_fetch_kw_list *kwl)
{
	kwl->next = fetch_kws;
	fetch_kws = kwl;
}

void sample_register_convs(struct sample_conv_kw_list *kwl)
{
	kwl->next = conv_kws;
	conv_kws = kwl;
}

static bool kw_is(const char *kw, const char *s, size_t len)
{
	return strlen(kw) == len && !memcmp(kw, s, len);
}

const struct sample_fetch *sample_find_fetch(const char *kw, size_t len)
{
	for (const struct sample_fetch_kw_list *l = fetch_kws; l; l = l->next)
		for (const struct sample_fetch *f = l->kws; f->kw; f++)
			if (kw_is(f->kw, kw, len))
				return f;
	return NULL;
}

const struct sample_conv *sample_find_conv(const char *kw, size_t len)
{
	for (const struct sample_conv_kw_list *l = conv_kws; l; l = l->next)
		for (const struct sample_conv *c = l->kws; c->kw; c++)
			if (kw_is(c->kw, kw, len))
				return c;
	return NULL;
}

const char *smp_type_name(int type)
{
	static const char *const names[SMP_TYPES] = {
		[SMP_T_ANY] = "any",   [SMP_T_BOOL] = "bool", [SMP_T_SINT] = "sint",
		[SMP_T_ADDR] = "addr", [SMP_T_IPV4] = "ipv4", [SMP_T_IPV6] = "ipv6",
		[SMP_T_STR] = "str",   [SMP_T_BIN] = "bin",   [SMP_T_METH] = "meth",
	};

	return type >= 0 && type < SMP_TYPES ? names[type] : "?";
}

/* ---- scratch chunks ---- */

#define SMP_TRASH_N 4
static __thread char *trash_chunks[SMP_TRASH_N];
static __thread unsigned int trash_next;

int smp_trash_init_thread(void)
{
	for (int i = 0; i < SMP_TRASH_N; i++) {
		if (trash_chunks[i])
			continue;
		trash_chunks[i] = malloc(smp_trash_size());
		if (!trash_chunks[i])
			return -1;
	}
	return 0;
}

void smp_trash_deinit_thread(void)
{
	for (int i = 0; i < SMP_TRASH_N; i++) {
		free(trash_chunks[i]);
		trash_chunks[i] = NULL;
	}
}

size_t smp_trash_size(void)
{
	return global.tune_bufsize ? global.tune_bufsize : 16384;
}

char *smp_trash(void)
{
	char *c;

	if (unlikely(!trash_chunks[0]) && smp_trash_init_thread() < 0)
		return NULL;
	c = trash_chunks[trash_next++ % SMP_TRASH_N];
	return c;
}

/* ---- casts ---- */

static int c_int2str(struct sample *smp)
{
	char *t = smp_trash();
	int n;

	if (!t)
		return 0;
	n = snprintf(t, 32, "%lld", smp->data.u.sint);
	smp->data.u.str = ist2(t, (size_t)n);
	smp->data.type = SMP_T_STR;
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

static int c_ip2str(struct sample *smp)
{
	char *t = smp_trash();
	int af = smp->data.type == SMP_T_IPV4 ? AF_INET : AF_INET6;

	if (!t || !inet_ntop(af, &smp->data.u, t, INET6_ADDRSTRLEN))
		return 0;
	smp->data.u.str = ist_str(t);
	smp->data.type = SMP_T_STR;
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* HAProxy's str-to-int (read_int64): an optional sign then digits, stopping at the first
 * other character and saturating at the 64-bit limits; text without digits is 0, only an
 * empty string fails. */
static int c_str2int(struct sample *smp)
{
	const char *end;

	if (!smp->data.u.str.len)
		return 0;
	smp->data.u.sint = conv_read_int64(smp->data.u.str.ptr, smp->data.u.str.len, &end);
	smp->data.type = SMP_T_SINT;
	return 1;
}

/* int and bool to bin: the 8 bytes of the value in network order, as HAProxy does */
static int c_int2bin(struct sample *smp)
{
	uint64_t v = (uint64_t)smp->data.u.sint;
	char *t = smp_trash();

	if (!t)
		return 0;
	for (int i = 7; i >= 0; i--, v >>= 8)
		t[i] = (char)(v & 0xff);
	smp->data.u.str = ist2(t, 8);
	smp->data.type = SMP_T_BIN;
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

static int c_str2ip(struct sample *smp, int af)
{
	char tmp[INET6_ADDRSTRLEN];
	struct ist s = smp->data.u.str;

	if (s.len >= sizeof(tmp))
		return 0;
	memcpy(tmp, s.ptr, s.len);
	tmp[s.len] = 0;
	if (inet_pton(af, tmp, &smp->data.u) != 1)
		return 0;
	smp->data.type = af == AF_INET ? SMP_T_IPV4 : SMP_T_IPV6;
	return 1;
}

static void c_ip4to6(struct sample *smp)
{
	struct in_addr a = smp->data.u.ipv4;

	memset(&smp->data.u.ipv6, 0, sizeof(smp->data.u.ipv6));
	smp->data.u.ipv6.s6_addr[10] = 0xff;
	smp->data.u.ipv6.s6_addr[11] = 0xff;
	memcpy(&smp->data.u.ipv6.s6_addr[12], &a, 4);
	smp->data.type = SMP_T_IPV6;
}

static int c_ip6to4(struct sample *smp)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct in_addr a;

	if (memcmp(smp->data.u.ipv6.s6_addr, v4mapped, 12) != 0)
		return 0;
	memcpy(&a, &smp->data.u.ipv6.s6_addr[12], 4);
	smp->data.u.ipv4 = a;
	smp->data.type = SMP_T_IPV4;
	return 1;
}

static int cast_from_str(struct sample *smp, int to)
{
	switch (to) {
	case SMP_T_BOOL:
		if (!c_str2int(smp))
			return 0;
		smp->data.u.sint = !!smp->data.u.sint;
		smp->data.type = SMP_T_BOOL;
		return 1;
	case SMP_T_SINT:
		return c_str2int(smp);
	case SMP_T_IPV4:
	case SMP_T_ADDR:
		if (c_str2ip(smp, AF_INET))
			return 1;
		return to == SMP_T_ADDR && c_str2ip(smp, AF_INET6);
	case SMP_T_IPV6:
		return c_str2ip(smp, AF_INET6);
	case SMP_T_BIN:
	case SMP_T_METH:
	case SMP_T_STR:
		smp->data.type = to;
		return 1;
	}
	return 0;
}

int sample_cast(struct sample *smp, int to)
{
	int from = smp->data.type;

	if (to == SMP_T_ANY || from == to)
		return 1;
	if (to == SMP_T_ADDR && (from == SMP_T_IPV4 || from == SMP_T_IPV6))
		return 1;
	switch (from) {
	case SMP_T_BOOL:
	case SMP_T_SINT:
		if (to == SMP_T_BOOL || to == SMP_T_SINT) {
			if (to == SMP_T_BOOL)
				smp->data.u.sint = !!smp->data.u.sint;
			smp->data.type = to;
			return 1;
		}
		if (to == SMP_T_IPV4 || to == SMP_T_ADDR || to == SMP_T_IPV6) {
			smp->data.u.ipv4.s_addr = htonl((uint32_t)smp->data.u.sint);
			smp->data.type = SMP_T_IPV4;
			if (to == SMP_T_IPV6)
				c_ip4to6(smp);
			return 1;
		}
		if (to == SMP_T_BIN)
			return c_int2bin(smp);
		if (to != SMP_T_STR)
			return 0;
		return c_int2str(smp);
	case SMP_T_IPV4:
		if (to == SMP_T_IPV6) {
			c_ip4to6(smp);
			return 1;
		}
		if (to == SMP_T_SINT) {
			smp->data.u.sint = ntohl(smp->data.u.ipv4.s_addr);
			smp->data.type = SMP_T_SINT;
			return 1;
		}
		/* fall through */
	case SMP_T_IPV6:
		if (to == SMP_T_IPV4)
			return c_ip6to4(smp);
		if (to == SMP_T_BIN) {
			size_t n = from == SMP_T_IPV4 ? 4 : 16;
			char *t = smp_trash();

			if (!t)
				return 0;
			memcpy(t, &smp->data.u, n);
			smp->data.u.str = ist2(t, n);
			smp->data.type = SMP_T_BIN;
			smp->flags &= ~SMP_F_CONST;
			return 1;
		}
		if (to != SMP_T_STR)
			return 0;
		return c_ip2str(smp);
	case SMP_T_STR:
	case SMP_T_METH:
		return cast_from_str(smp, to);
	case SMP_T_BIN:
		if (to == SMP_T_STR) {
			smp->data.type = SMP_T_STR;
			return 1;
		}
		return 0;
	}
	return 0;
}

int sample_can_cast(int from, int to)
{
	if (to == SMP_T_ANY || from == SMP_T_ANY || from == to)
		return 1;
	switch (from) {
	case SMP_T_BOOL:
	case SMP_T_SINT:
		return to != SMP_T_METH;
	case SMP_T_ADDR:
	case SMP_T_IPV4:
	case SMP_T_IPV6:
		return to == SMP_T_ADDR || to == SMP_T_IPV4 || to == SMP_T_IPV6 ||
		       to == SMP_T_STR || to == SMP_T_BIN || to == SMP_T_SINT;
	case SMP_T_STR:
	case SMP_T_METH:
		return 1;
	case SMP_T_BIN:
		return to == SMP_T_STR;
	}
	return 0;
}

int smp_make_rw(struct sample *smp)
{
	char *t;

	if (!(smp->flags & SMP_F_CONST))
		return 1;
	t = smp_trash();
	if (!t || smp->data.u.str.len > smp_trash_size())
		return 0;
	memcpy(t, smp->data.u.str.ptr, smp->data.u.str.len);
	smp->data.u.str.ptr = t;
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

int smp_to_text(const struct sample *smp, char *out, size_t outsz)
{
	struct sample tmp = *smp;
	size_t n;

	if (tmp.data.type != SMP_T_STR && tmp.data.type != SMP_T_BIN &&
	    tmp.data.type != SMP_T_METH && !sample_cast(&tmp, SMP_T_STR))
		return -1;
	n = tmp.data.u.str.len;
	if (n > outsz)
		return -1;
	memcpy(out, tmp.data.u.str.ptr, n);
	return (int)n;
}

/* ---- comparison ---- */

static bool arg_equal(const struct arg *a, const struct arg *b)
{
	if (a->type != b->type || a->unresolved != b->unresolved)
		return false;
	switch (a->type) {
	case ARGT_SINT:
	case ARGT_TIME:
	case ARGT_SIZE:
		return a->data.sint == b->data.sint;
	case ARGT_IPV4:
	case ARGT_MSK4:
		return a->data.ipv4.s_addr == b->data.ipv4.s_addr;
	case ARGT_IPV6:
	case ARGT_MSK6:
		return !memcmp(&a->data.ipv6, &b->data.ipv6, sizeof(a->data.ipv6));
	case ARGT_VAR:
		return a->data.var.scope == b->data.var.scope && a->data.var.id == b->data.var.id;
	case ARGT_STR:
		return ist_eq(a->data.str, b->data.str);
	}
	if (a->unresolved || a->owns == ARG_OWN_STR)
		return a->owns == b->owns && ist_eq(a->data.str, b->data.str);
	/* resolved names, maps, regexes: the same object */
	return !memcmp(&a->data, &b->data, sizeof(a->data));
}

static bool args_equal(const struct arg *a, const struct arg *b)
{
	if (!a || !b)
		return a == b;
	for (; a->type != ARGT_STOP || b->type != ARGT_STOP; a++, b++)
		if (!arg_equal(a, b))
			return false;
	return true;
}

bool sample_expr_equal(const struct sample_expr *a, const struct sample_expr *b)
{
	if (a->fetch != b->fetch || a->nconv != b->nconv || !args_equal(a->args, b->args))
		return false;
	for (int i = 0; i < a->nconv; i++)
		if (a->conv[i].conv != b->conv[i].conv ||
		    !args_equal(a->conv[i].args, b->conv[i].args))
			return false;
	return true;
}

/* ---- evaluation ---- */

int sample_process(const struct sample_expr *expr, struct sample *smp)
{
	if (!expr->fetch->fn(expr->args, smp, expr->fetch))
		return 0;
	for (int i = 0; i < expr->nconv; i++) {
		const struct sample_conv_expr *ce = &expr->conv[i];

		if (!sample_cast(smp, ce->conv->in_type))
			return 0;
		if (!ce->conv->fn(ce->args, smp, ce->conv->private))
			return 0;
	}
	return 1;
}

int sample_process_as(const struct sample_expr *expr, struct sample *smp, int type)
{
	return sample_process(expr, smp) && sample_cast(smp, type);
}

/* ---- validity of fetches where a rule runs ---- */

struct use_name {
	uint32_t use;
	uint32_t where; /* SMP_VAL_* where this information exists */
	const char *name;
};

__thread const struct h1_msg *smp_check_rsp;

static const struct use_name use_names[] = {
	/* the request's bytes are gone when the log line is written (HAProxy's log formats
	 * refuse "path", "req.hdr"...) */
	{ SMP_USE_L6REQ, SMP_VAL_REQ_CNT | SMP_VAL_HRQ_HDR, "request buffer contents" },
	{ SMP_USE_HRQHV, SMP_VAL_REQ_CNT | SMP_VAL_HRQ_HDR, "HTTP request headers" },
	{ SMP_USE_HRQBO, SMP_VAL_REQ_CNT | SMP_VAL_HRQ_HDR, "HTTP request body" },
	{ SMP_USE_BKEND,
	  SMP_VAL_BE | SMP_VAL_RES_CNT | SMP_VAL_HRS_HDR | SMP_VAL_LOG_END | SMP_VAL_CHECK,
	  "backend" },
	{ SMP_USE_SERVR, SMP_VAL_RES_CNT | SMP_VAL_HRS_HDR | SMP_VAL_LOG_END | SMP_VAL_CHECK,
	  "server" },
	{ SMP_USE_L6RES, SMP_VAL_RES_CNT | SMP_VAL_HRS_HDR, "response buffer contents" },
	{ SMP_USE_HRSHV, SMP_VAL_RES_CNT | SMP_VAL_HRS_HDR | SMP_VAL_LOG_END | SMP_VAL_CHECK,
	  "HTTP response headers" }, /* in a check: its HTTP response (smp_check_rsp) */
	{ SMP_USE_HRSBO, SMP_VAL_RES_CNT | SMP_VAL_HRS_HDR, "HTTP response body" },
	{ SMP_USE_L4CLI, ~(uint32_t)(SMP_VAL_CFG | SMP_VAL_CHECK), "client connection" },
};

/* As in HAProxy, a fetch is valid where any of the sources it declares is available
 * ("hdr" reads the request in request rules and the response in response rules). Only
 * SMP_USE_BKEND looks at the SMP_VAL_BE modifier: the rule's proxy has a backend side. */
int sample_check_use(uint32_t use, uint32_t where, char *err, size_t errsz)
{
	uint32_t w = where & ~SMP_VAL_BE;
	const char *missing = NULL;

	if (!w || (use & SMP_USE_INTRN))
		return 0;
	for (size_t i = 0; i < sizeof(use_names) / sizeof(use_names[0]); i++) {
		const struct use_name *u = &use_names[i];

		if (!(use & u->use))
			continue;
		if (u->where & (u->use == SMP_USE_BKEND ? where : w))
			return 0;
		if (!missing)
			missing = u->name;
	}
	if (!missing)
		return 0;
	snprintf(err, errsz, "%s", missing);
	return -1;
}

/* ---- parsing ---- */

/* Length of the keyword at <s>: letters, digits and ._- */
static size_t kw_len(const char *s)
{
	size_t n = 0;

	while (s[n] && (s[n] == '_' || s[n] == '.' || s[n] == '-' || (s[n] >= 'a' && s[n] <= 'z') ||
			(s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9')))
		n++;
	return n;
}

void sample_expr_free(struct sample_expr *expr)
{
	if (!expr)
		return;
	arg_free_list(expr->args);
	for (int i = 0; i < expr->nconv; i++)
		arg_free_list(expr->conv[i].args);
	free(expr);
}

static int parse_fetch(struct sample_expr *e, const char **p, const struct smp_parse_ctx *pc,
		       char *err, size_t errsz)
{
	const char *start = *p;
	size_t n = kw_len(*p);
	int nb;

	e->fetch = n ? sample_find_fetch(*p, n) : NULL;
	if (!e->fetch) {
		if (!n)
			snprintf(err, errsz, "missing fetch method");
		else if (n > 4 && !memcmp(*p, "fcgi.", 5))
			snprintf(err, errsz,
				 "fetch method '%.*s' is not supported yet (it reads a FastCGI "
				 "application's settings)",
				 (int)n, *p);
		else if (n > 8 && !memcmp(*p, "internal.", 9))
			snprintf(err, errsz,
				 "fetch method '%.*s' is not supported (it reads "
				 "HAProxy's internal HTX buffers, which this proxy does not have)",
				 (int)n, *p);
		else
			snprintf(err, errsz, "unknown fetch method '%.*s'", (int)n, *p);
		return -1;
	}
	*p += n;
	e->args = arg_parse_list(p, e->fetch->arg_min, e->fetch->arg_types, e->fetch->kw, pc, &nb,
				 err, errsz);
	if (nb < 0)
		return -1;
	if (e->fetch->val && e->fetch->val(e->args, (void *)e->fetch, err, errsz) < 0)
		return -1;
	if (pc && pc->where) {
		char why[128];

		if (sample_check_use(e->fetch->use, pc->where, why, sizeof(why)) < 0) {
			snprintf(err, errsz,
				 "sample fetch <%s> may not be reliably used here "
				 "because it needs '%s' which is not available here",
				 start, why);
			return -1;
		}
	}
	return 0;
}

const struct smp_parse_ctx *smp_parse_cur;

static int parse_conv(struct sample_expr *e, const char **p, int *type,
		      const struct smp_parse_ctx *pc, char *err, size_t errsz)
{
	size_t n = kw_len(*p);
	const struct sample_conv *c = n ? sample_find_conv(*p, n) : NULL;
	struct sample_conv_expr *ce;
	int nb;

	if (!c) {
		if (!n)
			snprintf(err, errsz, "missing converter after ','");
		else if (conv_unsupported(*p, n))
			snprintf(err, errsz, "converter '%.*s' %s", (int)n, *p,
				 conv_unsupported(*p, n));
		else
			snprintf(err, errsz, "unknown converter '%.*s'", (int)n, *p);
		return -1;
	}
	if (e->nconv >= SMP_MAX_CONVS) {
		snprintf(err, errsz, "too many converters (max %d)", SMP_MAX_CONVS);
		return -1;
	}
	if (!sample_can_cast(*type, c->in_type)) {
		snprintf(err, errsz, "converter '%s' cannot be applied to a sample of type '%s'",
			 c->kw, smp_type_name(*type));
		return -1;
	}
	*p += n;
	ce = &e->conv[e->nconv++];
	ce->conv = c;
	ce->args = arg_parse_list(p, c->arg_min, c->arg_types, c->kw, pc, &nb, err, errsz);
	if (nb < 0)
		return -1;
	smp_parse_cur = pc; /* map references name the rule's file and line (map.c) */
	if (c->val && c->val(ce->args, c->private, err, errsz) < 0) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errsz, "invalid args in converter '%s' : %s", c->kw, msg);
		return -1;
	}
	if (c->out_type != SMP_T_ANY)
		*type = c->out_type;
	return 0;
}

struct sample_expr *sample_parse_expr(const char *str, const char **endp,
				      const struct smp_parse_ctx *pc, char *err, size_t errsz)
{
	struct sample_expr *e = calloc(1, sizeof(*e) + SMP_MAX_CONVS * sizeof(e->conv[0]));
	const char *p = str;
	int type;

	if (!e) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	if (parse_fetch(e, &p, pc, err, errsz) < 0)
		goto fail;
	type = e->fetch->out_type;
	while (*p == ',') {
		p++;
		if (parse_conv(e, &p, &type, pc, err, errsz) < 0)
			goto fail;
	}
	if (endp && *p == ']') {
		*endp = p;
		return e;
	}
	if (*p) {
		snprintf(err, errsz, "unexpected '%s' after the expression", p);
		goto fail;
	}
	if (endp) {
		snprintf(err, errsz, "missing ']'");
		goto fail;
	}
	return e;
fail:
	sample_expr_free(e);
	return NULL;
}
