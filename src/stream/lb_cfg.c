/* The "balance", "hash-type" and "hash-balance-factor" keywords of backends: the algorithm
 * and, for the hash-based ones, the key (struct lb_key, compiled into sample expressions
 * with the backend's request context). Lives above sample/ for "balance hash EXPR"; the
 * picks themselves are in backend/ and the key's evaluation in lb_key.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy_cfg.h>
#include <sample/sample.h>
#include <stream/lb_key.h>

/* "random", "random(N)": N in 1..100; returns the draws or -1. */
static int lbcfg_random_draws(const char *a)
{
	char num[16];
	size_t len;
	long n;

	if (!strcmp(a, "random"))
		return 2;
	if (strncmp(a, "random(", 7) || a[strlen(a) - 1] != ')')
		return -1;
	len = strlen(a) - 8;
	if (!len || len >= sizeof(num))
		return -1;
	memcpy(num, a + 7, len);
	num[len] = 0;
	if (parse_long(num, 1, 100, &n) < 0)
		return -1;
	return (int)n;
}

/* Installs <k> (may be NULL) as the key of ctx->px with algorithm <algo>. */
static int lbcfg_set(struct cfg_ctx *ctx, int algo, struct lb_key *k)
{
	struct proxy *px = ctx->px;

	if (px->lb_key_own)
		lb_key_free(px->lb_key);
	px->lb_key = k;
	px->lb_key_own = k != NULL;
	px->lbalgo = algo;
	px->lb_static = !strcmp(ctx->args[1], "static-rr");
	px->lb_set = true;
	return 0;
}

/* Compiles <expr> for the backend's request rules into *out; alerts on error. */
static int lbcfg_expr(struct cfg_ctx *ctx, const char *expr, struct sample_expr **out)
{
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px, SMP_VAL_HRQ_HDR | SMP_VAL_BE,
				    "balance" };
	char err[256];

	*out = sample_parse_expr(expr, NULL, &pc, err, sizeof(err));
	if (*out)
		return 0;
	cfg_alert(ctx, "failed to parse 'balance %s' expression '%s': %s", ctx->args[1], expr, err);
	return -1;
}

static struct lb_key *lbcfg_key_new(struct cfg_ctx *ctx)
{
	struct lb_key *k = calloc(1, sizeof(*k));

	if (!k)
		cfg_alert(ctx, "out of memory.");
	return k;
}

/* uri [len N] [depth N] [whole] [path-only] */
static int lbcfg_uri(struct cfg_ctx *ctx, struct lb_key *k)
{
	for (int i = 2; i < ctx->nargs; i++) {
		const char *a = ctx->args[i];
		long n;

		if (!strcmp(a, "whole")) {
			k->flags |= LBK_F_WHOLE;
		} else if (!strcmp(a, "path-only")) {
			k->flags |= LBK_F_PATH_ONLY;
		} else if (!strcmp(a, "len") || !strcmp(a, "depth")) {
			const char *v = i + 1 < ctx->nargs ? ctx->args[i + 1] : "";

			if (parse_long(v, 1, INT32_MAX, &n) < 0) {
				cfg_alert(
					ctx,
					"balance uri : '%s' expects a positive integer (got '%s').",
					a, v);
				return -1;
			}
			*(a[0] == 'l' ? &k->uri_len : &k->uri_depth) = (int)n;
			i++;
		} else {
			cfg_alert(
				ctx,
				"balance uri only accepts parameters 'len', 'depth', 'path-only', "
				"and 'whole' (got '%s').",
				a);
			return -1;
		}
	}
	return lbcfg_expr(ctx, "url", &k->expr);
}

/* url_param NAME [check_post] */
static int lbcfg_url_param(struct cfg_ctx *ctx, struct lb_key *k)
{
	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "balance url_param requires an URL parameter name.");
		return -1;
	}
	for (int i = 3; i < ctx->nargs; i++) {
		if (strcmp(ctx->args[i], "check_post")) {
			cfg_alert(
				ctx,
				"balance url_param only accepts 'check_post' modifier (got '%s').",
				ctx->args[i]);
			return -1;
		}
		k->flags |= LBK_F_CHECK_POST;
	}
	k->name = strdup(ctx->args[2]);
	if (!k->name) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	k->name_len = strlen(k->name);
	if ((k->flags & LBK_F_CHECK_POST) && lbcfg_expr(ctx, "req.body", &k->body) < 0)
		return -1;
	return lbcfg_expr(ctx, "url", &k->expr);
}

