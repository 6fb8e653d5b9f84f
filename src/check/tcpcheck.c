/* Pure parts of rule-based checks: expect matching (string, regex, binary, binary regex,
 * min-recv, negation), hex coding, and the reply parsers of the protocol checks (MySQL
 * handshake and login reply, LDAP bind response, SMTP code, info extraction). No I/O, no
 * globals, no allocation: the runtime, the unit tests and the fuzz target share it.
 */
#include <string.h>
#include <strings.h>

#include <base/parse.h>
#include <check/tcpcheck.h>
#include <sample/regex.h>

int tcpchk_hex_decode(const char *hex, size_t hexlen, char *out, size_t outsz)
{
	if (!hexlen || hexlen % 2 || hexlen / 2 > outsz)
		return -1;
	for (size_t i = 0; i < hexlen; i += 2) {
		int hi = hex_digit_val(hex[i]), lo = hex_digit_val(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (char)(hi << 4 | lo);
	}
	return (int)(hexlen / 2);
}

void tcpchk_hex_dump(const char *in, size_t len, char *out)
{
	static const char digits[] = "0123456789ABCDEF";

	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[(unsigned char)in[i] >> 4];
		out[2 * i + 1] = digits[(unsigned char)in[i] & 15];
	}
	out[2 * len] = 0;
}

static void tcpchk_v(struct tcpchk_verdict *v, int verdict, int status)
{
	v->v = verdict;
	v->status = status;
}

void tcpchk_expect_eval(const struct tcpchk_rule *r, const char *buf, size_t len, bool last_read,
			const char *pat, size_t patlen, char *hex, struct tcpchk_verdict *v)
{
	bool match = false;

	memset(v, 0, sizeof(*v));
	if (r->kind == TCPCHK_EXP_STRING || r->kind == TCPCHK_EXP_BINARY) {
		pat = r->kind == TCPCHK_EXP_STRING ? r->pattern : r->bin;
		patlen = r->kind == TCPCHK_EXP_STRING ? strlen(r->pattern) : r->len;
	}
	if (!len && !last_read)
		return tcpchk_v(v, TCPCHK_V_MORE, 0);
	if (!len) {
		v->empty = true;
		return tcpchk_v(v, TCPCHK_V_FAIL, r->err_status);
	}
	if (!last_read) {
		if ((r->kind == TCPCHK_EXP_STRING || r->kind == TCPCHK_EXP_BINARY) && len < patlen)
			return tcpchk_v(v, TCPCHK_V_MORE, 0);
		if (r->min_recv > 0 && len < (size_t)r->min_recv)
			return tcpchk_v(v, TCPCHK_V_MORE, 0);
	}
	switch (r->kind) {
	case TCPCHK_EXP_STRING:
	case TCPCHK_EXP_BINARY:
	case TCPCHK_EXP_STRING_LF:
	case TCPCHK_EXP_BINARY_LF:
		match = patlen <= len && (!patlen || memmem(buf, len, pat, patlen));
		break;
	case TCPCHK_EXP_RSTRING:
		match = r->re && regex_exec(r->re, buf, len);
		break;
	case TCPCHK_EXP_RBINARY:
		if (hex) {
			tcpchk_hex_dump(buf, len, hex);
			match = r->re && regex_exec(r->re, hex, 2 * len);
		}
		break;
	default:
		break;
	}
	/* No match yet: wait for more unless a minimum was set (then it is conclusive). */
	if (!match && !last_read && r->min_recv == -1)
		return tcpchk_v(v, TCPCHK_V_MORE, 0);
	if (match != r->negate)
		return tcpchk_v(v, TCPCHK_V_OK, r->ok_status);
	v->matched = match;
	tcpchk_v(v, TCPCHK_V_FAIL, r->err_status);
}

/* Reads MySQL packet <*off> in buf[0..len): payload view in *p, *plen and moves *off past
 * it. Returns 1, 0 when incomplete. */
static int tcpchk_mysql_packet(const char *buf, size_t len, size_t *off, const unsigned char **p,
			       size_t *plen)
{
	const unsigned char *b = (const unsigned char *)buf + *off;
	size_t n;

	if (len - *off < 4)
		return 0;
	n = (size_t)b[0] | (size_t)b[1] << 8 | (size_t)b[2] << 16;
	if (len - *off - 4 < n)
		return 0;
	*p = b + 4;
	*plen = n;
	*off += 4 + n;
	return 1;
}

