/* Runtime API of the certificate store: "show ssl cert", "new/set/commit/abort/del ssl
 * cert" and "set ssl ocsp-response", with HAProxy 2.6's words. A change is a transaction
 * (one per process, like 2.6); its commit builds a new context for every instance serving
 * the certificate before anything is published, then swaps them in, rebuilds the SNI tables
 * and leaves what it replaced to the grace-period release of ssl_ctx.c. The CLI runs on
 * thread 0 only: the transaction and the store need no lock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/ocsp.h>
#include <openssl/x509v3.h>

#include <base/atomic.h>
#include <cli/cli.h>
#include <sample/codec.h>
#include <ssl/ssl.h>

#include "ssl_int.h"

/* The pending transaction: <old> is the stored certificate, <nw> what will replace it. */
static struct {
	struct ssl_cert *old;
	struct ssl_cert *nw;
} cc_tx;

/* ---- output: a whole answer, kept in ctx->p[0] while it does not fit ---- */

static void cc_release(struct cli_ctx *ctx)
{
	free((void *)ctx->p[0]);
	ctx->p[0] = NULL;
}

/* Writes the malloc'ed answer <msg> (NULL: out of memory) and frees it, or keeps it for
 * the next call when the output is full. */
static int cc_reply(struct cli_ctx *ctx, char *msg)
{
	if (!msg)
		return cli_printf(ctx, "Out of memory.\n") < 0 ? CLI_MORE : CLI_DONE;
	if (cli_write(ctx, msg, strlen(msg)) == 0) {
		free(msg);
		return CLI_DONE;
	}
	ctx->p[0] = msg;
	ctx->st = 1;
	ctx->release = cc_release;
	return CLI_MORE;
}

/* A later call of a handler whose answer did not fit: the change is already done. */
static int cc_resume(struct cli_ctx *ctx)
{
	char *msg = (char *)ctx->p[0];

	ctx->p[0] = NULL;
	ctx->release = NULL;
	return cc_reply(ctx, msg);
}

static char *cc_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *cc_msg(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* ---- show ssl cert ---- */

static void cc_hex(FILE *f, const unsigned char *p, size_t len, bool lower)
{
	for (size_t i = 0; i < len; i++)
		fprintf(f, lower ? "%02x" : "%02X", p[i]);
}

/* "/CN=x/O=y" as 2.6 prints a distinguished name. */
static void cc_dn(FILE *f, const X509_NAME *name)
{
	for (int i = 0; i < X509_NAME_entry_count(name); i++) {
		const X509_NAME_ENTRY *e = X509_NAME_get_entry(name, i);
		int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
		const ASN1_STRING *d = X509_NAME_ENTRY_get_data(e);
		const char *sn = nid != NID_undef ? OBJ_nid2sn(nid) : "UNDEF";

		fprintf(f, "/%s=%.*s", sn, ASN1_STRING_length(d),
			(const char *)ASN1_STRING_get0_data(d));
	}
}

static void cc_time(FILE *f, const char *label, const ASN1_TIME *t)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p = NULL;
	long n = 0;

	if (b && ASN1_TIME_print(b, t))
		n = BIO_get_mem_data(b, &p);
	fprintf(f, "%s: %.*s\n", label, (int)(n > 0 ? n : 0), p ? p : "");
	BIO_free(b);
	ERR_clear_error();
}

static void cc_sans(FILE *f, X509 *x)
{
	GENERAL_NAMES *sans = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	bool first = true;

	fprintf(f, "Subject Alternative Name: ");
	for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans); i++) {
		const GENERAL_NAME *gn = sk_GENERAL_NAME_value(sans, i);

		if (gn->type != GEN_DNS)
			continue;
		fprintf(f, "%sDNS:%.*s", first ? "" : ", ", ASN1_STRING_length(gn->d.dNSName),
			(const char *)ASN1_STRING_get0_data(gn->d.dNSName));
		first = false;
	}
	fprintf(f, "\n");
	GENERAL_NAMES_free(sans);
}

static void cc_algo(FILE *f, X509 *x)
{
	EVP_PKEY *k = X509_get0_pubkey(x);
	const char *a = "Unknown";

	if (k) {
		switch (EVP_PKEY_base_id(k)) {
		case EVP_PKEY_RSA:
			a = "RSA";
			break;
		case EVP_PKEY_EC:
			a = "EC";
			break;
		case EVP_PKEY_DSA:
			a = "DSA";
			break;
		}
	}
	fprintf(f, "Algorithm: %s%d\n", a, k ? EVP_PKEY_bits(k) : 0);
}

