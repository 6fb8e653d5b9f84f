/* The PROXY protocol, versions 1 and 2: the pure parser of a received header (pp_parse,
 * pp_tlv_find), the builders of the header sent to servers and by health checks
 * (pp_build_v1/v2/check) and CRC32C. No I/O, no allocation, no globals but a constant
 * table: callers in conn/ (accept-proxy), stream/ and check/ (send-proxy) own the sockets.
 * Contract and callers: doc/internals/proxy-protocol.md.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include <conn/proxy_proto.h>

/* HAProxy's wording of each failure (its conn_err_code_str), so log readers see the same. */
static const char PP_E_NOT_HDR[] =
	"Received something which does not look like a PROXY protocol header";
static const char PP_E_BAD_HDR[] = "Received an invalid PROXY protocol header";
static const char PP_E_TRUNC[] = "Truncated PROXY protocol header received";
static const char PP_E_BAD_PROTO[] = "Received an unhandled protocol in the PROXY protocol header";

static const uint8_t pp_v2_sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d,
				       0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };

#define PP2_CMD_LOCAL 0x20 /* version 2, LOCAL */
#define PP2_CMD_PROXY 0x21 /* version 2, PROXY */
#define PP2_FAM_UNSPEC 0x00
#define PP2_FAM_TCP4 0x11
#define PP2_FAM_TCP6 0x21
#define PP2_FAM_UNIX 0x31
#define PP2_ADDR_LEN_INET 12
#define PP2_ADDR_LEN_INET6 36
#define PP2_ADDR_LEN_UNIX 216
#define PP2_TLV_HDR 3
#define PP2_SSL_HEAD 5	      /* PP2_TYPE_SSL: client flags (1), verify (4) */
#define PP2_AUTHORITY_MAX 255 /* HAProxy refuses longer AUTHORITY / UNIQUE_ID TLVs */
#define PP2_UNIQUE_ID_MAX 128

/* ---- CRC32C ---------------------------------------------------------------------- */

/* Reflected Castagnoli polynomial 0x1EDC6F41; the table is built at compile time by the
 * macros below so that it is a constant (no init hook, no race). */
#define CRC_STEP(c) (((c)&1) ? (((c) >> 1) ^ 0x82F63B78u) : ((c) >> 1))
#define CRC_8(c) CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(c))))))))
#define CRC_R1(n) CRC_8((uint32_t)(n))
#define CRC_R4(n) CRC_R1(n), CRC_R1((n) + 1), CRC_R1((n) + 2), CRC_R1((n) + 3)
#define CRC_R16(n) CRC_R4(n), CRC_R4((n) + 4), CRC_R4((n) + 8), CRC_R4((n) + 12)
#define CRC_R64(n) CRC_R16(n), CRC_R16((n) + 16), CRC_R16((n) + 32), CRC_R16((n) + 48)

static const uint32_t crc32c_table[256] = { CRC_R64(0), CRC_R64(64), CRC_R64(128), CRC_R64(192) };

uint32_t pp_crc32c(const uint8_t *data, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++)
		crc = crc32c_table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
	return crc ^ 0xffffffffu;
}

/* ---- v1 parser ------------------------------------------------------------------- */

/* Reads a decimal port from <p> up to <end>: 1-5 digits, <= 65535, followed by <stop>.
 * Returns the position after <stop>, or NULL. */
static const char *pp_v1_port(const char *p, const char *end, char stop, uint16_t *port)
{
	uint32_t v = 0;
	const char *start = p;

	while (p < end && *p >= '0' && *p <= '9' && p - start < 5)
		v = v * 10 + (uint32_t)(*p++ - '0');
	if (p == start || p >= end || *p != stop || v > 65535)
		return NULL;
	*port = (uint16_t)v;
	return p + 1;
}

/* Reads an address of <af> from <p> up to the next space (before <end>) into <sa>.
 * Returns the position after the space, or NULL. */
