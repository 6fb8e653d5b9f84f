/* Hash and digest converters over hash.c: crc32, crc32c, djb2, sdbm, wt6 (with the
 * optional avalanche), xxh32, xxh64, xxh3 (with an optional seed), and through OpenSSL
 * sha1, sha2, digest and hmac (whose key is base64 text or a variable holding it).
 * Algorithms and keys are checked at parse time with HAProxy's messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/codec.h>
#include <sample/conv.h>
#include <sample/hash.h>
#include <sample/sample.h>

enum hash_kind {
	HK_CRC32 = 0,
	HK_CRC32C,
	HK_DJB2,
	HK_SDBM,
	HK_WT6,
	HK_XXH32,
	HK_XXH64,
	HK_XXH3,
};

/* crc32 .. wt6([avalanche]): an unsigned 32-bit hash, mixed when avalanche is non-zero */
static int conv_hash32(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str;
	uint32_t h = 0;

	switch ((enum hash_kind)CONV_PRIV_INT(private)) {
	case HK_CRC32:
		h = hash_crc32(in.ptr, in.len);
		break;
	case HK_CRC32C:
		h = hash_crc32c(in.ptr, in.len);
		break;
	case HK_DJB2:
		h = hash_djb2(in.ptr, in.len);
		break;
	case HK_SDBM:
		h = hash_sdbm(in.ptr, in.len);
		break;
	default:
		h = hash_wt6(in.ptr, in.len);
		break;
	}
	if (args[0].type == ARGT_SINT && args[0].data.sint)
		h = hash_avalanche32(h);
	conv_set_sint(smp, SMP_T_SINT, h);
	return 1;
}

/* xxh32 / xxh64 / xxh3([seed]): xxh32 is unsigned, the 64-bit ones show as signed */
static int conv_xxh(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str;
	uint64_t seed = args[0].type == ARGT_SINT ? (uint64_t)args[0].data.sint : 0;
	long long v;

	switch ((enum hash_kind)CONV_PRIV_INT(private)) {
	case HK_XXH32:
		v = hash_xxh32(in.ptr, in.len, (uint32_t)seed);
		break;
	case HK_XXH64:
		v = (long long)hash_xxh64(in.ptr, in.len, seed);
		break;
	default:
		v = (long long)hash_xxh3(in.ptr, in.len, seed);
		break;
	}
	conv_set_sint(smp, SMP_T_SINT, v);
	return 1;
}

/* ---- digests ---- */

/* Digest of the input with <alg> into a scratch chunk. */
static int conv_digest_with(struct sample *smp, const char *alg)
{
	char *out = smp_trash();
	int n;

	if (!out)
		return 0;
	n = hash_digest(alg, smp->data.u.str.ptr, smp->data.u.str.len, (unsigned char *)out,
			smp_trash_size());
	if (n < 0)
		return 0;
	conv_set_str(smp, SMP_T_BIN, out, (size_t)n);
	return 1;
}

static int conv_sha1(const struct arg *args, struct sample *smp, void *private)
{
	return conv_digest_with(smp, "SHA1");
}

static int conv_sha2(const struct arg *args, struct sample *smp, void *private)
{
	int bits = args[0].type == ARGT_SINT ? (int)args[0].data.sint : 256;

	return conv_digest_with(smp, hash_sha2_name(bits));
}

static int conv_sha2_check(struct arg *args, void *private, char *err, size_t errsz)
{
	if (args[0].type == ARGT_SINT &&
	    (args[0].data.sint > 512 || !hash_sha2_name((int)args[0].data.sint))) {
		snprintf(err, errsz, "Unsupported number of bits: '%lld'", args[0].data.sint);
		return -1;
	}
	return 0;
}

static int conv_digest(const struct arg *args, struct sample *smp, void *private)
{
	return conv_digest_with(smp, args[0].data.str.ptr);
}

/* The algorithm (first argument) must be an OpenSSL digest name. */
static int conv_digest_check(struct arg *args, void *private, char *err, size_t errsz)
{
	unsigned char md[HASH_DIGEST_MAX];

	if (hash_digest(args[0].data.str.ptr, "", 0, md, sizeof(md)) < 0) {
		snprintf(err, errsz, "algorithm must be a valid OpenSSL message digest name.");
		return -1;
	}
	return 0;
}