/* The issuer of <crt> for OCSP: its .issuer file, else the first of its chain. */
static X509 *cc_issuer(const struct ssl_cert *crt)
{
	if (crt->issuer)
		return crt->issuer;
	if (crt->chain && sk_X509_num(crt->chain) > 0)
		return sk_X509_value(crt->chain, 0);
	return NULL;
}

/* The DER of the OCSP certificate ID of <crt> (malloc'ed via OpenSSL) or NULL. */
static int cc_ocsp_key(const struct ssl_cert *crt, unsigned char **der)
{
	X509 *iss = cc_issuer(crt);
	OCSP_CERTID *id = iss ? OCSP_cert_to_id(NULL, crt->cert, iss) : NULL;
	int n = id ? i2d_OCSP_CERTID(id, der) : -1;

	OCSP_CERTID_free(id);
	ERR_clear_error();
	return n;
}

static void cc_details(FILE *f, const struct ssl_cert *crt, bool tx)
{
	unsigned char md[EVP_MAX_MD_SIZE], *der = NULL;
	unsigned int mdlen = 0;
	int n;

	fprintf(f, "Filename: %s%s\n", tx ? "*" : "", crt->path);
	fprintf(f, "Status: %s\n",
		!crt->cert		  ? "Empty"
		: list_empty(&crt->insts) ? "Unused"
					  : "Used");
	if (crt->cert) {
		const ASN1_INTEGER *sn = X509_get0_serialNumber(crt->cert);

		fprintf(f, "Serial: ");
		cc_hex(f, ASN1_STRING_get0_data(sn), (size_t)ASN1_STRING_length(sn), false);
		fprintf(f, "\n");
		cc_time(f, "notBefore", X509_get0_notBefore(crt->cert));
		cc_time(f, "notAfter", X509_get0_notAfter(crt->cert));
		cc_sans(f, crt->cert);
		cc_algo(f, crt->cert);
		fprintf(f, "SHA1 FingerPrint: ");
		if (X509_digest(crt->cert, EVP_sha1(), md, &mdlen))
			cc_hex(f, md, mdlen, false);
		fprintf(f, "\nSubject: ");
		cc_dn(f, X509_get_subject_name(crt->cert));
		fprintf(f, "\nIssuer: ");
		cc_dn(f, X509_get_issuer_name(crt->cert));
		fprintf(f, "\n");
		for (int i = 0; crt->chain && i < sk_X509_num(crt->chain); i++) {
			X509 *c = sk_X509_value(crt->chain, i);

			fprintf(f, "Chain Subject: ");
			cc_dn(f, X509_get_subject_name(c));
			fprintf(f, "\nChain Issuer: ");
			cc_dn(f, X509_get_issuer_name(c));
			fprintf(f, "\n");
		}
	}
	fprintf(f, "OCSP Response Key: ");
	if (crt->cert && crt->ocsp && (n = cc_ocsp_key(crt, &der)) > 0)
		cc_hex(f, der, (size_t)n, true); /* 2.6 prints this one lowercase */
	OPENSSL_free(der);
	fprintf(f, "\n");
}

static int cc_show_one(struct cli_ctx *ctx, const char *name)
{
	bool tx = name[0] == '*';
	const struct ssl_cert *crt;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (tx)
		crt = cc_tx.nw && !strcmp(cc_tx.nw->path, name + 1) ? cc_tx.nw : NULL;
	else
		crt = ssl_cert_lookup(name);
	if (!crt)
		return cc_reply(ctx, cc_msg("Can't display the certificate: Not found or the "
					    "certificate is a bundle!\n"));
	f = open_memstream(&buf, &len);
	if (!f)
		return cc_reply(ctx, NULL);
	cc_details(f, crt, tx);
	if (fclose(f) != 0) {
		free(buf);
		buf = NULL;
	}
	return cc_reply(ctx, buf);
}

/* The list: st 0 writes the headers, then n[0] counts the names written (the store may
 * change between two calls: a deleted name shifts the rest, nothing is read freed). */
