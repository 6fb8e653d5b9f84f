/* The distcc protocol reader behind distcc_body and distcc_param (distcc.c): a request is a
 * run of elements, each a 4-character token, 8 hexadecimal digits (a value, or the length
 * of a body that follows) and, for every token but DIST, ARGC, STAT, DONE and NFIL, that
 * body. Pure: no allocation, no global, views into the input.
 */
#ifndef SAMPLE_DISTCC_H
#define SAMPLE_DISTCC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DISTCC_HDR_LEN 12 /* token + 8 hex digits */

enum distcc_ret {
	DISTCC_MORE = -1, /* the input ends before the element asked for (or its body) */
	DISTCC_NOT = 0,	  /* not there: an element before it is not distcc */
	DISTCC_FOUND = 1,
};

/* Finds occurrence <occ> (1 for the first; 0: the first too; negative: never) of token
 * <tok> (4 bytes) in <p> (len bytes). On DISTCC_FOUND, *param is its value and *body /
 * *body_len its body (length 0 for a token without one). With <need_body>, a body that
 * the input does not hold whole answers DISTCC_MORE; without, the view is cut to the
 * input. HAProxy 2.6's reading, except that a body is never read past the input.
 */
enum distcc_ret distcc_find(const unsigned char *p, size_t len, const char *tok, long long occ,
			    bool need_body, uint32_t *param, const unsigned char **body,
			    size_t *body_len);

#endif
