// FUZZ_SRCS: src/ssl/ssl_tkeys_parse.c
/* libFuzzer target for the "tls-ticket-keys" file parser and the base64 codec it uses
 * (also "set ssl tls-key"): the input is a keys file. Findings are crashes, sanitizer
 * reports, a key set of a size other than 48 or 80, and a decoded key that does not
 * encode back to its line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ssl/tkeys.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tkey_set set;
	unsigned char key[TKEY_MAX];
	char enc[TKEY_MAX * 2];
	int line, r, n;

	r = tkeys_parse((const char *)data, size, &set, &line);
	if (r == TKP_OK && set.len != 48 && set.len != 80)
		abort();
	if (r != TKP_OK && r != TKP_ERR_FEW && line < 1)
		abort();
	/* the whole input as one "set ssl tls-key" argument */
	n = tkey_b64_decode((const char *)data, size, key, sizeof(key));
	if (n >= 0 && n <= (int)sizeof(key)) {
		if (tkey_b64_encode(key, (size_t)n, enc, sizeof(enc)) != (int)size ||
		    memcmp(enc, data, size))
			abort();
	}
	return 0;
}
