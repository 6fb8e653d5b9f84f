/* Filters on a stream (include/stream/filter.h): the instances of the frontend's then the
 * backend's filters, created when the stream first needs them; the heads of the messages;
 * and the body pump that takes a body off its framing (content-length, chunked,
 * close-delimited), hands it to the filters (watchers before the transforming one see its
 * input, those after it its output) and frames what comes out for the other side: as
 * received, or chunked once a filter changes the length. Loop thread of the stream; the
 * pump holds at most one buffer of output at a time, so memory stays bounded.
 */
#include <stdio.h>
#include <string.h>

#include <base/buf.h>
#include <base/pool.h>
#include <conn/connection.h>
#include <http/h1.h>
#include <http/h1_dechunk.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <stream/filter.h>
#include <stream/stream.h>

#define FLT_MIN_ROOM 1024 /* output room a pass needs before the output is flushed */
#define FLT_PASSES 16	  /* passes per call: a fast pair of peers does not keep the thread */
#define CHUNK_PRE 10	  /* room kept before the data for the size line ("%x\r\n") */
#define CHUNK_POST 7	  /* after it: CRLF, and the last chunk's "0\r\n\r\n" */

/* The state of the body of one message. */
struct flt_body {
	int8_t xf;	     /* index of the transforming filter, -1 when none */
	uint8_t on;	     /* some filter sees this body */
	uint8_t head_done;   /* the heads ran */
	uint8_t chunked_out; /* the output is chunked */
	uint8_t fin;	     /* the whole body is out (end() called for each filter) */
	uint8_t src_end;     /* the source's body is over: what follows is the flush */
	uint64_t xf_in;	     /* bytes the transforming filter took */
	uint64_t xf_out;     /* and gave */
	struct h1_chunk dc;  /* de-chunking of a chunked source */
};

struct flt_strm {
	uint8_t n;	 /* instances in <f> */
	uint8_t be_done; /* the backend's filters were added */
	struct flt_inst f[FLT_MAX];
	struct flt_body b[2];
};

DECLARE_POOL(pool_flt, "filters", sizeof(struct flt_strm))

static void flt_add_px(struct flt_strm *fs, struct proxy *px)
{
	struct flt_conf *fc;

	list_for_each_entry(fc, &px->filters, list)
	{
		if (fs->n >= FLT_MAX)
			break; /* not reached: the check refuses more than FLT_MAX_PX per proxy */
		fs->f[fs->n++] = (struct flt_inst){ .kind = fc->kind, .fc = fc, .px = px };
	}
}

/* The stream's filters, created on first use; the backend's are added once it is known. */
static struct flt_strm *flt_strm_get(struct stream *s)
{
	struct flt_strm *fs = s->flt;

	if (!fs) {
		fs = pool_alloc(&pool_flt);
		if (!fs)
			return NULL;
		memset(fs, 0, sizeof(*fs));
		fs->b[0].xf = fs->b[1].xf = -1;
		flt_add_px(fs, s->fe);
		s->flt = fs;
	}
	if (!fs->be_done && s->be && s->be != s->fe) {
		fs->be_done = 1;
		flt_add_px(fs, s->be);
	}
	return fs;
}

struct flt_inst *flt_inst_get(struct stream *s, struct flt_conf *fc)
{
	struct flt_strm *fs = flt_strm_get(s);

	for (int i = 0; fs && i < fs->n; i++)
		if (fs->f[i].fc == fc)
			return &fs->f[i];
	return NULL;
}

struct flt_inst *flt_inst_of_kind(const struct stream *s, const struct flt_kind *k)
{
	struct flt_strm *fs = s->flt;

	for (int i = 0; fs && i < fs->n; i++)
		if (fs->f[i].kind == k)
			return &fs->f[i];
	return NULL;
}

bool flt_xform_before(const struct stream *s, const struct flt_inst *fi, int dir)
{
	const struct flt_strm *fs = s->flt;

	return fs && fs->b[dir].xf >= 0 && &fs->f[fs->b[dir].xf] < fi;
}

bool flt_body_on(const struct stream *s, int dir)
{
	const struct flt_strm *fs = s->flt;

	return fs && fs->b[dir].on && !fs->b[dir].fin;
}

static struct h1_msg *flt_msg(struct stream *s, int dir)
{
	return dir == FLT_RSP ? &s->rsp : &s->req;
}

static struct h1_xfer *flt_x(struct stream *s, int dir)
{
	return dir == FLT_RSP ? &s->rspx : &s->reqx;
}

