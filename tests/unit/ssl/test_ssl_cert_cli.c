/* Unit tests of the certificate runtime API (src/ssl/ssl_cert_cli.c) run through the CLI's
 * command table: a transaction replaces a certificate served by a bind line (its context
 * and SNI names follow), refused payloads change nothing, new/del of store entries.
 * Certificates and keys are generated here (EC P-256).
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <base/atomic.h>
#include <cli/cli.h>
#include <conn/listener-t.h>
#include <ssl/ssl.h>

#include "../../../src/ssl/ssl_int.h"
#include "../test.h"

/* PEM text of a self-signed certificate for <cn> (also its DNS SAN) and of its key. */
static char *gen_pem(const char *cn, char **key_pem)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *n;
	X509_EXTENSION *ext;
	BIO *b = BIO_new(BIO_s_mem()), *kb = BIO_new(BIO_s_mem());
	char san[128], *p, *out = NULL;
	long len;

	snprintf(san, sizeof(san), "DNS:%s", cn);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 0x1234);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, k);
	n = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, n);
	ext = X509V3_EXT_conf_nid(NULL, NULL, NID_subject_alt_name, san);
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	X509_sign(x, k, EVP_sha256());
	PEM_write_bio_X509(b, x);
	PEM_write_bio_PrivateKey(kb, k, NULL, NULL, 0, NULL, NULL);
	len = BIO_get_mem_data(kb, &p);
	*key_pem = strndup(p, (size_t)len);
	PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
	len = BIO_get_mem_data(b, &p);
	out = strndup(p, (size_t)len);
	BIO_free(b);
	BIO_free(kb);
	X509_free(x);
	EVP_PKEY_free(k);
	return out;
}

static char cli_area[65536];

/* Runs <line> (words separated by spaces) with <payload>, returns the output. */
static const char *run(const char *line, const char *payload, int level)
{
	static char copy[512];
	char *args[CLI_MAX_ARGS + 1];
	struct buf out = { .area = cli_area, .size = sizeof(cli_area) - 1 };
	struct cli_ctx ctx = { .args = args, .level = level, .out = &out, .fd = -1 };
	const struct cli_kw *kw;
	int rc;

	snprintf(copy, sizeof(copy), "%s", line);
	ctx.nargs = cli_tokenize(copy, args, CLI_MAX_ARGS);
	ctx.payload = (char *)payload;
	ctx.payload_len = payload ? strlen(payload) : 0;
	kw = cli_kw_find(args, ctx.nargs);
	if (!kw)
		return "no such command";
	if (level < kw->level)
		return "Permission denied\n";
	rc = kw->fn(&ctx);
	if (rc != CLI_DONE)
		test_fail(__FILE__, __LINE__, "'%s' returned %d", line, rc);
	cli_area[out.data] = '\0';
	return cli_area;
}

static const char *adm(const char *line, const char *payload)
{
	return run(line, payload, CLI_LVL_ADMIN);
}

TEST(ssl_cert_cli_commit_replaces_a_served_certificate)
{
	char *ka, *kb, *a = gen_pem("a.test", &ka), *b = gen_pem("b.test", &kb), err[256];
	struct ssl_bind *sb = calloc(1, sizeof(*sb));
	struct ssl_cert *crt = ssl_cert_load_mem("/u/a.pem", a, strlen(a), err, sizeof(err));
	struct ssl_cert_inst *inst;
	SSL_CTX *before;
	char mismatch[8192];

	CHECK(sb && crt);
	if (!sb || !crt)
		return;
	sb->opts.verify = SSLV_UNSET;
	list_init(&sb->insts);
	list_append(&ssl_certs, &crt->list);
	inst = ssl_bind_add_cert(sb, crt, NULL, NULL, 0);
	CHECK(inst && ssl_bind_build(sb, err, sizeof(err)) == 0);
	before = inst->ctx;
	CHECK(ssl_sni_lookup(sb, "a.test") == inst);

	CHECK_STR(adm("show ssl cert", NULL), "# filename\n/u/a.pem\n");
	CHECK_STR(adm("set ssl cert /u/a.pem", b),
		  "Transaction created for certificate /u/a.pem!\n");
	CHECK_STR(adm("show ssl cert", NULL), "# transaction\n*/u/a.pem\n# filename\n/u/a.pem\n");
	CHECK_HAS(adm("show ssl cert */u/a.pem", NULL), "Status: Unused\nSerial: 1234\n");
	CHECK_HAS(adm("show ssl cert */u/a.pem", NULL),
		  "Subject Alternative Name: DNS:b.test\nAlgorithm: EC256\n");
	CHECK(inst->ctx == before); /* nothing is served before the commit */
	CHECK_STR(adm("commit ssl cert /u/a.pem", NULL), "Committing /u/a.pem.\nSuccess!\n");
	CHECK(inst->ctx != before && inst->ctx != NULL);
	CHECK(inst->crt != crt && inst->crt == ssl_cert_lookup("/u/a.pem"));
	CHECK(ssl_sni_lookup(sb, "b.test") == inst);
	CHECK_HAS(adm("show ssl cert /u/a.pem", NULL), "Status: Used\n");
	CHECK_HAS(adm("show ssl cert /u/a.pem", NULL), "Subject: /CN=b.test\nIssuer: /CN=b.test\n");

	/* a key that is not the certificate's: refused, nothing changes */
	before = inst->ctx;
	snprintf(mismatch, sizeof(mismatch), "%.*s%s", (int)(strstr(a, "-----BEGIN PRIV") - a), a,
		 kb);
	CHECK_HAS(adm("set ssl cert /u/a.pem", mismatch), "inconsistencies between private key");
	CHECK_STR(adm("show ssl cert", NULL), "# filename\n/u/a.pem\n");
	CHECK(inst->ctx == before);
	CHECK_STR(adm("del ssl cert /u/a.pem", NULL), "Can't remove the certificate: certificate "
						      "'/u/a.pem' in use, can't be deleted!\n\n");
	CHECK_STR(run("set ssl cert /u/a.pem", b, CLI_LVL_OPER), "Permission denied\n");

	/* empty entries */
	CHECK_STR(adm("new ssl cert /u/n.pem", NULL), "New empty certificate store '/u/n.pem'!\n");
	CHECK_STR(adm("show ssl cert /u/n.pem", NULL),
		  "Filename: /u/n.pem\nStatus: Empty\nOCSP Response Key: \n");
	CHECK_STR(adm("set ssl cert /u/n.pem", a),
		  "Transaction created for certificate /u/n.pem!\n");
	CHECK_STR(adm("abort ssl cert /u/n.pem", NULL),
		  "Transaction aborted for certificate '/u/n.pem'!\n");
	CHECK_STR(adm("del ssl cert /u/n.pem", NULL), "Certificate '/u/n.pem' deleted!\n");
	CHECK(ssl_cert_lookup("/u/n.pem") == NULL);

	/* tear down what the test built */
	crt = inst->crt;
	list_delete(&crt->list);
	ssl_bind_free(&(struct bind_conf){ .ssl_cfg = sb });
	ssl_cert_release(crt);
	ssl_graves_reap(true);
	free(a);
	free(b);
	free(ka);
	free(kb);
}
