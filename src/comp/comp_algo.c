/* The compression algorithms (identity; deflate, raw-deflate and gzip: at level 1 the
 * fast encoder of comp_fast.c, above it zlib) and their streaming contexts: the
 * compressors' memory comes from a counting allocator so that maxzlibmem is a hard
 * ceiling (a context that would pass it is not created) and ZlibMemUsage is exact. The stream is
 * flushed when its input pauses, finished at its end, and its level moves between 0 and
 * tune.comp.maxlevel with the limits at each flush, as HAProxy's zlib build does. Contexts belong
 * to their stream's thread.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef USE_ZLIB
#include <zlib.h>
#endif

#include <base/atomic.h>
#include <comp/comp.h>

#include "comp_int.h"

struct comp_settings comp_set = {
	.maxlevel = 1,
	.memlevel = 8,
	.windowsize = 15,
};

const struct comp_algo comp_algos[] = {
	{ "identity", IST("identity"), COMP_IDENTITY, 0 },
#ifdef USE_ZLIB
	{ "deflate", IST("deflate"), COMP_DEFLATE, 1 },
	{ "raw-deflate", IST("deflate"), COMP_RAW_DEFLATE, -1 },
	{ "gzip", IST("gzip"), COMP_GZIP, 2 },
#endif
};

const int comp_algos_n = (int)(sizeof(comp_algos) / sizeof(comp_algos[0]));

const struct comp_algo *comp_algo_find(const char *cfg_name)
{
	for (int i = 0; i < comp_algos_n; i++)
		if (strcmp(comp_algos[i].cfg_name, cfg_name) == 0)
			return &comp_algos[i];
	return NULL;
}

const char *comp_algos_line(void)
{
	static char line[256];
	size_t len;

	if (line[0])
		return line;
	len = (size_t)snprintf(line, sizeof(line), "Compression algorithms supported :");
	for (int i = 0; i < comp_algos_n && len < sizeof(line); i++)
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s %s(\"%.*s\")",
					i ? "," : "", comp_algos[i].cfg_name,
					(int)comp_algos[i].ua_name.len, comp_algos[i].ua_name.ptr);
	return line;
}

/* Bytes zlib holds, all threads (a relaxed view is enough for a limit and a gauge). */
static uint64_t comp_zmem;

uint64_t comp_zmem_used(void)
{
	return HA_ATOMIC_LOAD_RLX(&comp_zmem);
}

/* Identity: the bytes as they are. */
static long comp_id_step(const char *in, size_t len, struct flt_out *out)
{
	size_t n = len < out->room ? len : out->room;

	if (n) /* a pause gives no input (in may be NULL) */
		memcpy(out->p, in, n);
	out->len = n;
	return (long)n;
}

/* Each block starts with its size, so that freeing it gives its bytes back. */
#define COMP_MEM_HDR 16

void *comp_mem_alloc(size_t n)
{
	uint64_t lim = comp_set.maxzlibmem, used;
	char *p;

	used = HA_ATOMIC_ADD(&comp_zmem, n);
	if (lim && used > lim) {
		HA_ATOMIC_SUB(&comp_zmem, n);
		return NULL;
	}
	p = malloc(n + COMP_MEM_HDR);
	if (!p) {
		HA_ATOMIC_SUB(&comp_zmem, n);
		return NULL;
	}
	memcpy(p, &n, sizeof(n));
	return p + COMP_MEM_HDR;
}

void comp_mem_free(void *ptr)
{
	char *p = (char *)ptr - COMP_MEM_HDR;
	size_t n;

	if (!ptr)
		return;
	memcpy(&n, p, sizeof(n));
	HA_ATOMIC_SUB(&comp_zmem, n);
	free(p);
}

#ifdef USE_ZLIB

/* zlib's allocator: every block counted against maxzlibmem; NULL when it would pass it
 * (zlib then gives up the context). Any thread. */
static voidpf comp_zalloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	return comp_mem_alloc((size_t)items * size);
}

static void comp_zfree(voidpf opaque, voidpf ptr)
{
	(void)opaque;
	comp_mem_free(ptr);
}

/* zlib's window bits for <a>: raw and gzip streams refuse 8 (zlib widens it to 9 for
 * its own format only), so they get 9 then. */
static int comp_wbits(const struct comp_algo *a)
{
	int w = comp_set.windowsize < 9 && a->wbits_mode != 1 ? 9 : comp_set.windowsize;

	return a->wbits_mode < 0 ? -w : a->wbits_mode == 2 ? w + 16 : w;
}

