/* Server-side TLS contexts and certificate selection: one SSL_CTX per certificate served on
 * a bind line (never per connection), the bind line's initial context whose client hello
 * callback picks one by SNI (exact names, then one-label wildcards, "!name" exclusions, the
 * first certificate as the default unless strict-sni), and the SNI table, rebuilt whole
 * and published atomically when certificates change at run time. Readers are the loop
 * threads in handshakes; a replaced table or context is freed once every thread was
 * quiescent (event/qsbr.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>

#include <base/atomic.h>
#include <conn/listener-t.h>
#include <event/qsbr.h>
#include <ssl/ssl.h>

#include "ssl_int.h"

struct ssl_bind_ref *ssl_binds;

/* Replaced tables and contexts waiting for every thread to be quiescent. */
struct ssl_grave {
	struct ssl_grave *next;
	struct qs_snap snap;
	struct ssl_sni_table *tbl;
	SSL_CTX *ctx;
	struct ssl_cert *crt; /* a replaced certificate (old SNI tables point to its names) */
};
static struct ssl_grave *ssl_graves;

/* Frees what no thread can still use (all of it when <all>: at exit). */
void ssl_graves_reap(bool all)
{
	struct ssl_grave **pg = &ssl_graves, *g;

	while ((g = *pg)) {
		if (!all && !qs_passed(&g->snap)) {
			pg = &g->next;
			continue;
		}
		*pg = g->next;
		if (g->tbl) {
			free(g->tbl->ent);
			free(g->tbl);
		}
		SSL_CTX_free(g->ctx);
		ssl_cert_release(g->crt);
		free(g);
	}
}

/* Queues <tbl> and/or <ctx> (either may be NULL) for release after a grace period. */
int ssl_grave_add(struct ssl_sni_table *tbl, SSL_CTX *ctx)
{
	struct ssl_grave *g = calloc(1, sizeof(*g));

	if (!g)
		return -1;
	g->tbl = tbl;
	g->ctx = ctx;
	qs_snapshot(&g->snap);
	g->next = ssl_graves;
	ssl_graves = g;
	ssl_graves_reap(false);
	return 0;
}

/* Queues certificate <crt> (out of the store, no instance) for release after a grace
 * period: SNI tables replaced with it may still point to its names. Returns 0 or -1. */
int ssl_grave_add_cert(struct ssl_cert *crt)
{
	struct ssl_grave *g = calloc(1, sizeof(*g));

	if (!g)
		return -1;
	g->crt = crt;
	qs_snapshot(&g->snap);
	g->next = ssl_graves;
	ssl_graves = g;
	ssl_graves_reap(false);
	return 0;
}

/* ---- SNI ---- */

static int sni_cmp(const void *a, const void *b)
{
	const struct ssl_sni_entry *x = a, *y = b;
	int r = (int)x->wild - (int)y->wild;

	if (!r)
		r = strcmp(x->name, y->name);
	return r;
}

/* Looks <name> up among the entries of <t> with wildcard flag <wild>: the first positive
 * one, skipping instances excluded for <full> by a "!name" filter. */
static struct ssl_cert_inst *sni_find(const struct ssl_sni_table *t, const char *name, bool wild,
				      const char *full)
{
	int lo = 0, hi = t->nb - 1, first = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		const struct ssl_sni_entry *e = &t->ent[mid];
		int r = (int)e->wild - (int)wild;

		if (!r)
			r = strcmp(e->name, name);
		if (r < 0)
			lo = mid + 1;
		else {
			if (!r)
				first = mid;
			hi = mid - 1;
		}
	}
	for (int i = first;
	     i >= 0 && i < t->nb && t->ent[i].wild == wild && !strcmp(t->ent[i].name, name); i++) {
		const struct ssl_sni_entry *e = &t->ent[i];
		bool excluded = false;

		if (e->neg)
			continue;
		/* an exclusion "!full" on the same instance */
		for (int j = 0; j < t->nb && wild; j++)
			if (t->ent[j].neg && t->ent[j].inst == e->inst &&
			    !strcmp(t->ent[j].name, full))
				excluded = true;
		if (!excluded)
			return e->inst;
	}
	return NULL;
}

struct ssl_cert_inst *ssl_sni_lookup(struct ssl_bind *sb, const char *name)
{
	struct ssl_sni_table *t = HA_ATOMIC_LOAD(&sb->sni);
	struct ssl_cert_inst *inst;
	const char *dot;

	if (!t)
		return NULL;
	if (name && *name) {
		inst = sni_find(t, name, false, name);
		if (inst)
			return inst;
		dot = strchr(name, '.');
		if (dot && dot[1] && (inst = sni_find(t, dot + 1, true, name)))
			return inst;
	}
	if (sb->opts.flags & SSLO_STRICT_SNI)
		return NULL;
	return t->def; /* as published: the live list may be changing (runtime API) */
}

