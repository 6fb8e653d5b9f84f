/* Private to the fetch_*.c files of src/sample: where a fetch finds the messages of the
 * stream it runs on, and the one-liners that fill a sample.
 */
#ifndef SAMPLE_FETCH_INT_H
#define SAMPLE_FETCH_INT_H

#include <stdbool.h>
#include <http/h1-t.h>
#include <sample/sample.h>
#include <stream/stream-t.h>

/* The parsed request of the stream while its bytes are still in the front buffer (not
 * yet sent, or kept for a replay), or NULL. */
static inline const struct h1_msg *smp_req(const struct sample *smp)
{
	const struct stream *s = smp->ctx->strm;

	if (!s || !s->req.hdr_len)
		return NULL;
	if ((s->flags & SF_REQ_HDRS_SENT) && !(s->flags & SF_REQ_KEPT))
		return NULL;
	return &s->req;
}

/* The parsed response of the stream until it is sent to the client (without a stream:
 * the response of the health check evaluating on this thread), or NULL. */
static inline const struct h1_msg *smp_rsp(const struct sample *smp)
{
	const struct stream *s = smp->ctx->strm;

	if (!s)
		return smp_check_rsp; /* a health check's HTTP response, or NULL */
	if (!s->rsp.hdr_len || (s->flags & SF_RSP_HDRS_SENT))
		return NULL;
	return &s->rsp;
}

/* The message of the direction the rule runs in (hdr, cookie). */
static inline const struct h1_msg *smp_dir_msg(const struct sample *smp)
{
	return (smp->ctx->opt & SMP_OPT_DIR) == SMP_OPT_DIR_RES ? smp_rsp(smp) : smp_req(smp);
}

static inline int smp_set_str(struct sample *smp, struct ist v)
{
	smp->data.type = SMP_T_STR;
	smp->data.u.str = v;
	smp->flags |= SMP_F_CONST;
	return 1;
}

static inline int smp_set_bin(struct sample *smp, struct ist v)
{
	smp_set_str(smp, v);
	smp->data.type = SMP_T_BIN;
	return 1;
}

static inline int smp_set_int(struct sample *smp, long long v)
{
	smp->data.type = SMP_T_SINT;
	smp->data.u.sint = v;
	return 1;
}

static inline int smp_set_bool(struct sample *smp, bool v)
{
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = v;
	return 1;
}

/* Iteration of a multi-value fetch under an ACL: another value follows. */
static inline void smp_more(struct sample *smp, bool more)
{
	if (more)
		smp->flags |= SMP_F_NOT_LAST;
	else
		smp->flags &= ~SMP_F_NOT_LAST;
}

struct proxy;
/* HAProxy's usable servers of backend <be> (nbsrv): the active ones, or one backup when no
 * active one is (fetch_px.c). */
int fetch_be_usable(const struct proxy *be);

#endif
