/* Pure parts of HTTP health checks: the response parser (status line, headers up to the
 * body, content-length), expect matching, the request builder and the rise/fall machine.
 * No I/O and no globals: the runtime (check.c), the unit tests and the fuzz target share it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check/check_http.h>
#include <sample/regex.h>

static bool chk_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parses "HTTP/d.d SSS[ reason]" in line[0..len) (no CRLF). Returns 0 or -1. */
static int chk_parse_status_line(const char *line, size_t len, struct chk_http_rsp *rsp)
{
	size_t i;

	if (len < 12 || memcmp(line, "HTTP/", 5) != 0 || !chk_digit(line[5]) || line[6] != '.' ||
	    !chk_digit(line[7]) || line[8] != ' ')
		return -1;
	for (i = 9; i < 12; i++)
		if (!chk_digit(line[i]))
			return -1;
	if (len > 12 && line[12] != ' ')
		return -1;
	rsp->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
	rsp->reason = len > 13 ? ist2(line + 13, len - 13) : ist2(line + len, 0);
	for (i = 0; i < rsp->reason.len; i++)
		if ((unsigned char)rsp->reason.ptr[i] < 0x20 && rsp->reason.ptr[i] != '\t')
			return -1;
	return 0;
}

/* Length of the line at buf[0..len) without its CRLF or LF in *ll; returns the offset of
 * the next line, or 0 when no line end was found. */
static size_t chk_line(const char *buf, size_t len, size_t *ll)
{
	const char *nl = memchr(buf, '\n', len);

	if (!nl)
		return 0;
	*ll = (size_t)(nl - buf);
	if (*ll && buf[*ll - 1] == '\r')
		(*ll)--;
	return (size_t)(nl - buf) + 1;
}

/* Content-length value of header line h[0..len), or -1 if it is not one (or invalid). */
static long long chk_content_length(const char *h, size_t len)
{
	static const char name[] = "content-length:";
	long long v = 0;
	size_t i;

	if (len < sizeof(name) - 1 || strncasecmp(h, name, sizeof(name) - 1) != 0)
		return -1;
	for (i = sizeof(name) - 1; i < len && (h[i] == ' ' || h[i] == '\t'); i++)
		;
	if (i == len)
		return -1;
	for (; i < len && chk_digit(h[i]); i++) {
		if (v > 1000000000000LL)
			return -1;
		v = v * 10 + (h[i] - '0');
	}
	for (; i < len && (h[i] == ' ' || h[i] == '\t'); i++)
		;
	return i == len ? v : -1;
}

int chk_http_parse(const char *buf, size_t len, bool full, bool need_body, struct chk_http_rsp *rsp)
{
	size_t off, next, ll;
	long long cl = -1;

	next = chk_line(buf, len, &ll);
	if (!next)
		return full ? CHK_P_INVALID : CHK_P_MORE;
	if (chk_parse_status_line(buf, ll, rsp) < 0)
		return CHK_P_INVALID;
	rsp->body = ist2(buf + len, 0);
	if (!need_body)
		return CHK_P_DONE;
	for (off = next;; off += next) {
		next = chk_line(buf + off, len - off, &ll);
		if (!next)
			return full ? CHK_P_INVALID : CHK_P_MORE;
		if (ll == 0)
			break;
		if (chk_content_length(buf + off, ll) >= 0)
			cl = chk_content_length(buf + off, ll);
	}
	off += next;
	rsp->body = ist2(buf + off, len - off);
	if (cl >= 0 && (unsigned long long)cl < rsp->body.len)
		rsp->body.len = (size_t)cl;
	if (full || (cl >= 0 && rsp->body.len == (unsigned long long)cl))
		return CHK_P_DONE;
	return CHK_P_MORE;
}

