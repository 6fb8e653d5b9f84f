/* The TLS facts of a client connection that a PROXY v2 header sent to a server carries
 * ("send-proxy-v2-ssl", "send-proxy-v2-ssl-cn", "proxy-v2-options ssl,cert-cn,ssl-cipher,
 * cert-sig,cert-key,authority"): the protocol version, the client certificate's presence,
 * verification and CN, the cipher, the signature and key algorithms of the certificate
 * the proxy presented, the ALPN and the server name. Loop thread.
 */
#include <stdio.h>
#include <string.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <conn/proxy_proto.h>
#include <ssl/ssl.h>

static __thread char pp_cn[256], pp_key[32];

static struct ist pp_str(const char *s)
{
	return s ? ist2(s, strlen(s)) : ist2(NULL, 0);
}

/* The CN of the client certificate's subject, or an empty ist. */
static struct ist pp_client_cn(SSL *ssl)
{
	X509 *crt = SSL_get1_peer_certificate(ssl);
	int n = -1;

	if (crt) {
		n = X509_NAME_get_text_by_NID(X509_get_subject_name(crt), NID_commonName, pp_cn,
					      sizeof(pp_cn));
		X509_free(crt);
	}
	return n > 0 ? ist2(pp_cn, (size_t)n) : ist2(NULL, 0);
}

/* "RSA2048", "EC256"...: the key algorithm and size of the certificate the proxy sent. */
static struct ist pp_key_alg(SSL *ssl)
{
	X509 *crt = SSL_get_certificate(ssl);
	EVP_PKEY *pk = crt ? X509_get0_pubkey(crt) : NULL;
	const char *alg;
	int n;

	if (!pk)
		return ist2(NULL, 0);
	switch (EVP_PKEY_get_base_id(pk)) {
	case EVP_PKEY_RSA:
		alg = "RSA";
		break;
	case EVP_PKEY_EC:
		alg = "EC";
		break;
	case EVP_PKEY_DSA:
		alg = "DSA";
		break;
	default:
		alg = OBJ_nid2sn(EVP_PKEY_get_base_id(pk));
		break;
	}
	n = snprintf(pp_key, sizeof(pp_key), "%s%d", alg ? alg : "", EVP_PKEY_get_bits(pk));
	return n > 0 && (size_t)n < sizeof(pp_key) ? ist2(pp_key, (size_t)n) : ist2(NULL, 0);
}

void ssl_pp_fill(const struct conn *front, struct pp_out *o)
{
	SSL *ssl = conn_ssl(front);
	const unsigned char *alpn = NULL;
	unsigned int alpn_len = 0;
	X509 *crt;

	if (!ssl)
		return;
	SSL_get0_alpn_selected(ssl, &alpn, &alpn_len);
	if (alpn_len)
		o->alpn = ist2(alpn, alpn_len);
	if ((o->opts & PP_O_AUTHORITY) && !o->authority.len)
		o->authority = pp_str(SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name));
	if (!(o->opts & PP_O_SSL))
		return;
	o->ssl_client = PP2_CLIENT_SSL;
	crt = SSL_get1_peer_certificate(ssl);
	if (crt) {
		o->ssl_client |= SSL_session_reused(ssl)
					 ? PP2_CLIENT_CERT_SESS
					 : PP2_CLIENT_CERT_CONN | PP2_CLIENT_CERT_SESS;
		X509_free(crt);
	}
	/* 0 when verified, or no certificate (as HAProxy: 1 when not verified ok) */
	o->ssl_verify = SSL_get_verify_result(ssl) == X509_V_OK ? 0 : 1;
	o->ssl_version = pp_str(SSL_get_version(ssl));
	if (o->opts & PP_O_SSL_CN)
		o->ssl_cn = pp_client_cn(ssl);
	if (o->opts & PP_O_SSL_CIPHER)
		o->ssl_cipher = pp_str(SSL_get_cipher_name(ssl));
	if (o->opts & PP_O_CERT_SIG) {
		X509 *own = SSL_get_certificate(ssl);

		if (own)
			o->ssl_sig_alg = pp_str(OBJ_nid2sn(X509_get_signature_nid(own)));
	}
	if (o->opts & PP_O_CERT_KEY)
		o->ssl_key_alg = pp_key_alg(ssl);
}