static const char *pp_v1_addr(const char *p, const char *end, int af, struct sockaddr_storage *sa)
{
	char tmp[INET6_ADDRSTRLEN];
	const char *sp = memchr(p, ' ', (size_t)(end - p));
	size_t n;

	if (!sp || sp == p || (size_t)(sp - p) >= sizeof(tmp))
		return NULL;
	n = (size_t)(sp - p);
	memcpy(tmp, p, n);
	tmp[n] = 0;
	memset(sa, 0, sizeof(*sa));
	sa->ss_family = (sa_family_t)af;
	if (af == AF_INET) {
		if (inet_pton(AF_INET, tmp, &((struct sockaddr_in *)sa)->sin_addr) != 1)
			return NULL;
	} else if (inet_pton(AF_INET6, tmp, &((struct sockaddr_in6 *)sa)->sin6_addr) != 1) {
		return NULL;
	}
	return sp + 1;
}

static void pp_set_port(struct sockaddr_storage *sa, uint16_t port)
{
	if (sa->ss_family == AF_INET)
		((struct sockaddr_in *)sa)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)sa)->sin6_port = htons(port);
}

/* Parses the v1 line <p>..<eol> (<eol> points at its CR). Returns 0 or -1 with *why. */
static int pp_v1_fields(const char *p, const char *eol, struct pp_info *pp, const char **why)
{
	uint16_t sport, dport;
	int af;

	if ((size_t)(eol - p) >= 7 && memcmp(p, "UNKNOWN", 7) == 0) {
		pp->local = 1; /* anything may follow up to CRLF */
		return 0;
	}
	if ((size_t)(eol - p) >= 4 && memcmp(p, "TCP4", 4) == 0) {
		af = AF_INET;
	} else if ((size_t)(eol - p) >= 4 && memcmp(p, "TCP6", 4) == 0) {
		af = AF_INET6;
	} else {
		*why = PP_E_BAD_PROTO;
		return -1;
	}
	*why = PP_E_BAD_HDR;
	if (p + 4 == eol || p[4] != ' ')
		return -1;
	p += 5;
	if (!(p = pp_v1_addr(p, eol, af, &pp->src)) || !(p = pp_v1_addr(p, eol, af, &pp->dst)))
		return -1;
	/* the destination port ends at <eol>, the first CR of the line */
	if (!(p = pp_v1_port(p, eol, ' ', &sport)) || !pp_v1_port(p, eol + 1, '\r', &dport))
		return -1;
	pp_set_port(&pp->src, sport);
	pp_set_port(&pp->dst, dport);
	return 0;
}

/* v1: "PROXY " seen (or a prefix of it). */
static int pp_parse_v1(const uint8_t *data, size_t len, struct pp_info *pp, const char **why)
{
	const char *s = (const char *)data;
	size_t lim = len < PP_V1_MAX ? len : PP_V1_MAX;
	const char *cr = memchr(s, '\r', lim);
	const char *lf = memchr(s, '\n', cr ? (size_t)(cr - s) : lim);

	if (lf)
		goto bad; /* a bare LF ends no valid line */
	if (!cr) {
		if (len < PP_V1_MAX)
			return 0;
		/* as 2.6 words them: a line too long, or one without its end at all */
		*why = memchr(s, '\r', len) ? PP_E_BAD_HDR : PP_E_TRUNC;
		return -1;
	}
	if ((size_t)(cr - s) + 2 > PP_V1_MAX)
		goto bad;
	if ((size_t)(cr - s) + 1 >= len)
		return 0;
	if (cr[1] != '\n')
		goto bad;
	pp->version = 1;
	if (pp_v1_fields(s + 6, cr, pp, why) < 0)
		return -1;
	return (int)(cr - s) + 2;
bad:
	*why = PP_E_BAD_HDR;
	return -1;
}

/* ---- v2 parser ------------------------------------------------------------------- */

/* Checks that the TLV block <tlv>/<len> is well formed: every TLV fits, AUTHORITY and
 * UNIQUE_ID within HAProxy's limits, a CRC32C TLV holds 4 bytes and matches <hdr>/<hlen>
 * (the whole header) computed with its own value zeroed. */
