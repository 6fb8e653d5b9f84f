// FUZZ_SRCS: src/sample/protobuf.c
/* libFuzzer target for the protocol buffers reader behind protobuf and ungrpc
 * (sample/protobuf.h). The input is split at its first newline into a field path and a
 * message (no newline: a fixed path); the message, an exact-size heap copy so that ASan
 * catches any read past its end, is walked as a bare message and as gRPC frames (untyped,
 * and typed: a field found must then decode as the type) with that path and a few fixed
 * ones, and every field found is decoded as each type. A field's bytes must lie inside the
 * input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/protobuf.h>

static const char *const fz_paths[] = { "1", "2", "1.1", "1.2.3", "0", "15.1", "1..2" };

static void fz_field(const uint8_t *in, size_t n, const struct pb_field *f)
{
	int64_t v;

	if (f->val < in || f->len > n || (size_t)(f->val - in) > n - f->len)
		abort();
	for (int t = PB_T_INT32; t <= PB_T_FLOAT; t++)
		if (pb_field_int(f, t, &v) && t == PB_T_BOOL && f->wire != PB_W_VARINT)
			abort();
}

static void fz_walk(const uint8_t *in, size_t n, const char *path, size_t plen)
{
	struct pb_field f;

	if (pb_lookup(in, n, path, plen, &f))
		fz_field(in, n, &f);
	if (pb_grpc_lookup(in, n, path, plen, PB_T_RAW, &f))
		fz_field(in, n, &f);
	/* a type picked by the input's length: a field found must decode as it */
	if (pb_grpc_lookup(in, n, path, plen, (enum pb_type)(PB_T_INT32 + n % PB_T_FLOAT), &f)) {
		int64_t v;

		fz_field(in, n, &f);
		if (!pb_field_int(&f, (enum pb_type)(PB_T_INT32 + n % PB_T_FLOAT), &v))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t plen = nl ? (size_t)(nl - data) : 0, n = nl ? size - plen - 1 : size;
	uint8_t *in = malloc(n ? n : 1);
	char *path = malloc(plen ? plen : 1);
	uint64_t v;

	if (!in || !path)
		goto out;
	memcpy(in, nl ? nl + 1 : data, n);
	memcpy(path, data, plen);
	if (pb_varint(in, in + n, &v) > PB_VARINT_MAX)
		abort();
	fz_walk(in, n, path, plen);
	for (size_t i = 0; i < sizeof(fz_paths) / sizeof(fz_paths[0]); i++)
		fz_walk(in, n, fz_paths[i], strlen(fz_paths[i]));
out:
	free(in);
	free(path);
	return 0;
}
