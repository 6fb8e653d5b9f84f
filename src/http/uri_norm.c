/* URI normalizers (RFC 3986 section 6.2.2) as HAProxy's "normalize-uri" applies them:
 * slashes, dot segments, percent-encoding case and decoding, query order, fragments.
 * Pure: they read (ptr, len) and write a caller buffer.
 */
#include <string.h>
#include <base/parse.h>

#include <http/uri_norm.h>

#define QUERY_MAX_PARAMS 256

/* Appends <n> bytes; false when they do not fit. */
static bool put(char *out, size_t outsz, size_t *o, const char *p, size_t n)
{
	if (n > outsz - *o)
		return false;
	if (n)
		memcpy(out + *o, p, n);
	*o += n;
	return true;
}

int uri_norm_merge_slashes(const char *in, size_t len, char *out, size_t outsz)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		if (in[i] == '/' && o && out[o - 1] == '/')
			continue;
		if (!put(out, outsz, &o, in + i, 1))
			return URI_NORM_ROOM;
	}
	return (int)o;
}

/* Gives the segments of the path in[0..len) one by one into *seg and *slen; one
 * starts after each slash. Returns false at the end. */
static bool next_seg(const char *in, size_t len, size_t *pos, const char **seg, size_t *slen)
{
	const char *e;

	if (*pos >= len)
		return false;
	if (in[*pos] == '/')
		(*pos)++;
	*seg = in + *pos;
	e = memchr(*seg, '/', len - *pos);
	*slen = e ? (size_t)(e - *seg) : len - *pos;
	*pos += *slen;
	return true;
}

int uri_norm_strip_dot(const char *in, size_t len, char *out, size_t outsz)
{
	size_t pos = 0, o = 0, slen;
	const char *seg;

	if (!len || in[0] != '/')
		return put(out, outsz, &o, in, len) ? (int)o : URI_NORM_ROOM;
	while (next_seg(in, len, &pos, &seg, &slen)) {
		if (slen == 1 && seg[0] == '.') {
			if (pos >= len && !put(out, outsz, &o, "/", 1))
				return URI_NORM_ROOM;
			continue;
		}
		if (!put(out, outsz, &o, "/", 1) || !put(out, outsz, &o, seg, slen))
			return URI_NORM_ROOM;
	}
	if (!o && !put(out, outsz, &o, "/", 1))
		return URI_NORM_ROOM;
	return (int)o;
}

int uri_norm_strip_dotdot(const char *in, size_t len, bool full, char *out, size_t outsz)
{
	size_t pos = 0, o = 0, slen, kept = 0; /* kept: segments in out that are not ".." */
	const char *seg;

	if (!len || in[0] != '/')
		return put(out, outsz, &o, in, len) ? (int)o : URI_NORM_ROOM;
	while (next_seg(in, len, &pos, &seg, &slen)) {
		bool last = pos >= len;

		if (slen == 2 && seg[0] == '.' && seg[1] == '.') {
			if (kept) { /* remove the previous segment and its '/' */
				while (out[--o] != '/')
					;
				kept--;
			} else if (!full) {
				if (!put(out, outsz, &o, "/..", 3))
					return URI_NORM_ROOM;
				continue;
			}
			if (last && !put(out, outsz, &o, "/", 1))
				return URI_NORM_ROOM;
			continue;
		}
		if (!put(out, outsz, &o, "/", 1) || !put(out, outsz, &o, seg, slen))
			return URI_NORM_ROOM;
		kept++;
	}
	if (!o && !put(out, outsz, &o, "/", 1))
		return URI_NORM_ROOM;
	return (int)o;
}

static bool unreserved(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '~';
}

/* The byte of "%XX" at in[i] (i + 2 < len), or -1 when not a valid sequence. */
static int pct_at(const char *in, size_t len, size_t i)
{
	int h, l;

	if (len - i < 3)
		return -1;
	h = hex_digit_val(in[i + 1]);
	l = hex_digit_val(in[i + 2]);
	return h < 0 || l < 0 ? -1 : h * 16 + l;
}