static int cc_show(struct cli_ctx *ctx)
{
	const struct ssl_cert *crt;
	uint64_t i = 0;

	if (ctx->nargs > 3)
		return ctx->st ? cc_resume(ctx) : cc_show_one(ctx, ctx->args[3]);
	if (ctx->st == 0) {
		if (cc_tx.nw && cli_printf(ctx, "# transaction\n*%s\n", cc_tx.nw->path) < 0)
			return CLI_MORE;
		ctx->st = 2;
	}
	if (ctx->st == 2) {
		if (cli_printf(ctx, "# filename\n") < 0)
			return CLI_MORE;
		ctx->st = 3;
	}
	list_for_each_entry(crt, &ssl_certs, list)
	{
		if (i++ < ctx->n[0])
			continue;
		if (cli_printf(ctx, "%s\n", crt->path) < 0)
			return CLI_MORE;
		ctx->n[0]++;
	}
	return CLI_DONE;
}

/* ---- new / set / abort / del ---- */

static int cc_new(struct cli_ctx *ctx)
{
	struct ssl_cert *crt;

	if (ctx->st)
		return cc_resume(ctx);
	if (ctx->nargs < 4)
		return cc_reply(ctx, cc_msg("'new ssl cert' expects a filename\n"));
	if (ssl_cert_lookup(ctx->args[3]))
		return cc_reply(ctx, cc_msg("Certificate '%s' already exists!\n", ctx->args[3]));
	crt = calloc(1, sizeof(*crt));
	if (!crt || !(crt->path = strdup(ctx->args[3]))) {
		free(crt);
		return cc_reply(ctx, NULL);
	}
	list_init(&crt->insts);
	list_append(&ssl_certs, &crt->list);
	return cc_reply(ctx, cc_msg("New empty certificate store '%s'!\n", crt->path));
}

static int cc_set(struct cli_ctx *ctx)
{
	const char *name = ctx->nargs >= 4 ? ctx->args[3] : NULL;
	struct ssl_cert *old, *nw;
	char err[512];

	if (ctx->st)
		return cc_resume(ctx);
	if (!name || !ctx->payload)
		return cc_reply(ctx, cc_msg("'set ssl cert expects a filename and a certificate as "
					    "a payload\n"));
	if (cc_tx.nw && strcmp(cc_tx.nw->path, name) != 0)
		return cc_reply(ctx, cc_msg("Can't update %s!\nOperations on certificates are "
					    "currently locked!\n",
					    name));
	old = ssl_cert_lookup(name);
	if (!old)
		return cc_reply(ctx, cc_msg("Can't replace a certificate which is not referenced "
					    "by the configuration!\nCan't update %s!\n",
					    name));
	nw = ssl_cert_load_mem(name, ctx->payload, ctx->payload_len, err, sizeof(err));
	if (!nw)
		return cc_reply(ctx, cc_msg("%s.\n%sCan't update %s!\n", err,
					    strncmp(err, "unable to load certificate", 26)
						    ? ""
						    : "Can't load the payload\n",
					    name));
	if (cc_tx.nw) {
		ssl_cert_release(cc_tx.nw);
		cc_tx.nw = nw;
		return cc_reply(ctx, cc_msg("Transaction updated for certificate %s!\n", name));
	}
	cc_tx.old = old;
	cc_tx.nw = nw;
	return cc_reply(ctx, cc_msg("Transaction created for certificate %s!\n", name));
}

static int cc_abort(struct cli_ctx *ctx)
{
	if (ctx->st)
		return cc_resume(ctx);
	if (ctx->nargs < 4)
		return cc_reply(ctx, cc_msg("'abort ssl cert' expects a filename\n"));
	if (!cc_tx.nw)
		return cc_reply(ctx, cc_msg("No ongoing transaction!\n"));
	if (strcmp(cc_tx.nw->path, ctx->args[3]) != 0)
		return cc_reply(ctx, cc_msg("The ongoing transaction is about '%s' but you are "
					    "trying to abort a transaction for '%s'\n",
					    cc_tx.nw->path, ctx->args[3]));
	ssl_cert_release(cc_tx.nw);
	cc_tx.nw = cc_tx.old = NULL;
	return cc_reply(ctx, cc_msg("Transaction aborted for certificate '%s'!\n", ctx->args[3]));
}

