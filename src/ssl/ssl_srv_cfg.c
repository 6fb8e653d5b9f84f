/* TLS to servers: the "server"/"default-server" options (ssl, verify, verifyhost, sni,
 * crt, ssl-reuse, check-ssl, check-sni and the shared ones of ssl_opts.c), one client
 * context per server built at check time, and per connection the SNI, the name verified
 * and the resumption of the thread's last session with that server. Sessions are kept per
 * server and per thread: no lock, and a thread's connections resume its own session.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <base/tinfo.h>
#include <cfg/cfg.h>
#include <conn/connection-t.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy.h>
#include <sample/sample.h>
#include <ssl/ssl.h>
#include <stream/stream-t.h>

#include "ssl_int.h"

static struct ssl_srv *ssl_srv_get(struct server *srv)
{
	if (srv->ssl)
		return srv->ssl;
	srv->ssl = calloc(1, sizeof(*srv->ssl));
	if (srv->ssl)
		srv->ssl->opts.verify = SSLV_UNSET;
	return srv->ssl;
}

static int ssl_srv_set_str(struct cfg_ctx *ctx, struct server *srv, int *i, char **dst)
{
	char *v;

	if (*i + 1 >= ctx->nargs || !*ctx->args[*i + 1]) {
		cfg_alert(ctx, "'server %s/%s' : '%s' expects an argument.", srv->px->id, srv->id,
			  ctx->args[*i]);
		return -1;
	}
	v = strdup(ctx->args[++*i]);
	if (!v) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*dst);
	*dst = v;
	return 0;
}

/* As 2.6, a CA or CRL file that cannot be read is an error of its line. 0 or -1. */
static int ssl_srv_file_check(struct cfg_ctx *ctx, const struct server *srv, const char *opt,
			      const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;

	if (f) {
		fclose(f);
		return 0;
	}
	cfg_alert(ctx, "'server %s/%s' : Couldn't open the %s '%s' (%s).", srv->px->id, srv->id,
		  opt, path ? path : "", strerror(errno));
	return -1;
}

int ssl_srv_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];
	struct ssl_srv *ss;
	char err[512];
	int ret;

	if (!strcmp(opt, "sni-auto") || !strcmp(opt, "check-alpn") || !strcmp(opt, "allow-0rtt"))
		return 1; /* refused by the caller's tables */
	if (strcmp(opt, "ssl") && strcmp(opt, "no-ssl") && strcmp(opt, "sni") &&
	    strcmp(opt, "verifyhost") && strcmp(opt, "no-verifyhost") && strcmp(opt, "crt") &&
	    strcmp(opt, "ssl-reuse") && strcmp(opt, "no-ssl-reuse") && strcmp(opt, "check-ssl") &&
	    strcmp(opt, "no-check-ssl") && strcmp(opt, "check-sni")) {
		struct ssl_opts probe = { .verify = SSLV_UNSET };
		int j = *i;

		ret = ssl_opts_parse(&probe, ctx->args, ctx->nargs, &j, true, err, sizeof(err));
		ssl_opts_free(&probe);
		if (ret == 1)
			return 1;
	}
	ss = ssl_srv_get(srv);
	if (!ss) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (!strcmp(opt, "ssl") || !strcmp(opt, "no-ssl")) {
		ss->opts.flags =
			opt[0] == 's' ? ss->opts.flags | SSLO_SSL : ss->opts.flags & ~SSLO_SSL;
		ss->opts.flags_set |= SSLO_SSL; /* kept by ssl_opts_merge */
		return 0;
	}
	if (!strcmp(opt, "check-ssl") || !strcmp(opt, "no-check-ssl")) {
		ss->opts.flags = opt[0] == 'c' ? ss->opts.flags | SSLO_CHECK_SSL
					       : ss->opts.flags & ~SSLO_CHECK_SSL;
		ss->opts.flags_set |= SSLO_CHECK_SSL;
		return 0;
	}
	if (!strcmp(opt, "ssl-reuse") || !strcmp(opt, "no-ssl-reuse")) {
		ss->opts.flags = opt[0] == 'n' ? ss->opts.flags | SSLO_NO_REUSE
					       : ss->opts.flags & ~SSLO_NO_REUSE;
		ss->opts.flags_set |= SSLO_NO_REUSE;
		return 0;
	}
	if (!strcmp(opt, "no-verifyhost")) {
		ss->opts.flags |= SSLO_NO_VERIFYHOST;
		ss->opts.flags_set |= SSLO_NO_VERIFYHOST;
		return 0;
	}
	if (!strcmp(opt, "sni"))
		return ssl_srv_set_str(ctx, srv, i, &ss->sni_str);
	if (!strcmp(opt, "verifyhost"))
		return ssl_srv_set_str(ctx, srv, i, &ss->verifyhost);
	if (!strcmp(opt, "check-sni"))
		return ssl_srv_set_str(ctx, srv, i, &ss->check_sni);
	if (!strcmp(opt, "crt")) {
		char *path;

		if (ssl_srv_set_str(ctx, srv, i, &ss->crt) < 0)
			return -1;
		path = ssl_path_join(ssl_set.crt_base, ss->crt);
		if (!path) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		free(ss->crt);
		ss->crt = path;
		return 0;
	}
	ret = ssl_opts_parse(&ss->opts, ctx->args, ctx->nargs, i, true, err, sizeof(err));
	if (ret < 0) {
		cfg_alert(ctx, "'server %s/%s' : %s.", srv->px->id, srv->id, err);
		return -1;
	}
	if (ret == 0 && (!strcmp(opt, "ca-file") || !strcmp(opt, "crl-file")))
		return ssl_srv_file_check(ctx, srv, opt,
					  opt[1] == 'a' ? ss->opts.ca_file : ss->opts.crl_file);
	return ret;
}

