/* The distcc protocol reader (sample/distcc.h): walks the elements of a request from its
 * start, skipping the bodies of the tokens that carry one, until the occurrence asked for.
 */
#include <string.h>

#include <sample/distcc.h>

/* Eight hexadecimal digits into *v; false on any other byte. */
static bool distcc_hex8(const unsigned char *p, uint32_t *v)
{
	uint32_t r = 0;

	for (int i = 0; i < 8; i++) {
		unsigned char c = p[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return false;
		r = r << 4 | d;
	}
	*v = r;
	return true;
}

/* Tokens whose value is not followed by a body. */
static bool distcc_no_body(const unsigned char *t)
{
	static const char *const toks[] = { "DIST", "ARGC", "STAT", "DONE", "NFIL" };

	for (size_t i = 0; i < sizeof(toks) / sizeof(toks[0]); i++)
		if (!memcmp(t, toks[i], 4))
			return true;
	return false;
}

enum distcc_ret distcc_find(const unsigned char *p, size_t len, const char *tok, long long occ,
			    bool need_body, uint32_t *param, const unsigned char **body,
			    size_t *body_len)
{
	size_t ofs = 0;
	uint32_t v;

	if (occ < 0)
		return DISTCC_NOT;
	if (occ == 0)
		occ = 1;
	for (;;) {
		const unsigned char *e = p + ofs;
		size_t blen;

		if (len - ofs < DISTCC_HDR_LEN)
			return DISTCC_MORE;
		if (!distcc_hex8(e + 4, &v))
			return DISTCC_NOT;
		ofs += DISTCC_HDR_LEN;
		blen = distcc_no_body(e) ? 0 : v;
		if (!memcmp(e, tok, 4) && --occ == 0) {
			if (blen > len - ofs) {
				if (need_body)
					return DISTCC_MORE;
				blen = len - ofs; /* the view stays inside the input */
			}
			*param = v;
			*body = p + ofs;
			*body_len = blen;
			return DISTCC_FOUND;
		}
		if (blen > len - ofs)
			return DISTCC_MORE;
		ofs += blen;
	}
}
