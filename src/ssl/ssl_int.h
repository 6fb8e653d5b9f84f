/* Functions the files of the TLS layer share with each other only. */
#ifndef SSL_SSL_INT_H
#define SSL_SSL_INT_H

#include <stdbool.h>
#include <ssl/ssl.h>

/* ssl_opts.c: a relative <file> under <base> (ca-base, crt-base); malloc'ed or NULL */
char *ssl_path_join(const char *base, const char *file);
int ssl_opts_init(void);

/* ssl_srv_cfg.c: the servers presenting client certificate <name> (the runtime API may
 * not delete it then); ssl_srv_cert_commit() gives them new contexts presenting <nw>,
 * all or none. Returns how many, or -1 with <err>. */
int ssl_srv_cert_users(const char *name);
int ssl_srv_cert_commit(const char *name, const struct ssl_cert *nw, char *err, size_t errlen);

/* ssl_sock.c: frees the calling thread's write gathering buffer */
void ssl_sock_thread_release(void);

/* ssl_cert.c: the whole file <path> (NUL-terminated, <len> bytes), or NULL with <err> */
char *ssl_read_file(const char *path, size_t *len, char *err, size_t errlen);
extern int ssl_verr_idx;

/* ssl_ctx.c */
int ssl_bind_build(struct ssl_bind *sb, char *err, size_t errlen);
int ssl_grave_add(struct ssl_sni_table *tbl, SSL_CTX *ctx);
void ssl_graves_reap(bool all);
int ssl_grave_add_cert(struct ssl_cert *crt);
int ssl_ctx_ocsp_setup(SSL_CTX *ctx, const struct ssl_cert *crt);

/* ssl_global_cfg.c: DH parameters of a server context (ssl-dh-param-file,
 * tune.ssl.default-dh-param). Returns 0 or -1 with <err>. */
int ssl_ctx_dh_setup(SSL_CTX *ctx, char *err, size_t errlen);

/* ssl_crtlist.c: adds the certificates of crt-list <path> to <sb>. Returns 0 or -1 with
 * <err> (naming the file and line of the list). */
int ssl_crtlist_load(struct ssl_bind *sb, const char *path, char *err, size_t errlen);

/* ssl_tkeys.c: TLS ticket keys of bind <sb> from <path>; freed with the bind line. */
int ssl_tkeys_load(struct ssl_bind *sb, const char *path, char *err, size_t errlen);
void ssl_tkeys_free(struct ssl_bind *sb);

/* ssl_tkeys.c, ssl_keylog.c, ssl_capture.c: their part of a server context (called by
 * ssl_ctx_extra_setup). Return 0 or -1 with <err>. */
int ssl_tkeys_setup(SSL_CTX *ctx, struct ssl_bind *sb, char *err, size_t errlen);
int ssl_keylog_setup(SSL_CTX *ctx, char *err, size_t errlen);
int ssl_capture_setup(SSL_CTX *ctx, char *err, size_t errlen);

/* ssl_capture.c: records what the client hello of <ssl> offers (called by the client
 * hello callback of ssl_ctx.c when tune.ssl.capture-cipherlist-size is set) */
void ssl_capture_hello(SSL *ssl);

/* ssl_extra.c: what a server context of bind <sb> gets besides its options and
 * certificate (ticket keys, key log, cipher list capture). Returns 0 or -1 with <err>. */
int ssl_ctx_extra_setup(SSL_CTX *ctx, struct ssl_bind *sb, char *err, size_t errlen);

#endif