void ssl_srv_free(struct server *srv)
{
	struct ssl_srv *ss = srv->ssl;

	if (!ss)
		return;
	if (ss->sess) {
		for (int t = 0; t < MAX_THREADS; t++)
			SSL_SESSION_free(ss->sess[t]);
		free(ss->sess);
	}
	SSL_CTX_free(ss->ctx);
	SSL_CTX_free(ss->chk_ctx);
	sample_expr_free(ss->sni);
	free(ss->sni_str);
	free(ss->verifyhost);
	free(ss->check_sni);
	free(ss->crt);
	ssl_opts_free(&ss->opts);
	free(ss);
	srv->ssl = NULL;
}

/* SSL ex_data index: the connection of a server-side SSL object */
static int srv_conn_idx = -1;

/* A session the server gave (after the handshake, or a TLS 1.3 ticket later): kept as the
 * thread's session with that server. */
static int ssl_srv_new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct conn *c = SSL_get_ex_data(ssl, srv_conn_idx);
	struct ssl_srv *ss;

	if (!c || !c->srv || !(ss = c->srv->ssl) || !ss->sess)
		return 0;
	SSL_SESSION_free(ss->sess[tid]);
	ss->sess[tid] = sess;
	return 1; /* we keep the reference */
}

/* Alerts <fmt> about server <srv>: after "[file:line] : 'server b/s' : " for a server of
 * the configuration (2.6's form), alone for a dynamic one (the runtime API's answer). */
static void __attribute__((format(printf, 2, 3)))
ssl_srv_alert(const struct server *srv, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (srv->file)
		ha_alert("[%s:%d] : 'server %s/%s' : %s\n", srv->file, srv->line, srv->px->id,
			 srv->id, msg);
	else
		ha_alert("%s\n", msg);
}

/* A client context for <ss>: its options, client certificate <crt> (or none), and the
 * session callback of resumption. Returns it, or NULL with <err>. */
static SSL_CTX *ssl_srv_ctx_build(struct ssl_srv *ss, const struct ssl_cert *crt, char *err,
				  size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (ssl_opts_apply(ctx, &ss->opts, true, err, errlen) < 0)
		goto fail;
	if (crt &&
	    (!SSL_CTX_use_certificate(ctx, crt->cert) || !SSL_CTX_use_PrivateKey(ctx, crt->key) ||
	     (crt->chain && !SSL_CTX_set1_chain(ctx, crt->chain)))) {
		ERR_clear_error();
		snprintf(err, errlen, "unable to use the certificate '%s'", crt->path);
		goto fail;
	}
	if (!(ss->opts.flags & SSLO_NO_REUSE)) {
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT |
							    SSL_SESS_CACHE_NO_INTERNAL_STORE);
		SSL_CTX_sess_set_new_cb(ctx, ssl_srv_new_session);
	}
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