static bool pp_v2_tlvs_ok(const uint8_t *hdr, size_t hlen, const uint8_t *tlv, size_t len)
{
	size_t off = 0;

	while (off < len) {
		size_t vlen;

		if (len - off < PP2_TLV_HDR)
			return false;
		vlen = ((size_t)tlv[off + 1] << 8) | tlv[off + 2];
		if (len - off - PP2_TLV_HDR < vlen)
			return false;
		switch (tlv[off]) {
		case PP2_TYPE_CRC32C: {
			const uint8_t *v = tlv + off + PP2_TLV_HDR;
			uint32_t got, want = 0;
			size_t pos = (size_t)(v - hdr);

			if (vlen != 4)
				return false;
			got = ((uint32_t)v[0] << 24) | ((uint32_t)v[1] << 16) |
			      ((uint32_t)v[2] << 8) | v[3];
			/* CRC over the header with the 4 bytes read as zeroes, in three runs so the
			 * input stays const: a CRC of zero bytes continues the running value. */
			want = pp_crc32c(hdr, pos) ^ 0xffffffffu;
			for (int i = 0; i < 4; i++)
				want = crc32c_table[want & 0xff] ^ (want >> 8);
			for (size_t i = pos + 4; i < hlen; i++)
				want = crc32c_table[(want ^ hdr[i]) & 0xff] ^ (want >> 8);
			if ((want ^ 0xffffffffu) != got)
				return false;
			break;
		}
		case PP2_TYPE_AUTHORITY:
			if (vlen > PP2_AUTHORITY_MAX)
				return false;
			break;
		case PP2_TYPE_UNIQUE_ID:
			if (vlen > PP2_UNIQUE_ID_MAX)
				return false;
			break;
		default:
			break;
		}
		off += PP2_TLV_HDR + vlen;
	}
	return true;
}

/* Fills <pp>'s addresses from the v2 address block <a> of family byte <fam>. Returns the
 * address block's length, 0 for UNSPEC, or -1 for a family or transport not handled. */
static int pp_v2_addrs(uint8_t fam, const uint8_t *a, struct pp_info *pp)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&pp->src,
			   *d4 = (struct sockaddr_in *)&pp->dst;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&pp->src,
			    *d6 = (struct sockaddr_in6 *)&pp->dst;
	struct sockaddr_un *su = (struct sockaddr_un *)&pp->src,
			   *du = (struct sockaddr_un *)&pp->dst;

	switch (fam) {
	case PP2_FAM_TCP4:
		s4->sin_family = d4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, a, 4);
		memcpy(&d4->sin_addr, a + 4, 4);
		memcpy(&s4->sin_port, a + 8, 2);
		memcpy(&d4->sin_port, a + 10, 2);
		return PP2_ADDR_LEN_INET;
	case PP2_FAM_TCP6:
		s6->sin6_family = d6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, a, 16);
		memcpy(&d6->sin6_addr, a + 16, 16);
		memcpy(&s6->sin6_port, a + 32, 2);
		memcpy(&d6->sin6_port, a + 34, 2);
		return PP2_ADDR_LEN_INET6;
	case PP2_FAM_UNIX:
		su->sun_family = du->sun_family = AF_UNIX;
		/* 108 bytes each, NUL-padded; keep a terminating NUL even if the sender did not */
		memcpy(su->sun_path, a, sizeof(su->sun_path) - 1);
		memcpy(du->sun_path, a + 108, sizeof(du->sun_path) - 1);
		return PP2_ADDR_LEN_UNIX;
	case PP2_FAM_UNSPEC:
		pp->local = 1;
		return 0;
	default:
		return -1;
	}
}

static size_t pp_v2_addr_need(uint8_t fam)
{
	return fam == PP2_FAM_TCP4   ? PP2_ADDR_LEN_INET
	       : fam == PP2_FAM_TCP6 ? PP2_ADDR_LEN_INET6
	       : fam == PP2_FAM_UNIX ? PP2_ADDR_LEN_UNIX
				     : 0;
}

