/* Received syslog messages: the TCP framing and the RFC 3164 / RFC 5424 headers. Pure
 * (views into the caller's bytes, no allocation, no I/O), for the "log-forward" receivers
 * and the fuzz target tests/fuzz/fuzz_syslog.c. Headers are read as HAProxy 2.6 reads them.
 */
#include <stdbool.h>
#include <string.h>

#include <log/syslog_parse.h>

static bool sl_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The next space-separated word of [*p, end): advances *p past it and one space. */
static struct ist sl_word(const char **p, const char *end)
{
	const char *s = *p;
	struct ist w;

	while (*p < end && **p != ' ')
		(*p)++;
	w = ist2(s, (size_t)(*p - s));
	if (*p < end)
		(*p)++;
	return w;
}

static struct ist sl_nil(struct ist w)
{
	return w.len == 1 && w.ptr[0] == '-' ? ist2(w.ptr, 0) : w;
}

/* "<PRI>": 1 to 3 digits, 0..191. Returns the bytes or 0. */
static size_t sl_pri(const char *b, size_t len, int *pri)
{
	size_t i = 1;
	int v = 0;

	if (len < 3 || b[0] != '<')
		return 0;
	while (i < len && i <= 3 && sl_digit(b[i]))
		v = v * 10 + (b[i++] - '0');
	if (i == 1 || i >= len || b[i] != '>' || v > 191)
		return 0;
	*pri = v;
	return i + 1;
}

/* "Mmm dd hh:mm:ss" */
static bool sl_is_3164_date(const char *p, const char *end)
{
	static const char mon[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	if (end - p < 15 || p[3] != ' ' || p[6] != ' ' || p[9] != ':' || p[12] != ':')
		return false;
	for (int i = 0; i < 36; i += 3)
		if (memcmp(p, mon + i, 3) == 0)
			return (p[4] == ' ' || sl_digit(p[4])) && sl_digit(p[5]) &&
			       sl_digit(p[7]) && sl_digit(p[8]) && sl_digit(p[10]) &&
			       sl_digit(p[11]) && sl_digit(p[13]) && sl_digit(p[14]);
	return false;
}

/* "host tag[pid]: msg" after the date, as HAProxy 2.6 reads it: the host is the word
 * after the date (even "app:"), a space must follow it (else false: not a 3164 header);
 * the tag is "tag: " or "tag[pid]: ", anything else leaves the text from there as msg. */
static bool sl_parse_3164(const char *p, const char *end, struct syslog_msg *m)
{
	const char *sp, *t, *q;

	p += 15;
	if (p >= end || *p != ' ')
		return false;
	p++;
	sp = memchr(p, ' ', (size_t)(end - p));
	if (!sp)
		return false;
	m->kind = SYSLOG_3164;
	m->ts = ist2(p - 16, 15);
	m->host = ist2(p, (size_t)(sp - p));
	t = q = sp + 1;
	while (q < end && *q != '[' && *q != ':' && *q != ' ')
		q++;
	m->msg = ist2(t, (size_t)(end - t));
	if (q == t || q >= end || *q == ' ')
		return true;
	if (*q == '[') {
		const char *rb = memchr(q, ']', (size_t)(end - q));

		if (!rb || end - rb < 3 || rb[1] != ':' || rb[2] != ' ')
			return true;
		m->tag = ist2(t, (size_t)(q - t));
		m->pid = ist2(q + 1, (size_t)(rb - q - 1));
		m->msg = ist2(rb + 3, (size_t)(end - rb - 3));
		return true;
	}
	if (end - q < 2 || q[1] != ' ')
		return true;
	m->tag = ist2(t, (size_t)(q - t));
	m->msg = ist2(q + 2, (size_t)(end - q - 2));
	return true;
}

/* A 5424 timestamp as 2.6 accepts it: "-" or starting with "YYYY-". */
static bool sl_5424_ts_ok(const char *p, const char *end)
{
	if (end - p >= 2 && p[0] == '-' && p[1] == ' ')
		return true;
	return end - p >= 5 && sl_digit(p[0]) && sl_digit(p[1]) && sl_digit(p[2]) &&
	       sl_digit(p[3]) && p[4] == '-';
}

/* "1 TS HOST APP PID MSGID SD msg" after the PRI; SD is "-" or "[...]"... with quoted
 * values where "\]" does not close. */
static void sl_parse_5424(const char *p, const char *end, struct syslog_msg *m)
{
	const char *s;

	m->kind = SYSLOG_5424;
	p += 2;
	m->ts = sl_nil(sl_word(&p, end));
	m->host = sl_nil(sl_word(&p, end));
	m->tag = sl_nil(sl_word(&p, end));
	m->pid = sl_nil(sl_word(&p, end));
	m->msgid = sl_nil(sl_word(&p, end));
	s = p;
	if (p < end && *p == '[') {
		bool quoted = false;

		while (p < end && *p == '[') {
			for (p++; p < end; p++) {
				if (*p == '\\' && p + 1 < end)
					p++;
				else if (*p == '"')
					quoted = !quoted;
				else if (*p == ']' && !quoted)
					break;
			}
			if (p < end)
				p++;
		}
		m->sd = ist2(s, (size_t)(p - s));
		if (p < end && *p == ' ')
			p++;
	} else {
		m->sd = sl_nil(sl_word(&p, end));
	}
	m->msg = ist2(p, (size_t)(end - p));
}

void syslog_parse(const char *buf, size_t len, struct syslog_msg *m)
{
	const char *end = buf + len, *p;
	size_t n;
	int pri;

	memset(m, 0, sizeof(*m));
	m->facility = m->level = -1;
	if (len && buf[len - 1] == '\n')
		end--;
	if (end > buf && end[-1] == '\r')
		end--;
	n = sl_pri(buf, (size_t)(end - buf), &pri);
	if (!n) {
		m->kind = SYSLOG_RAW;
		m->msg = ist2(buf, (size_t)(end - buf));
		return;
	}
	m->facility = pri / 8;
	m->level = pri % 8;
	p = buf + n;
	if (end - p >= 2 && p[0] == '1' && p[1] == ' ' && sl_5424_ts_ok(p + 2, end))
		sl_parse_5424(p, end, m);
	else if (!sl_is_3164_date(p, end) || !sl_parse_3164(p, end, m)) {
		m->kind = SYSLOG_PRI;
		m->msg = ist2(p, (size_t)(end - p));
	}
}

long syslog_frame(const char *buf, size_t len, size_t *off, size_t *mlen)
{
	size_t i = 0, v = 0;
	const char *nl;

	if (!len)
		return 0;
	if (sl_digit(buf[0])) {
		while (i < len && sl_digit(buf[i])) {
			v = v * 10 + (size_t)(buf[i++] - '0');
			if (v > SYSLOG_FRAME_MAX)
				return -1;
		}
		if (i == len)
			return 0;
		if (buf[i] != ' ' || !v)
			return -1;
		if (len - i - 1 < v)
			return 0;
		*off = i + 1;
		*mlen = v;
		return (long)(i + 1 + v);
	}
	nl = memchr(buf, '\n', len < SYSLOG_FRAME_MAX + 1 ? len : SYSLOG_FRAME_MAX + 1);
	if (!nl)
		return len > SYSLOG_FRAME_MAX ? -1 : 0;
	*off = 0;
	*mlen = (size_t)(nl - buf);
	return (long)(*mlen + 1);
}
