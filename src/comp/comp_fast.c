/* The level-1 compressor (tune.comp.maxlevel 1, the default): the fast encoder of
 * deflate_fast.c fed as the body streams, by runs of up to 16 kB gathered from the pieces
 * the body comes in, flushed when the input pauses, finished at the end. While the limits
 * (maxcomprate, maxcompcpuusage) hold the level at 0, the bytes go out as stored blocks of the same
 * stream (their checksum kept), as HAProxy's level 0 does; the level is decided again at each
 * flush. Its state (about 49 kB) is counted with zlib's in ZlibMemUsage and against maxzlibmem.
 * Loop thread of the stream.
 */
#ifdef USE_ZLIB
#include <string.h>
#include <zlib.h>

#include <comp/deflate_fast.h>

#include "comp_int.h"

#define FAST_TAIL 48	 /* room a flush or the end of the stream needs at most */
#define FAST_STAGE 16384 /* input gathered before it is compressed */
#define STORED_MAX 65535

/* The encoder and the input it gathers: matches are looked for in one call's input
 * only, so small pieces (small chunks of a chunked body) are compressed together. */
struct fast_ctx {
	struct dfast d;
	uint32_t off, len; /* staged bytes not compressed yet: stage[off..len) */
	uint8_t stage[FAST_STAGE];
};

int comp_fast_init(struct comp_ctx *c)
{
	struct fast_ctx *f = comp_mem_alloc(sizeof(*f));

	if (!f)
		return -1;
	dfast_init(&f->d, c->algo->wbits_mode < 0    ? DFAST_RAW
			  : c->algo->wbits_mode == 2 ? DFAST_GZIP
						     : DFAST_ZLIB);
	f->off = f->len = 0;
	c->fast = f;
	c->level = 1;
	return 0;
}

void comp_fast_end(struct comp_ctx *c)
{
	comp_mem_free(c->fast);
	c->fast = NULL;
}

/* Writes in[0..n) as one stored block at <p> (n <= STORED_MAX, room for n + 5): the
 * stream must be on a byte boundary outside any block. */
static uint8_t *fast_stored(struct dfast *d, const uint8_t *in, size_t n, uint8_t *p)
{
	p[0] = 0; /* BFINAL 0, BTYPE 00, padding */
	p[1] = (uint8_t)n;
	p[2] = (uint8_t)(n >> 8);
	p[3] = (uint8_t)~n;
	p[4] = (uint8_t)(~n >> 8);
	memcpy(p + 5, in, n);
	if (d->fmt == DFAST_ZLIB)
		d->check = (uint32_t)adler32(d->check, in, (uInt)n);
	else if (d->fmt == DFAST_GZIP)
		d->check = (uint32_t)crc32(d->check, in, (uInt)n);
	d->isize += (uint32_t)n;
	return p + 5 + n;
}

/* Compresses what fits of the staged bytes at the current level into [*pp, e). True
 * once nothing is staged. */
static bool fast_drain(struct comp_ctx *c, uint8_t **pp, uint8_t *e)
{
	struct fast_ctx *f = c->fast;
	uint8_t *p = *pp;
	size_t n, left = f->len - f->off;

	if (c->level > 0 && left) {
		n = dfast_fit((size_t)(e - p));
		n = n < left ? n : left;
		if (n)
			p += dfast_compress(&f->d, f->stage + f->off, n, p);
		f->off += (uint32_t)n;
	} else if (left && e - p >= FAST_TAIL + 6) {
		if (!f->d.started) /* the header, in a block closed just below */
			p += dfast_compress(&f->d, NULL, 0, p);
		p += dfast_flush(&f->d, p); /* stored blocks start on a byte boundary */
		while (f->off < f->len && e - p > 6) {
			n = (size_t)(e - p) - 5;
			n = n < f->len - f->off ? n : f->len - f->off;
			n = n < STORED_MAX ? n : STORED_MAX;
			p = fast_stored(&f->d, f->stage + f->off, n, p);
			f->off += (uint32_t)n;
		}
	}
	*pp = p;
	if (f->off < f->len)
		return false;
	f->off = f->len = 0;
	return true;
}

/* A complete flush: level 0 while over the limits, else 1 (HAProxy's level-1 rule). */
static void fast_adjust(struct comp_ctx *c)
{
	c->level = comp_limits_over() ? 0 : 1;
}

long comp_fast_step(struct comp_ctx *c, const char *in, size_t len, struct flt_out *out, bool end)
{
	struct fast_ctx *f = c->fast;
	uint8_t *p = (uint8_t *)out->p, *e = p + out->room;
	size_t took = 0;
	bool pause = !len && !end;

	if (len && !c->finished) {
		if (f->len == FAST_STAGE && !fast_drain(c, &p, e))
			goto out; /* no room to make room */
		took = FAST_STAGE - f->len < len ? FAST_STAGE - f->len : len;
		memcpy(f->stage + f->len, in, took);
		f->len += (uint32_t)took;
		c->fed = 1;
		if (f->len == FAST_STAGE)
			fast_drain(c, &p, e);
		if (took < len)
			goto out; /* called again with the rest */
	}
	if (c->finished || (!end && !(pause && c->fed)))
		goto out;
	/* the end, or a pause: everything staged goes out, then the stream ends or is
	 * made decodable up to here */
	if (!fast_drain(c, &p, e) || e - p < FAST_TAIL) {
		c->flushing = 1; /* called again with more room (the end), or at the next pause */
		goto out;
	}
	c->flushing = 0;
	if (end) {
		p += dfast_finish(&f->d, p);
		c->finished = 1;
	} else {
		p += dfast_flush(&f->d, p);
		c->fed = 0;
		fast_adjust(c);
	}
out:
	out->len = (size_t)(p - (uint8_t *)out->p);
	out->more = end && !c->finished;
	return (long)took;
}

#endif /* USE_ZLIB */