int uri_norm_pct_decode_unreserved(const char *in, size_t len, bool strict, char *out, size_t outsz)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		int c;

		if (in[i] != '%') {
			if (!put(out, outsz, &o, in + i, 1))
				return URI_NORM_ROOM;
			continue;
		}
		c = pct_at(in, len, i);
		if (c < 0) {
			if (strict)
				return URI_NORM_INVALID;
			if (!put(out, outsz, &o, in + i, 1))
				return URI_NORM_ROOM;
			continue;
		}
		if (unreserved(c)) {
			char b = (char)c;

			if (!put(out, outsz, &o, &b, 1))
				return URI_NORM_ROOM;
		} else if (!put(out, outsz, &o, in + i, 3)) {
			return URI_NORM_ROOM;
		}
		i += 2;
	}
	return (int)o;
}

int uri_norm_pct_upper(const char *in, size_t len, bool strict, char *out, size_t outsz)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char seq[3];

		if (in[i] != '%' || pct_at(in, len, i) < 0) {
			if (in[i] == '%' && strict)
				return URI_NORM_INVALID;
			if (!put(out, outsz, &o, in + i, 1))
				return URI_NORM_ROOM;
			continue;
		}
		seq[0] = '%';
		for (int k = 1; k < 3; k++) {
			char c = in[i + (size_t)k];

			seq[k] = (char)(c >= 'a' && c <= 'f' ? c - 32 : c);
		}
		if (!put(out, outsz, &o, seq, 3))
			return URI_NORM_ROOM;
		i += 2;
	}
	return (int)o;
}

/* Name of a parameter: up to '='. */
static size_t param_name_len(const char *p, size_t len)
{
	const char *eq = memchr(p, '=', len);

	return eq ? (size_t)(eq - p) : len;
}

/* Byte order of the names, a shorter name first when it is a prefix of the other. */
static int param_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t an = param_name_len(a, alen), bn = param_name_len(b, blen);
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

int uri_norm_query_sort(const char *in, size_t len, char *out, size_t outsz)
{
	size_t off[QUERY_MAX_PARAMS], plen[QUERY_MAX_PARAMS];
	size_t n = 0, pos = 0, o = 0;

	if (len > outsz)
		return URI_NORM_ROOM;
	for (;;) {
		const char *amp = memchr(in + pos, '&', len - pos);
		size_t l = amp ? (size_t)(amp - in - pos) : len - pos;

		if (n == QUERY_MAX_PARAMS)
			return URI_NORM_ROOM;
		off[n] = pos;
		plen[n++] = l;
		if (!amp)
			break;
		pos += l + 1;
	}
	/* insertion sort: stable, and queries are short */
	for (size_t i = 1; i < n; i++) {
		size_t ko = off[i], kl = plen[i], j = i;

		while (j && param_cmp(in + off[j - 1], plen[j - 1], in + ko, kl) > 0) {
			off[j] = off[j - 1];
			plen[j] = plen[j - 1];
			j--;
		}
		off[j] = ko;
		plen[j] = kl;
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			out[o++] = '&';
		memcpy(out + o, in + off[i], plen[i]);
		o += plen[i];
	}
	return (int)o;
}

int uri_norm_fragment_strip(const char *in, size_t len, char *out, size_t outsz)
{
	const char *h = memchr(in, '#', len);
	size_t o = 0;

	return put(out, outsz, &o, in, h ? (size_t)(h - in) : len) ? (int)o : URI_NORM_ROOM;
}

int uri_norm_fragment_encode(const char *in, size_t len, char *out, size_t outsz)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		bool ok = in[i] == '#' ? put(out, outsz, &o, "%23", 3)
				       : put(out, outsz, &o, in + i, 1);

		if (!ok)
			return URI_NORM_ROOM;
	}
	return (int)o;
}