static int cc_del(struct cli_ctx *ctx)
{
	const char *name = ctx->nargs >= 4 ? ctx->args[3] : NULL;
	struct ssl_cert *crt;
	char *msg;

	if (ctx->st)
		return cc_resume(ctx);
	if (!name)
		return cc_reply(ctx, cc_msg("'del ssl cert' expects a certificate name\n"));
	if (cc_tx.nw && !strcmp(cc_tx.nw->path, name))
		return cc_reply(ctx, cc_msg("Can't remove the certificate: ongoing transaction "
					    "for the certificate '%s'\n",
					    name));
	crt = ssl_cert_lookup(name);
	if (!crt)
		return cc_reply(ctx, cc_msg("Can't remove the certificate: certificate '%s' "
					    "doesn't exist!\n\n",
					    name));
	if (!list_empty(&crt->insts) || ssl_srv_cert_users(name))
		return cc_reply(ctx, cc_msg("Can't remove the certificate: certificate '%s' in "
					    "use, can't be deleted!\n\n",
					    name));
	msg = cc_msg("Certificate '%s' deleted!\n", name);
	list_delete(&crt->list);
	/* a table replaced a moment ago may still name it (an instance removed by
	 * "del ssl crt-list"): release it after the grace period */
	if (ssl_grave_add_cert(crt) < 0)
		ssl_cert_release(crt); /* no memory: nothing in use now refers to it */
	return cc_reply(ctx, msg);
}

/* ---- commit ---- */

/* Builds a context serving <nw> for every instance of <old>, in the order of old->insts.
 * Returns the array (n entries, or one NULL entry when there are none), or NULL with
 * <err>; nothing is published. */
static SSL_CTX **cc_build_ctxs(struct ssl_cert *old, const struct ssl_cert *nw, int *n, char *err,
			       size_t errlen)
{
	struct ssl_cert_inst *inst;
	SSL_CTX **ctxs;
	int i = 0;

	*n = 0;
	list_for_each_entry(inst, &old->insts, by_cert)(*n)++;
	ctxs = calloc((size_t)*n + 1, sizeof(*ctxs));
	if (!ctxs) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	list_for_each_entry(inst, &old->insts, by_cert)
	{
		ctxs[i] = ssl_ctx_new_bind(inst, nw, err, errlen);
		if (!ctxs[i]) {
			while (i-- > 0)
				SSL_CTX_free(ctxs[i]);
			free(ctxs);
			return NULL;
		}
		i++;
	}
	return ctxs;
}

/* Publishes <ctxs> (from cc_build_ctxs) in the instances of <old>, retiring the contexts
 * they replace; the instances move to <nw> when it differs from <old>. */
static void cc_publish(struct ssl_cert *old, struct ssl_cert *nw, SSL_CTX **ctxs)
{
	struct ssl_cert_inst *inst, *tmp;
	int i = 0;

	list_for_each_entry_safe(inst, tmp, &old->insts, by_cert)
	{
		SSL_CTX *prev = HA_ATOMIC_XCHG(&inst->ctx, ctxs[i++]);

		/* handshakes may have loaded <prev> without holding it yet: released after
		 * the grace period; with no memory for that it is kept (leaked) rather than
		 * risked */
		ssl_grave_add(NULL, prev);
		if (nw != old) {
			inst->crt = nw;
			list_delete(&inst->by_cert);
			list_append(&nw->insts, &inst->by_cert);
		}
	}
}

/* Rebuilds the SNI table of every bind line serving <crt>. Returns 0 or -1. */
static int cc_sni_rebuild(struct ssl_cert *crt)
{
	struct ssl_cert_inst *inst, *prev;
	int ret = 0;

	list_for_each_entry(inst, &crt->insts, by_cert)
	{
		bool seen = false;

		list_for_each_entry(prev, &crt->insts, by_cert)
		{
			if (prev == inst)
				break;
			seen |= prev->sb == inst->sb;
		}
		if (!seen && ssl_sni_rebuild(inst->sb) < 0)
			ret = -1;
	}
	return ret;
}

