// FUZZ_SRCS: src/ssl/ssl_cert.c src/sample/codec.c
// FUZZ_FLAGS: -DUSE_OPENSSL -lssl -lcrypto
/* libFuzzer target for the runtime API of certificates (src/ssl/ssl_cert_cli.c, included):
 * the first byte picks what the rest is: a "set ssl cert" payload (then shown, committed to
 * an unused entry and deleted), a "set ssl ocsp-response" argument or payload, or PEM
 * certificates given to the "show ssl cert" printer as they are (no key needed, so that
 * arbitrary certificates reach it). Contexts, graves and SNI tables are stubbed.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ssl/ssl_cert_cli.c"

struct ssl_settings ssl_set;

static char fz_out[65536];
static size_t fz_len;

int cli_write(struct cli_ctx *ctx, const char *s, size_t len)
{
	if (len > sizeof(fz_out) - fz_len)
		return -1;
	memcpy(fz_out + fz_len, s, len);
	fz_len += len;
	return 0;
}

int cli_printf(struct cli_ctx *ctx, const char *fmt, ...)
{
	char tmp[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		abort(); /* the handlers print short lines only */
	return cli_write(ctx, tmp, (size_t)n);
}

void cli_register_kws(struct cli_kw_list *kwl)
{
}

SSL_CTX *ssl_ctx_new_bind(struct ssl_cert_inst *inst, const struct ssl_cert *crt, char *err,
			  size_t errlen)
{
	abort(); /* the fuzzed entry has no instance */
}

int ssl_grave_add(struct ssl_sni_table *tbl, SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
	return 0;
}

int ssl_grave_add_cert(struct ssl_cert *crt)
{
	ssl_cert_release(crt);
	return 0;
}

/* no server presents a client certificate here (ssl_srv_cfg.c) */
int ssl_srv_cert_users(const char *name)
{
	return 0;
}

int ssl_srv_cert_commit(const char *name, const struct ssl_cert *nw, char *err, size_t errlen)
{
	return 0;
}

int ssl_sni_rebuild(struct ssl_bind *sb)
{
	abort();
}

/* Runs <fn> with words <args> and <payload> to its end (bounded), with an output buffer
 * that is emptied between calls as the CLI's is. */
static void fz_run(int (*fn)(struct cli_ctx *), char **args, int nargs, char *payload, size_t plen)
{
	struct cli_ctx ctx = { .args = args, .nargs = nargs, .level = CLI_LVL_ADMIN };
	int rc, turns = 0;

	ctx.payload = payload;
	ctx.payload_len = plen;
	do {
		fz_len = 0;
		rc = fn(&ctx);
		if (++turns > 1000)
			abort();
	} while (rc == CLI_MORE);
	if (ctx.p[0])
		abort(); /* a finished handler keeps nothing */
}

static void fz_show_pem(const char *p, size_t len)
{
	struct ssl_cert crt = { .path = "x" };
	BIO *b = BIO_new_mem_buf(p, (int)len);
	unsigned char ocsp = 0;
	X509 *ca;
	char *buf = NULL;
	size_t blen = 0;
	FILE *f;

	if (!b)
		return;
	list_init(&crt.insts);
	crt.cert = PEM_read_bio_X509(b, NULL, NULL, NULL);
	while (crt.cert && (ca = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		if ((!crt.chain && !(crt.chain = sk_X509_new_null())) ||
		    !sk_X509_push(crt.chain, ca)) {
			X509_free(ca);
			break;
		}
	}
	BIO_free(b);
	ERR_clear_error();
	crt.ocsp = &ocsp; /* prints the OCSP key when there is an issuer */
	crt.ocsp_len = 1;
	f = open_memstream(&buf, &blen);
	if (f) {
		cc_details(f, &crt, len & 1);
		fclose(f);
	}
	free(buf);
	X509_free(crt.cert);
	if (crt.chain)
		sk_X509_pop_free(crt.chain, X509_free);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[] = "/fz.pem", star[] = "*/fz.pem";
	char w0[] = "x", w1[] = "ssl", w2[] = "cert";
	char *args[6] = { w0, w1, w2, name, NULL, NULL };
	char *in;

	if (size < 1 || size > 65536)
		return 0;
	in = malloc(size);
	if (!in)
		return 0;
	memcpy(in, data + 1, size - 1);
	in[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0:
		fz_run(cc_new, args, 4, NULL, 0);
		fz_run(cc_set, args, 4, in, size - 1);
		args[3] = star;
		fz_run(cc_show, args, 4, NULL, 0);
		args[3] = name;
		fz_run(cc_show, args, 3, NULL, 0);
		fz_run(cc_commit, args, 4, NULL, 0);
		fz_run(cc_show, args, 4, NULL, 0);
		fz_run(cc_abort, args, 4, NULL, 0);
		fz_run(cc_del, args, 4, NULL, 0);
		if (!list_empty(&ssl_certs) || cc_tx.nw)
			abort();
		break;
	case 1:
		args[2] = "ocsp-response";
		if (data[0] & 4) {
			fz_run(cc_set_ocsp, args, 3, in, size - 1);
		} else {
			args[3] = in;
			fz_run(cc_set_ocsp, args, 4, NULL, 0);
		}
		break;
	default:
		fz_show_pem(in, size - 1);
		break;
	}
	free(in);
	return 0;
}
