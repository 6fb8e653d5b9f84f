/* What compression reads in message headers (comp/comp_sel.c), as HAProxy reads it:
 * Accept-Encoding elements with their q-values, the old "Mozilla/4" browsers, ETag
 * forms, list headers (Cache-Control), Content-Type prefixes. Pure functions over views
 * of header values: no allocation, no global state; bounded by the view's length.
 */
#ifndef COMP_COMP_SEL_H
#define COMP_COMP_SEL_H

#include <stdbool.h>
#include <stdint.h>
#include <base/ist.h>
#include <comp/comp-t.h>

/* The next element of the comma-separated list <*v> (commas inside quoted strings do not
 * split), spaces around it trimmed; <*v> moves past it. False once the list is over. */
bool comp_list_next(struct ist *v, struct ist *elem);

/* A q-value read as HAProxy reads it, times 1000: a digit, then a dot and up to three
 * digits; anything unreadable is 1000 (q=1), more than 1000 is 1000. */
int comp_qvalue(struct ist s);

/* One Accept-Encoding header value: each element whose q-value is strictly above
 * <*best_q> and whose coding is one of <algos> (or "*", which names the first) becomes
 * the choice (<*best>, <*best_q>). q=0 never chooses. */
void comp_ae_scan(struct ist v, const struct comp_algo *const *algos, uint32_t n,
		  const struct comp_algo **best, int *best_q);

/* True for a User-Agent that starts with "Mozilla/4" and is not MSIE 6 SP2 or MSIE 7 and
 * later: such browsers are not sent compressed responses. */
bool comp_ua_refused(struct ist ua);

enum comp_etag {
	COMP_ETAG_INVALID = 0,
	COMP_ETAG_STRONG, /* "..." */
	COMP_ETAG_WEAK,	  /* W/"..." */
};

enum comp_etag comp_etag_type(struct ist v);

/* True when an element of list value <v> is <word> (case-insensitive). */
bool comp_list_has(struct ist v, struct ist word);

/* True when <ctype> starts with one of the <n> prefixes <types> (case-insensitive). */
bool comp_type_match(struct ist ctype, const struct ist *types, uint32_t n);

#endif
