/* The TLS sample fetches, with HAProxy 2.6's names, types and outputs: the front
 * connection's TLS state (ssl_fc_*), the client certificate (ssl_c_*), the frontend's own
 * certificate (ssl_f_*), the server connection's TLS state and certificate (ssl_bc_*,
 * ssl_s_*). A connection without TLS answers false to the booleans HAProxy computes there
 * and "not found" to the others. Binary results go into a scratch chunk (smp_trash).
 */
#include <string.h>

#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <sample/sample.h>
#include <ssl/ssl.h>
#include <ssl/ssl_capture.h>
#include <stream/stream-t.h>

#include "ssl_int.h"

/* kw->private: which connection, which certificate */
#define SF_BACK 0x01 /* the server connection */
#define SF_OWN 0x02  /* our own certificate (ssl_f_*) rather than the peer's */

static struct conn *sf_conn(const struct sample *smp, int priv)
{
	const struct stream *s = smp->ctx->strm;

	if (!(priv & SF_BACK))
		return smp->ctx->conn;
	return s ? s->back : NULL;
}

/* The SSL object of the fetch's connection once its handshake is over, or NULL. */
static SSL *sf_ssl(const struct sample *smp, int priv)
{
	SSL *ssl = conn_ssl(sf_conn(smp, priv));

	return ssl && SSL_is_init_finished(ssl) ? ssl : NULL;
}

static int sf_int(struct sample *smp, long long v)
{
	smp->data.type = SMP_T_SINT;
	smp->data.u.sint = v;
	return 1;
}

static int sf_bool(struct sample *smp, bool v)
{
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = v;
	return 1;
}

static int sf_const(struct sample *smp, int type, const void *p, size_t len)
{
	smp->data.type = type;
	smp->data.u.str = ist2(p, len);
	smp->flags |= SMP_F_CONST;
	return 1;
}

static int sf_str(struct sample *smp, const char *s)
{
	return s ? sf_const(smp, SMP_T_STR, s, strlen(s)) : 0;
}

/* Copies <len> bytes into a scratch chunk: a binary sample (type <type>). */
static int sf_copy(struct sample *smp, int type, const void *p, size_t len)
{
	char *t = smp_trash();

	if (!t || len > smp_trash_size())
		return 0;
	memcpy(t, p, len);
	smp->data.type = type;
	smp->data.u.str = ist2(t, len);
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* ---- booleans and the connection's TLS state ---- */

/* ssl_fc, ssl_bc: the connection uses TLS */
static int smp_fetch_ssl(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	struct conn *c = sf_conn(smp, kw->private);

	return c ? sf_bool(smp, conn_ssl(c) != NULL) : 0;
}

/* ssl_fc_has_sni, ssl_fc_is_resumed, ssl_bc_is_resumed: false without TLS */
#define SF_SNI 0x10
static int smp_fetch_ssl_flag(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	struct conn *c = sf_conn(smp, kw->private);
	SSL *ssl = conn_ssl(c);

	if (!c)
		return 0;
	if (!ssl || !SSL_is_init_finished(ssl))
		return sf_bool(smp, false);
	if (kw->private & SF_SNI)
		return sf_bool(smp, SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) != NULL);
	return sf_bool(smp, SSL_session_reused(ssl));
}

/* ssl_fc_has_crt, ssl_c_used: the client sent a certificate (this session or the one
 * resumed) */
static int smp_fetch_has_crt(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, 0);

	return ssl ? sf_bool(smp, SSL_get0_peer_certificate(ssl) != NULL) : 0;
}

/* ssl_fc_has_early: no early data is ever accepted */
static int smp_fetch_has_early(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	return sf_ssl(smp, 0) ? sf_bool(smp, false) : 0;
}

/* ssl_fc_protocol, ssl_bc_protocol */
static int smp_fetch_protocol(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, kw->private);

	return ssl ? sf_str(smp, SSL_get_version(ssl)) : 0;
}

/* ssl_fc_cipher, ssl_bc_cipher */
static int smp_fetch_cipher(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, kw->private);
	const SSL_CIPHER *ci = ssl ? SSL_get_current_cipher(ssl) : NULL;

	return ci ? sf_str(smp, SSL_CIPHER_get_name(ci)) : 0;
}

