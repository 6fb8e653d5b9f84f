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