static int sni_add(struct ssl_sni_table *t, int *cap, struct ssl_cert_inst *inst, const char *name)
{
	struct ssl_sni_entry *e;
	bool neg = name[0] == '!';

	if (neg)
		name++;
	if (*cap == t->nb) {
		int nc = *cap ? *cap * 2 : 16;
		struct ssl_sni_entry *ne = realloc(t->ent, sizeof(*ne) * (size_t)nc);

		if (!ne)
			return -1;
		t->ent = ne;
		*cap = nc;
	}
	e = &t->ent[t->nb++];
	e->inst = inst;
	e->neg = neg;
	e->wild = name[0] == '*' && name[1] == '.';
	e->name = e->wild ? name + 2 : name;
	return 0;
}

int ssl_sni_rebuild(struct ssl_bind *sb)
{
	struct ssl_sni_table *t = calloc(1, sizeof(*t)), *old;
	struct ssl_cert_inst *inst;
	int cap = 0;

	if (!t)
		return -1;
	list_for_each_entry(inst, &sb->insts, by_bind)
	{
		int n = inst->filters ? inst->nb_filters : inst->crt->nb_names;

		if (!t->def)
			t->def = inst;
		for (int i = 0; i < n; i++)
			if (sni_add(t, &cap, inst,
				    inst->filters ? inst->filters[i] : inst->crt->names[i]) < 0)
				goto fail;
	}
	/* stable order: equal names keep the config order (the first one wins) */
	for (int i = 1; i < t->nb; i++) {
		struct ssl_sni_entry e = t->ent[i];
		int j = i - 1;

		while (j >= 0 && sni_cmp(&t->ent[j], &e) > 0) {
			t->ent[j + 1] = t->ent[j];
			j--;
		}
		t->ent[j + 1] = e;
	}
	old = HA_ATOMIC_XCHG(&sb->sni, t);
	if (old && ssl_grave_add(old, NULL) < 0) {
		free(old->ent); /* no memory for the grave: leak nothing, risk nothing: */
		free(old);	/* this runs before the threads start or with them quiescent */
	}
	return 0;
fail:
	free(t->ent);
	free(t);
	return -1;
}

/* The client hello callback of a bind line's initial context: picks the context of the
 * certificate the client names, and takes its settings (a crt-list line may change them:
 * SSL_set_SSL_CTX only swaps the certificate). */
static int ssl_client_hello_cb(SSL *ssl, int *al, void *arg)
{
	struct ssl_bind *sb = arg;
	const unsigned char *p;
	size_t len;
	char name[256];
	struct ssl_cert_inst *inst;
	SSL_CTX *ctx;

	name[0] = '\0';
	if (ssl_set.capture_cipherlist)
		ssl_capture_hello(ssl);
	if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_server_name, &p, &len) && len > 5) {
		/* list length (2), name type (1), name length (2), name */
		size_t n = ((size_t)p[3] << 8) | p[4];

		if (p[2] == TLSEXT_NAMETYPE_host_name && n + 5 <= len && n < sizeof(name)) {
			for (size_t i = 0; i < n; i++)
				name[i] = (char)(p[5 + i] >= 'A' && p[5 + i] <= 'Z' ? p[5 + i] + 32
										    : p[5 + i]);
			name[n] = '\0';
			if (memchr(name, '\0', n)) /* an embedded NUL names nothing */
				name[0] = '\0';
		}
	}
	inst = ssl_sni_lookup(sb, name);
	if (!inst) {
		*al = SSL_AD_UNRECOGNIZED_NAME;
		return SSL_CLIENT_HELLO_ERROR;
	}
	ctx = HA_ATOMIC_LOAD(&inst->ctx);
	if (!SSL_set_SSL_CTX(ssl, ctx)) {
		*al = SSL_AD_INTERNAL_ERROR;
		return SSL_CLIENT_HELLO_ERROR;
	}
	SSL_set_min_proto_version(ssl, SSL_CTX_get_min_proto_version(ctx));
	SSL_set_max_proto_version(ssl, SSL_CTX_get_max_proto_version(ctx));
	SSL_clear_options(ssl, SSL_get_options(ssl) ^ SSL_CTX_get_options(ctx));
	SSL_set_options(ssl, SSL_CTX_get_options(ctx));
	SSL_set_verify(ssl, SSL_CTX_get_verify_mode(ctx), SSL_CTX_get_verify_callback(ctx));
	return SSL_CLIENT_HELLO_SUCCESS;
}

/* ---- contexts ---- */

static int ssl_ctx_common(SSL_CTX *ctx, struct ssl_bind *sb, const struct ssl_opts *o, char *err,
			  size_t errlen)
{
	/* HAProxy's session id context: tickets and sessions resume across a move between it
	 * and hapx sharing a tls-ticket-keys file */
	static const unsigned char sid_ctx[] = "haproxy";

	if (ssl_opts_apply(ctx, o, false, err, errlen) < 0)
		return -1;
	SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof(sid_ctx) - 1);
	/* tune.ssl.cachesize 0 disables the cache (OpenSSL's size 0 would mean unlimited) */
	SSL_CTX_set_session_cache_mode(ctx, ssl_set.cachesize ? SSL_SESS_CACHE_SERVER
							      : SSL_SESS_CACHE_OFF);
	SSL_CTX_sess_set_cache_size(ctx, ssl_set.cachesize > 0 ? ssl_set.cachesize : 20000);
	SSL_CTX_set_timeout(ctx, ssl_set.lifetime > 0 ? ssl_set.lifetime : 300);
	if (ssl_ctx_dh_setup(ctx, err, errlen) < 0)
		return -1;
	return ssl_ctx_extra_setup(ctx, sb, err, errlen);
}