static int comp_z_init(struct comp_ctx *c)
{
	z_stream *z = comp_zalloc(NULL, 1, sizeof(*z));

	if (!z)
		return -1;
	memset(z, 0, sizeof(*z));
	z->zalloc = comp_zalloc;
	z->zfree = comp_zfree;
	if (deflateInit2(z, c->level, Z_DEFLATED, comp_wbits(c->algo), comp_set.memlevel,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		comp_zfree(NULL, z);
		return -1;
	}
	c->z = z;
	return 0;
}

/* After a complete flush: one level down while over the limits, one up (to
 * tune.comp.maxlevel) otherwise. A change zlib refuses now is tried at the next flush. */
static void comp_z_adjust(struct comp_ctx *c)
{
	int lvl = c->level;

	if (comp_limits_over())
		lvl = lvl > 0 ? lvl - 1 : 0;
	else if (lvl < comp_set.maxlevel)
		lvl++;
	if (lvl != c->level && deflateParams(c->z, lvl, Z_DEFAULT_STRATEGY) == Z_OK)
		c->level = (int8_t)lvl;
}

/* deflate() with <flush>; false on a real error (Z_BUF_ERROR only means no progress). */
static bool comp_z_run(z_stream *z, int flush, int *ret)
{
	*ret = deflate(z, flush);
	return *ret == Z_OK || *ret == Z_STREAM_END || *ret == Z_BUF_ERROR;
}

static long comp_z_step(struct comp_ctx *c, const char *in, size_t len, struct flt_out *out,
			bool end)
{
	z_stream *z = c->z;
	size_t room = out->room < UINT_MAX ? out->room : UINT_MAX;
	size_t give = len < UINT_MAX ? len : UINT_MAX;
	long took = 0;
	int ret;

	z->next_out = (Bytef *)out->p;
	z->avail_out = (uInt)room;
	z->next_in = (Bytef *)(uintptr_t)in;
	z->avail_in = 0;
	if (c->flushing) { /* what a flush left goes before anything new */
		if (!comp_z_run(z, Z_SYNC_FLUSH, &ret))
			return -1;
		if (!z->avail_out)
			goto out;
		c->flushing = 0;
		c->fed = 0;
		comp_z_adjust(c);
	}
	if (give && !c->finished) {
		z->avail_in = (uInt)give;
		if (!comp_z_run(z, Z_NO_FLUSH, &ret))
			return -1;
		took = (long)(give - z->avail_in);
		c->fed |= took > 0;
		z->avail_in = 0;
		if ((size_t)took < len)
			goto out; /* no room left: called again with the rest */
	}
	if (end && !c->finished) {
		if (!comp_z_run(z, Z_FINISH, &ret))
			return -1;
		c->finished = ret == Z_STREAM_END;
		out->more = !c->finished;
	} else if (!len && c->fed && !c->finished) { /* the input pauses */
		if (!comp_z_run(z, Z_SYNC_FLUSH, &ret))
			return -1;
		if (!z->avail_out) {
			c->flushing = 1;
		} else {
			c->fed = 0;
			comp_z_adjust(c);
		}
	}
out:
	out->len = room - z->avail_out;
	if (end && (c->flushing || (size_t)took < len))
		out->more = true;
	return took;
}

#endif /* USE_ZLIB */

int comp_ctx_init(struct comp_ctx *c, const struct comp_algo *a)
{
	memset(c, 0, sizeof(*c));
	c->algo = a;
	if (!a->wbits_mode)
		return 0; /* identity: level 0, nothing to hold */
	c->level = (int8_t)comp_set.maxlevel;
#ifdef USE_ZLIB
	if (comp_set.maxlevel == 1)
		return comp_fast_init(c);
	return comp_z_init(c);
#else
	return -1;
#endif
}

long comp_ctx_step(struct comp_ctx *c, const char *in, size_t len, struct flt_out *out, bool end)
{
	out->len = 0;
	out->more = false;
#ifdef USE_ZLIB
	if (c->fast)
		return comp_fast_step(c, in, len, out, end);
	if (c->z)
		return comp_z_step(c, in, len, out, end);
#endif
	return comp_id_step(in, len, out);
}

void comp_ctx_end(struct comp_ctx *c)
{
#ifdef USE_ZLIB
	if (c->fast)
		comp_fast_end(c);
	if (c->z) {
		deflateEnd(c->z);
		comp_zfree(NULL, c->z);
	}
#endif
	c->z = NULL;
}
