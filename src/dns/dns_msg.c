/* DNS query building and the strict response parser (see include/dns/dns_msg.h). Pure:
 * every read is checked against the message length, names are decompressed with backward
 * pointers only, and nothing outside the caller's buffers is written.
 */
#include <ctype.h>
#include <string.h>
#include <sys/socket.h>

#include <dns/dns_msg.h>

static uint16_t dns_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t dns_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void dns_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Encodes dotted <name> as labels into out[0..outsz). Returns the length or -1. */
static int dns_encode_name(uint8_t *out, size_t outsz, const char *name)
{
	size_t n = strlen(name), o = 0, i = 0;

	if (n && name[n - 1] == '.')
		n--;
	if (!n || n > DNS_TXT_MAX || n + 2 > outsz || name[n - 1] == '.')
		return -1;
	while (i < n) {
		size_t l = 0;

		while (i + l < n && name[i + l] != '.')
			l++;
		if (!l || l > 63)
			return -1;
		out[o++] = (uint8_t)l;
		memcpy(out + o, name + i, l);
		o += l;
		i += l + 1;
	}
	out[o++] = 0;
	return (int)o;
}

int dns_build_query(uint8_t *out, size_t outsz, uint16_t id, const char *name, uint16_t qtype,
		    int payload)
{
	size_t need_opt = payload >= 512 ? 11 : 0;
	int nl;

	if (outsz < DNS_HDR_LEN + 4 + need_opt + 2)
		return -1;
	memset(out, 0, DNS_HDR_LEN);
	dns_put16(out, id);
	out[2] = 0x01; /* RD */
	dns_put16(out + 4, 1);
	dns_put16(out + 10, need_opt ? 1 : 0);
	nl = dns_encode_name(out + DNS_HDR_LEN, outsz - DNS_HDR_LEN - 4 - need_opt, name);
	if (nl < 0)
		return -1;
	out += DNS_HDR_LEN + nl;
	dns_put16(out, qtype);
	dns_put16(out + 2, DNS_C_IN);
	if (need_opt) { /* root name, OPT, class = payload, ttl 0, no rdata */
		memset(out + 4, 0, 11);
		dns_put16(out + 5, DNS_T_OPT);
		dns_put16(out + 7, (uint16_t)(payload > 65535 ? 65535 : payload));
	}
	return DNS_HDR_LEN + nl + 4 + (int)need_opt;
}

int dns_read_name(const uint8_t *msg, size_t len, size_t *pos, char *txt)
{
	size_t p = *pos, limit = *pos, t = 0, wire = 0;
	int jumps = 0;
	bool jumped = false;

	for (;;) {
		uint8_t l;

		if (p >= len)
			return -1;
		l = msg[p];
		if ((l & 0xc0) == 0xc0) {
			size_t to;

			if (p + 1 >= len || ++jumps > DNS_MAX_JUMPS)
				return -1;
			to = (size_t)(l & 0x3f) << 8 | msg[p + 1];
			/* only backwards, before every label read so far: no loop possible */
			if (to >= limit)
				return -1;
			if (!jumped)
				*pos = p + 2;
			jumped = true;
			limit = to;
			p = to;
			continue;
		}
		if (l & 0xc0) /* 0x40 and 0x80 label types are obsolete or unassigned */
			return -1;
		wire += (size_t)l + 1;
		if (wire > DNS_NAME_MAX)
			return -1;
		if (!l)
			break;
		if (p + 1 + l > len)
			return -1;
		if (t)
			txt[t++] = '.';
		for (size_t i = 0; i < l; i++)
			txt[t++] = (char)tolower(msg[p + 1 + i]);
		p += 1 + (size_t)l;
	}
	txt[t] = 0;
	if (!jumped)
		*pos = p + 1;
	return 0;
}

/* Lowercase dotted form of the queried <name> (no ending dot) into txt. Returns 0 or -1. */
static int dns_norm_name(const char *name, char *txt)
{
	size_t n = strlen(name);

	if (n && name[n - 1] == '.')
		n--;
	if (!n || n > DNS_TXT_MAX)
		return -1;
	for (size_t i = 0; i < n; i++)
		txt[i] = (char)tolower((unsigned char)name[i]);
	txt[n] = 0;
	return 0;
}

/* One resource record's fixed part, after its name. */
struct dns_rr {
	char owner[DNS_TXT_MAX + 1];
	uint16_t type, class, rdlen;
	uint32_t ttl;
	size_t rdata; /* offset of the rdata in the message */
};

/* Reads the record at *pos and moves past it. Returns 0 or -1 when it is malformed. */
static int dns_read_rr(const uint8_t *msg, size_t len, size_t *pos, struct dns_rr *rr)
{
	if (dns_read_name(msg, len, pos, rr->owner) < 0 || len - *pos < 10)
		return -1;
	rr->type = dns_get16(msg + *pos);
	rr->class = dns_get16(msg + *pos + 2);
	rr->ttl = dns_get32(msg + *pos + 4);
	rr->rdlen = dns_get16(msg + *pos + 8);
	*pos += 10;
	if (len - *pos < rr->rdlen)
		return -1;
	rr->rdata = *pos;
	*pos += rr->rdlen;
	return 0;
}

