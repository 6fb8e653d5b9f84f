/* The fetches of a received PROXY protocol header (conn/pp_recv.c keeps it in c->pp):
 * fc_rcvd_proxy, fc_pp_authority, fc_pp_unique_id and HAProxy 3.x's fc_pp_tlv(<id>).
 * Read only, on the connection's thread; the values point into c->pp (SMP_F_CONST).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <conn/connection-t.h>
#include <conn/proxy_proto.h>
#include <sample/arg.h>

#include "fetch_int.h"

/* fc_rcvd_proxy: whether the connection began with a valid PROXY header. */
static int smp_fetch_rcvd_proxy(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;

	if (!c)
		return 0;
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = c->pp != NULL;
	return 1;
}

/* The value of TLV <type> of the received header; an SSL sub-TLV (0x21..0x25) is looked
 * for inside the PP2_TYPE_SSL TLV when not found at the top level. */
static struct ist pp_fetch_tlv(const struct conn_pp *pp, int type)
{
	struct ist v = pp_tlv_find(pp->tlv, pp->tlv_len, (uint8_t)type);
	struct ist ssl;

	if (v.ptr || type < PP2_SUBTYPE_SSL_VERSION || type > PP2_SUBTYPE_SSL_KEY_ALG)
		return v;
	ssl = pp_tlv_find(pp->tlv, pp->tlv_len, PP2_TYPE_SSL);
	if (!ssl.ptr || ssl.len < 5)
		return ist2(NULL, 0);
	return pp_tlv_find((const uint8_t *)ssl.ptr + 5, ssl.len - 5, (uint8_t)type);
}

/* fc_pp_authority, fc_pp_unique_id (kw->private: the type), fc_pp_tlv(<id>) (args). */
static int smp_fetch_pp_tlv(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	const struct conn *c = smp->ctx->conn;
	int type = args && args[0].type == ARGT_SINT ? (int)args[0].data.sint : kw->private;
	struct ist v;

	if (!c || !c->pp || !c->pp->tlv_len)
		return 0;
	v = pp_fetch_tlv(c->pp, type);
	if (!v.ptr)
		return 0;
	return smp_set_str(smp, v);
}

static const struct {
	const char *name;
	int type;
} pp_tlv_names[] = {
	{ "ALPN", PP2_TYPE_ALPN },
	{ "AUTHORITY", PP2_TYPE_AUTHORITY },
	{ "CRC32C", PP2_TYPE_CRC32C },
	{ "NETNS", PP2_TYPE_NETNS },
	{ "NOOP", PP2_TYPE_NOOP },
	{ "SSL", PP2_TYPE_SSL },
	{ "SSL_CIPHER", PP2_SUBTYPE_SSL_CIPHER },
	{ "SSL_CN", PP2_SUBTYPE_SSL_CN },
	{ "SSL_KEY_ALG", PP2_SUBTYPE_SSL_KEY_ALG },
	{ "SSL_SIG_ALG", PP2_SUBTYPE_SSL_SIG_ALG },
	{ "SSL_VERSION", PP2_SUBTYPE_SSL_VERSION },
	{ "UNIQUE_ID", PP2_TYPE_UNIQUE_ID },
};

/* fc_pp_tlv's argument: a number 0..255 (decimal or 0x hex) or one of the names above
 * (case-insensitive), turned into ARGT_SINT at parse time. */
static int val_pp_tlv(struct arg *args, void *private, char *err, size_t errsz)
{
	const char *s;
	char *end;
	long v = -1;

	if (!args || args[0].type != ARGT_STR)
		return 0;
	s = args[0].data.str.ptr;
	for (size_t k = 0; k < sizeof(pp_tlv_names) / sizeof(pp_tlv_names[0]); k++) {
		if (!strcasecmp(s, pp_tlv_names[k].name))
			v = pp_tlv_names[k].type;
	}
	if (v < 0 && *s >= '0' && *s <= '9') {
		v = strtol(s, &end, 0);
		if (*end || v > 255)
			v = -1;
	}
	if (v < 0) {
		snprintf(err, errsz,
			 "fetch argument: invalid TLV ID '%s', expects a number between 0 "
			 "and 255 or a TLV name (ALPN, AUTHORITY, CRC32C, NETNS, NOOP, SSL, "
			 "SSL_CIPHER, "
			 "SSL_CN, SSL_KEY_ALG, SSL_SIG_ALG, SSL_VERSION, UNIQUE_ID)",
			 s);
		return -1;
	}
	arg_set_sint(&args[0], v);
	return 0;
}

/* clang-format off */
static const struct sample_fetch pp_fetches[] = {
	{ "fc_rcvd_proxy", smp_fetch_rcvd_proxy, 0, { 0 }, NULL, SMP_T_BOOL, SMP_USE_L4CLI, 0 },
	{ "fc_pp_authority", smp_fetch_pp_tlv, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_L4CLI,
	  PP2_TYPE_AUTHORITY },
	{ "fc_pp_unique_id", smp_fetch_pp_tlv, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_L4CLI,
	  PP2_TYPE_UNIQUE_ID },
	{ "fc_pp_tlv", smp_fetch_pp_tlv, 1, { ARGT_STR }, val_pp_tlv, SMP_T_STR, SMP_USE_L4CLI, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(pp_fetches)
/* clang-format on */