/* ssl_fc_use_keysize, ssl_fc_alg_keysize and the ssl_bc_ ones: bits used, bits of the
 * algorithm */
#define SF_ALG 0x10
static int smp_fetch_keysize(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, kw->private);
	const SSL_CIPHER *ci = ssl ? SSL_get_current_cipher(ssl) : NULL;
	int alg = 0, use;

	if (!ci)
		return 0;
	use = SSL_CIPHER_get_bits(ci, &alg);
	return sf_int(smp, (kw->private & SF_ALG) ? alg : use);
}

/* ssl_fc_alpn, ssl_bc_alpn: the protocol agreed, not found without one */
static int smp_fetch_alpn(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, kw->private);
	const unsigned char *p = NULL;
	unsigned int len = 0;

	if (!ssl)
		return 0;
	SSL_get0_alpn_selected(ssl, &p, &len);
	return p && len ? sf_const(smp, SMP_T_STR, p, len) : 0;
}

/* ssl_fc_npn, ssl_bc_npn: NPN is never negotiated */
static int smp_fetch_never(const struct arg *args, struct sample *smp,
			   const struct sample_fetch *kw)
{
	return 0;
}

/* ssl_fc_sni: the server name the client sent */
static int smp_fetch_sni(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	SSL *ssl = conn_ssl(sf_conn(smp, 0));

	return ssl ? sf_str(smp, SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name)) : 0;
}

enum sf_bin_kind {
	SB_SESS_ID = 0,
	SB_SESS_KEY,
	SB_CLI_RANDOM,
	SB_SRV_RANDOM,
	SB_UNIQUE_ID,
};

/* ssl_fc_session_id, _session_key, _client_random, _server_random, _unique_id and the
 * ssl_bc_ ones (kind in bits 8+) */
static int smp_fetch_sess_bin(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, kw->private & 0xff);
	bool back = kw->private & SF_BACK;
	unsigned char buf[SSL_MAX_MASTER_KEY_LENGTH > 128 ? SSL_MAX_MASTER_KEY_LENGTH : 128];
	const SSL_SESSION *sess;
	unsigned int n = 0;
	size_t len = 0;
	const unsigned char *id;

	if (!ssl)
		return 0;
	sess = SSL_get_session(ssl);
	switch (kw->private >> 8) {
	case SB_SESS_ID:
		if (!sess)
			return 0;
		id = SSL_SESSION_get_id(sess, &n);
		return n ? sf_copy(smp, SMP_T_BIN, id, n) : 0;
	case SB_SESS_KEY:
		len = sess ? SSL_SESSION_get_master_key(sess, buf, sizeof(buf)) : 0;
		break;
	case SB_CLI_RANDOM:
		len = SSL_get_client_random(ssl, buf, sizeof(buf));
		break;
	case SB_SRV_RANDOM:
		len = SSL_get_server_random(ssl, buf, sizeof(buf));
		break;
	default:
		/* tls-unique: the first Finished message of the handshake, which is the
		 * client's on a full handshake and the server's on a resumed one */
		if (SSL_session_reused(ssl) == back)
			len = SSL_get_finished(ssl, buf, sizeof(buf));
		else
			len = SSL_get_peer_finished(ssl, buf, sizeof(buf));
		if (len > sizeof(buf))
			return 0;
		break;
	}
	return len ? sf_copy(smp, SMP_T_BIN, buf, len) : 0;
}

/* ssl_fc_err, ssl_bc_err: the connection's TLS error (none once a stream runs on it);
 * ssl_fc_err_str, ssl_bc_err_str: its text, not found without an error */
static int smp_fetch_err(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	return sf_ssl(smp, kw->private) ? sf_int(smp, 0) : 0;
}

/* ---- the client certificate's verification ---- */

/* ssl_c_verify: the verification result of the client certificate (0 without one). An
 * error that crt-ignore-err/ca-ignore-err let pass still shows, as in HAProxy: the verify
 * callback of ssl_opts.c does not clear it, so OpenSSL's result names the last one; what
 * the callback kept is the fallback. */
