/* The HTTP rules of the cache, as HAProxy applies them: which requests may use or fill
 * it (method, version, Cache-Control, Pragma, Authorization), the primary key (the
 * absolute URI, or "https://" + Host + URI), the secondary key of a Vary response
 * (Accept-Encoding, Referer, Origin), which responses are stored and for how long
 * (status, Cache-Control, Pragma, Expires, Age, validators), and conditional requests
 * (If-None-Match, If-Modified-Since). Pure: functions of a parsed message (views into the
 * caller's buffer), no I/O, no globals, no allocation; any thread.
 */
#ifndef CACHE_CACHE_HTTP_H
#define CACHE_CACHE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <base/ist.h>
#include <http/h1-t.h>

/* What the request allows (cache_req_flags). */
#define CACHE_RQ_IGNORE 0x01  /* the cache is not looked up (the response may be stored) */
#define CACHE_RQ_NOSTORE 0x02 /* the response is not stored unless it says "public" */
#define CACHE_RQ_SKIP 0x04    /* HTTP/1.0: the cache is neither looked up nor filled */

/* Content codings, as bits (Accept-Encoding, Content-Encoding). */
#define CACHE_ENC_GZIP 0x0001 /* gzip, x-gzip */
#define CACHE_ENC_DEFLATE 0x0002
#define CACHE_ENC_BR 0x0004
#define CACHE_ENC_COMPRESS 0x0008 /* compress, x-compress */
#define CACHE_ENC_AES 0x0010	  /* aes128gcm */
#define CACHE_ENC_EXI 0x0020
#define CACHE_ENC_PACK200 0x0040 /* pack200-gzip */
#define CACHE_ENC_ZSTD 0x0080
#define CACHE_ENC_IDENTITY 0x0100
#define CACHE_ENC_STAR 0x0200  /* "*" (requests only) */
#define CACHE_ENC_OTHER 0x0400 /* a coding outside the list above */

/* What a response varies on (its Vary header, with process-vary on). */
#define CACHE_VARY_AE 0x01 /* Accept-Encoding */
#define CACHE_VARY_REFERER 0x02
#define CACHE_VARY_ORIGIN 0x04

/* The request's side of a secondary key. */
struct cache_sec {
	uint32_t ae;	  /* codings accepted (q > 0), CACHE_ENC_*; all when <ae_any> */
	uint32_t ae_rej;  /* codings refused explicitly (q=0) */
	uint8_t ae_any;	  /* no Accept-Encoding header: any coding is acceptable */
	uint32_t referer; /* hashes of the values, 0 when absent */
	uint32_t origin;
};

/* Request flags (CACHE_RQ_*) for message <m>: GET and HEAD in HTTP/1.1 only; no lookup
 * for Cache-Control max-age, no-cache, max-stale or min-fresh, nor for "Pragma: no-cache"
 * without Cache-Control; nothing at all with Authorization; no-store: no storing. */
uint32_t cache_req_flags(const struct h1_msg *m);

/* Writes the primary key of request <m> into out[0..room): its target when absolute
 * ("scheme://..."), else "https://" + the Host value + the target. Returns its length,
 * 0 when there is none (no Host), or -1 when it does not fit. */
long cache_req_key(const struct h1_msg *m, char *out, size_t room);

/* The secondary-key values of request <m>. */
void cache_req_sec(const struct h1_msg *m, struct cache_sec *sec);

/* A 32-bit hash of a header value for the secondary key (0 only for an absent header). */
uint32_t cache_sec_hash(struct ist v);

/* The codings of an Accept-Encoding value, added to <sec> (q=0 ones to ae_rej). */
void cache_ae_parse(struct ist v, struct cache_sec *sec);

/* The bit of one coding name (case-insensitive), CACHE_ENC_OTHER when unknown. */
uint32_t cache_enc_bit(struct ist name);

/* True when a response with codings <enc> (CACHE_ENC_*, IDENTITY for none) is
 * acceptable to a request whose Accept-Encoding gave <sec>. */
bool cache_enc_acceptable(uint32_t enc, const struct cache_sec *sec);

/* True for the statuses whose responses may be stored. */
bool cache_status_ok(int status);

/* What cache_rsp_check() finds in a response. */
struct cache_rsp {
	int ttl;	  /* seconds the entry may be used */
	uint32_t age;	  /* its Age header (0 without one) */
	int age_idx;	  /* index of that header in the table, -1 without one */
	uint8_t vary;	  /* CACHE_VARY_* */
	uint32_t enc;	  /* its codings (Content-Encoding), CACHE_ENC_IDENTITY without */
	int64_t last_mod; /* Last-Modified, else Date (seconds since the epoch), 0: neither */
	struct ist etag;  /* its ETag value (a view into the message), empty without one */
};

/* Decides whether response <m> to a request with flags <rq> (CACHE_RQ_*) is stored by a
 * cache whose max-age is <max_age> s (process-vary: <vary_on>), at wall-clock time <now>
 * (seconds). Fills <out> and returns 0 when it is, -1 when it is not. The status is not
 * looked at (cache_status_ok). */
int cache_rsp_check(const struct h1_msg *m, uint32_t rq, uint32_t max_age, bool vary_on,
		    int64_t now, struct cache_rsp *out);

/* Parses an HTTP date (IMF-fixdate, RFC 850, asctime) into seconds since the epoch.
 * Returns 0, or -1 when it is not one. */
int cache_http_date(struct ist v, int64_t *t);

/* True when the If-None-Match value <inm> ("*" or a list of entity tags) matches entity
 * tag <etag> (weak comparison). */
bool cache_etag_match(struct ist inm, struct ist etag);

/* Conditional request <m> against an entry with entity tag <etag> (empty: none) and
 * modification date <last_mod>: true when a 304 answers it (If-None-Match decides when
 * present, else If-Modified-Since). */
bool cache_not_modified(const struct h1_msg *m, struct ist etag, int64_t last_mod);

/* Calls <fn> for each comma-separated element of value <v> (trimmed, quoted strings kept
 * whole, empty elements skipped); stops when it returns false. */
void cache_each_elem(struct ist v, bool (*fn)(struct ist e, void *arg), void *arg);

#endif