int flt_set_chunked(struct stream *s, int dir)
{
	struct h1_msg *m = flt_msg(s, dir);

	for (uint16_t i = 0; i < m->nhdr; i++)
		if (m->hdr[i].id == H1_HDR_CONTENT_LENGTH)
			m->hdr[i].skip = 1;
	m->flags &= ~H1_MF_CLEN;
	if (m->flags & H1_MF_CHNK)
		return 0;
	if (http_hdr_add(s, m, IST("transfer-encoding"), IST("chunked")) < 0)
		return -1;
	m->hdr[m->nhdr - 1].id = H1_HDR_TRANSFER_ENCODING;
	m->flags |= H1_MF_CHNK | H1_MF_XFER_ENC | H1_MF_XFER_LEN;
	return 0;
}

/* Ends the filters that see the body of <dir> (complete or cut). */
static void flt_end_body(struct stream *s, struct flt_strm *fs, int dir, bool complete)
{
	struct flt_body *b = &fs->b[dir];

	if (b->fin)
		return;
	b->fin = 1;
	s->flags &= ~(dir == FLT_RSP ? SF_FLT_RSP : SF_FLT_REQ);
	/* as HAProxy, the bytes of a complete response that a filter rewrote count as they
	 * were before it (the log's %B, bytes out): the difference is applied now, the
	 * rest of the output being sent afterwards (unsigned, it is right once all is) */
	if (dir == FLT_RSP && complete && b->xf >= 0)
		s->front->bytes_out += b->xf_in - b->xf_out;
	for (int i = 0; i < fs->n; i++) {
		struct flt_inst *fi = &fs->f[i];

		if (!fi->on[dir])
			continue;
		fi->on[dir] = 0;
		if (fi->kind->end)
			fi->kind->end(s, fi, dir, complete);
	}
}

void flt_body_drop(struct stream *s, int dir)
{
	if (s->flt && s->flt->b[dir].on)
		flt_end_body(s, s->flt, dir, false);
}

int flt_head(struct stream *s, int dir)
{
	struct flt_strm *fs = flt_strm_get(s);
	struct h1_xfer *x = flt_x(s, dir);
	struct flt_body *b;
	/* an empty content-length body is a body: a filter may make it chunked, which then
	 * needs its last chunk (the pump writes it) */
	bool body = x->mode != XFER_NONE && x->mode != XFER_TUNNEL;

	if (dir == FLT_RSP)
		s->flags &= ~SF_FLT_RSP; /* set again if a filter takes the body */
	if (!fs)
		return -1;
	b = &fs->b[dir];
	if (b->head_done)
		return 0;
	b->head_done = 1;
	for (int i = 0; i < fs->n; i++) {
		struct flt_inst *fi = &fs->f[i];
		const struct flt_kind *k = fi->kind;
		int ret;

		if (!k->head || (!body && !k->bodyless) || (k->xform && b->xf >= 0))
			continue;
		ret = k->head(s, fi, dir);
		if (ret < 0) {
			flt_end_body(s, fs, dir, false);
			return -1;
		}
		if (ret == 0)
			continue;
		fi->on[dir] = 1;
		b->on = 1;
		if (k->xform)
			b->xf = (int8_t)i;
	}
	if (!b->on)
		return 0;
	if (!body) { /* seen whole: its end is now */
		flt_end_body(s, fs, dir, true);
		return 0;
	}
	x->done = 0; /* even when empty: the pump ends it */
	b->chunked_out = !!(flt_msg(s, dir)->flags & H1_MF_CHNK);
	s->flags |= dir == FLT_RSP ? SF_FLT_RSP : SF_FLT_REQ;
	return 0;
}

/* Shows p[0..len) to the watchers of <dir> placed before (<after> false) or after the
 * transforming filter; one that declines stops seeing the body. */
static void flt_watch(struct stream *s, struct flt_strm *fs, int dir, bool after, const char *p,
		      size_t len)
{
	int xf = fs->b[dir].xf;

	if (!len)
		return;
	for (int i = 0; i < fs->n; i++) {
		struct flt_inst *fi = &fs->f[i];

		if (!fi->on[dir] || fi->kind->xform || (xf >= 0 && (i > xf) != after) ||
		    !fi->kind->data)
			continue;
		if (fi->kind->data(s, fi, dir, p, len) < 0) {
			fi->on[dir] = 0;
			if (fi->kind->end)
				fi->kind->end(s, fi, dir, false);
		}
	}
}

