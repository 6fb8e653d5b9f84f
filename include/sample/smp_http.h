/* Pure parsers behind the HTTP fetches (smp_http.c): URL parameters, cookies, the values
 * of a comma-separated header, HAProxy's lenient number and address readers, the hash of
 * base32/url32, the varint of req.hdrs_bin, and chunked-body decoding. Everything works
 * on (ptr, len) views, allocates nothing and may be called from any thread.
 */
#ifndef SAMPLE_SMP_HTTP_H
#define SAMPLE_SMP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <netinet/in.h>
#include <base/ist.h>

/* The parameter list of a request target: what follows the first <delim> ('?' for the
 * query string). Its ptr is NULL when <uri> has no <delim>. */
struct ist smp_param_list(struct ist uri, char delim);

/* Finds the next parameter of the list *<rest> (from smp_param_list, or a url-encoded
 * body) named <name>, or any parameter that has a '=' when <name> is empty. Parameters
 * are separated by '&', ';' or <delim>; a match is "NAME=VALUE" (case-sensitive name).
 * Returns true with the value in *val and *rest advanced past it; false at the end.
 */
bool smp_param_next(struct ist *rest, struct ist name, char delim, struct ist *val);

/* Finds the next cookie named <name> (any name when <any>) in the header value *<rest>:
 * "NAME = VALUE" pairs separated by ';' (and ',' when <list>: Cookie headers), spaces
 * around names and values ignored, a value in double quotes kept whole with its quotes,
 * pairs without '=' or whose name starts with '$' skipped. Without <list> (Set-Cookie)
 * only the first pair is considered. As HAProxy does, a pair is only looked at when its
 * segment, leading spaces included, is longer than the name plus one byte. Returns true
 * with the value in *val and *rest advanced past it.
 */
bool smp_cookie_next(struct ist *rest, struct ist name, bool any, bool list, struct ist *val);

/* Splits the next comma-separated element off the header value *<rest> (commas inside
 * double quotes, with backslash escapes, do not split), trimmed of spaces and tabs.
 * Returns false once the whole value was consumed; an empty value has one empty element.
 * *<done> must start false and is set once the last element was returned.
 */
bool smp_hdr_next_value(struct ist *rest, bool *done, struct ist *val);

/* The first ',' or '"' of s[0..e), or e. Eight bytes at a time on little-endian machines
 * (the lowest flagged byte of the zero-byte test is always a true match); the last bytes
 * of a value of 8 bytes or more are read by one load ending at e, the bytes already seen
 * shifted out. */
static inline const char *smp_find_comma_or_quote(const char *s, const char *e)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	const char *start = s;
	uint64_t w, c, q, m;

	while (e - s >= 8) {
		memcpy(&w, s, sizeof(w));
		c = w ^ (ones * ',');
		q = w ^ (ones * '"');
		m = ((c - ones) & ~c & highs) | ((q - ones) & ~q & highs);
		if (m)
			return s + (__builtin_ctzll(m) >> 3);
		s += 8;
	}
	if (s < e && e - start >= 8) {
		memcpy(&w, e - 8, sizeof(w));
		w >>= 8 * (8 - (e - s)); /* zero bytes shifted in match neither */
		c = w ^ (ones * ',');
		q = w ^ (ones * '"');
		m = ((c - ones) & ~c & highs) | ((q - ones) & ~q & highs);
		return m ? s + (__builtin_ctzll(m) >> 3) : e;
	}
#endif
	while (s < e && *s != ',' && *s != '"')
		s++;
	return s;
}

/* smp_hdr_next_value() with its common case inline: no quote and no comma left, the rest
 * is the last element. */
static inline __attribute__((always_inline)) bool
smp_hdr_next_value_fast(struct ist *rest, bool *done, struct ist *val)
{
	const char *s = rest->ptr, *e = s + rest->len;

	if (*done)
		return false;
	if (smp_find_comma_or_quote(s, e) != e)
		return smp_hdr_next_value(rest, done, val);
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*val = ist2(s, (size_t)(e - s));
	*rest = ist2(rest->ptr + rest->len, 0);
	*done = true;
	return true;
}

/* The first "NAME=VALUE" pair named <name> (case-sensitive) of the Cookie header value
 * <v>, pairs separated by ';' or ',' with optional spaces: *pair is the whole pair (from
 * its name to the end of its value, to remove or replace it), *val its value (spaces
 * around '=' skipped). False when there is none. Used by cookie persistence. */
bool smp_cookie_pair(struct ist v, struct ist name, struct ist *pair, struct ist *val);

/* HAProxy's lenient integer reading (hdr_val, cook_val, urlp_val): an optional '-', then
 * bytes accumulated as base-10 digits until one above '9'; bytes below '0' are accumulated
 * too (as their negative distance to '0'), and the result wraps at 32 bits. */
int smp_strl2ic(struct ist s);

/* A dotted IPv4 address at the start of <s>, ended by the end of <s> or any byte other
 * than a digit or '.'. Returns the bytes read (> 0), or 0 when there is none. */
size_t smp_ipv4_prefix(struct ist s, struct in_addr *out);

/* The IPv4 address and port of an "http://" or "https://" absolute URL whose host is an
 * IPv4 literal (url_ip, url_port); the port defaults to 80 or 443. Returns false
 * otherwise. */
bool smp_url_ipv4(struct ist url, struct in_addr *ip, int *port);

/* The 32-bit hash of base32 and url32: an sdbm hash over each view in turn (start with
 * h = 0), then Jenkins' 32-bit integer mix times 3221225473 (smp_hash_final). */
uint32_t smp_hash_sdbm(uint32_t h, struct ist s);
uint32_t smp_hash_final(uint32_t h);

/* Appends <v> to out[*pos..room) in HAProxy's varint format (req.hdrs_bin). Returns 0,
 * or -1 when it does not fit. */
int smp_varint_put(char *out, size_t room, size_t *pos, uint64_t v);

/* Decodes the chunked body at the start of <in> into out[0..room): the data of complete
 * and partial chunks, stopping at the last chunk, at an invalid size line, or when out is
 * full. Returns the bytes written; *<end> tells whether the last chunk was reached. */
size_t smp_dechunk(struct ist in, char *out, size_t room, bool *end);

#endif
