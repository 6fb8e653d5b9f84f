/* HTTP filters: modules that see, and may rewrite, the body of a message while it streams
 * through the proxy (compression, the cache). A proxy lists them with "filter NAME ..."
 * lines, or implicitly (the "compression" keywords, the cache rules); a stream gets one
 * instance of each filter of its frontend, then of its backend (config order), when it
 * first needs one.
 *
 * Life of a filter on one message (request: FLT_REQ, response: FLT_RSP), loop thread:
 *   - head: the message head is final (after its rules: for a response after the
 *     http-response and http-after-response rules, as HAProxy's filters see it), just
 *     before it is serialized. The filter may edit its headers (http_hdr_add/del, and
 *     flt_set_chunked when it changes the body's length). Returns 1 to see the body, 0
 *     not to, -1 on error (the exchange fails with a 500, or a 502 for a response).
 *     Not called for a message without a body unless the kind sets <bodyless>.
 *   - data: a filter that only watches (xform NULL) sees each run of body bytes, after
 *     the framing is removed, in order; a filter placed after the transforming one sees
 *     its output. Returns 0, or -1 to stop seeing the body (no effect on the message).
 *   - xform: at most one filter per message transforms the body (the first whose head
 *     accepted with <xform> set): it consumes bytes of in[0..len) and writes at most
 *     out->room bytes at out->p, setting out->len. Returns the bytes consumed, or -1 (the
 *     message is cut: a 502/abort as for a broken server). With <end> set, no more input
 *     comes after in[0..len): it flushes, and sets out->more while output remains.
 *     Called with <len> 0 and no <end> when the source has nothing more for now: the
 *     filter may write what it holds back (a compressor flushes, so that a slow or
 *     streaming body is not kept waiting).
 *   - end: once, when the body is complete (<complete> true) or the message is cut; not
 *     called when head returned 0 or -1.
 *   - release: once per stream, frees fi->ctx (head, end or neither may have run).
 * The body goes out framed by the proxy: as received when no filter transforms it
 * (chunked bodies are re-chunked), chunked when one does (flt_set_chunked).
 */
#ifndef STREAM_FILTER_H
#define STREAM_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <base/buf-t.h>
#include <base/list.h>

struct cfg_ctx;
struct conn;
struct h1_xfer;
struct proxy;
struct stream;

#define FLT_REQ 0
#define FLT_RSP 1
#define FLT_MAX 16		 /* filters per stream (frontend's and backend's) */
#define FLT_MAX_PX (FLT_MAX / 2) /* filters per proxy (the check refuses more) */

struct flt_conf;
struct flt_inst;

struct flt_out {
	char *p;     /* where to write */
	size_t room; /* bytes available at <p> */
	size_t len;  /* set: bytes written */
	bool more;   /* set with <end>: output remains (called again with more room) */
};

struct flt_kind {
	const char *name; /* "compression", "cache" */
	/* "filter NAME args...": args[1] is NAME; the parser reads the words after it and
	 * may set fc->conf. Returns 0 or -1 after cfg_alert(). NULL: no argument allowed. */
	int (*parse)(struct cfg_ctx *ctx, struct flt_conf *fc);
	/* check time, once per proxy filter (names resolved, implicit filters declared):
	 * returns the number of errors printed */
	int (*check)(struct proxy *px, struct flt_conf *fc);
	/* check time, once per proxy (frontends, backends, listens), before the filters'
	 * checks, kinds in <implicit_order>: declares the kind's filter implicitly
	 * (flt_declare(px, kind, NULL)) when the proxy uses the feature without a "filter"
	 * line, or says why it cannot. Returns the number of errors printed. */
	int (*implicit)(struct proxy *px);
	int implicit_order; /* cache 10, compression 20: the cache sees the body first */
	void (*conf_free)(struct flt_conf *fc);
	int (*head)(struct stream *s, struct flt_inst *fi, int dir);
	int (*data)(struct stream *s, struct flt_inst *fi, int dir, const char *p, size_t len);
	long (*xform)(struct stream *s, struct flt_inst *fi, int dir, const char *in, size_t len,
		      struct flt_out *out, bool end);
	void (*end)(struct stream *s, struct flt_inst *fi, int dir, bool complete);
	void (*release)(struct stream *s, struct flt_inst *fi);
	uint8_t bodyless; /* head is called for messages without a body too */
	uint8_t svc_rsp;  /* it may take responses made by services (stats, cache hits...):
			   * without such a filter, those responses skip the filter layer */
	struct list list; /* registry */
};