/* Frames the <n> bytes written at <data> (CHUNK_PRE after the tail of <ob>) as one chunk
 * and appends them to <ob>. */
static void flt_put_chunk(struct buf *ob, const char *data, size_t n)
{
	char line[CHUNK_PRE + 1];
	int k = snprintf(line, sizeof(line), "%zx\r\n", n);
	char *t = b_tail(ob);

	if (data != t + k)
		memmove(t + k, data, n);
	memcpy(t, line, (size_t)k);
	memcpy(t + k + n, "\r\n", 2);
	ob->data += (uint32_t)(k + n + 2);
}

/* One pass: runs in[0..len) (<end>: nothing follows) through the filters of <dir> into
 * <ob>, framed. Returns the input consumed, or -1 when the transforming filter failed.
 * Sets *wrote to the bytes added to <ob>, and *fin once everything, the last chunk
 * included, is in <ob>. */
static long flt_pass(struct stream *s, struct flt_strm *fs, int dir, const char *in, size_t len,
		     bool end, struct buf *ob, bool *fin, size_t *wrote)
{
	uint32_t before;
	struct flt_body *b = &fs->b[dir];
	size_t pre = b->chunked_out ? CHUNK_PRE : 0, post = b->chunked_out ? CHUNK_POST : 0;
	size_t room, used;
	struct flt_out out = { 0 };
	long took;

	*fin = false;
	*wrote = 0;
	if (!ob->data)
		ob->head = 0;
	else if (ob->head && b_room(ob) < FLT_MIN_ROOM + pre + post)
		b_realign(ob); /* the room freed by a partial send is at the head */
	before = ob->data;
	room = b_room(ob);
	if (room < pre + post + 64)
		return 0; /* flush first */
	room -= pre + post;
	if (b->xf < 0) {
		took = (long)(len < room ? len : room);
		flt_watch(s, fs, dir, false, in, (size_t)took);
		if (took && b->chunked_out)
			flt_put_chunk(ob, in, (size_t)took);
		else if (took)
			b_putblk(ob, in, (uint32_t)took);
		used = (size_t)took;
	} else {
		struct flt_inst *fi = &fs->f[b->xf];

		out.p = b_tail(ob) + pre;
		out.room = room;
		took = fi->kind->xform(s, fi, dir, in, len, &out, end);
		if (took < 0 || (size_t)took > len || out.len > room)
			return -1;
		flt_watch(s, fs, dir, false, in, (size_t)took);
		flt_watch(s, fs, dir, true, out.p, out.len);
		b->xf_in += (uint64_t)took;
		b->xf_out += out.len;
		if (out.len && b->chunked_out)
			flt_put_chunk(ob, out.p, out.len);
		else
			ob->data += (uint32_t)out.len;
		used = (size_t)took;
	}
	if (end && used == len && !out.more) {
		if (b->chunked_out) {
			memcpy(b_tail(ob), "0\r\n\r\n", 5);
			ob->data += 5;
		}
		flt_end_body(s, fs, dir, true);
		*fin = true;
	}
	*wrote = ob->data - before;
	return took;
}

/* The next run of body bytes at the head of <ib>: framing before it is consumed. Returns
 * its length (0 when none is there yet), with *end once nothing follows it; -1 on invalid
 * framing. */
static int64_t flt_src_run(struct buf *ib, struct flt_body *b, struct h1_xfer *x,
			   const struct conn *src, bool *end)
{
	size_t data = 0;
	int done = 0;
	ssize_t n;

	*end = false;
	if (b->src_end) {
		*end = true;
		return 0;
	}
	switch (x->mode) {
	case XFER_CLEN:
		data = ib->data < x->remain ? ib->data : x->remain;
		*end = data == x->remain;
		return (int64_t)data;
	case XFER_CHUNKED:
		n = h1_dechunk_next(&b->dc, b_head(ib), ib->data, global.tune_bufsize, &data,
				    &done);
		if (n < 0)
			return -1;
		b_del(ib, (uint32_t)n);
		*end = (b->src_end = !!done) != 0;
		return done ? 0 : (int64_t)data;
	default: /* XFER_EOF: until the sender closes (a reset cuts it) */
		*end = (src->flags & (CO_FL_RD_EOF | CO_FL_ERROR)) == CO_FL_RD_EOF;
		return ib->data;
	}
}

