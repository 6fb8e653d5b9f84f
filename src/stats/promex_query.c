/* The pure parts of the Prometheus exporter (stats/promex.c): the query-string filters
 * and the value and label formatters. No globals, no allocation, no I/O: fuzzed
 * (tests/fuzz/fuzz_promex_query.c) and unit-tested on their own.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <base/buf.h>
#include <stats/promex.h>

static int pmx_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Percent-decodes <in> (<len> bytes) into <out> (<size> bytes, NUL-terminated); '+' is a
 * space. Returns the decoded length, or -1 when it does not fit or a '%' is malformed. */
static int pmx_urldecode(const char *in, size_t len, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		int c = (unsigned char)in[i];

		if (c == '%') {
			int h, l;

			if (len - i < 3)
				return -1;
			h = pmx_hexval((unsigned char)in[i + 1]);
			l = pmx_hexval((unsigned char)in[i + 2]);
			if (h < 0 || l < 0)
				return -1;
			c = h * 16 + l;
			i += 2;
		} else if (c == '+') {
			c = ' ';
		}
		if (o + 1 >= size)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = 0;
	return (int)o;
}

static const struct {
	const char *name;
	int flag;
} pmx_scopes[] = {
	{ "global", PROMEX_SC_GLOBAL },
	{ "frontend", PROMEX_SC_FRONT },
	{ "backend", PROMEX_SC_BACK },
	{ "server", PROMEX_SC_SERVER },
	{ "listener", PROMEX_SC_LISTENER },
	{ "sticktable", PROMEX_SC_STKTABLE },
	{ "*", PROMEX_SC_ALL },
};

/* Applies one "scope" value to *flags (<explicit> tells whether a scope was seen
 * before). Returns 0, or -1 for an unknown scope. */
static int pmx_apply_scope(const char *v, int *flags, int *explicit)
{
	if (!*explicit)
		*flags &= ~PROMEX_SC_ALL;
	*explicit = 1;
	if (!*v) {
		*flags &= ~PROMEX_SC_ALL; /* "scope=": none, also those named before */
		return 0;
	}
	for (size_t i = 0; i < sizeof(pmx_scopes) / sizeof(pmx_scopes[0]); i++) {
		if (strcmp(v, pmx_scopes[i].name) == 0) {
			*flags |= pmx_scopes[i].flag;
			return 0;
		}
	}
	return -1;
}

int promex_parse_query(const char *q, size_t len)
{
	int flags = PROMEX_SC_ALL, explicit = 0;
	size_t pos = 0;

	while (pos < len) {
		const char *p = q + pos, *amp = memchr(p, '&', len - pos), *eq;
		size_t plen = amp ? (size_t)(amp - p) : len - pos;
		char key[32], val[32];

		pos += plen + 1;
		if (!plen)
			continue;
		eq = memchr(p, '=', plen);
		if (pmx_urldecode(p, eq ? (size_t)(eq - p) : plen, key, sizeof(key)) < 0)
			continue; /* not a name we know */
		if (strcmp(key, "no-maint") == 0) {
			flags |= PROMEX_FL_NO_MAINT;
			continue;
		}
		if (strcmp(key, "scope") != 0)
			continue;
		if (!eq)
			return -1;
		if (pmx_urldecode(eq + 1, plen - (size_t)(eq + 1 - p), val, sizeof(val)) < 0)
			return -1;
		if (pmx_apply_scope(val, &flags, &explicit) < 0)
			return -1;
	}
	return flags;
}

size_t promex_fmt_int(char *dst, size_t size, int64_t v, bool empty, bool seconds)
{
	int n;

	if (empty)
		n = snprintf(dst, size, "NaN");
	else if (seconds)
		n = snprintf(dst, size, "%f", (double)v / 1000.0);
	else
		n = snprintf(dst, size, "%" PRId64, v);
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

static int pmx_put(struct buf *out, const char *s, size_t len)
{
	return b_putblk(out, s, (uint32_t)len);
}

static int pmx_puts(struct buf *out, const char *s)
{
	return pmx_put(out, s, strlen(s));
}

int promex_put_label(struct buf *out, const char *s)
{
	for (; *s; s++) {
		const char *esc = *s == '\\'   ? "\\\\"
				  : *s == '"'  ? "\\\""
				  : *s == '\n' ? "\\n"
					       : NULL;

		if (esc ? pmx_puts(out, esc) : pmx_put(out, s, 1))
			return -1;
	}
	return 0;
}
