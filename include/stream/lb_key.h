/* The key of the hash-based "balance" algorithms (source, uri, url_param, hdr, rdp-cookie,
 * hash): what to take from a stream and how to hash it (lb_key.c); parsed by lb_cfg.c.
 * Built at config time, read-only at run time.
 */
#ifndef STREAM_LB_KEY_H
#define STREAM_LB_KEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <proxy/proxy-t.h>
#include <stream/stream-t.h>

#define LBK_F_WHOLE 0x01       /* uri: keep the query string */
#define LBK_F_PATH_ONLY 0x02   /* uri: drop scheme and authority of an absolute URI */
#define LBK_F_CHECK_POST 0x04  /* url_param: also look in a form-encoded POST body */
#define LBK_F_DOMAIN_ONLY 0x08 /* hdr: hash only the label before the last dot */

struct sample_expr;

struct lb_key {
	struct sample_expr *expr; /* src, url, req.hdr(NAME,1), req.rdp_cookie(NAME) or the
				   * "hash" expression */
	struct sample_expr *body; /* url_param check_post: req.body */
	char *name;		  /* url_param NAME */
	size_t name_len;
	int uri_len;	/* uri len N: bytes hashed at most (0: all) */
	int uri_depth;	/* uri depth N: directory levels hashed at most (0: all) */
	uint32_t flags; /* LBK_F_* */
};

/* Hash of key[0..len) with the backend's "hash-type" function and "avalanche". */
uint32_t lb_key_hash(const struct proxy *px, const void *key, size_t len);

/* The part of request target <uri> that "balance uri" hashes with <k>'s options. */
struct ist lb_key_uri(const struct lb_key *k, struct ist uri);

/* The label before the last dot of <v> ("use_domain_only"); <v> without a dot whole. */
struct ist lb_key_domain(struct ist v);

/* Frees <k> and what it owns. */
void lb_key_free(struct lb_key *k);

#endif
