/* tune.ssl.keylog: the TLS secrets of each front connection, kept for the
 * ssl_fc_*_secret fetches (and so for a log-format producing an SSLKEYLOGFILE). OpenSSL
 * hands each secret to the key log callback of the connection's context during the
 * handshake; they stay in the SSL's ex_data and are freed with it. Without keylog on,
 * nothing is installed and the fetches find nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>

#include <base/ist.h>
#include <sample/sample.h>
#include <ssl/ssl.h>

#include "ssl_int.h"

/* The labels OpenSSL writes, in the order of struct keylog's slots. */
static const char *const keylog_labels[] = {
	"CLIENT_EARLY_TRAFFIC_SECRET",	   "CLIENT_HANDSHAKE_TRAFFIC_SECRET",
	"SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0",
	"SERVER_TRAFFIC_SECRET_0",	   "EXPORTER_SECRET",
	"EARLY_EXPORTER_SECRET",
};
#define KEYLOG_NB (int)(sizeof(keylog_labels) / sizeof(keylog_labels[0]))
#define KEYLOG_HEX 129 /* a secret of up to 64 bytes in hex, NUL-terminated */

/* The secrets of one connection, hex as OpenSSL gives them ("" when not seen). */
struct keylog {
	char sec[KEYLOG_NB][KEYLOG_HEX];
};

static int keylog_idx = -1;

static void keylog_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
	if (ptr) {
		OPENSSL_cleanse(ptr, sizeof(struct keylog));
		free(ptr);
	}
}

/* OpenSSL's key log callback: <line> is "LABEL <client random> <secret>". Handshakes
 * (the connection's thread). An allocation failure loses the secrets, nothing else. */
static void keylog_cb(const SSL *ssl, const char *line)
{
	struct keylog *kl = SSL_get_ex_data(ssl, keylog_idx);
	const char *sp = strchr(line, ' '), *sec;
	size_t llen, slen;
	int i;

	if (!sp || !(sec = strchr(sp + 1, ' ')))
		return;
	llen = (size_t)(sp - line);
	sec++;
	slen = strlen(sec);
	for (i = 0; i < KEYLOG_NB; i++)
		if (strlen(keylog_labels[i]) == llen && !memcmp(keylog_labels[i], line, llen))
			break;
	if (i == KEYLOG_NB || slen >= KEYLOG_HEX)
		return;
	if (!kl) {
		kl = calloc(1, sizeof(*kl));
		if (!kl || !SSL_set_ex_data((SSL *)ssl, keylog_idx, kl)) {
			free(kl);
			return;
		}
	}
	memcpy(kl->sec[i], sec, slen + 1);
}

int ssl_keylog_setup(SSL_CTX *ctx, char *err, size_t errlen)
{
	if (!ssl_set.keylog)
		return 0;
	if (keylog_idx < 0)
		keylog_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, keylog_free);
	if (keylog_idx < 0) {
		snprintf(err, errlen, "unable to allocate the key log index");
		return -1;
	}
	SSL_CTX_set_keylog_callback(ctx, keylog_cb);
	return 0;
}

/* ssl_fc_*_secret: the secret of slot kw->private of the client connection, hex. */
static int smp_fetch_keylog(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	SSL *ssl = conn_ssl(smp->ctx->conn);
	const struct keylog *kl;
	const char *s;

	if (!ssl || keylog_idx < 0 || !(kl = SSL_get_ex_data(ssl, keylog_idx)))
		return 0;
	s = kl->sec[kw->private];
	if (!*s)
		return 0;
	smp->data.type = SMP_T_STR;
	smp->data.u.str = ist2(s, strlen(s));
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* clang-format off */
#define KL(kw, slot) { kw, smp_fetch_keylog, 0, { 0 }, NULL, SMP_T_STR, SMP_USE_L4CLI, slot }
static const struct sample_fetch keylog_fetches[] = {
	KL("ssl_fc_client_early_traffic_secret", 0),
	KL("ssl_fc_client_handshake_traffic_secret", 1),
	KL("ssl_fc_server_handshake_traffic_secret", 2),
	KL("ssl_fc_client_traffic_secret_0", 3),
	KL("ssl_fc_server_traffic_secret_0", 4),
	KL("ssl_fc_exporter_secret", 5),
	KL("ssl_fc_early_exporter_secret", 6),
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};
/* clang-format on */

SMP_REGISTER_FETCHES(keylog_fetches)
