/* The TLS layer (OpenSSL): a transport under the H1 mux on both sides, the handshakes and
 * their rationing, and the configuration of bind lines, servers and the "global" section.
 * A connection without TLS never reaches this code: the raw I/O functions of conn/ test
 * CO_FL_XPRT in the branch they already take for rare states.
 */
#ifndef SSL_SSL_H
#define SSL_SSL_H

#include <stdbool.h>
#include <sys/uio.h>
#include <cfg/cfg.h>
#include <conn/connection-t.h>
#include <ssl/ssl-t.h>

extern struct ssl_settings ssl_set;

/* The TLS object of a connection, or NULL for a plain one. */
static inline SSL *conn_ssl(const struct conn *c)
{
	return c && (c->flags & CO_FL_XPRT) ? (SSL *)c->xprt : NULL;
}

/* ---- transport (ssl_sock.c); loop thread only ---- */

/* Attaches the server side of TLS bind <sb> to the accepted front connection <c> (ssl_fc
 * is true from now on). Returns 0 or -1 (the caller closes). ssl_front_kick() then starts
 * the handshake (the ClientHello may be there): until it completes, the connection's
 * events and timer go to the TLS layer, which then calls h1_front_tls_ready() (or
 * h1_front_tls_failed()). A PROXY header, if any, is read between the two. */
int ssl_front_attach(struct conn *c, struct ssl_bind *sb);
void ssl_front_kick(struct conn *c);

/* Drives the client handshake of the server connection <c> (created on the first call).
 * Returns 1 once it is complete, 0 while it waits for the network, -1 on failure. */
int ssl_back_handshake(struct conn *c);

/* conn_recv/conn_sendv/conn_shutw/conn_close of a TLS connection (same contracts). */
int ssl_recv(struct conn *c);
ssize_t ssl_sendv(struct conn *c, struct iovec *iov, int iovcnt);
void ssl_shutw(struct conn *c);
void ssl_close(struct conn *c);

/* An idle server connection became readable: consumes what TLS sends on its own (session
 * tickets). Returns 0 if the connection may stay idle, -1 if it must close. */
int ssl_idle_event(struct conn *c);

/* A server connection about to go idle: false if what OpenSSL already read says it must
 * close (a close_notify, data); no syscall when it holds nothing. */
bool ssl_idle_ok(struct conn *c);

/* Handshakes left to this thread in the current loop turn (rationing), test hook. */
int ssl_hs_budget_left(void);

/* ssl_pp.c: the TLS facts of front connection <front> that a PROXY v2 header <o> carries
 * (the SSL TLV and its sub-TLVs as o->opts asks, the ALPN, the SNI as authority when none
 * is set); nothing for a plain connection. The strings live in thread storage until the
 * next call. */
struct pp_out;
void ssl_pp_fill(const struct conn *front, struct pp_out *o);

/* OpenSSL's allocations through a per-thread cache of record buffers (ssl_mem.c):
 * ssl_mem_init() first thing in main (-1 if OpenSSL already allocated: it then keeps
 * malloc); ssl_mem_thread_release() when a loop thread ends. */
int ssl_mem_init(void);
void ssl_mem_thread_release(void);

/* ---- health checks (ssl_check.c); the check's thread ---- */

/* A client TLS object for a check of <srv> (its chk_ctx must be set) over socket <fd>,
 * with the check SNI and the name to verify; NULL on failure. */
SSL *ssl_chk_new(struct server *srv, int fd);

/* One handshake step: 1 done, 0 again on the next event, -1 failed with the reason 2.6
 * gives in <why>. */
int ssl_chk_handshake(SSL *ssl, const char **why);

/* recv()/send() on a check's TLS: bytes, 0 on close, -1 with errno (EAGAIN: again). */
ssize_t ssl_chk_recv(SSL *ssl, void *buf, size_t len);
ssize_t ssl_chk_send(SSL *ssl, const void *buf, size_t len);
void ssl_chk_free(SSL *ssl);

/* ---- connections of no server: Lua cosockets, the HTTP client (ssl_client.c) ---- */

/* A client context: verifying the peer against <ca_file> ("@system-ca" or NULL: the
 * system's CAs) when <verify>, else verifying nothing. Returns it, or NULL with <err>. */
SSL_CTX *ssl_client_ctx_new(bool verify, const char *ca_file, char *err, size_t errlen);

/* A client TLS object over socket <fd> (the caller keeps and closes it) sending <name> as
 * SNI, and when <ctx> verifies, checking that the certificate names it (an IP address: no
 * SNI, checked against the certificate's addresses; NULL: no name). NULL on failure. Then
 * ssl_chk_handshake/recv/send/free apply. Any thread. */
SSL *ssl_client_new(SSL_CTX *ctx, int fd, const char *name);

/* ---- configuration (ssl_bind_cfg.c, ssl_srv_cfg.c, ssl_global_cfg.c) ---- */

