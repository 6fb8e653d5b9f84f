/* The pure part of TLS ticket keys: base64 and the parser of a "tls-ticket-keys" file.
 * No I/O, no globals, no allocation (fuzzed by tests/fuzz/fuzz_tkeys.c).
 */
#include <stdbool.h>
#include <string.h>

#include <base/parse.h>
#include <ssl/tkeys.h>

int tkey_b64_decode(const char *s, size_t len, unsigned char *out, size_t outsz)
{
	size_t pad = 0, need, o = 0;
	unsigned int acc = 0;

	if (len % 4)
		return -1;
	while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
		pad++;
	need = len / 4 * 3 - pad;
	if (need > outsz)
		return need > (size_t)0x7fffffff ? 0x7fffffff : (int)need;
	for (size_t i = 0; i < len - pad; i++) {
		int v = b64_digit_val((unsigned char)s[i], false);

		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned int)v;
		if (i % 4 == 3) {
			out[o++] = (unsigned char)(acc >> 16);
			out[o++] = (unsigned char)(acc >> 8);
			out[o++] = (unsigned char)acc;
			acc = 0;
		}
	}
	/* the last group: 2 or 3 digits; unused bits must be zero (canonical form) */
	if (pad == 2) {
		if (acc & 0xf)
			return -1;
		out[o++] = (unsigned char)(acc >> 4);
	} else if (pad == 1) {
		if (acc & 0x3)
			return -1;
		out[o++] = (unsigned char)(acc >> 10);
		out[o++] = (unsigned char)(acc >> 2);
	}
	return (int)o;
}

int tkey_b64_encode(const unsigned char *in, size_t len, char *out, size_t outsz)
{
	static const char dig[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	if (outsz < (len + 2) / 3 * 4 + 1)
		return -1;
	for (size_t i = 0; i < len; i += 3) {
		unsigned int v = (unsigned int)in[i] << 16;
		size_t n = len - i < 3 ? len - i : 3;

		if (n > 1)
			v |= (unsigned int)in[i + 1] << 8;
		if (n > 2)
			v |= in[i + 2];
		out[o++] = dig[(v >> 18) & 63];
		out[o++] = dig[(v >> 12) & 63];
		out[o++] = n > 1 ? dig[(v >> 6) & 63] : '=';
		out[o++] = n > 2 ? dig[v & 63] : '=';
	}
	out[o] = '\0';
	return (int)o;
}

int tkeys_parse(const char *buf, size_t len, struct tkey_set *set, int *line)
{
	unsigned char ring[TKEYS_NB][TKEY_MAX];
	size_t pos = 0;
	int n = 0;

	set->len = 0;
	*line = 0;
	while (pos < len) {
		const char *eol = memchr(buf + pos, '\n', len - pos);
		size_t ll = eol ? (size_t)(eol - (buf + pos)) : len - pos, l = ll;
		int r;

		++*line;
		if (l && buf[pos + l - 1] == '\r')
			l--;
		r = tkey_b64_decode(buf + pos, l, ring[n % TKEYS_NB], TKEY_MAX);
		if (r < 0)
			return TKP_ERR_B64;
		if (set->len ? r != set->len : r != 48 && r != 80)
			return TKP_ERR_SIZE;
		set->len = r;
		n++;
		pos += ll + (eol ? 1 : 0);
	}
	if (n < TKEYS_NB)
		return TKP_ERR_FEW;
	/* the last three in file order: oldest, encrypting (penultimate), newest */
	for (int i = 0; i < TKEYS_NB; i++)
		memcpy(set->key[i], ring[(n - TKEYS_NB + i) % TKEYS_NB], (size_t)set->len);
	return TKP_OK;
}
