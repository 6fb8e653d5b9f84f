/* Encoding converters as pure functions: base64 and base64url both ways, hex, hex2i, URL
 * decoding and encoding, be2dec/be2hex, field/word extraction and the date formatters
 * (ltime, utime, http_date). Outputs go to caller buffers; nothing allocates. The
 * semantics are HAProxy 2.6's as observed on its converters (see include/sample/codec.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <base/parse.h>
#include <time.h>

#include <sample/codec.h>

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char hex_upper[] = "0123456789ABCDEF";

/* The "fits in an int" guard shared by every function returning a length. */
static inline size_t out_limit(size_t outsz)
{
	return outsz > INT_MAX ? INT_MAX : outsz;
}

static int b64_enc(const char *tab, bool pad, const unsigned char *in, size_t len, char *out,
		   size_t outsz)
{
	size_t need = len / 3 * 4, o = 0, i;
	size_t rest = len % 3;

	if (rest)
		need += pad ? 4 : rest + 1;
	if (len > INT_MAX || need > out_limit(outsz))
		return -1;
	for (i = 0; i + 3 <= len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		out[o++] = tab[v >> 18];
		out[o++] = tab[(v >> 12) & 63];
		out[o++] = tab[(v >> 6) & 63];
		out[o++] = tab[v & 63];
	}
	if (rest) {
		uint32_t v = (uint32_t)in[i] << 16 | (rest > 1 ? (uint32_t)in[i + 1] << 8 : 0);

		out[o++] = tab[v >> 18];
		out[o++] = tab[(v >> 12) & 63];
		if (rest > 1)
			out[o++] = tab[(v >> 6) & 63];
		else if (pad)
			out[o++] = '=';
		if (pad)
			out[o++] = '=';
	}
	return (int)o;
}

int codec_b64_enc(const void *in, size_t len, char *out, size_t outsz)
{
	return b64_enc(b64_std, true, in, len, out, outsz);
}

int codec_ub64_enc(const void *in, size_t len, char *out, size_t outsz)
{
	return b64_enc(b64_url, false, in, len, out, outsz);
}

/* Writes the <n> first bytes (1..3) of the 24 bits of <v> at out[*o], if they fit. */
static int b64_put(uint32_t v, int n, unsigned char *out, size_t outsz, size_t *o)
{
	if (outsz - *o < (size_t)n)
		return -1;
	out[(*o)++] = (unsigned char)(v >> 16);
	if (n > 1)
		out[(*o)++] = (unsigned char)(v >> 8);
	if (n > 2)
		out[(*o)++] = (unsigned char)v;
	return 0;
}

int codec_b64_dec(const char *in, size_t len, void *out, size_t outsz)
{
	size_t i, o = 0;

	outsz = out_limit(outsz);
	if (len % 4 || len > INT_MAX)
		return -1;
	for (i = 0; i < len; i += 4) {
		uint32_t v = 0;
		int j, pad = 0;

		for (j = 0; j < 4; j++) {
			unsigned char c = in[i + j];
			int d = b64_digit_val(c, false);

			if (c == '=' && j >= 1) {
				pad++;
				d = 0;
			} else if (d < 0 || pad) {
				return -1;
			}
			v = v << 6 | (uint32_t)d;
		}
		if (pad < 3 && b64_put(v, 3 - pad, out, outsz, &o) < 0)
			return -1;
	}
	return (int)o;
}

int codec_ub64_dec(const char *in, size_t len, void *out, size_t outsz)
{
	size_t i, o = 0, pad = 0;

	outsz = out_limit(outsz);
	while (pad < 2 && len > pad && in[len - 1 - pad] == '=')
		pad++;
	len -= pad;
	if (len % 4 == 1 || len > INT_MAX || (pad && (len + pad) % 4))
		return -1;
	for (i = 0; i < len; i += 4) {
		size_t n = len - i < 4 ? len - i : 4, j;
		uint32_t v = 0;

		for (j = 0; j < 4; j++) {
			int d = j < n ? b64_digit_val(in[i + j], true) : 0;

			if (d < 0)
				return -1;
			v = v << 6 | (uint32_t)d;
		}
		if (b64_put(v, (int)n - 1, out, outsz, &o) < 0)
			return -1;
	}
	return (int)o;
}

int codec_hex_enc(const void *in, size_t len, char *out, size_t outsz)
{
	const unsigned char *p = in;
	size_t i;

	if (len > INT_MAX / 2 || len * 2 > out_limit(outsz))
		return -1;
	for (i = 0; i < len; i++) {
		out[2 * i] = hex_upper[p[i] >> 4];
		out[2 * i + 1] = hex_upper[p[i] & 15];
	}
	return (int)(len * 2);
}

int codec_hex2i(const char *in, size_t len, int64_t *res)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		int d = hex_digit_val(in[i]);

		if (d < 0)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	*res = (int64_t)v;
	return 0;
}

