// FUZZ_SRCS: src/ssl/ssl_sock.c src/base/buf.c src/base/pool.c
// FUZZ_FLAGS: -lssl -lcrypto
/* libFuzzer target for the TLS transport (src/ssl/ssl_sock.c) on a front connection: a
 * server context with an RSA certificate made in memory at start, a socketpair whose one
 * end is the struct conn driven by ssl_front_attach/ssl_recv/ssl_sendv/ssl_close. The
 * first byte picks the mode: raw (the input is the network bytes a client sends, cut in
 * chunks) or through a real client (a completed handshake, then the input as application
 * data in records of fuzzed sizes, with fuzzed reply writes and a clean or abrupt end).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <base/buf.h>
#include <base/tinfo.h>
#include <conn/connection-t.h>
#include <event/loop-t.h>
#include <event/profiling.h>
#include <ssl/ssl.h>

/* ---- what ssl_sock.c needs from the rest of the daemon ---- */

struct ssl_settings ssl_set = { .hs_per_turn = 1 << 30 };

static struct thread_ctx fz_thr;
__thread struct thread_ctx *th_ctx = &fz_thr;

static int fz_ready, fz_failed;

void h1_front_tls_ready(struct conn *c)
{
	fz_ready = 1;
}

void h1_front_tls_failed(struct conn *c, const char *why)
{
	if (!why || !*why)
		abort();
	fz_failed = 1;
}

void conn_update_events(struct conn *c, uint32_t events)
{
	c->flags |= CO_FL_CAN_RECV | CO_FL_CAN_SEND;
}

void prof_name_register(struct prof_name *pn)
{
}

uint64_t prof_now_ns(void)
{
	return 0;
}

int ssl_srv_prepare(struct conn *c, SSL *ssl)
{
	return -1; /* no back connection here */
}

/* the TLS counters (ssl_stats.c): nothing to count here */
void ssl_stats_accept(void)
{
}

void ssl_stats_open(void)
{
}

void ssl_stats_close(void)
{
}

void ssl_stats_key(bool back)
{
}

/* ---- the certificate and contexts, made once ---- */

static SSL_CTX *fz_sctx, *fz_cctx;
static struct ssl_bind fz_sb;