/* Calls <fn> on every server presenting client certificate <name>. */
static int ssl_srv_foreach_crt(const char *name, int (*fn)(struct server *srv, void *arg),
			       void *arg)
{
	int n = 0;

	for (struct proxy *px = proxies; px; px = px->next)
		for (struct server *srv = px->srv; srv; srv = srv->next)
			if (srv->ssl && srv->ssl->crt && !strcmp(srv->ssl->crt, name) &&
			    (srv->ssl->ctx || srv->ssl->chk_ctx))
				n += fn(srv, arg);
	return n;
}

static int ssl_srv_count(struct server *srv, void *arg)
{
	return 1;
}

int ssl_srv_cert_users(const char *name)
{
	return ssl_srv_foreach_crt(name, ssl_srv_count, NULL);
}

/* What a commit builds for the servers presenting a certificate: one context each. */
struct srv_commit {
	const struct ssl_cert *nw;
	SSL_CTX **ctxs;
	int n, max;
	char *err;
	size_t errlen;
	bool failed;
};

static int ssl_srv_build_one(struct server *srv, void *arg)
{
	struct srv_commit *sc = arg;

	if (sc->failed || sc->n >= sc->max)
		return 0;
	sc->ctxs[sc->n] = ssl_srv_ctx_build(srv->ssl, sc->nw, sc->err, sc->errlen);
	if (!sc->ctxs[sc->n]) {
		sc->failed = true;
		return 0;
	}
	sc->n++;
	return 1;
}

static int ssl_srv_publish_one(struct server *srv, void *arg)
{
	struct srv_commit *sc = arg;
	struct ssl_srv *ss = srv->ssl;
	SSL_CTX *ctx = sc->ctxs[sc->n++], *prev;

	/* a connection or a check may have loaded the old context without holding it yet:
	 * it goes after the grace period */
	if (ss->chk_ctx) {
		SSL_CTX_up_ref(ctx);
		prev = HA_ATOMIC_XCHG(&ss->chk_ctx, ctx);
		ssl_grave_add(NULL, prev);
	}
	if (ss->ctx) {
		prev = HA_ATOMIC_XCHG(&ss->ctx, ctx);
		ssl_grave_add(NULL, prev);
	} else
		SSL_CTX_free(ctx); /* check-ssl only: the check holds its reference */
	return 1;
}