int codec_url_dec(const char *in, size_t len, char *out, size_t outsz, bool in_form)
{
	size_t i, o = 0;

	outsz = out_limit(outsz);
	for (i = 0; i < len; i++) {
		unsigned char c = in[i];

		if (c == '%') {
			int hi, lo;

			if (len - i < 3 || (hi = hex_digit_val(in[i + 1])) < 0 ||
			    (lo = hex_digit_val(in[i + 2])) < 0)
				return -1;
			c = (unsigned char)(hi << 4 | lo);
			i += 2;
		} else if (c == '?') {
			in_form = true;
		} else if (c == '+' && in_form) {
			c = ' ';
		}
		if (o == outsz)
			return -1;
		out[o++] = (char)c;
	}
	return (int)o;
}

static bool url_unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

int codec_url_enc(const char *in, size_t len, char *out, size_t outsz)
{
	size_t i, o = 0;

	outsz = out_limit(outsz);
	for (i = 0; i < len; i++) {
		unsigned char c = in[i];

		if (url_unreserved(c)) {
			if (outsz - o < 1)
				return -1;
			out[o++] = (char)c;
			continue;
		}
		if (outsz - o < 3)
			return -1;
		out[o++] = '%';
		out[o++] = hex_upper[c >> 4];
		out[o++] = hex_upper[c & 15];
	}
	return (int)o;
}

/* Appends src[0..n) at out[*o] if it fits in outsz. */
static int put(const char *src, size_t n, char *out, size_t outsz, size_t *o)
{
	if (outsz - *o < n)
		return -1;
	memcpy(out + *o, src, n);
	*o += n;
	return 0;
}

int codec_be2dec(const void *in, size_t len, const char *sep, size_t seplen, int chunk,
		 bool truncate, char *out, size_t outsz)
{
	const unsigned char *p = in;
	size_t i, o = 0;

	outsz = out_limit(outsz);
	if (chunk < 1 || chunk > 8)
		return -1;
	for (i = 0; i < len; i += (size_t)chunk) {
		size_t n = len - i < (size_t)chunk ? len - i : (size_t)chunk, j;
		uint64_t v = 0;
		char num[24];
		int nl;

		if (n < (size_t)chunk && truncate)
			break;
		for (j = 0; j < n; j++)
			v = v << 8 | p[i + j];
		nl = snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
		if ((i && put(sep, seplen, out, outsz, &o) < 0) ||
		    put(num, (size_t)nl, out, outsz, &o) < 0)
			return -1;
	}
	return (int)o;
}

int codec_be2hex(const void *in, size_t len, const char *sep, size_t seplen, int chunk,
		 bool truncate, char *out, size_t outsz)
{
	const unsigned char *p = in;
	size_t i, o = 0;

	outsz = out_limit(outsz);
	if (chunk < 0)
		return -1;
	if (chunk && truncate)
		len -= len % (size_t)chunk;
	for (i = 0; i < len; i++) {
		char h[2] = { hex_upper[p[i] >> 4], hex_upper[p[i] & 15] };

		if ((chunk && seplen && i && i % (size_t)chunk == 0 &&
		     put(sep, seplen, out, outsz, &o) < 0) ||
		    put(h, 2, out, outsz, &o) < 0)
			return -1;
	}
	return (int)o;
}

static inline bool is_delim(unsigned char c, const char *delims, size_t ndelims)
{
	return memchr(delims, c, ndelims) != NULL;
}

/* The fields counted from the start: find where field <idx> starts, then walk <count>
 * delimiters to its end.
 */
static int field_fwd(const char *in, size_t len, size_t idx, const char *d, size_t nd, long count,
		     size_t *off, size_t *rlen)
{
	size_t i = 0, start = 0, end = len, f = 1;

	for (; f < idx; i++) {
		if (i == len)
			return -1;
		if (is_delim(in[i], d, nd)) {
			f++;
			start = i + 1;
		}
	}
	for (i = start; count > 0 && i < len; i++) {
		if (is_delim(in[i], d, nd) && --count == 0)
			end = i;
	}
	*off = start;
	*rlen = end - start;
	return 0;
}

/* The mirror image: field -<idx> ends where the <idx-1>th delimiter from the end is. */
static int field_bwd(const char *in, size_t len, size_t idx, const char *d, size_t nd, long count,
		     size_t *off, size_t *rlen)
{
	size_t i = len, start = 0, end = len, f = 1;

	while (f < idx) {
		if (i == 0)
			return -1;
		if (is_delim(in[--i], d, nd)) {
			f++;
			end = i;
		}
	}
	for (i = end; count > 0 && i > 0; i--) {
		if (is_delim(in[i - 1], d, nd) && --count == 0)
			start = i;
	}
	*off = start;
	*rlen = end - start;
	return 0;
}