static int smp_fetch_c_verify(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, 0);
	uintptr_t seen;
	long v;

	if (!ssl)
		return 0;
	v = SSL_get_verify_result(ssl);
	if (v != X509_V_OK || ssl_verr_idx < 0)
		return sf_int(smp, v);
	seen = (uintptr_t)SSL_get_ex_data(ssl, ssl_verr_idx);
	if (seen & 0xffff)
		return sf_int(smp, (long long)(seen & 0xffff) - 1);
	if ((seen >> 16) & 0xffff)
		return sf_int(smp, (long long)((seen >> 16) & 0xffff) - 1);
	return sf_int(smp, 0);
}

/* ssl_c_err, ssl_c_ca_err, ssl_c_ca_err_depth: the first error met at depth 0, at depth
 * > 0, and that depth, as the verify callback of ssl_opts.c keeps them (each stored plus
 * one so that zero means none) */
static int smp_fetch_c_err(const struct arg *args, struct sample *smp,
			   const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, 0);
	uintptr_t seen;
	unsigned int v;

	if (!ssl)
		return 0;
	seen = ssl_verr_idx < 0 ? 0 : (uintptr_t)SSL_get_ex_data(ssl, ssl_verr_idx);
	switch (kw->private) {
	case 0:
		v = seen & 0xffff;
		return sf_int(smp, v ? v - 1 : 0);
	case 1:
		v = (seen >> 16) & 0xffff;
		return sf_int(smp, v ? v - 1 : 0);
	default:
		return sf_int(smp, (long long)((uint64_t)seen >> 32) & 0xffff);
	}
}

/* ---- certificates ---- */

/* The certificate a ssl_c_/ssl_f_/ssl_s_ fetch reads, or NULL. */
static X509 *sf_cert(const struct sample *smp, int priv)
{
	SSL *ssl = sf_ssl(smp, priv);

	if (!ssl)
		return NULL;
	return (priv & SF_OWN) ? SSL_get_certificate(ssl) : SSL_get0_peer_certificate(ssl);
}

/* Appends the DER form of <x> at t[*off..max); false when it does not fit. */
static bool sf_der_put(X509 *x, char *t, size_t *off, size_t max)
{
	int len = i2d_X509(x, NULL);
	unsigned char *p;

	if (len <= 0 || (size_t)len > max - *off)
		return false;
	p = (unsigned char *)t + *off;
	if (i2d_X509(x, &p) != len)
		return false;
	*off += (size_t)len;
	return true;
}