/* The header and question. Returns DNS_ST_VALID to go on to the answers, else a status. */
static enum dns_status dns_check_head(const uint8_t *msg, size_t len, uint16_t id, const char *want,
				      uint16_t qtype, size_t *pos)
{
	char qname[DNS_TXT_MAX + 1];
	int rcode;

	if (len < DNS_HDR_LEN || !(msg[2] & 0x80) || (msg[2] & 0x78))
		return DNS_ST_INVALID;
	if (dns_get16(msg) != id)
		return DNS_ST_WRONG_ID;
	if (dns_get16(msg + 4) != 1)
		return DNS_ST_WRONG_QUESTION;
	*pos = DNS_HDR_LEN;
	if (dns_read_name(msg, len, pos, qname) < 0 || len - *pos < 4)
		return DNS_ST_INVALID;
	if (strcmp(qname, want) || dns_get16(msg + *pos) != qtype ||
	    dns_get16(msg + *pos + 2) != DNS_C_IN)
		return DNS_ST_WRONG_QUESTION;
	*pos += 4;
	if (msg[2] & 0x02)
		return DNS_ST_TRUNCATED;
	rcode = msg[3] & 0x0f;
	if (rcode == 3)
		return DNS_ST_NX;
	if (rcode == 5)
		return DNS_ST_REFUSED;
	if (rcode == 2)
		return DNS_ST_SERVFAIL;
	return rcode ? DNS_ST_OTHER : DNS_ST_VALID;
}

/* Keeps the address of <rr> when it is of <qtype> and owned by the current target. */
static int dns_take_addr(const uint8_t *msg, const struct dns_rr *rr, uint16_t qtype,
			 struct dns_result *res)
{
	size_t alen = qtype == DNS_T_A ? 4 : 16;
	struct dns_addr_rr *a;

	if (rr->rdlen != alen)
		return -1;
	if (res->naddr >= DNS_MAX_ADDRS)
		return 0;
	a = &res->addr[res->naddr++];
	a->family = qtype == DNS_T_A ? AF_INET : AF_INET6;
	memset(a->ip, 0, sizeof(a->ip));
	memcpy(a->ip, msg + rr->rdata, alen);
	a->ttl = rr->ttl;
	return 0;
}

/* The answer section: addresses of <target> (following CNAMEs in record order, as
 * resolvers emit them) and the validity of every record. */
static enum dns_status dns_parse_answers(const uint8_t *msg, size_t len, size_t *pos, int count,
					 char *target, uint16_t qtype, struct dns_result *res)
{
	int links = 0;
	struct dns_rr rr;

	for (int i = 0; i < count; i++) {
		if (dns_read_rr(msg, len, pos, &rr) < 0)
			return DNS_ST_INVALID;
		if (rr.class != DNS_C_IN || strcmp(rr.owner, target))
			continue;
		if (rr.type == DNS_T_CNAME) {
			size_t p = rr.rdata;

			if (++links > DNS_MAX_CNAME || dns_read_name(msg, len, &p, target) < 0 ||
			    p != rr.rdata + rr.rdlen)
				return DNS_ST_INVALID;
		} else if (rr.type == qtype && dns_take_addr(msg, &rr, qtype, res) < 0) {
			return DNS_ST_INVALID;
		}
	}
	return DNS_ST_VALID;
}

enum dns_status dns_parse_response(const uint8_t *msg, size_t len, uint16_t id, const char *name,
				   uint16_t qtype, struct dns_result *res)
{
	char target[DNS_TXT_MAX + 1];
	enum dns_status st;
	struct dns_rr rr;
	size_t pos = 0;
	int an, rest;

	res->naddr = 0;
	if ((qtype != DNS_T_A && qtype != DNS_T_AAAA) || dns_norm_name(name, target) < 0)
		return DNS_ST_INVALID;
	st = dns_check_head(msg, len, id, target, qtype, &pos);
	if (st != DNS_ST_VALID)
		return st;
	an = dns_get16(msg + 6);
	rest = dns_get16(msg + 8) + dns_get16(msg + 10);
	st = dns_parse_answers(msg, len, &pos, an, target, qtype, res);
	if (st != DNS_ST_VALID)
		return st;
	for (int i = 0; i < rest; i++)
		if (dns_read_rr(msg, len, &pos, &rr) < 0)
			return DNS_ST_INVALID;
	if (pos != len)
		return DNS_ST_INVALID;
	return res->naddr ? DNS_ST_VALID : DNS_ST_NO_ANSWER;
}

const char *dns_status_str(enum dns_status st)
{
	static const char *const s[] = {
		"valid",
		"invalid response",
		"wrong query id",
		"query and response mismatch",
		"truncated response",
		"DNS NX status",
		"DNS refused status",
		"DNS servfail status",
		"unspecified DNS error",
		"no valid answer",
	};

	return (unsigned)st < sizeof(s) / sizeof(s[0]) ? s[st] : "unknown";
}

size_t dns_tcp_frame(const uint8_t *buf, size_t len, size_t *mlen)
{
	size_t n;

	if (len < 2)
		return 0;
	n = (size_t)buf[0] << 8 | buf[1];
	if (len - 2 < n)
		return 0;
	*mlen = n;
	return 2 + n;
}