/* hdr(NAME) [use_domain_only]: the first value of the first NAME header */
static int lbcfg_hdr(struct cfg_ctx *ctx, struct lb_key *k)
{
	const char *a = ctx->args[1] + 4, *end = strchr(a, ')');
	char expr[300];
	size_t len = end ? (size_t)(end - a) : 0;

	if (!len) {
		cfg_alert(ctx, "balance hdr requires an http header field name.");
		return -1;
	}
	for (int i = 2; i < ctx->nargs; i++) {
		if (strcmp(ctx->args[i], "use_domain_only")) {
			cfg_alert(ctx, "%s %s only accepts 'use_domain_only' modifier (got '%s').",
				  ctx->args[0], ctx->args[1], ctx->args[i]);
			return -1;
		}
		k->flags |= LBK_F_DOMAIN_ONLY;
	}
	if (len > 200 || memchr(a, ',', len)) {
		cfg_alert(ctx, "balance hdr: invalid header field name '%.*s'.", (int)len, a);
		return -1;
	}
	snprintf(expr, sizeof(expr), "req.hdr(%.*s,1)", (int)len, a);
	return lbcfg_expr(ctx, expr, &k->expr);
}

/* rdp-cookie[(NAME)]: the value of the RDP cookie NAME ("mstshash" by default) the client
 * sends first in mode tcp; without one (and always in mode http), round robin */
static int lbcfg_rdp(struct cfg_ctx *ctx, struct lb_key *k)
{
	const char *a = ctx->args[1] + 10;
	char expr[300];
	size_t len = 8;
	const char *name = "mstshash";

	if (*a && (*a != '(' || a[1] == ')' || !strchr(a, ')'))) {
		cfg_alert(ctx, "balance rdp-cookie : missing cookie name.");
		return -1;
	}
	if (*a) {
		name = a + 1;
		len = (size_t)(strchr(a, ')') - name);
	}
	if (len > 200) {
		cfg_alert(ctx, "balance rdp-cookie : cookie name too long.");
		return -1;
	}
	snprintf(expr, sizeof(expr), "req.rdp_cookie(%.*s)", (int)len, name);
	return lbcfg_expr(ctx, expr, &k->expr);
}

/* The hash-based algorithms; <algo> says which. */
static int lbcfg_hashed(struct cfg_ctx *ctx, int algo)
{
	struct lb_key *k = lbcfg_key_new(ctx);
	int err = 0;

	if (!k)
		return -1;
	switch (algo) {
	case LB_ALGO_SOURCE:
		err = lbcfg_expr(ctx, "src", &k->expr);
		break;
	case LB_ALGO_URI:
		err = lbcfg_uri(ctx, k);
		break;
	case LB_ALGO_URL_PARAM:
		err = lbcfg_url_param(ctx, k);
		break;
	case LB_ALGO_HDR:
		err = lbcfg_hdr(ctx, k);
		break;
	case LB_ALGO_RDP_COOKIE:
		err = lbcfg_rdp(ctx, k);
		break;
	default:
		if (ctx->nargs < 3 || !*ctx->args[2]) {
			cfg_alert(ctx, "balance hash requires a sample expression.");
			err = -1;
		} else {
			err = lbcfg_expr(ctx, ctx->args[2], &k->expr);
		}
		break;
	}
	if (err < 0) {
		lb_key_free(k);
		return -1;
	}
	return lbcfg_set(ctx, algo, k);
}

/* balance ALGO [ARGS]: roundrobin, static-rr (roundrobin's distribution; run-time weights
 * only 0 or the initial one), leastconn, random[(N)], first, and the
 * hash-based source, uri, url_param, hdr(), rdp-cookie[()], hash. */