/* ssl_c_der, ssl_f_der, ssl_s_der */
static int smp_fetch_der(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	X509 *x = sf_cert(smp, kw->private);
	char *t = x ? smp_trash() : NULL;
	size_t off = 0;

	if (!t || !sf_der_put(x, t, &off, smp_trash_size()))
		return 0;
	sf_const(smp, SMP_T_BIN, t, off);
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* ssl_c_chain_der, ssl_s_chain_der: the chain the peer sent */
static int smp_fetch_chain_der(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	SSL *ssl = sf_ssl(smp, kw->private);
	STACK_OF(X509) *chain = ssl ? SSL_get_peer_cert_chain(ssl) : NULL;
	char *t = chain ? smp_trash() : NULL;
	size_t off = 0;
	int i, n;

	if (!t)
		return 0;
	n = sk_X509_num(chain);
	/* as OpenSSL gives it: on the server side of a connection without the peer's own
	 * certificate, on the client side starting with it */
	for (i = 0; i < n; i++)
		if (!sf_der_put(sk_X509_value(chain, i), t, &off, smp_trash_size()))
			return 0;
	if (!off)
		return 0;
	sf_const(smp, SMP_T_BIN, t, off);
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* ssl_c_serial, ssl_f_serial, ssl_s_serial: the serial number's bytes */
static int smp_fetch_serial(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	X509 *x = sf_cert(smp, kw->private);
	const ASN1_INTEGER *sn = x ? X509_get0_serialNumber(x) : NULL;

	if (!sn)
		return 0;
	return sf_copy(smp, SMP_T_BIN, ASN1_STRING_get0_data(sn), (size_t)ASN1_STRING_length(sn));
}

/* ssl_c_sha1, ssl_f_sha1, ssl_s_sha1: the SHA-1 of the DER form */
static int smp_fetch_sha1(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	X509 *x = sf_cert(smp, kw->private);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!x || !X509_digest(x, EVP_sha1(), md, &n))
		return 0;
	return sf_copy(smp, SMP_T_BIN, md, n);
}

/* ssl_c_key_alg..., ssl_c_sig_alg...: the short names of the key's and the signature's
 * algorithms */
#define SF_SIG 0x10
static int smp_fetch_alg(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	X509 *x = sf_cert(smp, kw->private);
	const ASN1_OBJECT *obj = NULL;
	int nid;

	if (!x)
		return 0;
	if (kw->private & SF_SIG) {
		nid = X509_get_signature_nid(x);
	} else {
		if (!X509_PUBKEY_get0_param((ASN1_OBJECT **)&obj, NULL, NULL, NULL,
					    X509_get_X509_PUBKEY(x)) ||
		    !obj)
			return 0;
		nid = OBJ_obj2nid(obj);
	}
	return nid == NID_undef ? 0 : sf_str(smp, OBJ_nid2sn(nid));
}

/* ssl_c_notbefore, ssl_c_notafter...: as YYMMDDhhmmssZ (a GeneralizedTime of this
 * century loses its first two digits) */
#define SF_AFTER 0x10
static int smp_fetch_time(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	X509 *x = sf_cert(smp, kw->private);
	const ASN1_TIME *tm;
	const unsigned char *d;
	int len;

	if (!x)
		return 0;
	tm = (kw->private & SF_AFTER) ? X509_get0_notAfter(x) : X509_get0_notBefore(x);
	if (!tm)
		return 0;
	d = ASN1_STRING_get0_data(tm);
	len = ASN1_STRING_length(tm);
	if (ASN1_STRING_type(tm) == V_ASN1_GENERALIZEDTIME) {
		if (len < 15 || d[0] != '2' || d[1] != '0')
			return 0;
		d += 2;
		len -= 2;
	} else if (ASN1_STRING_type(tm) != V_ASN1_UTCTIME) {
		return 0;
	}
	return sf_copy(smp, SMP_T_STR, d, (size_t)len);
}

/* ssl_c_version, ssl_f_version, ssl_s_version: the X.509 version (1 to 3) */
static int smp_fetch_version(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	X509 *x = sf_cert(smp, kw->private);

	return x ? sf_int(smp, X509_get_version(x) + 1) : 0;
}

/* Whether entry <e> of a name is the attribute <want> (short name, long name or OID). */
static bool sf_dn_match(const X509_NAME_ENTRY *e, const char *want)
{
	const ASN1_OBJECT *obj = X509_NAME_ENTRY_get_object(e);
	int nid = OBJ_obj2nid(obj);
	char oid[80];

	if (nid != NID_undef &&
	    (!strcasecmp(OBJ_nid2sn(nid), want) || !strcasecmp(OBJ_nid2ln(nid), want)))
		return true;
	return OBJ_obj2txt(oid, sizeof(oid), obj, 1) > 0 && !strcmp(oid, want);
}

/* The whole name as "/C=FR/O=x/CN=y" (values as they are stored) into t[0..max). */
static int sf_dn_oneline(const X509_NAME *name, char *t, size_t max)
{
	size_t off = 0;

	for (int i = 0; i < X509_NAME_entry_count(name); i++) {
		const X509_NAME_ENTRY *e = X509_NAME_get_entry(name, i);
		const ASN1_OBJECT *obj = X509_NAME_ENTRY_get_object(e);
		const ASN1_STRING *v = X509_NAME_ENTRY_get_data(e);
		int nid = OBJ_obj2nid(obj);
		char oid[80];
		const char *k = nid != NID_undef ? OBJ_nid2sn(nid) : NULL;
		size_t klen, vlen = (size_t)ASN1_STRING_length(v);

		if (!k) {
			if (OBJ_obj2txt(oid, sizeof(oid), obj, 1) <= 0)
				return -1;
			k = oid;
		}
		klen = strlen(k);
		if (klen + vlen + 2 > max - off)
			return -1;
		t[off++] = '/';
		memcpy(t + off, k, klen);
		off += klen;
		t[off++] = '=';
		memcpy(t + off, ASN1_STRING_get0_data(v), vlen);
		off += vlen;
	}
	return (int)off;
}

/* The whole name in RFC 2253 form into t[0..max). */
static int sf_dn_rfc2253(const X509_NAME *name, char *t, size_t max)
{
	BIO *b = BIO_new(BIO_s_mem());
	int n = -1;

	if (!b)
		return -1;
	if (X509_NAME_print_ex(b, name, 0, XN_FLAG_RFC2253) >= 0) {
		n = BIO_read(b, t, (int)(max > 0x7fffffff ? 0x7fffffff : max));
		if (n < 0 || BIO_pending(b))
			n = -1;
	}
	BIO_free(b);
	return n;
}

/* ssl_c_s_dn([entry[,occ[,format]]]), ssl_c_i_dn... and the ssl_f_/ssl_s_ ones: the
 * subject or issuer name whole, or the <occ>th value of <entry> (from the start when
 * positive, from the end when negative, the first one by default) */
#define SF_ISSUER 0x10
static int smp_fetch_dn(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	X509 *x = sf_cert(smp, kw->private);
	const X509_NAME *name;
	const char *entry = NULL;
	long long occ = 0;
	bool rfc = false;
	char *t;
	int n, cnt, i, match = 0;

	if (!x)
		return 0;
	name = (kw->private & SF_ISSUER) ? X509_get_issuer_name(x) : X509_get_subject_name(x);
	if (args && args[0].type == ARGT_STR && args[0].data.str.len)
		entry = args[0].data.str.ptr;
	if (args && args[0].type == ARGT_STR && args[1].type == ARGT_SINT)
		occ = args[1].data.sint;
	if (args && args[0].type == ARGT_STR && args[1].type == ARGT_SINT &&
	    args[2].type == ARGT_STR && !strcmp(args[2].data.str.ptr, "rfc2253"))
		rfc = true;
	t = smp_trash();
	if (!t || !name)
		return 0;
	if (!entry) {
		n = rfc ? sf_dn_rfc2253(name, t, smp_trash_size())
			: sf_dn_oneline(name, t, smp_trash_size());
		if (n <= 0)
			return 0;
		sf_const(smp, SMP_T_STR, t, (size_t)n);
		smp->flags &= ~SMP_F_CONST;
		return 1;
	}
	if (occ == 0)
		occ = 1;
	cnt = X509_NAME_entry_count(name);
	for (i = 0; i < cnt; i++) {
		int j = occ > 0 ? i : cnt - 1 - i;
		const X509_NAME_ENTRY *e = X509_NAME_get_entry(name, j);
		const ASN1_STRING *v;

		if (!sf_dn_match(e, entry) || ++match != (occ > 0 ? occ : -occ))
			continue;
		v = X509_NAME_ENTRY_get_data(e);
		return sf_copy(smp, SMP_T_STR, ASN1_STRING_get0_data(v),
			       (size_t)ASN1_STRING_length(v));
	}
	return 0;
}

/* The arguments of the DN fetches: an occurrence needs an entry, the format is
 * "rfc2253". */
static int val_dn(struct arg *args, void *private, char *err, size_t errsz)
{
	if (!args || args[0].type != ARGT_STR)
		return 0;
	if (args[1].type == ARGT_SINT && !args[0].data.str.len && args[1].data.sint) {
		snprintf(err, errsz, "an occurrence needs an entry name");
		return -1;
	}
	if (args[1].type == ARGT_SINT && args[2].type == ARGT_STR &&
	    strcmp(args[2].data.str.ptr, "rfc2253")) {
		snprintf(err, errsz,
			 "only rfc2253 or a blank value are currently supported as "
			 "the format argument.");
		return -1;
	}
	return 0;
}

/* ---- the ClientHello capture (tune.ssl.capture-cipherlist-size) ---- */

static const struct ssl_capture *sf_capture(const struct sample *smp)
{
	SSL *ssl = conn_ssl(sf_conn(smp, 0));

	return ssl ? ssl_capture_get(ssl) : NULL;
}

/* A GREASE value (RFC 8701): 0x?A?A with both bytes equal. */
static bool sf_grease(const unsigned char *p)
{
	return p[0] == p[1] && (p[0] & 0x0f) == 0x0a;
}

enum sf_cl_kind {
	CL_CIPHERS = 0,
	CL_EXT,
	CL_EC,
	CL_ECF,
};

/* A list of the capture as binary, without the GREASE values when the fetch's argument
 * is non-zero (2-byte lists only). */
static int sf_capture_list(const struct arg *args, struct sample *smp, int kind)
{
	const struct ssl_capture *cap = sf_capture(smp);
	const unsigned char *p;
	size_t len;
	bool filter = args && args[0].type == ARGT_SINT && args[0].data.sint;
	char *t;
	size_t n = 0;

	if (!cap)
		return 0;
	p = cap->data;
	len = cap->ciph_len;
	if (kind >= CL_EXT) {
		p += len;
		len = cap->ext_len;
	}
	if (kind >= CL_EC) {
		p += len;
		len = cap->ec_len;
	}
	if (kind >= CL_ECF) {
		p += len;
		len = cap->ecf_len;
		filter = false;
	}
	if (!filter)
		return sf_const(smp, SMP_T_BIN, p, len);
	t = smp_trash();
	if (!t || len > smp_trash_size())
		return 0;
	for (size_t i = 0; i + 1 < len; i += 2) {
		if (sf_grease(p + i))
			continue;
		t[n++] = (char)p[i];
		t[n++] = (char)p[i + 1];
	}
	smp->data.type = SMP_T_BIN;
	smp->data.u.str = ist2(t, n);
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* ssl_fc_cipherlist_bin, ssl_fc_extlist_bin, ssl_fc_eclist_bin, ssl_fc_ecformats_bin */
static int smp_fetch_cl_bin(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	return sf_capture_list(args, smp, kw->private);
}

/* ssl_fc_cipherlist_hex: the cipher list in upper-case hexadecimal */
static int smp_fetch_cl_hex(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	static const char hex[] = "0123456789ABCDEF";
	struct ist in;
	char *t;

	if (!sf_capture_list(args, smp, CL_CIPHERS))
		return 0;
	in = smp->data.u.str;
	t = smp_trash();
	if (!t || in.len * 2 > smp_trash_size())
		return 0;
	for (size_t i = 0; i < in.len; i++) {
		t[2 * i] = hex[(unsigned char)in.ptr[i] >> 4];
		t[2 * i + 1] = hex[(unsigned char)in.ptr[i] & 15];
	}
	smp->data.type = SMP_T_BIN;
	smp->data.u.str = ist2(t, in.len * 2);
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* ssl_fc_cipherlist_str: the cipher names, comma-separated (hexadecimal for the ones
 * OpenSSL does not know) */
static int smp_fetch_cl_str(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	SSL *ssl = conn_ssl(sf_conn(smp, 0));
	struct ist in;
	char *t;
	size_t n = 0, max = smp_trash_size();

	if (!ssl || !sf_capture_list(args, smp, CL_CIPHERS))
		return 0;
	in = smp->data.u.str;
	t = smp_trash();
	if (!t)
		return 0;
	for (size_t i = 0; i + 1 < in.len; i += 2) {
		const SSL_CIPHER *ci = SSL_CIPHER_find(ssl, (const unsigned char *)in.ptr + i);
		char num[8];
		const char *name = ci ? SSL_CIPHER_get_name(ci) : NULL;
		size_t len;

		if (!name) {
			snprintf(num, sizeof(num), "%04X",
				 ((unsigned char)in.ptr[i] << 8) | (unsigned char)in.ptr[i + 1]);
			name = num;
		}
		len = strlen(name);
		if (len + 1 > max - n)
			return 0;
		if (n)
			t[n++] = ',';
		memcpy(t + n, name, len);
		n += len;
	}
	smp->data.type = SMP_T_STR;
	smp->data.u.str = ist2(t, n);
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* ssl_fc_cipherlist_xxh: xxh64 of the whole cipher list, signed */
static int smp_fetch_cl_xxh(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	const struct ssl_capture *cap = sf_capture(smp);

	return cap ? sf_int(smp, (long long)cap->xxh) : 0;
}

/* ssl_fc_protocol_hello_id: the version the ClientHello announces */
static int smp_fetch_hello_id(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	const struct ssl_capture *cap = sf_capture(smp);

	return cap ? sf_int(smp, cap->hello_ver) : 0;
}

/* clang-format off */
#define CLI SMP_USE_L4CLI
#define SRV SMP_USE_SERVR
#define A_DN { ARGT_STR, ARGT_SINT, ARGT_STR }
#define A_INT { ARGT_SINT }
#define F(kw, fn, type, priv) { kw, fn, 0, { 0 }, NULL, type, CLI, priv }
#define B(kw, fn, type, priv) { kw, fn, 0, { 0 }, NULL, type, SRV, (priv) | SF_BACK }
#define FA(kw, fn, a, v, type, priv) { kw, fn, 0, a, v, type, CLI, priv }
/* the server's certificate: usable wherever HAProxy 2.6 accepts it (any HTTP rule) */
#define S(kw, fn, type, priv) { kw, fn, 0, { 0 }, NULL, type, CLI, (priv) | SF_BACK }
#define SA(kw, fn, a, v, type, priv) { kw, fn, 0, a, v, type, CLI, (priv) | SF_BACK }
/* the fetches of one certificate: ssl_c_ (peer of the front), ssl_f_ (our own), ssl_s_
 * (peer of the back) */
#define CERT(pfx, M, o)                                                           \
	M(pfx "der", smp_fetch_der, SMP_T_BIN, o),                                \
	M(pfx "serial", smp_fetch_serial, SMP_T_BIN, o),                          \
	M(pfx "sha1", smp_fetch_sha1, SMP_T_BIN, o),                              \
	M(pfx "key_alg", smp_fetch_alg, SMP_T_STR, o),                            \
	M(pfx "sig_alg", smp_fetch_alg, SMP_T_STR, (o) | SF_SIG),                 \
	M(pfx "notbefore", smp_fetch_time, SMP_T_STR, o),                         \
	M(pfx "notafter", smp_fetch_time, SMP_T_STR, (o) | SF_AFTER),             \
	M(pfx "version", smp_fetch_version, SMP_T_SINT, o),                       \
	M##A(pfx "s_dn", smp_fetch_dn, A_DN, val_dn, SMP_T_STR, o),               \
	M##A(pfx "i_dn", smp_fetch_dn, A_DN, val_dn, SMP_T_STR, (o) | SF_ISSUER)

static const struct sample_fetch ssl_fetches[] = {
	/* front connection */
	F("ssl_fc", smp_fetch_ssl, SMP_T_BOOL, 0),
	F("ssl_fc_has_sni", smp_fetch_ssl_flag, SMP_T_BOOL, SF_SNI),
	F("ssl_fc_is_resumed", smp_fetch_ssl_flag, SMP_T_BOOL, 0),
	F("ssl_fc_has_crt", smp_fetch_has_crt, SMP_T_BOOL, 0),
	F("ssl_fc_has_early", smp_fetch_has_early, SMP_T_BOOL, 0),
	F("ssl_fc_sni", smp_fetch_sni, SMP_T_STR, 0),
	F("ssl_fc_protocol", smp_fetch_protocol, SMP_T_STR, 0),
	F("ssl_fc_cipher", smp_fetch_cipher, SMP_T_STR, 0),
	F("ssl_fc_use_keysize", smp_fetch_keysize, SMP_T_SINT, 0),
	F("ssl_fc_alg_keysize", smp_fetch_keysize, SMP_T_SINT, SF_ALG),
	F("ssl_fc_alpn", smp_fetch_alpn, SMP_T_STR, 0),
	F("ssl_fc_npn", smp_fetch_never, SMP_T_STR, 0),
	F("ssl_fc_err", smp_fetch_err, SMP_T_SINT, 0),
	F("ssl_fc_err_str", smp_fetch_never, SMP_T_STR, 0),
	F("ssl_fc_session_id", smp_fetch_sess_bin, SMP_T_BIN, SB_SESS_ID << 8),
	F("ssl_fc_session_key", smp_fetch_sess_bin, SMP_T_BIN, SB_SESS_KEY << 8),
	F("ssl_fc_client_random", smp_fetch_sess_bin, SMP_T_BIN, SB_CLI_RANDOM << 8),
	F("ssl_fc_server_random", smp_fetch_sess_bin, SMP_T_BIN, SB_SRV_RANDOM << 8),
	F("ssl_fc_unique_id", smp_fetch_sess_bin, SMP_T_BIN, SB_UNIQUE_ID << 8),
	F("ssl_fc_cipherlist_xxh", smp_fetch_cl_xxh, SMP_T_SINT, 0),
	F("ssl_fc_protocol_hello_id", smp_fetch_hello_id, SMP_T_SINT, 0),
	FA("ssl_fc_cipherlist_bin", smp_fetch_cl_bin, A_INT, NULL, SMP_T_STR, CL_CIPHERS),
	FA("ssl_fc_cipherlist_hex", smp_fetch_cl_hex, A_INT, NULL, SMP_T_BIN, 0),
	FA("ssl_fc_cipherlist_str", smp_fetch_cl_str, A_INT, NULL, SMP_T_STR, 0),
	FA("ssl_fc_extlist_bin", smp_fetch_cl_bin, A_INT, NULL, SMP_T_STR, CL_EXT),
	FA("ssl_fc_eclist_bin", smp_fetch_cl_bin, A_INT, NULL, SMP_T_STR, CL_EC),
	F("ssl_fc_ecformats_bin", smp_fetch_cl_bin, SMP_T_STR, CL_ECF),
	/* the client certificate */
	F("ssl_c_used", smp_fetch_has_crt, SMP_T_BOOL, 0),
	F("ssl_c_verify", smp_fetch_c_verify, SMP_T_SINT, 0),
	F("ssl_c_err", smp_fetch_c_err, SMP_T_SINT, 0),
	F("ssl_c_ca_err", smp_fetch_c_err, SMP_T_SINT, 1),
	F("ssl_c_ca_err_depth", smp_fetch_c_err, SMP_T_SINT, 2),
	F("ssl_c_chain_der", smp_fetch_chain_der, SMP_T_BIN, 0),
	CERT("ssl_c_", F, 0),
	CERT("ssl_f_", F, SF_OWN),
	/* server connection */
	B("ssl_bc", smp_fetch_ssl, SMP_T_BOOL, 0),
	B("ssl_bc_is_resumed", smp_fetch_ssl_flag, SMP_T_BOOL, 0),
	B("ssl_bc_protocol", smp_fetch_protocol, SMP_T_STR, 0),
	B("ssl_bc_cipher", smp_fetch_cipher, SMP_T_STR, 0),
	B("ssl_bc_use_keysize", smp_fetch_keysize, SMP_T_SINT, 0),
	B("ssl_bc_alg_keysize", smp_fetch_keysize, SMP_T_SINT, SF_ALG),
	B("ssl_bc_alpn", smp_fetch_alpn, SMP_T_STR, 0),
	B("ssl_bc_npn", smp_fetch_never, SMP_T_STR, 0),
	B("ssl_bc_err", smp_fetch_err, SMP_T_SINT, 0),
	B("ssl_bc_err_str", smp_fetch_never, SMP_T_STR, 0),
	B("ssl_bc_session_id", smp_fetch_sess_bin, SMP_T_BIN, SB_SESS_ID << 8),
	B("ssl_bc_session_key", smp_fetch_sess_bin, SMP_T_BIN, SB_SESS_KEY << 8),
	B("ssl_bc_client_random", smp_fetch_sess_bin, SMP_T_BIN, SB_CLI_RANDOM << 8),
	B("ssl_bc_server_random", smp_fetch_sess_bin, SMP_T_BIN, SB_SRV_RANDOM << 8),
	B("ssl_bc_unique_id", smp_fetch_sess_bin, SMP_T_BIN, SB_UNIQUE_ID << 8),
	S("ssl_s_chain_der", smp_fetch_chain_der, SMP_T_BIN, 0),
	CERT("ssl_s_", S, 0),
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};
/* clang-format on */

SMP_REGISTER_FETCHES(ssl_fetches)