/* v2: the 12-byte signature matched. */
static int pp_parse_v2(const uint8_t *data, size_t len, struct pp_info *pp, const char **why)
{
	size_t total, alen;

	if (len < PP_V2_HDR)
		return 0;
	*why = PP_E_BAD_HDR;
	if ((data[12] & 0xf0) != 0x20 || (data[12] & 0x0f) > 1)
		return -1;
	total = PP_V2_HDR + (((size_t)data[14] << 8) | data[15]);
	if (len < total)
		return 0;
	pp->version = 2;
	alen = pp_v2_addr_need(data[13]);
	if (data[12] == PP2_CMD_LOCAL) {
		/* the connection keeps its addresses: an unknown family's block is skipped
		 * whole, a known one's addresses are ignored but its TLVs are kept */
		pp->local = 1;
		if (alen == 0 && data[13] != PP2_FAM_UNSPEC)
			return (int)total;
	} else if (data[13] != PP2_FAM_UNSPEC && data[13] != PP2_FAM_TCP4 &&
		   data[13] != PP2_FAM_TCP6) {
		return -1; /* UNIX or datagram: "invalid", as 2.6 says (only LOCAL may carry
			    * them) */
	}
	if (total - PP_V2_HDR < alen)
		return -1;
	if (data[12] == PP2_CMD_PROXY && pp_v2_addrs(data[13], data + PP_V2_HDR, pp) < 0)
		return -1;
	if (total > PP_V2_HDR + alen) {
		pp->tlv = data + PP_V2_HDR + alen;
		pp->tlv_len = (uint16_t)(total - PP_V2_HDR - alen);
		if (!pp_v2_tlvs_ok(data, total, pp->tlv, pp->tlv_len))
			return -1;
	}
	return (int)total;
}

int pp_parse(const uint8_t *data, size_t len, struct pp_info *pp, const char **why)
{
	size_t n;

	memset(pp, 0, sizeof(*pp));
	*why = PP_E_NOT_HDR;
	n = len < 6 ? len : 6;
	if (memcmp(data, "PROXY ", n) == 0)
		return len < 6 ? 0 : pp_parse_v1(data, len, pp, why);
	n = len < sizeof(pp_v2_sig) ? len : sizeof(pp_v2_sig);
	if (memcmp(data, pp_v2_sig, n) != 0)
		return -1;
	if (len < sizeof(pp_v2_sig))
		return 0;
	return pp_parse_v2(data, len, pp, why);
}

struct ist pp_tlv_find(const uint8_t *tlv, size_t len, uint8_t type)
{
	size_t off = 0;

	while (tlv && len - off >= PP2_TLV_HDR) {
		size_t vlen = ((size_t)tlv[off + 1] << 8) | tlv[off + 2];

		if (len - off - PP2_TLV_HDR < vlen)
			break;
		if (tlv[off] == type)
			return ist2(tlv + off + PP2_TLV_HDR, vlen);
		off += PP2_TLV_HDR + vlen;
	}
	return ist2(NULL, 0);
}

/* ---- builders -------------------------------------------------------------------- */

/* Both addresses as IPv4 (returns 4), or both as IPv6, an IPv4 one v4-mapped (returns 6),
 * or neither usable (returns 0): HAProxy's choice for mixed families. */
