/* The capability names "setcap" accepts (HAProxy 2.9's list) and the parser of its
 * comma-separated argument. Pure: no I/O, no allocation.
 */
#ifndef PROC_CAPS_H
#define PROC_CAPS_H

#include <stddef.h>
#include <stdint.h>

/* Parses "cap_a,cap_b,..." into a mask of (1 << CAP_*) bits, added to *mask. Empty items
 * (",,", a trailing ',') are skipped. Returns 0, or -1 with the unknown item's position
 * and length in *bad / *badlen (an empty list is unknown too, with *badlen 0).
 */
int caps_parse(const char *list, uint32_t *mask, const char **bad, size_t *badlen);

#endif
