/* Types of the TLS layer: the options of a bind line, a crt-list line or a server, the
 * certificate store shared by the binds that serve a certificate, the TLS side of a bind
 * line and of a server, and the process-wide settings of the "global" section.
 */
#ifndef SSL_SSL_T_H
#define SSL_SSL_T_H

#include <stdbool.h>
#include <stdint.h>
#include <openssl/ssl.h>
#include <base/list.h>

struct bind_conf;
struct server;
struct sample_expr;

/* ssl_opts.flags (and flags_set: which of them the line gave, for inheritance) */
#define SSLO_NO_SSLV3 0x00000001
#define SSLO_NO_TLSV10 0x00000002
#define SSLO_NO_TLSV11 0x00000004
#define SSLO_NO_TLSV12 0x00000008
#define SSLO_NO_TLSV13 0x00000010
#define SSLO_NO_TICKETS 0x00000020    /* no-tls-tickets */
#define SSLO_PREFER_CLIENT 0x00000040 /* prefer-client-ciphers */
#define SSLO_STRICT_SNI 0x00000080    /* bind: strict-sni */
#define SSLO_NO_CA_NAMES 0x00000100   /* bind: no-ca-names */
#define SSLO_NO_RENEG 0x00000200      /* no-renegotiation (the default: kept for syntax) */
#define SSLO_NO_REUSE 0x00000400      /* server: no-ssl-reuse */
#define SSLO_SSL 0x00000800	      /* server: ssl (no-ssl clears it) */
#define SSLO_CHECK_SSL 0x00001000     /* server: check-ssl */
#define SSLO_NO_VERIFYHOST 0x00002000 /* server: no-verifyhost */

/* ssl_opts.verify */
#define SSLV_UNSET (-1)
#define SSLV_NONE 0
#define SSLV_OPTIONAL 1
#define SSLV_REQUIRED 2

/* Options of one bind line, crt-list line or server line. Pointers NULL and numbers 0 (or
 * SSLV_UNSET) mean "not given": a crt-list line inherits its bind line's, a bind line the
 * "ssl-default-bind-*" ones, a server the "ssl-default-server-*" ones (ssl_opts_merge). */
struct ssl_opts {
	char *ciphers;	    /* TLS <= 1.2 cipher list */
	char *ciphersuites; /* TLS 1.3 cipher suites */
	char *curves;	    /* groups, colon-separated */
	char *ecdhe;	    /* one named curve (the older form of curves) */
	char *sigalgs;
	char *client_sigalgs;
	char *ca_file; /* full path (ca-base applied) */
	char *crl_file;
	char *alpn; /* wire format: length-prefixed protocol names */
	int alpn_len;
	int verify;	      /* SSLV_* */
	int min_ver, max_ver; /* TLS1_VERSION...TLS1_3_VERSION, 0 = library default */
	uint32_t flags;	      /* SSLO_* */
	uint32_t flags_set;   /* SSLO_* given on the line (a "no-" form sets it too) */
	bool ca_ignore_all, crt_ignore_all; /* ca-ignore-err/crt-ignore-err all */
	uint64_t ca_ignore[2];		    /* X509_V_ERR_* ids below 128 to ignore at depth > 0 */
	uint64_t crt_ignore[2];		    /* the same at depth 0 */
};

/* One certificate as loaded from its files: shared by every SSL_CTX that serves it (every
 * bind line and crt-list line naming the same path). "set ssl cert" builds a new one and
 * "commit ssl cert" replaces it in every instance. Main thread (config, CLI) only. */
struct ssl_cert {
	struct list list; /* in ssl_certs, load order */
	char *path;	  /* the name, as HAProxy shows it (crt-base applied) */
	X509 *cert;
	EVP_PKEY *key;
	STACK_OF(X509) * chain; /* intermediates, may be NULL */
	X509 *issuer;		/* from <path>.issuer, or NULL */
	unsigned char *ocsp;	/* DER OCSP response (<path>.ocsp or set ssl ocsp-response) */
	size_t ocsp_len;
	char **names; /* CN and DNS SANs, lowercase; "*.x" for wildcards */
	int nb_names;
	struct list insts; /* struct ssl_cert_inst serving it */
};

