/* The reader of the RDP cookie at the head of a client's bytes (sample/payload.h): pure,
 * shared by req.rdp_cookie, "balance rdp-cookie" and "persist rdp-cookie", fuzzed by
 * tests/fuzz/fuzz_rdp_cookie.c.
 */
#include <string.h>
#include <strings.h>
#include <sample/payload.h>

int rdp_cookie_find(const char *d, size_t n, struct ist name, struct ist *val)
{
	const char *e = d + n;

	if (n < 2)
		return n ? 0 : -1;
	if ((unsigned char)d[0] != 0x03 || d[1] != 0x00)
		return 0;
	if (e - d <= 11 + 7)
		return -1;
	d += 11;
	if (strncasecmp(d, "Cookie:", 7))
		return 0;
	for (d += 7; d < e && *d == ' '; d++)
		;
	if (name.len) {
		if ((size_t)(e - d) <= name.len)
			return -1;
		if (strncasecmp(d, name.ptr, name.len) || d[name.len] != '=')
			return 0;
		d += name.len + 1;
	} else {
		const char *eq = memchr(d, '=', (size_t)(e - d));

		if (!eq)
			return -1;
		d = eq + 1;
	}
	for (const char *p = d; p + 1 < e; p++) {
		if (p[0] == '\r' && p[1] == '\n') {
			*val = ist2(d, (size_t)(p - d));
			return 1;
		}
	}
	return -1;
}
