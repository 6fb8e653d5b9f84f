/* The aes_gcm_dec(<bits>,<nonce>,<key>,<aead_tag>) converter: AES-GCM decryption of the
 * raw input with OpenSSL, as HAProxy 2.6 does it. The nonce, key and tag are base64, given
 * as strings (decoded once at parse time) or as variable names (decoded at each call).
 * The tag is checked (any length OpenSSL accepts, up to 16 bytes); a key whose length is
 * not <bits>/8, or a tag that does not match, fails the converter. No additional
 * authenticated data: 2.6 takes none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <sample/codec.h>
#include <sample/conv.h>
#include <sample/sample.h>
#include <sample/vars.h>

/* The largest nonce, key or tag read from a variable (decoded bytes). */
#define AES_ARG_MAX 256

/* Parse time: a variable name becomes ARGT_VAR, a base64 string is replaced by its bytes;
 * anything else is refused with 2.6's message naming the argument. */
static int aes_arg_check(struct arg *a, const char *name, char *err, size_t errsz)
{
	char *bin;
	int n;

	if (conv_arg_str_or_var(a))
		return 0;
	bin = malloc(a->data.str.len + 1);
	if (!bin) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	n = codec_b64_dec(a->data.str.ptr, a->data.str.len, bin, a->data.str.len + 1);
	if (n < 0) {
		free(bin);
		snprintf(err, errsz,
			 "failed to parse %s : argument needs to be base64 encoded, and can "
			 "either be a string or a variable",
			 name);
		return -1;
	}
	bin[n] = 0;
	free((char *)a->data.str.ptr);
	a->data.str = ist2(bin, (size_t)n);
	return 0;
}

static int conv_aes_gcm_check(struct arg *args, void *private, char *err, size_t errsz)
{
	long long bits = args[0].data.sint;

	if (bits != 128 && bits != 192 && bits != 256) {
		snprintf(err, errsz, "key size must be 128, 192 or 256 (bits).");
		return -1;
	}
	if (aes_arg_check(&args[1], "nonce", err, errsz) < 0 ||
	    aes_arg_check(&args[2], "key", err, errsz) < 0 ||
	    aes_arg_check(&args[3], "aead_tag", err, errsz) < 0)
		return -1;
	return 0;
}

/* Run time: the bytes of an argument, decoded from its variable into buf when it is one.
 * Returns 1, or 0 when the variable is not set or not base64. */
static int aes_arg(const struct arg *a, const struct smp_ctx *ctx, unsigned char *buf,
		   struct ist *out)
{
	struct ist v;
	int n;

	if (a->type == ARGT_STR) {
		*out = a->data.str;
		return 1;
	}
	if (!conv_var_str(a, ctx, &v))
		return 0;
	n = codec_b64_dec(v.ptr, v.len, buf, AES_ARG_MAX);
	if (n < 0)
		return 0;
	*out = ist2((const char *)buf, (size_t)n);
	return 1;
}

static const EVP_CIPHER *aes_gcm_cipher(long long bits)
{
	if (bits == 128)
		return EVP_aes_128_gcm();
	if (bits == 192)
		return EVP_aes_192_gcm();
	return EVP_aes_256_gcm();
}

/* Decrypts in[0..len) into out (room for len bytes). Returns 1, or 0 when OpenSSL refuses
 * the nonce or tag, or the tag does not match. */
static int aes_gcm_decrypt(long long bits, struct ist nonce, struct ist key, struct ist tag,
			   const unsigned char *in, int len, unsigned char *out, int *outlen)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int n = 0, fin = 0, ok = 0;

	if (!ctx)
		return 0;
	if (EVP_DecryptInit_ex(ctx, aes_gcm_cipher(bits), NULL, NULL, NULL) == 1 &&
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)nonce.len, NULL) == 1 &&
	    EVP_DecryptInit_ex(ctx, NULL, NULL, (const unsigned char *)key.ptr,
			       (const unsigned char *)nonce.ptr) == 1 &&
	    EVP_DecryptUpdate(ctx, out, &n, in, len) == 1 &&
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, (int)tag.len, (void *)tag.ptr) == 1 &&
	    EVP_DecryptFinal_ex(ctx, out + n, &fin) > 0) {
		*outlen = n + fin;
		ok = 1;
	}
	EVP_CIPHER_CTX_free(ctx);
	return ok;
}

static int conv_aes_gcm_dec(const struct arg *args, struct sample *smp, void *private)
{
	unsigned char nb[AES_ARG_MAX], kb[AES_ARG_MAX], tb[AES_ARG_MAX];
	long long bits = args[0].data.sint;
	struct ist in = smp->data.u.str, nonce, key, tag;
	char *out = smp_trash();
	int outlen = 0;

	if (!out || in.len > smp_trash_size() || !aes_arg(&args[1], smp->ctx, nb, &nonce) ||
	    !aes_arg(&args[2], smp->ctx, kb, &key) || !aes_arg(&args[3], smp->ctx, tb, &tag))
		return 0;
	if (key.len != (size_t)bits / 8 || !nonce.len || nonce.len > AES_ARG_MAX || !tag.len ||
	    tag.len > 16)
		return 0;
	if (!aes_gcm_decrypt(bits, nonce, key, tag, (const unsigned char *)in.ptr, (int)in.len,
			     (unsigned char *)out, &outlen))
		return 0;
	conv_set_str(smp, SMP_T_BIN, out, (size_t)outlen);
	return 1;
}

static const struct sample_conv aes_convs[] = {
	{ "aes_gcm_dec",
	  conv_aes_gcm_dec,
	  4,
	  { ARGT_SINT, ARGT_STR, ARGT_STR, ARGT_STR },
	  conv_aes_gcm_check,
	  SMP_T_BIN,
	  SMP_T_BIN,
	  NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(aes_convs)