static int pp_out_family(const struct pp_out *o, uint8_t sa[16], uint8_t da[16], uint16_t *sp,
			 uint16_t *dp)
{
	const struct sockaddr_storage *ss[2] = { o->src, o->dst };
	uint8_t *out[2] = { sa, da };
	uint16_t *port[2] = { sp, dp };

	for (int i = 0; i < 2; i++) {
		if (!ss[i] || (ss[i]->ss_family != AF_INET && ss[i]->ss_family != AF_INET6))
			return 0;
	}
	if (ss[0]->ss_family == AF_INET && ss[1]->ss_family == AF_INET) {
		for (int i = 0; i < 2; i++) {
			memcpy(out[i], &((const struct sockaddr_in *)ss[i])->sin_addr, 4);
			*port[i] = ntohs(((const struct sockaddr_in *)ss[i])->sin_port);
		}
		return 4;
	}
	for (int i = 0; i < 2; i++) {
		if (ss[i]->ss_family == AF_INET) {
			memset(out[i], 0, 10);
			out[i][10] = out[i][11] = 0xff;
			memcpy(out[i] + 12, &((const struct sockaddr_in *)ss[i])->sin_addr, 4);
			*port[i] = ntohs(((const struct sockaddr_in *)ss[i])->sin_port);
		} else {
			memcpy(out[i], &((const struct sockaddr_in6 *)ss[i])->sin6_addr, 16);
			*port[i] = ntohs(((const struct sockaddr_in6 *)ss[i])->sin6_port);
		}
	}
	return 6;
}

int pp_build_v1(char *out, size_t room, const struct pp_out *o)
{
	uint8_t sa[16], da[16];
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	uint16_t sp, dp;
	int fam = pp_out_family(o, sa, da, &sp, &dp);
	int af = fam == 4 ? AF_INET : AF_INET6;
	int n;

	if (!fam)
		n = snprintf(out, room, "PROXY UNKNOWN\r\n");
	else if (!inet_ntop(af, sa, s, sizeof(s)) || !inet_ntop(af, da, d, sizeof(d)))
		return -1;
	else
		n = snprintf(out, room, "PROXY TCP%d %s %s %u %u\r\n", fam, s, d, sp, dp);
	if (n < 0 || (size_t)n >= room)
		return -1;
	return n;
}

/* Appends a TLV of <type> with <v> at <out>+*off. Returns 0, or -1 when it does not fit. */
static int pp_put_tlv(uint8_t *out, size_t room, size_t *off, uint8_t type, struct ist v)
{
	if (v.len > 0xffff || room - *off < PP2_TLV_HDR + v.len)
		return -1;
	out[*off] = type;
	out[*off + 1] = (uint8_t)(v.len >> 8);
	out[*off + 2] = (uint8_t)v.len;
	if (v.len)
		memcpy(out + *off + PP2_TLV_HDR, v.ptr, v.len);
	*off += PP2_TLV_HDR + v.len;
	return 0;
}

/* Appends the PP2_TYPE_SSL TLV: flags, verify, then version, CN, key and signature
 * algorithms, cipher (HAProxy's order); the sub-TLVs only when the client used TLS. */
static int pp_put_ssl(uint8_t *out, size_t room, size_t *off, const struct pp_out *o)
{
	size_t start = *off, sub;
	const struct {
		uint32_t opt;
		uint8_t type;
		const struct ist *v;
	} subs[] = {
		{ 0, PP2_SUBTYPE_SSL_VERSION, &o->ssl_version },
		{ PP_O_SSL_CN, PP2_SUBTYPE_SSL_CN, &o->ssl_cn },
		{ PP_O_CERT_KEY, PP2_SUBTYPE_SSL_KEY_ALG, &o->ssl_key_alg },
		{ PP_O_CERT_SIG, PP2_SUBTYPE_SSL_SIG_ALG, &o->ssl_sig_alg },
		{ PP_O_SSL_CIPHER, PP2_SUBTYPE_SSL_CIPHER, &o->ssl_cipher },
	};

	if (room - *off < PP2_TLV_HDR + PP2_SSL_HEAD)
		return -1;
	out[*off] = PP2_TYPE_SSL;
	out[*off + 3] = o->ssl_client;
	out[*off + 4] = (uint8_t)(o->ssl_verify >> 24);
	out[*off + 5] = (uint8_t)(o->ssl_verify >> 16);
	out[*off + 6] = (uint8_t)(o->ssl_verify >> 8);
	out[*off + 7] = (uint8_t)o->ssl_verify;
	*off += PP2_TLV_HDR + PP2_SSL_HEAD;
	for (size_t i = 0; (o->ssl_client & PP2_CLIENT_SSL) && i < sizeof(subs) / sizeof(subs[0]);
	     i++) {
		if ((subs[i].opt && !(o->opts & subs[i].opt)) || !subs[i].v->len)
			continue;
		if (pp_put_tlv(out, room, off, subs[i].type, *subs[i].v) < 0)
			return -1;
	}
	sub = *off - start - PP2_TLV_HDR;
	if (sub > 0xffff)
		return -1;
	out[start + 1] = (uint8_t)(sub >> 8);
	out[start + 2] = (uint8_t)sub;
	return 0;
}

