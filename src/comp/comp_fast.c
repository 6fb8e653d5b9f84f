/* The level-1 compressor (tune.comp.maxlevel 1, the default): the fast encoder of
 * deflate_fast.c fed as the body streams, by runs of 32 kB gathered from the pieces the
 * body comes in (its output kept until the peer's buffer takes it), flushed when the
 * input pauses, finished at the end. While the limits
 * (maxcomprate, maxcompcpuusage) hold the level at 0, the bytes go out as stored blocks of the same
 * stream (their checksum kept), as HAProxy's level 0 does; the level is decided again at each
 * flush. Its state (about 100 kB) is counted with zlib's in ZlibMemUsage and against maxzlibmem.
 * Loop thread of the stream.
 */
#ifdef USE_ZLIB
#include <string.h>
#include <zlib.h>

#include <comp/deflate_fast.h>

#include "comp_int.h"

#define FAST_STAGE 32768 /* input gathered before it is compressed */
#define FAST_PEND (FAST_STAGE + FAST_STAGE / 8 + 32 + 64) /* dfast_bound(stage), the end */
#define STORED_MAX 65535

/* The encoder, the input it gathers and the output not given out yet: matches are looked
 * for in one call's input only, so the pieces a body comes in (and the room its output
 * finds) must not cut the runs short: 32 kB runs give libslz's ratio or better. */
struct fast_ctx {
	struct dfast d;
	uint32_t in_len;	   /* stage[0..in_len) waits to be compressed */
	uint32_t out_off, out_len; /* pend[out_off..out_len) waits for room */
	uint8_t stage[FAST_STAGE];
	uint8_t pend[FAST_PEND];
};

int comp_fast_init(struct comp_ctx *c)
{
	struct fast_ctx *f = comp_mem_alloc(sizeof(*f));

	if (!f)
		return -1;
	dfast_init(&f->d, c->algo->wbits_mode < 0    ? DFAST_RAW
			  : c->algo->wbits_mode == 2 ? DFAST_GZIP
						     : DFAST_ZLIB);
	f->in_len = f->out_off = f->out_len = 0;
	c->fast = f;
	c->level = 1;
	return 0;
}

void comp_fast_end(struct comp_ctx *c)
{
	comp_mem_free(c->fast);
	c->fast = NULL;
}

/* Writes in[0..n) as stored blocks at <p> (room for n + 5 per 64 kB): the stream must be
 * on a byte boundary outside any block. */
static uint8_t *fast_stored(struct dfast *d, const uint8_t *in, size_t n, uint8_t *p)
{
	while (n) {
		size_t k = n < STORED_MAX ? n : STORED_MAX;

		p[0] = 0; /* BFINAL 0, BTYPE 00, padding */
		p[1] = (uint8_t)k;
		p[2] = (uint8_t)(k >> 8);
		p[3] = (uint8_t)~k;
		p[4] = (uint8_t)(~k >> 8);
		memcpy(p + 5, in, k);
		if (d->fmt == DFAST_ZLIB)
			d->check = (uint32_t)adler32(d->check, in, (uInt)k);
		else if (d->fmt == DFAST_GZIP)
			d->check = (uint32_t)crc32(d->check, in, (uInt)k);
		d->isize += (uint32_t)k;
		p += 5 + k;
		in += k;
		n -= k;
	}
	return p;
}

/* Compresses the staged input into the pending output, at the current level (0: stored
 * blocks of the same stream). The pending output must be empty. */
static void fast_stage_out(struct comp_ctx *c)
{
	struct fast_ctx *f = c->fast;
	uint8_t *p = f->pend;

	if (c->level > 0) {
		/* the stream's state before, restored if stored blocks win (the hash table
		 * may keep what this stage put there) */
		uint64_t acc = f->d.acc;
		uint32_t nbits = f->d.nbits, check = f->d.check, isize = f->d.isize;
		uint8_t started = f->d.started, in_block = f->d.in_block;
		size_t n = dfast_compress(&f->d, f->stage, f->in_len, p);

		/* data that does not compress goes out in stored blocks instead, as it came
		 * (5 bytes per 64 kB): random or already compressed bodies do not grow */
		if (n <= (size_t)f->in_len + 8 + 5 * ((size_t)f->in_len / 65535 + 1)) {
			p += n;
			goto done;
		}
		f->d.acc = acc, f->d.nbits = nbits, f->d.check = check, f->d.isize = isize;
		f->d.started = started, f->d.in_block = in_block;
	}
	if (f->in_len) {
		if (!f->d.started) /* the header, in a block closed just below */
			p += dfast_compress(&f->d, NULL, 0, p);
		p += dfast_flush(&f->d, p); /* stored blocks start on a byte boundary */
		p = fast_stored(&f->d, f->stage, f->in_len, p);
	}
done:
	f->in_len = 0;
	f->out_off = 0;
	f->out_len = (uint32_t)(p - f->pend);
}

/* Gives out what is pending into [*pp, e); true once nothing is. */
static bool fast_give(struct fast_ctx *f, uint8_t **pp, uint8_t *e)
{
	size_t n = f->out_len - f->out_off;

	n = n < (size_t)(e - *pp) ? n : (size_t)(e - *pp);
	memcpy(*pp, f->pend + f->out_off, n);
	*pp += n;
	f->out_off += (uint32_t)n;
	return f->out_off == f->out_len;
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

	if (!fast_give(f, &p, e))
		goto out; /* what the last run gave does not fit yet */
	if (len && !c->finished) {
		took = FAST_STAGE - f->in_len < len ? FAST_STAGE - f->in_len : len;
		memcpy(f->stage + f->in_len, in, took);
		f->in_len += (uint32_t)took;
		c->fed = 1;
	}
	if (c->finished)
		goto out;
	if (end && took == len) {
		fast_stage_out(c);
		f->out_len += (uint32_t)dfast_finish(&f->d, f->pend + f->out_len);
		c->finished = 1;
	} else if (f->in_len == FAST_STAGE) {
		fast_stage_out(c);
	} else if (!len && !end && c->fed) { /* the input pauses: it all goes out now */
		fast_stage_out(c);
		f->out_len += (uint32_t)dfast_flush(&f->d, f->pend + f->out_len);
		c->fed = 0;
		fast_adjust(c);
	} else {
		goto out;
	}
	fast_give(f, &p, e);
out:
	out->len = (size_t)(p - (uint8_t *)out->p);
	out->more = end && (!c->finished || f->out_off < f->out_len);
	return (long)took;
}

#endif /* USE_ZLIB */