static int lbcfg_balance(struct cfg_ctx *ctx)
{
	const char *a = ctx->nargs > 1 ? ctx->args[1] : "";

	if (!ctx->px || !proxy_cfg_has_cap(ctx, PR_CAP_BE, "balance"))
		return ctx->px ? 0 : -1;
	if (!*a)
		return 0; /* HAProxy accepts a bare "balance" and changes nothing */
	if (!strcmp(a, "roundrobin") || !strcmp(a, "static-rr") || !strcmp(a, "leastconn")) {
		if (proxy_cfg_max_args(ctx, 1, 1) < 0)
			return -1;
		return lbcfg_set(ctx, a[0] == 'l' ? LB_ALGO_LEASTCONN : LB_ALGO_ROUNDROBIN, NULL);
	}
	if (!strncmp(a, "random", 6)) {
		int n = lbcfg_random_draws(a);

		if (n < 0) {
			cfg_alert(ctx,
				  "'balance random' expects 'random' or 'random(<draws>)' with "
				  "<draws> between 1 and 100, got '%s'.",
				  a);
			return -1;
		}
		if (proxy_cfg_max_args(ctx, 1, 1) < 0)
			return -1;
		ctx->px->lb_draws = n;
		return lbcfg_set(ctx, LB_ALGO_RANDOM, NULL);
	}
	if (!strcmp(a, "first"))
		return lbcfg_set(ctx, LB_ALGO_FIRST, NULL);
	if (!strcmp(a, "source"))
		return lbcfg_hashed(ctx, LB_ALGO_SOURCE);
	if (!strcmp(a, "uri"))
		return lbcfg_hashed(ctx, LB_ALGO_URI);
	if (!strcmp(a, "url_param"))
		return lbcfg_hashed(ctx, LB_ALGO_URL_PARAM);
	if (!strncmp(a, "hdr(", 4))
		return lbcfg_hashed(ctx, LB_ALGO_HDR);
	if (!strncmp(a, "rdp-cookie", 10))
		return lbcfg_hashed(ctx, LB_ALGO_RDP_COOKIE);
	if (!strcmp(a, "hash"))
		return lbcfg_hashed(ctx, LB_ALGO_HASH);
	cfg_alert(ctx, "balance only supports 'roundrobin', 'static-rr', 'leastconn', 'source', "
		       "'uri', 'url_param', 'hdr(name)' and 'rdp-cookie(name)' options.");
	return -1;
}

/* hash-type map-based|consistent [sdbm|djb2|wt6|crc32|none] [avalanche] */
static int lbcfg_hash_type(struct cfg_ctx *ctx)
{
	static const char *const fns[] = { "sdbm", "djb2", "wt6", "crc32", "none", NULL };
	const char *t = ctx->nargs > 1 ? ctx->args[1] : "";
	int type, fn = LB_HFN_SDBM;
	bool aval = false;

	if (!ctx->px || !proxy_cfg_has_cap(ctx, PR_CAP_BE, "hash-type"))
		return ctx->px ? 0 : -1;
	if (strcmp(t, "map-based") && strcmp(t, "consistent")) {
		cfg_alert(ctx, "'hash-type' only supports 'consistent' and 'map-based'.");
		return -1;
	}
	type = t[0] == 'c' ? LB_HASH_CONSISTENT : LB_HASH_MAP;
	if (ctx->nargs > 2 && *ctx->args[2]) {
		for (fn = 0; fns[fn] && strcmp(fns[fn], ctx->args[2]); fn++)
			;
		if (!fns[fn]) {
			cfg_alert(ctx,
				  "'hash-type' only supports 'sdbm', 'djb2', 'crc32', 'wt6' or "
				  "'none' hash functions.");
			return -1;
		}
		if (ctx->nargs > 3 && *ctx->args[3]) {
			if (strcmp(ctx->args[3], "avalanche")) {
				cfg_alert(ctx,
					  "'hash-type' only supports 'avalanche' as a modifier for "
					  "hash functions.");
				return -1;
			}
			aval = true;
		}
	}
	ctx->px->hash_type = (uint8_t)type;
	ctx->px->hash_fn = (uint8_t)fn;
	ctx->px->hash_avalanche = aval;
	return 0;
}

/* hash-balance-factor N: 0 (off) or more than 100 (percent of the average load) */
static int lbcfg_hash_balance_factor(struct cfg_ctx *ctx)
{
	long n;

	if (!ctx->px || !proxy_cfg_has_cap(ctx, PR_CAP_BE, "hash-balance-factor"))
		return ctx->px ? 0 : -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'hash-balance-factor' expects an integer argument.");
		return -1;
	}
	n = atol(ctx->args[1]); /* as HAProxy: a word that is no number reads as 0 */
	if (n != 0 && (n <= 100 || n > INT32_MAX)) {
		cfg_alert(ctx, "'hash-balance-factor' must be 0 or greater than 100.");
		return -1;
	}
	ctx->px->hash_balance_factor = (int)n;
	return 0;
}

#define PXS CFG_SEC_PROXIES
static const struct cfg_kw lbcfg_kws[] = {
	{ "balance", PXS, lbcfg_balance },
	{ "hash-type", PXS, lbcfg_hash_type },
	{ "hash-balance-factor", PXS, lbcfg_hash_balance_factor },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(lbcfg_kws);