int ssl_srv_cert_commit(const char *name, const struct ssl_cert *nw, char *err, size_t errlen)
{
	struct srv_commit sc = { .nw = nw, .err = err, .errlen = errlen };

	sc.max = ssl_srv_cert_users(name);
	if (!sc.max)
		return 0;
	sc.ctxs = calloc((size_t)sc.max, sizeof(*sc.ctxs));
	if (!sc.ctxs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ssl_srv_foreach_crt(name, ssl_srv_build_one, &sc);
	if (sc.failed || sc.n != sc.max) {
		while (sc.n-- > 0)
			SSL_CTX_free(sc.ctxs[sc.n]);
		free(sc.ctxs);
		if (!sc.failed)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	sc.n = 0;
	ssl_srv_foreach_crt(name, ssl_srv_publish_one, &sc);
	free(sc.ctxs);
	return sc.max;
}

int ssl_srv_check(struct server *srv)
{
	struct ssl_srv *ss = srv->ssl;
	struct ssl_cert *crt = NULL;
	char err[512];
	SSL_CTX *ctx;

	if (!(ss->opts.flags & (SSLO_SSL | SSLO_CHECK_SSL)))
		return 0;
	if (ssl_opts_merge(&ss->opts, &ssl_set.srv_def) < 0)
		goto oom;
	if (ss->opts.verify == SSLV_UNSET)
		ss->opts.verify = ssl_set.server_verify;
	if (ss->opts.verify == SSLV_REQUIRED && !ss->opts.ca_file) {
		ssl_srv_alert(
			srv, "verify is enabled by default but no CA file specified. If you're "
			     "running on a LAN where you're certain to trust the server's "
			     "certificate, please set an explicit 'verify none' statement on the "
			     "'server' line, or use 'ssl-server-verify none' in the global section "
			     "to disable server-side verifications by default.");
		return 1;
	}
	if (srv_conn_idx < 0)
		srv_conn_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
	if (srv_conn_idx < 0)
		goto oom;
	if (ss->crt && !(crt = ssl_cert_get(ss->crt, err, sizeof(err))))
		goto fail;
	ctx = ssl_srv_ctx_build(ss, crt, err, sizeof(err));
	if (!ctx)
		goto fail;
	ss->ctx = ctx;
	if (!(ss->opts.flags & SSLO_NO_REUSE)) {
		ss->sess = calloc(MAX_THREADS, sizeof(*ss->sess));
		if (!ss->sess)
			goto oom;
	}
	if (ss->sni_str) {
		struct smp_parse_ctx pc = { srv->file, srv->line, srv->px,
					    SMP_VAL_HRQ_HDR | SMP_VAL_BE, "server sni" };

		ss->sni = sample_parse_expr(ss->sni_str, NULL, &pc, err, sizeof(err));
		if (ss->sni && (ss->opts.flags & SSLO_SSL))
			srv->flags |= SRV_F_SNI_KEY;
		if (!ss->sni) {
			if (srv->file)
				ha_alert("parsing [%s:%d] : 'server %s/%s' : failed to parse sni "
					 "expression '%s': %s.\n",
					 srv->file, srv->line, srv->px->id, srv->id, ss->sni_str,
					 err);
			else
				ha_alert("failed to parse sni expression '%s': %s.\n", ss->sni_str,
					 err);
			return 1;
		}
	}
	/* checks over TLS: check-ssl, or ssl unless they go to another port or address */
	if ((ss->opts.flags & SSLO_CHECK_SSL) || (!srv->check_port && !srv->check_addr.ss_family)) {
		SSL_CTX_up_ref(ctx);
		ss->chk_ctx = ctx;
	}
	if (!(ss->opts.flags & SSLO_SSL)) { /* check-ssl only: the traffic stays clear */
		ss->ctx = NULL;
		SSL_CTX_free(ctx);
	}
	return 0;
fail:
	ssl_srv_alert(srv, "%s.", err);
	return 1;
oom:
	ha_alert("out of memory.\n");
	return 1;
}

int ssl_srv_prepare(struct conn *c, SSL *ssl)
{
	struct ssl_srv *ss = c->srv->ssl;
	const char *host = NULL;
	char name[256];

	SSL_set_ex_data(ssl, srv_conn_idx, c);
	if (ss->sni && c->strm) {
		struct smp_ctx sctx = { .strm = c->strm, .conn = c->strm->front, .px = c->px };
		struct sample smp = { .ctx = &sctx };

		if (sample_process_as(ss->sni, &smp, SMP_T_STR) && smp.data.u.str.len &&
		    smp.data.u.str.len < sizeof(name)) {
			memcpy(name, smp.data.u.str.ptr, smp.data.u.str.len);
			name[smp.data.u.str.len] = '\0';
			host = name;
			SSL_set_tlsext_host_name(ssl, host);
		}
	}
	if (ss->opts.verify == SSLV_REQUIRED && !(ss->opts.flags & SSLO_NO_VERIFYHOST)) {
		/* as 2.6: the name sent in the SNI, else "verifyhost" */
		const char *check = host ? host : ss->verifyhost;

		if (check) {
			X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);

			X509_VERIFY_PARAM_set_hostflags(vp, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
			if (!X509_VERIFY_PARAM_set1_host(vp, check, 0))
				return -1;
		}
	}
	if (ss->sess && ss->sess[tid]) {
		/* resume only the session of the same name: a server answering for several
		 * names would refuse it anyway */
		const char *sn = SSL_SESSION_get0_hostname(ss->sess[tid]);

		if ((!sn && !host) || (sn && host && !strcmp(sn, host)))
			SSL_set_session(ssl, ss->sess[tid]);
	}
	return 0;
}

uint64_t ssl_srv_reuse_key(struct stream *s)
{
	struct smp_ctx sctx = { .strm = s, .conn = s->front, .px = s->be };
	struct sample smp = { .ctx = &sctx };
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	if (!sample_process_as(s->srv->ssl->sni, &smp, SMP_T_STR) || !smp.data.u.str.len)
		return 1; /* no name sent */
	for (size_t i = 0; i < smp.data.u.str.len; i++)
		h = (h ^ (unsigned char)smp.data.u.str.ptr[i]) * 1099511628211ULL;
	return h > 1 ? h : 2;
}