/* hmac(alg,key): the key is the variable's value or the constant, both base64 text; the
 * constant is decoded at parse time. */
static int conv_hmac(const struct arg *args, struct sample *smp, void *private)
{
	char *key = NULL, *out = smp_trash();
	struct ist kv;
	int klen, n;

	if (!out)
		return 0;
	if (args[1].type == ARGT_VAR) {
		if (!conv_var_str(&args[1], smp->ctx, &kv) || !(key = smp_trash()))
			return 0;
		klen = codec_b64_dec(kv.ptr, kv.len, key, smp_trash_size());
		if (klen < 0)
			return 0;
	} else {
		key = (char *)args[1].data.str.ptr;
		klen = (int)args[1].data.str.len;
	}
	n = hash_hmac(args[0].data.str.ptr, key, (size_t)klen, smp->data.u.str.ptr,
		      smp->data.u.str.len, (unsigned char *)out, smp_trash_size());
	if (n < 0)
		return 0;
	conv_set_str(smp, SMP_T_BIN, out, (size_t)n);
	return 1;
}

static int conv_hmac_check(struct arg *args, void *private, char *err, size_t errsz)
{
	struct arg *k = &args[1];
	char verr[64];
	char *dec;
	int n;

	if (conv_digest_check(args, private, err, errsz) < 0)
		return -1;
	if (strchr(k->data.str.ptr, '.') && conv_arg_opt_var(k, verr, sizeof(verr)) == 0)
		return 0;
	dec = malloc(k->data.str.len + 1);
	if (!dec) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	n = codec_b64_dec(k->data.str.ptr, k->data.str.len, dec, k->data.str.len + 1);
	if (n < 0) {
		free(dec);
		snprintf(err, errsz,
			 "failed to parse key : argument needs to be base64 encoded, "
			 "and can either be a string or a variable");
		return -1;
	}
	dec[n] = '\0';
	free((char *)k->data.str.ptr);
	k->data.str = ist2(dec, (size_t)n);
	return 0;
}

static const struct sample_conv hash_convs[] = {
	{ "crc32",
	  conv_hash32,
	  0,
	  { ARGT_SINT },
	  NULL,
	  SMP_T_BIN,
	  SMP_T_SINT,
	  CONV_PRIV(HK_CRC32) },
	{ "crc32c",
	  conv_hash32,
	  0,
	  { ARGT_SINT },
	  NULL,
	  SMP_T_BIN,
	  SMP_T_SINT,
	  CONV_PRIV(HK_CRC32C) },
	{ "djb2", conv_hash32, 0, { ARGT_SINT }, NULL, SMP_T_BIN, SMP_T_SINT, CONV_PRIV(HK_DJB2) },
	{ "sdbm", conv_hash32, 0, { ARGT_SINT }, NULL, SMP_T_BIN, SMP_T_SINT, CONV_PRIV(HK_SDBM) },
	{ "wt6", conv_hash32, 0, { ARGT_SINT }, NULL, SMP_T_BIN, SMP_T_SINT, CONV_PRIV(HK_WT6) },
	{ "xxh32", conv_xxh, 0, { ARGT_SINT }, NULL, SMP_T_BIN, SMP_T_SINT, CONV_PRIV(HK_XXH32) },
	{ "xxh64", conv_xxh, 0, { ARGT_SINT }, NULL, SMP_T_BIN, SMP_T_SINT, CONV_PRIV(HK_XXH64) },
	{ "xxh3", conv_xxh, 0, { ARGT_SINT }, NULL, SMP_T_BIN, SMP_T_SINT, CONV_PRIV(HK_XXH3) },
	{ "sha1", conv_sha1, 0, { 0 }, NULL, SMP_T_BIN, SMP_T_BIN, NULL },
	{ "sha2", conv_sha2, 0, { ARGT_SINT }, conv_sha2_check, SMP_T_BIN, SMP_T_BIN, NULL },
	{ "digest", conv_digest, 1, { ARGT_STR }, conv_digest_check, SMP_T_BIN, SMP_T_BIN, NULL },
	{ "hmac",
	  conv_hmac,
	  2,
	  { ARGT_STR, ARGT_STR },
	  conv_hmac_check,
	  SMP_T_BIN,
	  SMP_T_BIN,
	  NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(hash_convs)
