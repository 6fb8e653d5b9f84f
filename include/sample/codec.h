/* Pure encoders, decoders and extractors behind the base64, b64dec, ub64enc, ub64dec, hex,
 * hex2i, url_dec, url_enc, be2dec, be2hex, field, word, ltime, utime and http_date
 * converters, with HAProxy 2.6's output byte for byte (differences are named below).
 * Every function works on (ptr, len) and writes into a caller buffer (out, outsz), never
 * NUL-terminated unless stated, allocates nothing and may be called from any thread.
 */
#ifndef SAMPLE_CODEC_H
#define SAMPLE_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Return convention, unless a function says otherwise: the number of bytes written to out,
 * or -1 when the input is invalid or the result does not fit in outsz. Inputs and outputs
 * are limited to INT_MAX bytes.
 */

/* base64 with padding ("YWI="). -1 only when out is too small. */
int codec_b64_enc(const void *in, size_t len, char *out, size_t outsz);

/* base64url without padding ("YWI"). -1 only when out is too small. */
int codec_ub64_enc(const void *in, size_t len, char *out, size_t outsz);

/* Decodes base64 as HAProxy's b64dec: the length must be a multiple of 4; each quad may
 * end with "=" or "==" (so "YQ==YQ==" decodes to "aa"); "X===" decodes to nothing; any
 * other character, including whitespace, is invalid (-1).
 */
int codec_b64_dec(const char *in, size_t len, void *out, size_t outsz);

/* Decodes base64url ("-" and "_"): missing padding is implied, a length of 4n+1 is
 * invalid. Up to two "=" at the very end are accepted as padding when they complete the
 * last quad. (HAProxy 2.6 decodes "=" there as if it were "_": a bug we do not copy.)
 */
int codec_ub64_dec(const char *in, size_t len, void *out, size_t outsz);

/* Two uppercase hex digits per byte (the hex converter). */
int codec_hex_enc(const void *in, size_t len, char *out, size_t outsz);

/* hex2i: hex digits (either case) into *res, shifted in 4 bits at a time and wrapping at
 * 64 bits ("ffffffffffffffff" is -1, the empty string 0). Returns 0, or -1 when any
 * character is not a hex digit (HAProxy's converter then fails, whatever its doc says).
 */
int codec_hex2i(const char *in, size_t len, int64_t *res);

/* url_dec: "%XX" becomes the byte XX; '+' becomes a space when <in_form> is set or after
 * a literal '?' in the input. A '%' not followed by two hex digits makes the whole input
 * invalid (-1). out may be in (decoding never grows).
 */
int codec_url_dec(const char *in, size_t len, char *out, size_t outsz, bool in_form);

/* url_enc(query): keeps A-Z a-z 0-9 - . _ ~ and writes every other byte as %XX
 * (uppercase).
 */
int codec_url_enc(const char *in, size_t len, char *out, size_t outsz);

/* be2dec(<sep>,<chunk>,<truncate>): each <chunk> bytes (1..8, else -1) printed as an
 * unsigned big-endian decimal number, <sep> between numbers; a final shorter chunk is
 * printed from its own bytes unless <truncate>.
 */
int codec_be2dec(const void *in, size_t len, const char *sep, size_t seplen, int chunk,
		 bool truncate, char *out, size_t outsz);

/* be2hex([<sep>],[<chunk>],[<truncate>]): uppercase hex, <sep> between chunks of <chunk>
 * bytes when both are set; <truncate> drops a final shorter chunk. chunk 0 means one
 * chunk (the converter refuses a separator without a chunk size); chunk < 0 is -1.
 */
int codec_be2hex(const void *in, size_t len, const char *sep, size_t seplen, int chunk,
		 bool truncate, char *out, size_t outsz);

/* field(<idx>,<delims>[,<count>]): the fields are what lies between delimiters (any byte
 * of delims[0..ndelims)), empty ones included; idx counts from 1, or from the end when
 * negative; <count> fields are taken (from idx toward the end, or toward the start for a
 * negative idx), 0 or less meaning all the rest. Sets the result as a view in[*off ..
 * *off + *rlen) and returns 0, or -1 when field idx does not exist (the converter fails),
 * idx is 0 or there is no delimiter.
 */
int codec_field(const char *in, size_t len, long idx, const char *delims, size_t ndelims,
		long count, size_t *off, size_t *rlen);

/* word(): as field() but words are non-empty runs between delimiters. A missing word gives
 * an empty result (returns 0 with *rlen = 0), as HAProxy does; -1 only for idx 0 or no
 * delimiter.
 */
int codec_word(const char *in, size_t len, long idx, const char *delims, size_t ndelims, long count,
	       size_t *off, size_t *rlen);

/* ltime/utime(<fmt>[,<offset>]): the date (seconds) is masked to its low 55 bits (so that
 * the C library can always convert it, as HAProxy does), <offset> is added, and strftime()
 * formats it in local time or UTC into out, NUL-terminated. Returns strftime()'s length:
 * 0 when the result is empty or does not fit (HAProxy then yields an empty string), -1 when
 * the date cannot be converted.
 */
int codec_strftime(int64_t date, int64_t offset, bool utc, const char *fmt, char *out,
		   size_t outsz);

enum codec_time_unit {
	CODEC_UNIT_S = 0,
	CODEC_UNIT_MS,
	CODEC_UNIT_US,
};

/* Parses the unit argument of http_date: "s", "ms" or "us"; -1 for anything else. */
int codec_time_unit_parse(const char *name);

/* http_date([<offset>],[<unit>]): IMF-fixdate such as "Tue, 14 Nov 2023 22:13:20 GMT"
 * (English names whatever the locale). The offset is added in the input's unit, the
 * seconds masked to 55 bits; with ms or us the remainder is printed after the seconds as
 * HAProxy 2.6 prints it: ".%d", unpadded and negative for negative dates ("20.5" for
 * 5 ms, "20.-500").
 */
int codec_http_date(int64_t date, int64_t offset, enum codec_time_unit unit, char *out,
		    size_t outsz);

#endif