/* An error packet (0xff): code and message into <v>. */
static void tcpchk_mysql_error(const unsigned char *p, size_t n, struct tcpchk_verdict *v)
{
	size_t m = n < 3 ? n : 3; /* 2.6 shows the text after the code, SQL state included */

	tcpchk_v(v, TCPCHK_V_FAIL, CHK_R_L7STS);
	v->code = n >= 3 ? (p[1] | p[2] << 8) : 0;
	v->info = ist2((const char *)p + m, n - m);
}

void tcpchk_mysql_eval(const char *buf, size_t len, bool last_read, bool want_ok,
		       struct tcpchk_verdict *v)
{
	const unsigned char *hs, *p;
	size_t off = 0, hn, n, vl;

	memset(v, 0, sizeof(*v));
	if (!tcpchk_mysql_packet(buf, len, &off, &hs, &hn)) {
		if (!last_read)
			return tcpchk_v(v, TCPCHK_V_MORE, 0);
		v->empty = !len;
		v->info = ist_str(len ? "Incomplete MySQL packet" : "");
		return tcpchk_v(v, TCPCHK_V_FAIL, CHK_R_L7RSP);
	}
	if (hn && hs[0] == 0xff)
		return tcpchk_mysql_error(hs, hn, v);
	if (hn < 2 || (hs[0] != 10 && hs[0] != 9)) {
		v->info = ist_str("Not a MySQL initial handshake");
		return tcpchk_v(v, TCPCHK_V_FAIL, CHK_R_L7RSP);
	}
	for (vl = 0; 1 + vl < hn && hs[1 + vl]; vl++)
		;
	v->info = ist2((const char *)hs + 1, vl); /* the server version */
	if (!want_ok)
		return tcpchk_v(v, TCPCHK_V_OK, CHK_R_L7OK);
	if (!tcpchk_mysql_packet(buf, len, &off, &p, &n)) {
		if (!last_read)
			return tcpchk_v(v, TCPCHK_V_MORE, 0);
		v->info = ist_str("Incomplete MySQL packet");
		return tcpchk_v(v, TCPCHK_V_FAIL, CHK_R_L7RSP);
	}
	if (n && p[0] == 0xff)
		return tcpchk_mysql_error(p, n, v);
	if (!n || p[0] != 0x00) {
		v->info = ist_str("Unexpected MySQL reply to the login");
		return tcpchk_v(v, TCPCHK_V_FAIL, CHK_R_L7RSP);
	}
	tcpchk_v(v, TCPCHK_V_OK, CHK_R_L7OK);
}

/* Reads a BER length at b[*i..len): returns it, -1 when incomplete, -2 when invalid. */
static long tcpchk_ber_len(const unsigned char *b, size_t len, size_t *i)
{
	size_t nb;
	long l = 0;

	if (*i >= len)
		return -1;
	if (b[*i] < 0x80)
		return b[(*i)++];
	nb = b[(*i)++] & 0x7f;
	if (!nb || nb > 4)
		return -2;
	if (len - *i < nb)
		return -1;
	while (nb--)
		l = l << 8 | b[(*i)++];
	return l;
}

void tcpchk_ldap_eval(const char *buf, size_t len, bool last_read, struct tcpchk_verdict *v)
{
	const unsigned char *b = (const unsigned char *)buf;
	static const unsigned char msgid[] = { 0x02, 0x01, 0x01, 0x61 };
	size_t i = 1;
	long l;

	memset(v, 0, sizeof(*v));
	if (len && b[0] != 0x30)
		goto not_ldap;
	l = len ? tcpchk_ber_len(b, len, &i) : -1;
	if (l == -2)
		goto not_ldap;
	if (l >= 0 && len - i >= 4 && memcmp(b + i, msgid, 4) != 0)
		goto not_ldap;
	if (l >= 0 && len - i >= 4) {
		i += 4;
		l = tcpchk_ber_len(b, len, &i);
		if (l == -2)
			goto not_ldap;
		if (l >= 0 && len - i >= 3) {
			if (b[i] != 0x0a || b[i + 1] != 0x01)
				goto not_ldap;
			if (b[i + 2] != 0) {
				v->code = b[i + 2];
				v->info =
					ist_str("See RFC: "
						"http://tools.ietf.org/html/rfc4511#section-4.1.9");
				return tcpchk_v(v, TCPCHK_V_FAIL, CHK_R_L7STS);
			}
			v->info = ist_str("Success");
			return tcpchk_v(v, TCPCHK_V_OK, CHK_R_L7OK);
		}
	}
	if (!last_read)
		return tcpchk_v(v, TCPCHK_V_MORE, 0);
	v->empty = !len;
not_ldap:
	v->info = ist_str("Not LDAPv3 protocol");
	tcpchk_v(v, TCPCHK_V_FAIL, CHK_R_L7RSP);
}