int codec_field(const char *in, size_t len, long idx, const char *delims, size_t ndelims,
		long count, size_t *off, size_t *rlen)
{
	if (!idx || !ndelims)
		return -1;
	if (idx > 0)
		return field_fwd(in, len, (size_t)idx, delims, ndelims, count, off, rlen);
	return field_bwd(in, len, (size_t) - (idx + 1) + 1, delims, ndelims, count, off, rlen);
}

/* Skips bytes that are (want = true) or are not (want = false) delimiters, forward. */
static size_t skip_fwd(const char *in, size_t i, size_t len, bool want, const char *d, size_t nd)
{
	while (i < len && is_delim(in[i], d, nd) == want)
		i++;
	return i;
}

static size_t skip_bwd(const char *in, size_t i, bool want, const char *d, size_t nd)
{
	while (i > 0 && is_delim(in[i - 1], d, nd) == want)
		i--;
	return i;
}

static void word_fwd(const char *in, size_t len, size_t idx, const char *d, size_t nd, long count,
		     size_t *off, size_t *rlen)
{
	size_t i = 0, w = 0, start;

	for (;;) {
		i = skip_fwd(in, i, len, true, d, nd);
		if (i == len)
			return; /* fewer than idx words: empty result */
		if (++w == idx)
			break;
		i = skip_fwd(in, i, len, false, d, nd);
	}
	start = i;
	i = len;
	if (count > 0) {
		size_t j = start;

		while (j < len) {
			j = skip_fwd(in, j, len, false, d, nd);
			if (--count == 0) {
				i = j;
				break;
			}
			j = skip_fwd(in, j, len, true, d, nd);
		}
	}
	*off = start;
	*rlen = i - start;
}

static void word_bwd(const char *in, size_t len, size_t idx, const char *d, size_t nd, long count,
		     size_t *off, size_t *rlen)
{
	size_t i = len, w = 0, end;

	for (;;) {
		i = skip_bwd(in, i, true, d, nd);
		if (i == 0)
			return;
		if (++w == idx)
			break;
		i = skip_bwd(in, i, false, d, nd);
	}
	end = i;
	i = 0;
	if (count > 0) {
		size_t j = end;

		while (j > 0) {
			j = skip_bwd(in, j, false, d, nd);
			if (--count == 0) {
				i = j;
				break;
			}
			j = skip_bwd(in, j, true, d, nd);
		}
	}
	*off = i;
	*rlen = end - i;
}

int codec_word(const char *in, size_t len, long idx, const char *delims, size_t ndelims, long count,
	       size_t *off, size_t *rlen)
{
	if (!idx || !ndelims)
		return -1;
	*off = 0;
	*rlen = 0;
	if (idx > 0)
		word_fwd(in, len, (size_t)idx, delims, ndelims, count, off, rlen);
	else
		word_bwd(in, len, (size_t) - (idx + 1) + 1, delims, ndelims, count, off, rlen);
	return 0;
}

/* HAProxy keeps only the low 55 bits of a date so that gmtime()/localtime() never fail. */
#define DATE_MASK 0x007fffffffffffffULL

int codec_strftime(int64_t date, int64_t offset, bool utc, const char *fmt, char *out, size_t outsz)
{
	time_t t = (time_t)(int64_t)(((uint64_t)date & DATE_MASK) + (uint64_t)offset);
	struct tm tm;

	if (!(utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)))
		return -1;
	return (int)strftime(out, out_limit(outsz), fmt, &tm);
}

int codec_time_unit_parse(const char *name)
{
	if (!strcmp(name, "s"))
		return CODEC_UNIT_S;
	if (!strcmp(name, "ms"))
		return CODEC_UNIT_MS;
	if (!strcmp(name, "us"))
		return CODEC_UNIT_US;
	return -1;
}

int codec_http_date(int64_t date, int64_t offset, enum codec_time_unit unit, char *out,
		    size_t outsz)
{
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char mons[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	int64_t v = (int64_t)((uint64_t)date + (uint64_t)offset), div = 1, frac = 0;
	char fracs[24] = "";
	struct tm tm;
	time_t t;
	int n;

	if (unit == CODEC_UNIT_MS)
		div = 1000;
	else if (unit == CODEC_UNIT_US)
		div = 1000000;
	if (div > 1) {
		frac = v % div;
		v /= div;
		snprintf(fracs, sizeof(fracs), ".%lld", (long long)frac);
	}
	t = (time_t)(int64_t)((uint64_t)v & DATE_MASK);
	if (!gmtime_r(&t, &tm) || tm.tm_wday < 0 || tm.tm_wday > 6 || tm.tm_mon < 0 ||
	    tm.tm_mon > 11)
		return -1;
	n = snprintf(out, out_limit(outsz), "%s, %02d %s %lld %02d:%02d:%02d%s GMT",
		     days[tm.tm_wday], tm.tm_mday, mons[tm.tm_mon], (long long)tm.tm_year + 1900,
		     tm.tm_hour, tm.tm_min, tm.tm_sec, fracs);
	if (n < 0 || (size_t)n >= out_limit(outsz))
		return -1;
	return n;
}
