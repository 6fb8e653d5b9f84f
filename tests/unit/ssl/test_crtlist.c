/* Unit tests of the crt-list line tokenizer (ssl/ssl_crtlist_line.c): certificate, options
 * in brackets, SNI filters, comments, escapes and the malformed lines HAProxy 2.6 refuses. */
#include <string.h>
#include <ssl/ssl_crtlist.h>
#include "../test.h"

static int tok(const char *s, struct crtlist_line *tl, const char **err, char *buf, size_t len)
{
	snprintf(buf, len, "%s", s);
	*err = NULL;
	return crtlist_tokenize(buf, tl, err);
}

TEST(crtlist_blank_and_comments)
{
	struct crtlist_line tl;
	const char *err;
	char b[256];

	CHECK_INT(tok("", &tl, &err, b, sizeof(b)), 0);
	CHECK_INT(tok("   \t\r\n", &tl, &err, b, sizeof(b)), 0);
	CHECK_INT(tok("# a.pem [alpn h2]", &tl, &err, b, sizeof(b)), 0);
	CHECK_INT(tok("   # indented", &tl, &err, b, sizeof(b)), 0);
}

TEST(crtlist_cert_only)
{
	struct crtlist_line tl;
	const char *err;
	char b[256];

	CHECK_INT(tok("  /etc/a.pem  \n", &tl, &err, b, sizeof(b)), 1);
	CHECK_STR(tl.crt, "/etc/a.pem");
	CHECK_INT(tl.brackets, 0);
	CHECK_INT(tl.nb_opts, 0);
	CHECK_INT(tl.nb_filters, 0);
}

TEST(crtlist_opts_and_filters)
{
	struct crtlist_line tl;
	const char *err;
	char b[256];

	CHECK_INT(tok("b.pem [alpn h2 ssl-min-ver TLSv1.3] b.example.com *.b.test !x.b.test\n", &tl,
		      &err, b, sizeof(b)),
		  1);
	CHECK_STR(tl.crt, "b.pem");
	CHECK_INT(tl.brackets, 1);
	CHECK_INT(tl.nb_opts, 4);
	CHECK_STR(tl.opts[0], "alpn");
	CHECK_STR(tl.opts[1], "h2");
	CHECK_STR(tl.opts[3], "TLSv1.3");
	CHECK_INT(tl.nb_filters, 3);
	CHECK_STR(tl.filters[0], "b.example.com");
	CHECK_STR(tl.filters[1], "*.b.test");
	CHECK_STR(tl.filters[2], "!x.b.test");
}

TEST(crtlist_brackets_spacing)
{
	struct crtlist_line tl;
	const char *err;
	char b[256];

	CHECK_INT(tok("a.pem [ verify none ] x", &tl, &err, b, sizeof(b)), 1);
	CHECK_INT(tl.nb_opts, 2);
	CHECK_STR(tl.opts[1], "none");
	CHECK_INT(tl.nb_filters, 1);
	CHECK_INT(tok("a.pem[verify none]x", &tl, &err, b, sizeof(b)), 1);
	CHECK_STR(tl.crt, "a.pem");
	CHECK_INT(tl.nb_opts, 2);
	CHECK_STR(tl.opts[0], "verify");
	CHECK_STR(tl.opts[1], "none");
	CHECK_INT(tl.nb_filters, 1);
	CHECK_STR(tl.filters[0], "x");
	CHECK_INT(tok("a.pem []", &tl, &err, b, sizeof(b)), 1);
	CHECK_INT(tl.brackets, 1);
	CHECK_INT(tl.nb_opts, 0);
}

TEST(crtlist_escapes_and_quotes)
{
	struct crtlist_line tl;
	const char *err;
	char b[256];

	CHECK_INT(tok("my\\ cert.pem x\\[y \"q\"", &tl, &err, b, sizeof(b)), 1);
	CHECK_STR(tl.crt, "my cert.pem");
	CHECK_INT(tl.nb_filters, 2);
	CHECK_STR(tl.filters[0], "x[y");
	CHECK_STR(tl.filters[1], "\"q\""); /* quotes are ordinary characters, as in 2.6 */
	CHECK_INT(tok("a.pem trailing\\", &tl, &err, b, sizeof(b)), 1);
	CHECK_STR(tl.filters[0], "trailing\\");
}

TEST(crtlist_malformed)
{
	struct crtlist_line tl;
	const char *err;
	char b[256];

	CHECK_INT(tok("a.pem ] x", &tl, &err, b, sizeof(b)), -1);
	CHECK_STR(err, "missing '['");
	CHECK_INT(tok("a.pem [alpn h2] [ciphers X] x", &tl, &err, b, sizeof(b)), -1);
	CHECK_STR(err, "too many '['");
	CHECK_INT(tok("a.pem x [alpn h2]", &tl, &err, b, sizeof(b)), -1);
	CHECK_STR(err, "malformated line, filters can't be between filename and options!");
	CHECK_INT(tok("a.pem [alpn h2", &tl, &err, b, sizeof(b)), -1);
	CHECK_STR(err, "missing ']'");
	CHECK_INT(tok("[alpn h2] a.pem", &tl, &err, b, sizeof(b)), -1);
	CHECK_STR(err, "missing the certificate file name");
}

TEST(crtlist_too_many_words)
{
	struct crtlist_line tl;
	const char *err;
	char b[1024];
	char line[1024] = "a.pem";

	for (int i = 0; i < CRTLIST_MAX_WORDS; i++)
		strcat(line, " f");
	CHECK_INT(tok(line, &tl, &err, b, sizeof(b)), 1);
	CHECK_INT(tl.nb_filters, CRTLIST_MAX_WORDS);
	strcat(line, " g");
	CHECK_INT(tok(line, &tl, &err, b, sizeof(b)), -1);
	CHECK_STR(err, "too many words on the line");
}
