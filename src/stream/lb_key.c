/* The key of the hash-based "balance" algorithms, taken from a stream and hashed with the
 * backend's "hash-type" function: registered as backend's lb_key_hash_hook (backend/ sits
 * below the sample engine). Owns neither the config parsing (lb_cfg.c) nor the choice of
 * a server from the hash (backend/lb_hash.c). Owner thread of the stream; no allocation.
 */
#include <stdlib.h>
#include <string.h>
#include <backend/backend.h>
#include <sample/hash.h>
#include <sample/sample.h>
#include <sample/smp_http.h>
#include <stream/lb_key.h>

/* "hash-type ... none": the key's first 8 bytes as a big-endian number, low 32 bits. */
static uint32_t lb_hash_none(const unsigned char *p, size_t len)
{
	uint64_t v = 0;

	for (size_t i = 0; i < len && i < 8; i++)
		v = (v << 8) | p[i];
	return (uint32_t)v;
}

uint32_t lb_key_hash(const struct proxy *px, const void *key, size_t len)
{
	uint32_t h;

	switch (px->hash_fn) {
	case LB_HFN_DJB2:
		h = hash_djb2(key, len);
		break;
	case LB_HFN_WT6:
		h = hash_wt6(key, len);
		break;
	case LB_HFN_CRC32:
		h = hash_crc32(key, len);
		break;
	case LB_HFN_NONE:
		h = lb_hash_none(key, len);
		break;
	default:
		h = hash_sdbm(key, len);
		break;
	}
	return px->hash_avalanche ? hash_avalanche32(h) : h;
}

struct ist lb_key_uri(const struct lb_key *k, struct ist uri)
{
	const char *p = uri.ptr, *end = uri.ptr + uri.len;
	int slashes = 0;
	size_t n = 0;

	if ((k->flags & LBK_F_PATH_ONLY) && uri.len && *p != '/') {
		const char *sep = memmem(p, uri.len, "://", 3);

		if (sep) {
			p = sep + 3;
			while (p < end && *p != '/')
				p++;
		}
	}
	if (k->uri_len && (size_t)(end - p) > (size_t)k->uri_len)
		end = p + k->uri_len;
	for (; p + n < end; n++) {
		if (p[n] == '?' && !(k->flags & LBK_F_WHOLE))
			break;
		if (p[n] == '/' && k->uri_depth && ++slashes > k->uri_depth)
			break;
	}
	return ist2(p, n);
}

struct ist lb_key_domain(struct ist v)
{
	const char *p = v.ptr, *e = v.ptr + v.len, *dot = NULL;

	for (const char *q = e; q > p; q--) {
		if (q[-1] == '.') {
			dot = q - 1;
			break;
		}
	}
	if (!dot)
		return v;
	e = dot;
	while (dot > p && dot[-1] != '.')
		dot--;
	return ist2(dot, (size_t)(e - dot));
}

/* url_param: the value of k->name in the query string, then (check_post) in the body of a
 * POST request already received. */
static bool lb_key_param(const struct lb_key *k, struct stream *s, const struct smp_ctx *ctx,
			 struct sample *smp, struct ist *val)
{
	struct ist name = ist2(k->name, k->name_len), rest = smp_param_list(smp->data.u.str, '?');

	if (rest.ptr && smp_param_next(&rest, name, '?', val))
		return true;
	if (!k->body || !s->req.meth.len || !ist_eq(s->req.meth, ist_str("POST")))
		return false;
	memset(smp, 0, sizeof(*smp));
	smp->ctx = ctx;
	if (!sample_process(k->body, smp))
		return false;
	rest = smp->data.u.str;
	return smp_param_next(&rest, name, '&', val);
}

/* The backend hook: the hash of s's key, false when it has none. */
static bool lb_key_stream_hash(struct stream *s, uint32_t *hash)
{
	struct proxy *be = s->be;
	const struct lb_key *k = be->lb_key;
	struct smp_ctx ctx = { s, s->front, be, SMP_OPT_DIR_REQ | SMP_OPT_FINAL };
	struct sample smp = { .ctx = &ctx };
	struct ist key;

	if (!k || !k->expr || !sample_process(k->expr, &smp))
		return false;
	switch (be->lbalgo) {
	case LB_ALGO_SOURCE:
		if (smp.data.type == SMP_T_IPV4)
			key = ist2(&smp.data.u.ipv4, 4);
		else if (smp.data.type == SMP_T_IPV6)
			key = ist2(&smp.data.u.ipv6, 16);
		else
			return false;
		break;
	case LB_ALGO_URI:
		if (!sample_cast(&smp, SMP_T_STR))
			return false;
		key = lb_key_uri(k, smp.data.u.str);
		break;
	case LB_ALGO_URL_PARAM:
		if (!sample_cast(&smp, SMP_T_STR) || !lb_key_param(k, s, &ctx, &smp, &key))
			return false;
		break;
	case LB_ALGO_HDR:
		if (!sample_cast(&smp, SMP_T_STR) || !smp.data.u.str.len)
			return false;
		key = smp.data.u.str;
		if (k->flags & LBK_F_DOMAIN_ONLY)
			key = lb_key_domain(key);
		break;
	case LB_ALGO_RDP_COOKIE: /* no cookie (yet): round robin, as HAProxy */
		if (!sample_cast(&smp, SMP_T_STR) || !smp.data.u.str.len)
			return false;
		key = smp.data.u.str;
		break;
	default: /* hash EXPR */
		if (!sample_cast(&smp, SMP_T_BIN))
			return false;
		key = smp.data.u.str;
		break;
	}
	*hash = lb_key_hash(be, key.ptr, key.len);
	return true;
}

void lb_key_free(struct lb_key *k)
{
	if (!k)
		return;
	if (k->expr)
		sample_expr_free(k->expr);
	if (k->body)
		sample_expr_free(k->body);
	free(k->name);
	free(k);
}

__attribute__((constructor)) static void lb_key_register(void)
{
	lb_key_hash_hook = lb_key_stream_hash;
}