/* ---- OCSP stapling: the response given to a context, kept with it ---- */

struct ocsp_blob {
	size_t len;
	unsigned char data[];
};
static int ocsp_idx = -1;

static void ocsp_blob_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
			   void *argp)
{
	free(ptr);
}

static int ssl_ocsp_status_cb(SSL *ssl, void *arg)
{
	const struct ocsp_blob *b = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ocsp_idx);
	unsigned char *copy;

	if (!b || SSL_get_tlsext_status_type(ssl) != TLSEXT_STATUSTYPE_ocsp)
		return SSL_TLSEXT_ERR_NOACK;
	copy = OPENSSL_malloc(b->len);
	if (!copy)
		return SSL_TLSEXT_ERR_NOACK;
	memcpy(copy, b->data, b->len);
	SSL_set_tlsext_status_ocsp_resp(ssl, copy, (long)b->len);
	return SSL_TLSEXT_ERR_OK;
}

int ssl_ctx_ocsp_setup(SSL_CTX *ctx, const struct ssl_cert *crt)
{
	struct ocsp_blob *b;

	if (!crt->ocsp || !crt->ocsp_len)
		return 0;
	if (ocsp_idx < 0)
		ocsp_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, ocsp_blob_free);
	b = malloc(sizeof(*b) + crt->ocsp_len);
	if (ocsp_idx < 0 || !b) {
		free(b);
		return -1;
	}
	b->len = crt->ocsp_len;
	memcpy(b->data, crt->ocsp, crt->ocsp_len);
	if (!SSL_CTX_set_ex_data(ctx, ocsp_idx, b)) {
		free(b);
		return -1;
	}
	SSL_CTX_set_tlsext_status_cb(ctx, ssl_ocsp_status_cb);
	return 0;
}

SSL_CTX *ssl_ctx_new_bind(struct ssl_cert_inst *inst, const struct ssl_cert *crt, char *err,
			  size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	const struct ssl_opts *o = inst->opts ? inst->opts : &inst->sb->opts;

	if (!ctx) {
		snprintf(err, errlen, "unable to allocate SSL context");
		return NULL;
	}
	if (ssl_ctx_common(ctx, inst->sb, o, err, errlen) < 0)
		goto fail;
	if (!SSL_CTX_use_certificate(ctx, crt->cert) || !SSL_CTX_use_PrivateKey(ctx, crt->key)) {
		snprintf(err, errlen, "unable to use the certificate and key of '%s'", crt->path);
		goto fail;
	}
	if (crt->chain && !SSL_CTX_set1_chain(ctx, crt->chain)) {
		snprintf(err, errlen, "unable to use the chain of '%s'", crt->path);
		goto fail;
	}
	if (ssl_ctx_ocsp_setup(ctx, crt) < 0) {
		snprintf(err, errlen, "unable to staple the OCSP response of '%s'", crt->path);
		goto fail;
	}
	return ctx;
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

struct ssl_cert_inst *ssl_bind_add_cert(struct ssl_bind *sb, struct ssl_cert *crt,
					struct ssl_opts *opts, char **filters, int nb_filters)
{
	struct ssl_cert_inst *inst = calloc(1, sizeof(*inst));

	if (!inst)
		return NULL;
	inst->sb = sb;
	inst->crt = crt;
	inst->opts = opts;
	inst->filters = filters;
	inst->nb_filters = nb_filters;
	list_append(&sb->insts, &inst->by_bind);
	list_append(&crt->insts, &inst->by_cert);
	return inst;
}

/* Builds every context of <sb>: the initial one, then one per certificate. Returns 0 or
 * -1 with <err>. */
int ssl_bind_build(struct ssl_bind *sb, char *err, size_t errlen)
{
	struct ssl_cert_inst *inst;

	sb->initial_ctx = SSL_CTX_new(TLS_server_method());
	if (!sb->initial_ctx) {
		snprintf(err, errlen, "unable to allocate SSL context");
		return -1;
	}
	if (ssl_ctx_common(sb->initial_ctx, sb, &sb->opts, err, errlen) < 0)
		return -1;
	SSL_CTX_set_client_hello_cb(sb->initial_ctx, ssl_client_hello_cb, sb);
	list_for_each_entry(inst, &sb->insts, by_bind)
	{
		if (inst->opts && ssl_opts_merge(inst->opts, &sb->opts) < 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		inst->ctx = ssl_ctx_new_bind(inst, inst->crt, err, errlen);
		if (!inst->ctx)
			return -1;
	}
	if (ssl_sni_rebuild(sb) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}