/* Parses TLS option args[*i] of a bind line / server line, advancing *i past its value.
 * Returns 0, -1 after an alert, or 1 when args[*i] is not a TLS option. */
int ssl_bind_parse_opt(struct cfg_ctx *ctx, struct bind_conf *bc, int *i);
struct server;
int ssl_srv_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i);

/* The key (never 0) of the TLS server name stream <s> sends to its server (a hash of the
 * "sni" expression's value): idle server connections are reused only with the same. */
struct stream;
uint64_t ssl_srv_reuse_key(struct stream *s);

/* Server side of ssl_back_handshake (ssl_srv_cfg.c), before the first handshake step of
 * <c>: SNI, name to verify, resumption (sessions are kept by a new-session callback). */
int ssl_srv_prepare(struct conn *c, SSL *ssl);

/* Builds the client context of TLS server <srv> (config check, or "add server" on the
 * CLI thread; alerts name the line, or stand alone for a dynamic server). Returns the
 * number of errors. */
int ssl_srv_check(struct server *srv);

/* After parsing: builds the contexts of every TLS bind line and server. Returns the number
 * of errors (each alerted with the line it comes from). */
int ssl_cfg_check_all(void);

/* Frees what ssl_bind_parse_opt allocated for <bc> / ssl_srv_parse_opt for <srv>. */
void ssl_bind_free(struct bind_conf *bc);
void ssl_srv_free(struct server *srv);

/* ---- options shared by bind lines, crt-list lines and servers (ssl_opts.c) ---- */

/* Parses option args[*i] into <o> for a bind (<server> false) or server line. Returns 0,
 * -1 with a message in <err>, or 1 when it is not one of the shared options. */
int ssl_opts_parse(struct ssl_opts *o, char **args, int nargs, int *i, bool server, char *err,
		   size_t errlen);

/* Fills what <o> leaves unset from <def>. Returns 0 or -1 (out of memory). */
int ssl_opts_merge(struct ssl_opts *o, const struct ssl_opts *def);

/* Frees the strings of <o> (not <o>). */
void ssl_opts_free(struct ssl_opts *o);

/* Applies <o> to <ctx> (protocol versions, ciphers, curves, sigalgs, tickets, verify,
 * CA and CRL files, ALPN for servers). Returns 0 or -1 with a message in <err>. */
int ssl_opts_apply(SSL_CTX *ctx, const struct ssl_opts *o, bool server, char *err, size_t errlen);

/* ---- certificates (ssl_cert.c) ---- */

extern struct list ssl_certs;

/* The loaded certificate named <path>, or NULL. */
struct ssl_cert *ssl_cert_lookup(const char *path);

/* Loads <path> (a PEM with the certificate, maybe the key and the chain; <path>.key,
 * .ocsp and .issuer beside it as ssl-load-extra-files says) into a new certificate that
 * is not in the store. Returns it, or NULL with a message in <err>. */
struct ssl_cert *ssl_cert_load_file(const char *path, char *err, size_t errlen);

/* The same from PEM text in memory (set ssl cert). */
struct ssl_cert *ssl_cert_load_mem(const char *path, const char *pem, size_t len, char *err,
				   size_t errlen);

/* Returns the stored certificate <path>, loading it first if needed; NULL with <err>. */
struct ssl_cert *ssl_cert_get(const char *path, char *err, size_t errlen);

/* Frees a certificate that no instance uses. */
void ssl_cert_release(struct ssl_cert *crt);

/* ---- contexts and SNI (ssl_ctx.c) ---- */

/* Builds the server-side context of <inst> (its certificate, its options merged over its
 * bind line's). Returns it or NULL with a message in <err>. */
SSL_CTX *ssl_ctx_new_bind(struct ssl_cert_inst *inst, const struct ssl_cert *crt, char *err,
			  size_t errlen);

/* Adds certificate <crt> to bind <sb> with crt-list options <opts> and SNI <filters>
 * (both may be NULL; ownership moves to the instance). Returns it or NULL (out of memory). */
struct ssl_cert_inst *ssl_bind_add_cert(struct ssl_bind *sb, struct ssl_cert *crt,
					struct ssl_opts *opts, char **filters, int nb_filters);

/* Rebuilds and publishes the SNI table of <sb> from its instances. Returns 0 or -1. */
int ssl_sni_rebuild(struct ssl_bind *sb);

/* The instance a client naming <name> gets on <sb> (exact, then wildcard, else the
 * default unless strict-sni), or NULL. */
struct ssl_cert_inst *ssl_sni_lookup(struct ssl_bind *sb, const char *name);

/* Every TLS bind line, for the runtime API. */
struct ssl_bind_ref {
	struct ssl_bind_ref *next;
	struct ssl_bind *sb;
};
extern struct ssl_bind_ref *ssl_binds;

#endif