static int cc_commit(struct cli_ctx *ctx)
{
	struct ssl_cert *old = cc_tx.old, *nw = cc_tx.nw;
	char err[512], *dots, *msg;
	SSL_CTX **ctxs;
	int n;

	if (ctx->st)
		return cc_resume(ctx);
	if (ctx->nargs < 4)
		return cc_reply(ctx, cc_msg("'commit ssl cert expects a filename\n"));
	if (!nw) /* sic: 2.6's words */
		return cc_reply(
			ctx, cc_msg("No ongoing transaction! !\nCan't commit %s!\n", ctx->args[3]));
	if (strcmp(nw->path, ctx->args[3]) != 0)
		return cc_reply(ctx, cc_msg("The ongoing transaction is about '%s' but you are "
					    "trying to set '%s'\nCan't commit %s!\n",
					    nw->path, ctx->args[3], ctx->args[3]));
	ctxs = cc_build_ctxs(old, nw, &n, err, sizeof(err));
	if (!ctxs)
		return cc_reply(ctx, cc_msg("%s.\nCan't commit %s!\n", err, nw->path));
	dots = calloc((size_t)n + 1, 1);
	if (!dots) {
		for (int i = 0; i < n; i++)
			SSL_CTX_free(ctxs[i]);
		free(ctxs);
		return cc_reply(ctx, NULL);
	}
	memset(dots, '.', (size_t)n);
	/* the servers presenting it as a client certificate: theirs first, as a commit is
	 * all or nothing and publishing the bind lines' cannot fail */
	if (ssl_srv_cert_commit(nw->path, nw, err, sizeof(err)) < 0) {
		for (int i = 0; i < n; i++)
			SSL_CTX_free(ctxs[i]);
		free(ctxs);
		free(dots);
		return cc_reply(ctx, cc_msg("%s.\nCan't commit %s!\n", err, nw->path));
	}
	/* from here nothing can fail but the release of what is replaced */
	cc_publish(old, nw, ctxs);
	free(ctxs);
	list_insert(&old->list, &nw->list);
	list_delete(&old->list);
	cc_tx.old = cc_tx.nw = NULL;
	/* with no memory for a table, the current ones still point to the old names:
	 * the old certificate is then kept (leaked) rather than freed under them */
	if (cc_sni_rebuild(nw) == 0 && ssl_grave_add_cert(old) < 0)
		ssl_cert_release(old);
	msg = cc_msg("Committing %s%s\nSuccess!\n", nw->path, dots);
	free(dots);
	return cc_reply(ctx, msg);
}

/* ---- set ssl ocsp-response ---- */

/* The DER of a base64 response given as words or as a payload (blanks ignored), malloc'ed
 * in *der. Returns its length, 0 when there is none, -1 when it is not base64. */
static long cc_ocsp_der(struct cli_ctx *ctx, unsigned char **der)
{
	size_t cap = ctx->payload ? ctx->payload_len : 0, len = 0;
	char *b64;
	int n;

	for (int i = 3; i < ctx->nargs; i++)
		cap += strlen(ctx->args[i]);
	b64 = malloc(cap + 1);
	*der = malloc(cap + 1);
	if (!b64 || !*der) {
		free(b64);
		return -2;
	}
	for (int i = 3; i < ctx->nargs; i++)
		for (const char *p = ctx->args[i]; *p; p++)
			b64[len++] = *p;
	for (size_t i = 0; ctx->payload && i < ctx->payload_len; i++)
		if (ctx->payload[i] != '\n' && ctx->payload[i] != '\r' && ctx->payload[i] != ' ' &&
		    ctx->payload[i] != '\t')
			b64[len++] = ctx->payload[i];
	n = len ? codec_b64_dec(b64, len, *der, cap + 1) : 0;
	free(b64);
	return n;
}

/* The stored certificate the first single response of <resp> is about, or NULL. */
static struct ssl_cert *cc_ocsp_match(OCSP_RESPONSE *resp)
{
	OCSP_BASICRESP *basic = OCSP_response_get1_basic(resp);
	OCSP_SINGLERESP *single = basic ? OCSP_resp_get0(basic, 0) : NULL;
	const OCSP_CERTID *id = single ? OCSP_SINGLERESP_get0_id(single) : NULL;
	struct ssl_cert *crt, *found = NULL;

	list_for_each_entry(crt, &ssl_certs, list)
	{
		X509 *iss = crt->cert ? cc_issuer(crt) : NULL;
		OCSP_CERTID *cid = iss ? OCSP_cert_to_id(NULL, crt->cert, iss) : NULL;
		bool same = cid && id && OCSP_id_cmp(cid, id) == 0;

		OCSP_CERTID_free(cid);
		if (same) {
			found = crt;
			break;
		}
	}
	OCSP_BASICRESP_free(basic);
	ERR_clear_error();
	return found;
}

