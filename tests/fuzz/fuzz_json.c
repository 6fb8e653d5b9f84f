// FUZZ_SRCS: src/sample/json.c src/sample/codec.c
/* libFuzzer target for sample/json and the sample/codec decoders. The input is split at its
 * first newline into a json_query path and a document; the document is queried with
 * that path and a few fixed ones, in every output mode and with tight output buffers
 * (a result must fit, and must equal the one found with a large buffer), and is escaped in
 * each json() mode. The whole input also goes through every decoder, whose outputs must
 * re-encode consistently: base64 decode then encode gives back the input (up to the
 * ignored low bits), url_dec never grows, field/word views stay inside the input.
 * Each buffer is an exact-size heap copy so that ASan catches any read past its end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/codec.h>
#include <sample/json.h>

static char fz_out[1 << 16], fz_out2[1 << 16];

static char *fz_dup(const uint8_t *p, size_t n)
{
	char *d = malloc(n ? n : 1);

	if (!d)
		abort();
	memcpy(d, p, n);
	return d;
}

static void fz_query(const char *doc, size_t len, const char *path, size_t plen)
{
	struct json_result r1, r2;
	unsigned int fl;

	for (fl = 0; fl <= JSON_Q_INT; fl++) {
		int a = json_query(doc, len, path, plen, fl, fz_out, sizeof(fz_out), &r1);

		if (a < 0)
			continue;
		if (r1.len > sizeof(fz_out) || r1.kind == JSON_K_NONE)
			abort();
		if ((r1.kind == JSON_K_OBJECT || r1.kind == JSON_K_ARRAY) &&
		    (r1.len < 2 || !memmem(doc, len, fz_out, r1.len)))
			abort();
		/* the same result with a buffer of exactly its size, none with one byte less */
		if (r1.kind == JSON_K_NUMBER && !(fl & JSON_Q_INT))
			continue; /* snprintf needs room for its NUL */
		if (json_query(doc, len, path, plen, fl, fz_out2, r1.len, &r2) < 0 ||
		    r2.kind != r1.kind || r2.len != r1.len || r2.i != r1.i ||
		    memcmp(fz_out, fz_out2, r1.len))
			abort();
		if (r1.len && json_query(doc, len, path, plen, fl, fz_out2, r1.len - 1, &r2) >= 0)
			abort();
	}
}

static void fz_json(const uint8_t *data, size_t size)
{
	static const char *const paths[] = { "$", "$.a", "$[0]", "$.a.b[1]", "$['k']", "$.a[2].c" };
	const uint8_t *nl = memchr(data, '\n', size);
	size_t plen = nl ? (size_t)(nl - data) : 0;
	char *path = fz_dup(data, plen);
	size_t dlen = nl ? size - plen - 1 : size;
	char *doc = fz_dup(nl ? nl + 1 : data, dlen);
	unsigned int i;
	int e;

	fz_query(doc, dlen, path, plen);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		fz_query(doc, dlen, paths[i], strlen(paths[i]));
	for (e = JSON_ENC_ASCII; e <= JSON_ENC_UTF8PS; e++) {
		int n = json_escape(doc, dlen, e, fz_out, sizeof(fz_out));

		if (n > (int)sizeof(fz_out) || (e == JSON_ENC_ASCII && dlen <= 8000 && n < 0))
			abort();
		if (n > 0 && json_escape(doc, dlen, e, fz_out2, (size_t)n - 1) >= 0)
			abort();
	}
	free(path);
	free(doc);
}

static void fz_codec(const uint8_t *data, size_t size)
{
	char *in = fz_dup(data, size);
	size_t off, rlen;
	int64_t v;
	int n, m;

	n = codec_b64_dec(in, size, fz_out, sizeof(fz_out));
	if (n >= 0) {
		m = codec_b64_enc(fz_out, (size_t)n, fz_out2, sizeof(fz_out2));
		if (m < 0 || (size_t)m > size)
			abort();
	}
	n = codec_ub64_dec(in, size, fz_out, sizeof(fz_out));
	if (n >= 0) {
		m = codec_ub64_enc(fz_out, (size_t)n, fz_out2, sizeof(fz_out2));
		if (m < 0 || (size_t)m > size)
			abort();
		if (codec_ub64_dec(fz_out2, (size_t)m, fz_out2 + m, sizeof(fz_out2) - (size_t)m) !=
			    n ||
		    memcmp(fz_out2 + m, fz_out, (size_t)n))
			abort();
	}
	n = codec_url_dec(in, size, fz_out, sizeof(fz_out), data[0] & 1);
	if (n > (int)size)
		abort();
	codec_url_enc(in, size, fz_out, sizeof(fz_out));
	codec_hex2i(in, size, &v);
	codec_be2dec(in, size, ":", 1, (data[0] & 7) + 1, data[0] & 8, fz_out, sizeof(fz_out));
	codec_be2hex(in, size, "-", 1, data[0] & 7, data[0] & 8, fz_out, sizeof(fz_out));
	if (size > 2) {
		long idx = (long)(int8_t)data[0], cnt = (long)(int8_t)data[1] % 4;

		if (codec_field(in + 2, size - 2, idx, "_/", 2, cnt, &off, &rlen) == 0 &&
		    off + rlen > size - 2)
			abort();
		if (codec_word(in + 2, size - 2, idx, "_/", 2, cnt, &off, &rlen) == 0 &&
		    off + rlen > size - 2)
			abort();
	}
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	fz_json(data, size);
	fz_codec(data, size);
	return 0;
}