/* The v2 TLVs in HAProxy's order: CRC32C (zeroed, filled last), ALPN, AUTHORITY,
 * UNIQUE_ID, SSL. Returns 0, or -1 when <room> is too small; *crc_at gets the CRC's
 * value offset (0: none). */
static int pp_put_tlvs(uint8_t *out, size_t room, size_t *off, const struct pp_out *o,
		       size_t *crc_at)
{
	static const uint8_t zero[4];

	*crc_at = 0;
	if (o->opts & PP_O_CRC32C) {
		*crc_at = *off + PP2_TLV_HDR;
		if (pp_put_tlv(out, room, off, PP2_TYPE_CRC32C, ist2(zero, 4)) < 0)
			return -1;
	}
	if (o->alpn.len && pp_put_tlv(out, room, off, PP2_TYPE_ALPN, o->alpn) < 0)
		return -1;
	if ((o->opts & PP_O_AUTHORITY) && o->authority.len &&
	    pp_put_tlv(out, room, off, PP2_TYPE_AUTHORITY, o->authority) < 0)
		return -1;
	if ((o->opts & PP_O_UNIQUE_ID) && o->unique_id.len &&
	    pp_put_tlv(out, room, off, PP2_TYPE_UNIQUE_ID, o->unique_id) < 0)
		return -1;
	if ((o->opts & PP_O_SSL) && pp_put_ssl(out, room, off, o) < 0)
		return -1;
	return 0;
}

int pp_build_v2(uint8_t *out, size_t room, const struct pp_out *o)
{
	uint8_t sa[16], da[16];
	uint16_t sp, dp;
	int fam = pp_out_family(o, sa, da, &sp, &dp);
	size_t off = PP_V2_HDR, crc_at, alen = fam == 4 ? 4 : 16;

	if (room < PP_V2_HDR + (fam ? 2 * alen + 4 : 0))
		return -1;
	memcpy(out, pp_v2_sig, sizeof(pp_v2_sig));
	out[12] = fam ? PP2_CMD_PROXY : PP2_CMD_LOCAL;
	out[13] = fam == 4 ? PP2_FAM_TCP4 : fam == 6 ? PP2_FAM_TCP6 : PP2_FAM_UNSPEC;
	if (fam) {
		memcpy(out + off, sa, alen);
		memcpy(out + off + alen, da, alen);
		off += 2 * alen;
		out[off++] = (uint8_t)(sp >> 8);
		out[off++] = (uint8_t)sp;
		out[off++] = (uint8_t)(dp >> 8);
		out[off++] = (uint8_t)dp;
	}
	if (pp_put_tlvs(out, room, &off, o, &crc_at) < 0 || off - PP_V2_HDR > 0xffff)
		return -1;
	out[14] = (uint8_t)((off - PP_V2_HDR) >> 8);
	out[15] = (uint8_t)(off - PP_V2_HDR);
	if (crc_at) {
		uint32_t crc = pp_crc32c(out, off);

		out[crc_at] = (uint8_t)(crc >> 24);
		out[crc_at + 1] = (uint8_t)(crc >> 16);
		out[crc_at + 2] = (uint8_t)(crc >> 8);
		out[crc_at + 3] = (uint8_t)crc;
	}
	return (int)off;
}

int pp_build_check(uint8_t *out, size_t room, int version)
{
	struct pp_out o = { 0 };

	if (version == 1)
		return pp_build_v1((char *)out, room, &o);
	return pp_build_v2(out, room, &o);
}