/* Reads a status code (3 digits) at *p; returns it or -1. */
static int chk_read_code(const char **p)
{
	const char *s = *p;

	if (!chk_digit(s[0]) || !chk_digit(s[1]) || !chk_digit(s[2]))
		return -1;
	*p = s + 3;
	return (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
}

/* Walks the status list; returns 1 if <status> is in it, 0 if not, -1 if malformed. */
static int chk_status_in(const char *list, int status)
{
	const char *p = list;
	int found = 0;

	for (;;) {
		int lo = chk_read_code(&p), hi = lo;

		if (lo < 0)
			return -1;
		if (*p == '-') {
			p++;
			hi = chk_read_code(&p);
			if (hi < lo)
				return -1;
		}
		if (status >= lo && status <= hi)
			found = 1;
		if (!*p)
			return found;
		if (*p++ != ',')
			return -1;
	}
}

bool chk_status_list_valid(const char *list)
{
	return chk_status_in(list, 0) >= 0;
}

bool chk_expect_match(const struct chk_expect *e, const struct chk_http_rsp *rsp)
{
	char code[4] = { (char)('0' + rsp->status / 100 % 10), (char)('0' + rsp->status / 10 % 10),
			 (char)('0' + rsp->status % 10), 0 };
	bool m;

	switch (e->kind) {
	case CHK_EXP_STATUS:
		m = chk_status_in(e->pattern.ptr, rsp->status) == 1;
		break;
	case CHK_EXP_RSTATUS:
		m = e->re && regex_exec(e->re, code, 3);
		break;
	case CHK_EXP_STRING:
		m = e->pattern.len <= rsp->body.len &&
		    memmem(rsp->body.ptr, rsp->body.len, e->pattern.ptr, e->pattern.len);
		break;
	case CHK_EXP_RSTRING:
		m = e->re && regex_exec(e->re, rsp->body.ptr, rsp->body.len);
		break;
	default:
		return rsp->status >= 200 && rsp->status < 400;
	}
	return m != e->negate;
}

/* Appends s[0..n) to the request being built. */
static void chk_put(char *dst, size_t *len, const char *s, size_t n)
{
	if (dst)
		memcpy(dst + *len, s, n);
	*len += n;
}

/* Writes the request into <dst> (NULL: only measures it); returns its length. */
static size_t chk_req_write(const struct chk_http_cfg *cfg, char *dst)
{
	const char *meth = cfg->meth ? cfg->meth : "OPTIONS";
	const char *uri = cfg->uri ? cfg->uri : "/";
	const char *ver = cfg->ver ? cfg->ver : "HTTP/1.0";
	size_t len = 0;
	char cl[32];

	chk_put(dst, &len, meth, strlen(meth));
	chk_put(dst, &len, " ", 1);
	chk_put(dst, &len, uri, strlen(uri));
	chk_put(dst, &len, " ", 1);
	chk_put(dst, &len, ver, strlen(ver));
	chk_put(dst, &len, "\r\n", 2);
	if (cfg->hdrs)
		chk_put(dst, &len, cfg->hdrs, strlen(cfg->hdrs));
	if (cfg->body) {
		int n = snprintf(cl, sizeof(cl), "content-length: %zu\r\n", strlen(cfg->body));

		chk_put(dst, &len, cl, (size_t)n);
	}
	chk_put(dst, &len, "\r\n", 2);
	if (cfg->body)
		chk_put(dst, &len, cfg->body, strlen(cfg->body));
	return len;
}

char *chk_http_build_req(const struct chk_http_cfg *cfg, size_t *len)
{
	char *req;

	*len = chk_req_write(cfg, NULL);
	req = malloc(*len + 1);
	if (!req)
		return NULL;
	chk_req_write(cfg, req);
	req[*len] = 0;
	return req;
}

int chk_health_update(int *health, int rise, int fall, bool ok)
{
	int max = rise + fall - 1;

	if (ok) {
		if (*health >= max)
			return CHK_T_NONE;
		if (*health >= rise) { /* a success while going down: fully up again */
			*health = max;
			return CHK_T_NONE;
		}
		if (++*health < rise)
			return CHK_T_NONE;
		*health = max;
		return CHK_T_UP;
	}
	if (*health > rise) {
		(*health)--;
		return CHK_T_NONE;
	}
	if (*health == rise) {
		*health = 0;
		return CHK_T_DOWN;
	}
	*health = 0;
	return CHK_T_NONE;
}