static void flt_src_take(struct buf *ib, struct flt_body *b, struct h1_xfer *x, uint32_t n)
{
	if (x->mode == XFER_CHUNKED)
		h1_dechunk_take(&b->dc, b_head(ib), n);
	else if (x->mode == XFER_CLEN)
		x->remain -= n;
	b_del(ib, n);
}

int flt_xfer(struct stream *s, int dir, struct conn *src, struct conn *dst, struct h1_xfer *x)
{
	struct flt_strm *fs = s->flt;
	struct flt_body *b = &fs->b[dir];
	struct buf *ib = &src->ibuf, *ob = &dst->obuf;
	int moved = 0;

	for (int pass = 0; pass < FLT_PASSES && !x->done; pass++) {
		bool end, fin;
		size_t wrote;
		int64_t len;
		long took;

		if (ob->data && b_room(ob) + ob->head < FLT_MIN_ROOM + CHUNK_PRE + CHUNK_POST) {
			if (conn_flush(dst) < 0)
				return XFER_ERR_DST;
			if (ob->data &&
			    b_room(ob) + ob->head < FLT_MIN_ROOM + CHUNK_PRE + CHUNK_POST)
				break; /* the destination's EPOLLOUT wakes us */
		}
		len = flt_src_run(ib, b, x, src, &end);
		if (len < 0)
			return XFER_ERR_FRAMING;
		if (!len && !end) {
			if (conn_recv(src) > 0)
				continue;
			if (!(src->flags & (CO_FL_RD_EOF | CO_FL_ERROR))) {
				/* the source pauses: the transformer may give what it holds; go
				 * on while it does and the destination takes it all */
				if (b->xf < 0 || b_get(ob) < 0)
					break;
				if (flt_pass(s, fs, dir, NULL, 0, false, ob, &fin, &wrote) < 0)
					return XFER_ERR_SRC;
				if (!wrote)
					break; /* wait for more */
				moved = 1;
				if (conn_flush(dst) < 0)
					return XFER_ERR_DST;
				continue;
			}
			/* a close ends a close-delimited body; a reset, or a close elsewhere,
			 * cuts it */
			if (x->mode != XFER_EOF || ib->data || (src->flags & CO_FL_ERROR))
				return XFER_ERR_SRC;
			end = true;
		}
		if (b_get(ob) < 0)
			return XFER_ERR_DST;
		took = flt_pass(s, fs, dir, b_head(ib), (size_t)len, end, ob, &fin, &wrote);
		if (took < 0)
			return XFER_ERR_SRC;
		if (took || wrote)
			moved = 1;
		flt_src_take(ib, b, x, (uint32_t)took);
		if (fin) {
			x->done = 1;
		} else if (!took && !wrote) {
			/* no room for anything: send what waits, then try again */
			if (!ob->data)
				break; /* (not expected: a filter that takes nothing) */
			if (conn_flush(dst) < 0)
				return XFER_ERR_DST;
			if (ob->data)
				break; /* the destination's EPOLLOUT wakes us */
		}
	}
	if (ob->data && conn_flush(dst) < 0)
		return XFER_ERR_DST;
	b_release_if_empty(ib);
	return moved;
}

long flt_push(struct stream *s, const char *p, size_t len, bool end, struct buf *ob, size_t *wrote)
{
	struct flt_strm *fs = s->flt;
	bool fin;

	return flt_pass(s, fs, FLT_RSP, p, len, end, ob, &fin, wrote);
}

void flt_req_handover(struct stream *s)
{
	struct flt_strm *fs = s->flt;
	struct flt_body *b;

	if (!fs || !(s->flags & SF_FLT_REQ))
		return;
	b = &fs->b[FLT_REQ];
	/* the scanner state is shared with the verbatim forwarder's (h1_dechunk.h) */
	if (s->reqx.mode == XFER_CHUNKED) {
		s->reqx.chunk = b->dc;
		s->reqx.ready = 0;
		s->reqx.eom_seen = 0;
		s->reqx.done = b->src_end;
	}
	flt_end_body(s, fs, FLT_REQ, false);
}

void flt_stream_free(struct stream *s)
{
	struct flt_strm *fs = s->flt;

	for (int dir = 0; dir < 2; dir++)
		if (fs->b[dir].on)
			flt_end_body(s, fs, dir, false);
	for (int i = 0; i < fs->n; i++)
		if (fs->f[i].kind->release)
			fs->f[i].kind->release(s, &fs->f[i]);
	pool_free(&pool_flt, fs);
	s->flt = NULL;
}