/* Gives <crt> the response der[0..len) (ownership moves) and new contexts stapling it.
 * Returns 0, or -1 with <err> and nothing changed. */
static int cc_ocsp_apply(struct ssl_cert *crt, unsigned char *der, size_t len, char *err,
			 size_t errlen)
{
	unsigned char *prev = crt->ocsp;
	size_t prev_len = crt->ocsp_len;
	SSL_CTX **ctxs;
	int n;

	crt->ocsp = der;
	crt->ocsp_len = len;
	ctxs = cc_build_ctxs(crt, crt, &n, err, errlen);
	if (!ctxs) {
		crt->ocsp = prev;
		crt->ocsp_len = prev_len;
		return -1;
	}
	cc_publish(crt, crt, ctxs);
	free(ctxs);
	free(prev);
	return 0;
}

static int cc_set_ocsp(struct cli_ctx *ctx)
{
	unsigned char *der = NULL;
	const unsigned char *p;
	OCSP_RESPONSE *resp;
	struct ssl_cert *crt;
	char err[512];
	long len;

	if (ctx->st)
		return cc_resume(ctx);
	len = cc_ocsp_der(ctx, &der);
	if (len <= 0) {
		free(der);
		if (len == -2)
			return cc_reply(ctx, NULL);
		return cc_reply(ctx, cc_msg(len == 0 ? "'set ssl ocsp-response' expects response "
						       "in base64 encoding.\n"
						     : "'set ssl ocsp-response' received invalid "
						       "base64 encoded response.\n"));
	}
	p = der;
	resp = d2i_OCSP_RESPONSE(NULL, &p, len);
	ERR_clear_error();
	if (!resp || OCSP_response_status(resp) != OCSP_RESPONSE_STATUS_SUCCESSFUL) {
		OCSP_RESPONSE_free(resp);
		free(der);
		return cc_reply(ctx, cc_msg("Unable to parse OCSP response.\n"));
	}
	crt = cc_ocsp_match(resp);
	OCSP_RESPONSE_free(resp);
	if (!crt) {
		free(der);
		return cc_reply(ctx, cc_msg("OCSP single response: Certificate ID does not "
					    "match any certificate or issuer.\n"));
	}
	if (cc_ocsp_apply(crt, der, (size_t)len, err, sizeof(err)) < 0) {
		free(der);
		return cc_reply(ctx, cc_msg("%s.\n", err));
	}
	return cc_reply(ctx, cc_msg("OCSP Response updated!\n"));
}

/* clang-format off */
static const struct cli_kw ssl_cert_cli_kws[] = {
	{ { "show", "ssl", "cert" }, "show ssl cert [<certfile>]",
	  "display the SSL certificates used in memory, or the details of a file",
	  CLI_LVL_OPER, cc_show },
	{ { "new", "ssl", "cert" }, "new ssl cert <certfile>",
	  "create a new certificate file to be used in a crt-list or a directory",
	  CLI_LVL_ADMIN, cc_new },
	{ { "set", "ssl", "cert" }, "set ssl cert <certfile> <payload>", "replace a certificate file",
	  CLI_LVL_ADMIN, cc_set },
	{ { "commit", "ssl", "cert" }, "commit ssl cert <certfile>", "commit a certificate file",
	  CLI_LVL_ADMIN, cc_commit },
	{ { "abort", "ssl", "cert" }, "abort ssl cert <certfile>",
	  "abort a transaction for a certificate file", CLI_LVL_ADMIN, cc_abort },
	{ { "del", "ssl", "cert" }, "del ssl cert <certfile>", "delete an unused certificate file",
	  CLI_LVL_ADMIN, cc_del },
	{ { "set", "ssl", "ocsp-response" }, "set ssl ocsp-response <resp|payload>",
	  "update a certificate's OCSP Response from a base64-encode DER",
	  CLI_LVL_ADMIN, cc_set_ocsp },
	{ { NULL }, NULL, NULL, 0, NULL },
};
/* clang-format on */

CLI_REGISTER_KWS(ssl_cert_cli_kws)