static void fz_init(void)
{
	EVP_PKEY *key = EVP_RSA_gen(2048);
	X509 *x = X509_new();
	X509_NAME *nm;

	if (!key || !x)
		abort();
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400L * 365);
	X509_set_pubkey(x, key);
	nm = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC, (const unsigned char *)"fuzz.test", -1,
				   -1, 0);
	X509_set_issuer_name(x, nm);
	if (!X509_sign(x, key, EVP_sha256()))
		abort();
	fz_sctx = SSL_CTX_new(TLS_server_method());
	fz_cctx = SSL_CTX_new(TLS_client_method());
	if (!fz_sctx || !fz_cctx || !SSL_CTX_use_certificate(fz_sctx, x) ||
	    !SSL_CTX_use_PrivateKey(fz_sctx, key))
		abort();
	/* the options ssl_opts_apply gives a bind line; TLS 1.0 up so that every record
	 * layer version is parsed */
	SSL_CTX_set_min_proto_version(fz_sctx, TLS1_VERSION);
	SSL_CTX_set_options(fz_sctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
	SSL_CTX_set_mode(fz_sctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
					  SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
					  SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_read_ahead(fz_sctx, 1);
	SSL_CTX_set_session_cache_mode(fz_sctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_num_tickets(fz_sctx, 0);
	SSL_CTX_set_verify(fz_cctx, SSL_VERIFY_NONE, NULL);
	fz_sb.initial_ctx = fz_sctx;
	X509_free(x);
	EVP_PKEY_free(key);
	list_init(&fz_thr.tasklets);
	list_init(&fz_thr.deferred);
}

/* ---- one connection ---- */

struct fz_in {
	const uint8_t *p;
	size_t len, pos;
};

static unsigned int fz_byte(struct fz_in *in)
{
	return in->pos < in->len ? in->p[in->pos++] : 0;
}

/* One loop turn: the server end saw readiness and steps its handshake. */
static void fz_turn(struct conn *c)
{
	th_ctx->now_ns++;
	if (!fz_ready && !fz_failed && c->h.iocb)
		c->h.iocb(&c->h, 0);
	if (!list_empty(&c->tl.list)) /* budget spent: run it now, as the next turn would */
		list_delete(&c->tl.list);
}

static void fz_drain(int fd)
{
	char sink[4096];

	while (read(fd, sink, sizeof(sink)) > 0)
		;
}

/* The server reads all it can and answers with a few pieces (a gathered write). */
static void fz_serve(struct conn *c, struct fz_in *in)
{
	static char reply[40000];
	struct iovec iov[3];
	int n;

	for (int k = 0; k < 64; k++) {
		c->flags |= CO_FL_CAN_RECV;
		n = ssl_recv(c);
		if (n <= 0)
			break;
		if (c->ibuf.data > c->ibuf.size)
			abort();
		b_del(&c->ibuf, c->ibuf.data);
		b_release_if_empty(&c->ibuf);
	}
	iov[0].iov_base = reply;
	iov[0].iov_len = fz_byte(in) * 37u;
	iov[1].iov_base = reply + 10000;
	iov[1].iov_len = fz_byte(in) * 113u;
	iov[2].iov_base = reply + 20000;
	iov[2].iov_len = fz_byte(in) * 7u;
	c->flags |= CO_FL_CAN_SEND;
	if (ssl_sendv(c, iov, 1 + (int)(fz_byte(in) % 3)) < 0 && !(c->flags & CO_FL_WR_ERR))
		abort();
}

/* Mode 0: the input is the client's bytes, in chunks. */
static void fz_raw(struct conn *c, int peer, struct fz_in *in)
{
	size_t chunk = fz_byte(in) + 1;

	while (in->pos < in->len && !fz_failed) {
		size_t take = in->len - in->pos < chunk ? in->len - in->pos : chunk;
		ssize_t w = write(peer, in->p + in->pos, take);

		if (w <= 0)
			break;
		in->pos += (size_t)w;
		fz_turn(c);
		fz_drain(peer);
		if (fz_ready)
			fz_serve(c, in);
		chunk = chunk * 7 % 251 + 1;
	}
	shutdown(peer, SHUT_WR);
	fz_turn(c);
	if (fz_ready)
		fz_serve(c, in);
}

/* Mode 1: a real client completes the handshake, then sends the input as records. */
static void fz_client(struct conn *c, int peer, struct fz_in *in)
{
	SSL *cl = SSL_new(fz_cctx);
	int k, end;

	if (!cl)
		abort();
	SSL_set_fd(cl, peer);
	SSL_set_connect_state(cl);
	for (k = 0; k < 32 && !fz_ready && !fz_failed; k++) {
		SSL_do_handshake(cl);
		fz_turn(c);
	}
	if (fz_ready) {
		SSL_do_handshake(cl);
		while (in->pos < in->len && !fz_failed) {
			size_t take = fz_byte(in) * 67u + 1, done = 0;

			if (take > in->len - in->pos)
				take = in->len - in->pos;
			if (SSL_write_ex(cl, in->p + in->pos, take, &done) != 1)
				break;
			in->pos += done;
			fz_serve(c, in);
			for (int r = 0; r < 8; r++) {
				char sink[4096];
				size_t got;

				if (SSL_read_ex(cl, sink, sizeof(sink), &got) != 1)
					break;
			}
			ERR_clear_error();
		}
		end = (int)(fz_byte(in) % 3);
		if (end == 0)
			SSL_shutdown(cl); /* close_notify */
		if (end != 2)
			shutdown(peer, SHUT_WR);
		fz_serve(c, in);
	}
	ERR_clear_error();
	SSL_free(cl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int inited;
	struct fz_in in = { data, size, 0 };
	struct conn c;
	int sv[2];

	if (!inited) {
		fz_init();
		inited = 1;
	}
	if (!size)
		return 0;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return 0;
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	memset(&c, 0, sizeof(c));
	c.h.fd = sv[0];
	list_init(&c.tl.list);
	list_init(&c.idle); /* as conn_new() leaves it: the handshake queue's link */
	fz_thr.now_ns++;    /* a new loop turn: a fresh handshake budget */
	fz_ready = fz_failed = 0;
	if (ssl_front_attach(&c, &fz_sb) < 0)
		abort();
	ssl_front_kick(&c);
	if (fz_byte(&in) & 1)
		fz_client(&c, sv[1], &in);
	else
		fz_raw(&c, sv[1], &in);
	if (fz_ready && fz_failed)
		abort();
	ssl_close(&c);
	list_delete(&c.idle); /* as conn_close() does: out of the handshake queue */
	if (c.xprt || (c.flags & CO_FL_XPRT))
		abort();
	b_release(&c.ibuf);
	ERR_clear_error();
	close(sv[0]);
	close(sv[1]);
	return 0;
}