struct ist tcpchk_info_view(int kind, int off, const char *buf, size_t len)
{
	size_t i = 0, e;

	if (kind == TCPCHK_INFO_SMTP) {
		i = len < 4 ? len : 4;
		while (i < len && buf[i] == ' ')
			i++;
	} else if (kind == TCPCHK_INFO_NUL) {
		i = off > 0 && (size_t)off < len ? (size_t)off : len;
		for (e = i; e < len && buf[e]; e++)
			;
		return ist2(buf + i, e - i);
	} else if (kind != TCPCHK_INFO_LINE) {
		return ist2(buf, 0);
	}
	for (e = i; e < len && buf[e] != '\r' && buf[e] != '\n'; e++)
		;
	return ist2(buf + i, e - i);
}

int tcpchk_smtp_code(const char *buf, size_t len)
{
	int code = 0;

	if (len < 3)
		return 0;
	for (int i = 0; i < 3; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return 0;
		code = code * 10 + (buf[i] - '0');
	}
	return code;
}

/* Compares s[0..n) with <pat> by <m> (names: <icase>). */
static bool tcpchk_hm(int m, const char *pat, const struct regex *re, const char *s, size_t n,
		      bool icase)
{
	size_t pl = pat ? strlen(pat) : 0;
	int (*cmp)(const char *, const char *, size_t) = icase ? strncasecmp : strncmp;

	switch (m) {
	case TCPCHK_HM_BEG:
		return pl <= n && !cmp(s, pat, pl);
	case TCPCHK_HM_END:
		return pl <= n && !cmp(s + n - pl, pat, pl);
	case TCPCHK_HM_SUB:
		for (size_t i = 0; i + pl <= n; i++)
			if (!cmp(s + i, pat, pl))
				return true;
		return false;
	case TCPCHK_HM_REG:
		return re && regex_exec(re, s, n);
	default:
		return pl == n && !cmp(s, pat, pl);
	}
}

/* Trims blanks around s[*b..*e). */
static void tcpchk_trim(const char *s, size_t *b, size_t *e)
{
	while (*b < *e && (s[*b] == ' ' || s[*b] == '\t'))
		(*b)++;
	while (*e > *b && (s[*e - 1] == ' ' || s[*e - 1] == '\t'))
		(*e)--;
}

/* One header line h[0..n): does it satisfy <r>? */
static bool tcpchk_hdr_line(const struct tcpchk_rule *r, const char *h, size_t n)
{
	const char *colon = memchr(h, ':', n);
	size_t nl, b, e;

	if (!colon)
		return false;
	nl = (size_t)(colon - h);
	if (!tcpchk_hm(r->hname_m, r->hname, r->hname_re, h, nl, true))
		return false;
	if (!r->hval)
		return true;
	for (b = nl + 1; b <= n;) {
		const char *comma = r->hfull ? NULL : memchr(h + b, ',', n - b);
		size_t vb = b;

		e = comma ? (size_t)(comma - h) : n;
		tcpchk_trim(h, &vb, &e);
		if (tcpchk_hm(r->hval_m, r->hval, r->hval_re, h + vb, e - vb, false))
			return true;
		if (!comma)
			break;
		b = (size_t)(comma - h) + 1;
	}
	return false;
}

bool tcpchk_http_hdr_match(const struct tcpchk_rule *r, const char *buf, size_t len)
{
	const char *p = memchr(buf, '\n', len), *end = buf + len;

	while (p && ++p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;

		if (!nl)
			return false;
		n = (size_t)(nl - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (!n)
			return false; /* end of the headers */
		if (tcpchk_hdr_line(r, p, n))
			return true;
		p = nl;
	}
	return false;
}
