/* Unit tests for the TLS ticket keys file parser and its base64 codec (ssl_tkeys_parse.c):
 * which keys are kept and which encrypts, the error kinds and the lines they name.
 */
#include <string.h>

#include <ssl/tkeys.h>
#include "../test.h"

/* base64 of 48 bytes of value <c> ('A' + n gives distinct keys) */
static const char *tkt_key(int c, int size, char *out)
{
	unsigned char raw[TKEY_MAX];

	memset(raw, c, (size_t)size);
	tkey_b64_encode(raw, (size_t)size, out, 2 * TKEY_MAX);
	return out;
}

TEST(tkeys_b64_roundtrip)
{
	unsigned char out[8];
	char enc[16];

	CHECK_INT(tkey_b64_decode("QUJD", 4, out, sizeof(out)), 3);
	CHECK(!memcmp(out, "ABC", 3));
	CHECK_INT(tkey_b64_decode("QUI=", 4, out, sizeof(out)), 2);
	CHECK_INT(tkey_b64_decode("QQ==", 4, out, sizeof(out)), 1);
	CHECK_INT(tkey_b64_decode("", 0, out, sizeof(out)), 0);
	CHECK_INT(tkey_b64_decode("abc", 3, out, sizeof(out)), -1);
	CHECK_INT(tkey_b64_decode("ab!c", 4, out, sizeof(out)), -1);
	CHECK_INT(tkey_b64_decode("QR==", 4, out, sizeof(out)), -1); /* non-zero spare bits */
	CHECK_INT(tkey_b64_decode("====", 4, out, sizeof(out)), -1);
	CHECK_INT(tkey_b64_decode("QUJDQUJDQUJD", 12, out, sizeof(out)), 9); /* too big */
	CHECK_INT(tkey_b64_encode((const unsigned char *)"AB", 2, enc, sizeof(enc)), 4);
	CHECK_STR(enc, "QUI=");
	CHECK_INT(tkey_b64_encode((const unsigned char *)"ABCDEF", 6, enc, 8), -1);
}

TEST(tkeys_parse_keeps_last_three)
{
	char k[5][2 * TKEY_MAX], file[1024];
	struct tkey_set set;
	int line;

	for (int i = 0; i < 5; i++)
		tkt_key('a' + i, 48, k[i]);
	snprintf(file, sizeof(file), "%s\n%s\r\n%s\n%s\n%s", k[0], k[1], k[2], k[3], k[4]);
	CHECK_INT(tkeys_parse(file, strlen(file), &set, &line), TKP_OK);
	CHECK_INT(set.len, 48);
	CHECK_INT(set.key[0][0], 'c');
	CHECK_INT(set.key[1][0], 'd'); /* the penultimate encrypts */
	CHECK_INT(set.key[2][47], 'e');
}

TEST(tkeys_parse_errors)
{
	char a[2 * TKEY_MAX], b[2 * TKEY_MAX], file[1024];
	struct tkey_set set;
	int line;

	tkt_key('a', 80, a);
	tkt_key('b', 48, b);
	snprintf(file, sizeof(file), "%s\n%s\n", a, a);
	CHECK_INT(tkeys_parse(file, strlen(file), &set, &line), TKP_ERR_FEW);
	CHECK_INT(tkeys_parse("", 0, &set, &line), TKP_ERR_FEW);
	snprintf(file, sizeof(file), "%s\n%s\n%s\n%s\n", a, a, a, b);
	CHECK_INT(tkeys_parse(file, strlen(file), &set, &line), TKP_ERR_SIZE);
	CHECK_INT(line, 4);
	snprintf(file, sizeof(file), "%s\nnot base64\n", a);
	CHECK_INT(tkeys_parse(file, strlen(file), &set, &line), TKP_ERR_B64);
	CHECK_INT(line, 2);
	CHECK_INT(tkeys_parse("\n", 1, &set, &line), TKP_ERR_SIZE);
	CHECK_INT(line, 1);
	snprintf(file, sizeof(file), "%s\n%s\n%s\n\n", a, a, a);
	CHECK_INT(tkeys_parse(file, strlen(file), &set, &line), TKP_ERR_SIZE);
	CHECK_INT(line, 4);
	CHECK_INT(tkeys_parse("QUJD\n", 5, &set, &line), TKP_ERR_SIZE);
}
