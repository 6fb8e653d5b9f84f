/* Encoding and parsing of the dates of persistence cookies ("cookie ... maxidle T maxlife
 * T"): "SRV|LAST|FIRST", each date (seconds + 3) / 4 in 30 bits, written as 5 characters
 * of the base64 alphabet, most significant first. Pure: no I/O, no globals, no allocation.
 */
#include <string.h>

#include <base/parse.h>
#include <stream/cookie_date.h>

static const char ck_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void ck_date_enc(uint32_t t, char *out)
{
	uint32_t v = (uint32_t)(((uint64_t)t + 3) >> 2) & 0x3fffffff;

	for (int i = CK_DATE_LEN - 1; i >= 0; i--, v >>= 6)
		out[i] = ck_b64[v & 63];
}

uint32_t ck_date_dec(struct ist f)
{
	uint32_t v = 0;

	if (f.len < CK_DATE_LEN)
		return 0;
	for (int i = 0; i < CK_DATE_LEN; i++) {
		int d = b64_digit_val((unsigned char)f.ptr[i], false);

		if (d < 0)
			return 0;
		v = (v << 6) | (uint32_t)d;
	}
	return v << 2;
}

void ck_date_split(struct ist v, struct ist *id, uint32_t *last, uint32_t *first)
{
	const char *e = v.ptr + v.len, *b1, *b2;

	*last = *first = 0;
	b1 = v.len ? memchr(v.ptr, '|', v.len) : NULL;
	if (!b1) {
		*id = v;
		return;
	}
	*id = ist2(v.ptr, (size_t)(b1 - v.ptr));
	b1++;
	b2 = b1 < e ? memchr(b1, '|', (size_t)(e - b1)) : NULL;
	*last = ck_date_dec(ist2(b1, (size_t)((b2 ? b2 : e) - b1)));
	if (b2)
		*first = ck_date_dec(ist2(b2 + 1, (size_t)(e - b2 - 1)));
}