/* A certificate served on one bind line (from "crt" or a crt-list line). */
struct ssl_cert_inst {
	struct list by_bind; /* in ssl_bind.insts, config order: the first is the default */
	struct list by_cert; /* in ssl_cert.insts */
	struct ssl_bind *sb;
	struct ssl_cert *crt;
	struct ssl_opts *opts; /* the crt-list line's options, or NULL */
	char **filters;	       /* crt-list SNI filters ("!name" excludes), or NULL: the
				* certificate's own names */
	int nb_filters;
	char *crtlist; /* the crt-list file it came from, or NULL */
	int crtlist_line;
	SSL_CTX *ctx; /* built by ssl_ctx_build; replaced (atomically) on commit */
};

/* SNI lookup table of a bind line, rebuilt whole when its certificates change and
 * published with an atomic store; the old one is freed once every thread has been
 * quiescent (event/qsbr.h). */
struct ssl_sni_entry {
	const char *name; /* lowercase; wildcards are stored without their "*" */
	struct ssl_cert_inst *inst;
	bool neg; /* an excluding filter */
	bool wild;
};
struct ssl_sni_table {
	struct ssl_sni_entry *ent; /* sorted by name (exact and wildcard separately) */
	int nb;
	struct ssl_cert_inst *def; /* the default certificate (the first), or NULL */
};

/* The TLS side of a "bind ... ssl" line. */
struct ssl_bind {
	struct bind_conf *bc;
	struct ssl_opts opts;	   /* the line's options (merged with ssl-default-bind-*) */
	struct list insts;	   /* struct ssl_cert_inst, config order */
	struct ssl_sni_table *sni; /* current table (atomic pointer) */
	SSL_CTX *initial_ctx;	   /* every handshake starts here: its client hello callback
				    * picks the certificate's context */
	char *tls_ticket_keys;	   /* tls-ticket-keys file, or NULL */
	struct ssl_tkeys *tkeys;   /* the keys loaded from it, or NULL (OpenSSL's own keys) */
	bool has_crt;		   /* a crt or crt-list was given */
	bool enabled;		   /* "ssl" was given */
	char *addr;		   /* the bind line's addresses as written, for messages */
};

/* The TLS side of a server. */
struct ssl_srv {
	struct ssl_opts opts;
	SSL_CTX *ctx;		 /* built at check time; one per server */
	char *crt;		 /* client certificate file, or NULL */
	char *sni_str;		 /* "sni" expression as written */
	struct sample_expr *sni; /* compiled at check time, or NULL */
	char *verifyhost;	 /* name checked against the certificate, or NULL */
	char *check_sni;	 /* SNI of TLS health checks */
	SSL_SESSION **sess;	 /* per thread: the last session, for resumption */
	/* health checks (ssl_check.c) */
	SSL_CTX *chk_ctx; /* set when checks run over TLS (check-ssl, or ssl without a check
			   * port or addr): the same context as <ctx>, one more reference */
};

/* "global" TLS settings. */
struct ssl_settings {
	struct ssl_opts bind_def; /* ssl-default-bind-* */
	struct ssl_opts srv_def;  /* ssl-default-server-* */
	int server_verify;	  /* ssl-server-verify: SSLV_NONE or SSLV_REQUIRED (default) */
	char *ca_base, *crt_base, *key_base;
	char *dh_param_file;	/* ssl-dh-param-file */
	int default_dh_param;	/* tune.ssl.default-dh-param (bits), 0 = automatic */
	int cachesize;		/* tune.ssl.cachesize (sessions), default 20000 */
	int lifetime;		/* tune.ssl.lifetime (seconds), default 300 */
	int maxrecord;		/* tune.ssl.maxrecord (bytes), 0 = 16384 */
	int capture_cipherlist; /* tune.ssl.capture-cipherlist-size (bytes), 0 = off */
	bool keylog;		/* tune.ssl.keylog on */
	int ctx_cache_size;	/* tune.ssl.ssl-ctx-cache-size (accepted, no cache kept) */
	uint32_t extra_files;	/* ssl-load-extra-files: SSL_EXTRA_* */
	int hs_per_turn;	/* handshakes a thread runs per loop turn at most */
	/* ssl_stats.c */
	int maxsslconn; /* maxsslconn: TLS connections at once, 0 = none (accept stops) */
	int maxsslrate; /* maxsslrate: per second on TLS binds, 0 = none (the runtime API
			 * writes it: relaxed atomic) */
};

/* ssl_settings.extra_files */
#define SSL_EXTRA_BUNDLE 0x01
#define SSL_EXTRA_SCTL 0x02
#define SSL_EXTRA_OCSP 0x04
#define SSL_EXTRA_ISSUER 0x08
#define SSL_EXTRA_KEY 0x10
#define SSL_EXTRA_ALL 0x1f

#endif
