/* The dates of a persistence cookie with "maxidle"/"maxlife" ("NAME=SRV|LAST|FIRST"), as
 * HAProxy 2.6 writes them: a date in seconds, rounded up to 4 s, in 5 base64 characters.
 * Pure: no I/O, no globals, no allocation. See stream/cookie_date.c.
 */
#ifndef STREAM_COOKIE_DATE_H
#define STREAM_COOKIE_DATE_H

#include <stdint.h>
#include <base/ist.h>

#define CK_DATE_LEN 5 /* characters of one encoded date */

/* Writes the CK_DATE_LEN characters of date <t> (seconds, 0 < t < 2^32) to <out> (no
 * terminating zero). A date read back from them is <t> rounded up to a multiple of 4. */
void ck_date_enc(uint32_t t, char *out);

/* Reads a date from the first CK_DATE_LEN characters of <f>. Returns the date in seconds,
 * or 0 when <f> is shorter or holds a character outside the alphabet (no date). */
uint32_t ck_date_dec(struct ist f);

/* Splits a cookie value "SRV[|LAST[|FIRST]]": <id> gets the server part, <last> and
 * <first> the dates (0 when absent or unreadable). Extra characters after a date are
 * ignored, as in HAProxy. */
void ck_date_split(struct ist v, struct ist *id, uint32_t *last, uint32_t *first);

#endif