/* One filter of a proxy ("filter" line, or declared implicitly). */
struct flt_conf {
	const struct flt_kind *kind;
	void *conf; /* the kind's configuration (owned: conf_free) */
	char *file; /* where it was declared (owned), NULL when implicit */
	int line;
	struct list list; /* member of the proxy's filter list, declaration order */
};

/* A filter on one stream. */
struct flt_inst {
	const struct flt_kind *kind;
	struct flt_conf *fc;
	struct proxy *px; /* the proxy that declared it */
	void *ctx;	  /* the kind's state for this stream, NULL until it sets one */
	uint8_t on[2];	  /* it sees the body of the request [0] / response [1] */
};

/* Registers a filter kind (constructor time). */
void flt_register(struct flt_kind *k);
#define FLT_REGISTER(k)                                             \
	__attribute__((constructor)) static void k##_register(void) \
	{                                                           \
		flt_register(&k);                                   \
	}
const struct flt_kind *flt_kind_find(const char *name);

/* Config: the filters of <px> (its list, possibly empty). flt_declare appends a filter of
 * <kind> (an implicit one: <ctx> NULL) and returns it, or NULL when out of memory. */
struct list *flt_list(struct proxy *px);
struct flt_conf *flt_declare(struct proxy *px, const struct flt_kind *kind,
			     const struct cfg_ctx *ctx);
/* The first filter of <kind> declared by <px>, or NULL. */
struct flt_conf *flt_find_conf(struct proxy *px, const struct flt_kind *kind);
/* True when <px> declared at least one "filter" line itself (not implicitly). */
bool flt_px_explicit(struct proxy *px);
/* True when a filter before <fi> transforms the body of message <dir> of <s>. */
bool flt_xform_before(const struct stream *s, const struct flt_inst *fi, int dir);

/* Check time (after the rules are parsed): the kinds' implicit declarations and checks
 * for every proxy. Returns the number of errors printed. */
int flt_check_all(void);

/* Stream side. */
/* The instance of <fc> on <s>, created with the stream's other instances on first use
 * (NULL when out of memory, or when <fc> is not a filter of the stream's proxies). */
struct flt_inst *flt_inst_get(struct stream *s, struct flt_conf *fc);
/* The stream's instance of a filter of kind <k> (the first), or NULL; none is created. */
struct flt_inst *flt_inst_of_kind(const struct stream *s, const struct flt_kind *k);
/* The head of message <dir> of <s> is final: runs the heads of the stream's filters.
 * Returns 0 (possibly with filters on the body), or -1 (error). */
int flt_head(struct stream *s, int dir);
/* The body of message <dir> does not go through the filters after all (a service reads
 * the request's): the filters that took it are ended as for a cut message. */
void flt_body_drop(struct stream *s, int dir);
/* True when filters see the body of message <dir> (flt_xfer then moves it). */
bool flt_body_on(const struct stream *s, int dir);
/* Moves the body of message <dir> from <src> to <dst> through the filters, framed for
 * <dst>. Returns as h1_xfer (1 moved, 0 waiting, XFER_ERR_*); sets x->done at the end. */
int flt_xfer(struct stream *s, int dir, struct conn *src, struct conn *dst, struct h1_xfer *x);
/* For a body produced by the proxy (a service, a cache hit) rather than received: passes
 * p[0..len) through the response filters and appends it, framed, to <ob>; <end> after the
 * last bytes; <len> 0 without <end>: the producer pauses (the transformer may give what
 * it holds). Returns the input consumed (the rest is given again when <ob> has room), or
 * -1 on error, with *wrote set to the bytes added to <ob>. */
long flt_push(struct stream *s, const char *p, size_t len, bool end, struct buf *ob, size_t *wrote);
/* The request body stops going through the filters (a local reply drains the rest): the
 * verbatim forwarder takes over the source framing where the filters left it. */
void flt_req_handover(struct stream *s);
/* Makes message <dir> chunked: drops its Content-Length, adds "Transfer-Encoding:
 * chunked" unless already chunked. Returns 0, or -1 when the header table is full. */
int flt_set_chunked(struct stream *s, int dir);
/* Ends every filter of the stream (cut messages) and frees the instances (stream_free). */
void flt_stream_free(struct stream *s);

#endif
