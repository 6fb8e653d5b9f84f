/* HTTP compression engine (comp/comp_algo.c, comp/comp_limits.c): the algorithms and
 * their streaming contexts over zlib, the memory zlib takes (counted against maxzlibmem),
 * the process-wide rates and the CPU limit that make compression back off, and the
 * "show info" and "-vv" facts. Contexts belong to one stream (loop thread); the settings
 * are written at config time only; the counters are process-wide atomics.
 */
#ifndef COMP_COMP_H
#define COMP_COMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <comp/comp-t.h>
#include <stream/filter.h>

extern struct comp_settings comp_set;

/* The algorithms this build has (identity always; the others with zlib), in the order
 * "-vv" lists them; comp_algos_n of them. */
extern const struct comp_algo comp_algos[];
extern const int comp_algos_n;
/* The algorithm called <cfg_name> in "compression algo", or NULL. */
const struct comp_algo *comp_algo_find(const char *cfg_name);
/* "Compression algorithms supported : identity("identity"), ..." (static text). */
const char *comp_algos_line(void);

/* One message's compressor. */
struct comp_ctx {
	const struct comp_algo *algo;
	void *z;	  /* zlib's stream (owned) above level 1, else NULL */
	void *fast;	  /* the fast encoder's state (owned) at level 1, else NULL */
	int8_t level;	  /* level in force; 0: the bytes bypass compression */
	uint8_t fed;	  /* input went in since the last flush */
	uint8_t flushing; /* a flush ran out of output room: it goes on first */
	uint8_t finished; /* the end of the compressed stream was written */
};

/* Sets up <c> for <a> at level tune.comp.maxlevel (identity: 0). Returns 0, or -1 when
 * zlib's memory cannot be had (out of memory, or maxzlibmem reached). */
int comp_ctx_init(struct comp_ctx *c, const struct comp_algo *a);
/* Compresses in[0..len) into out->p[0..out->room): returns the input consumed (the rest
 * is given again) and sets out->len. When <len> is 0 without <end>, the input pauses:
 * what the compressor holds is flushed so that the peer gets it now. With <end>, nothing
 * follows in[0..len): the stream is finished, out->more set while output remains. The
 * level follows the limits at each flush (maxcomprate, maxcompcpuusage). Returns -1 on
 * a zlib error. */
long comp_ctx_step(struct comp_ctx *c, const char *in, size_t len, struct flt_out *out, bool end);
/* Frees what <c> holds (any state). */
void comp_ctx_end(struct comp_ctx *c);

/* Bytes zlib holds now (ZlibMemUsage). Any thread. */
uint64_t comp_zmem_used(void);

/* Limits (comp_limits.c). True when a new compression must not start: the input rate is
 * over maxcomprate, or this thread's idle share under 100 - maxcompcpuusage. */
bool comp_limits_refuse(void);
/* True when a running compression must lower its level (the output rate is over
 * maxcomprate, or the thread is too busy); false when it may raise it. */
bool comp_limits_over(void);
/* Counts <n> bytes into / out of the compressor (CompressBpsIn / CompressBpsOut). */
void comp_rate_in(uint64_t n);
void comp_rate_out(uint64_t n);
/* The rates over the last second, bytes per second. */
uint32_t comp_bps_in(void);
uint32_t comp_bps_out(void);

#endif
