// FUZZ_SRCS: src/cache/cache_http.c src/http/h1.c src/http/h1_chunk.c src/http/h1_uri.c
// FUZZ_SRCS: src/sample/hash.c
/* libFuzzer target for the cache's HTTP rules (cache/cache_http.h), which read what
 * clients and servers send: the input (an exact-size heap copy, so that ASan catches a
 * read past its end) is split at its first NUL into a request and a response head, each
 * parsed by the H1 parser; every rule is then run on them: request flags, the primary key
 * into rooms of several sizes, the secondary key, the response check at several max-ages
 * with and without process-vary, dates, entity tags and the conditional answer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cache/cache_http.h>
#include <http/h1.h>

static struct h1_hdr fz_req_hdrs[64], fz_rsp_hdrs[64];

static bool fz_elem(struct ist e, void *arg)
{
	size_t *n = arg;

	if (!e.len)
		abort(); /* empty elements are skipped */
	return ++*n < 1000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct h1_limits lim = { .max_hdr_block = 8192, .max_hdr = 64 };
	struct h1_msg req = { .hdr = fz_req_hdrs, .max_hdr = 64 };
	struct h1_msg rsp = { .hdr = fz_rsp_hdrs, .max_hdr = 64 };
	const uint8_t *cut = memchr(data, 0, size);
	size_t qlen = cut ? (size_t)(cut - data) : size, plen = cut ? size - qlen - 1 : 0;
	char *q = malloc(qlen ? qlen : 1), *p = malloc(plen ? plen : 1), key[300];
	static const size_t rooms[] = { 0, 1, 8, 64, 300 };
	bool have_req, have_rsp;
	struct cache_sec sec;
	struct cache_rsp cr;
	int64_t t;

	if (!q || !p)
		abort();
	memcpy(q, data, qlen);
	if (plen)
		memcpy(p, cut + 1, plen);
	have_req = h1_parse_headers(q, qlen, &req, false, &lim) > 0;
	have_rsp = h1_parse_headers(p, plen, &rsp, true, &lim) > 0;
	if (have_req) {
		uint32_t rq = cache_req_flags(&req);

		for (size_t i = 0; i < sizeof(rooms) / sizeof(rooms[0]); i++) {
			long n = cache_req_key(&req, key, rooms[i]);

			if (n > (long)rooms[i])
				abort();
		}
		memset(&sec, 0, sizeof(sec));
		cache_req_sec(&req, &sec);
		for (uint16_t i = 0; i < req.nhdr; i++) {
			size_t n = 0;

			cache_each_elem(req.hdr[i].v, fz_elem, &n);
			cache_ae_parse(req.hdr[i].v, &sec);
			(void)cache_http_date(req.hdr[i].v, &t);
			(void)cache_sec_hash(req.hdr[i].v);
			(void)cache_enc_bit(req.hdr[i].v);
		}
		(void)cache_enc_acceptable(CACHE_ENC_GZIP, &sec);
		(void)cache_enc_acceptable(CACHE_ENC_IDENTITY, &sec);
		if (have_rsp) {
			for (int v = 0; v < 2; v++) {
				for (uint32_t age = 0; age < 3; age++) {
					if (cache_rsp_check(&rsp, rq, age * 3600, v, 1700000000,
							    &cr) == 0) {
						if (cr.age_idx >= rsp.nhdr)
							abort();
						(void)cache_not_modified(&req, cr.etag,
									 cr.last_mod);
					}
				}
			}
			for (uint16_t i = 0; i < req.nhdr; i++)
				for (uint16_t j = 0; j < rsp.nhdr; j++)
					(void)cache_etag_match(req.hdr[i].v, rsp.hdr[j].v);
		}
		(void)cache_not_modified(&req, IST(""), 0);
	}
	if (have_rsp)
		(void)cache_status_ok(rsp.status);
	free(q);
	free(p);
	return 0;
}
