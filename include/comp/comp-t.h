/* Types of HTTP compression: the algorithms, a proxy's "compression" settings and the
 * process-wide tunables. Written at config time (single-threaded), read-only at run time.
 */
#ifndef COMP_COMP_T_H
#define COMP_COMP_T_H

#include <stdbool.h>
#include <stdint.h>
#include <base/ist.h>

enum comp_algo_id {
	COMP_IDENTITY = 0, /* no change (level 0: counted as bypassed) */
	COMP_DEFLATE,	   /* zlib format (RFC 1950), "Content-Encoding: deflate" */
	COMP_RAW_DEFLATE,  /* raw deflate (RFC 1951), also announced as "deflate" */
	COMP_GZIP,	   /* gzip format (RFC 1952) */
	COMP_ALGO_N,
};

struct comp_algo {
	const char *cfg_name; /* as in "compression algo" */
	struct ist ua_name;   /* as in Accept-Encoding and Content-Encoding */
	uint8_t id;	      /* enum comp_algo_id */
	int8_t wbits_mode;    /* zlib window bits: 1 zlib header, -1 raw, 2 gzip, 0 no zlib */
};

/* comp_px->flags */
#define COMP_F_OFFLOAD 0x01 /* "compression offload": Accept-Encoding removed when used */
#define COMP_F_DIR_REQ 0x02 /* "compression direction request|both" */
#define COMP_F_DIR_RES 0x04 /* responses are compressed (the default, "response|both") */

/* A proxy's compression settings (proxy->comp). At parse time they start as a copy of
 * the ones of the defaults section the proxy comes from (offload excepted, as HAProxy),
 * and the proxy's own lines add to them: algorithms and types go before the inherited
 * ones, in reverse line order (HAProxy's lists grow at their head, which decides the
 * algorithm a "*" or a tie chooses). */
struct comp_px {
	const struct comp_algo **algos; /* responses ("algo", "algo-res"), first preferred */
	uint32_t n_algos;
	const struct comp_algo *algo_req; /* "algo-req", or NULL */
	struct ist *types;		  /* "type", "type-res": Content-Type prefixes (owned) */
	uint32_t n_types;
	struct ist *types_req; /* "type-req" (owned) */
	uint32_t n_types_req;
	uint64_t minsize_res; /* "minsize-res": bytes, 0 none */
	uint64_t minsize_req; /* "minsize-req" */
	uint32_t flags;	      /* COMP_F_* */
};

/* Process-wide tunables (global section). */
struct comp_settings {
	int maxlevel;	     /* tune.comp.maxlevel: 1..9, default 1 */
	int memlevel;	     /* tune.zlib.memlevel: 1..9, default 8 */
	int windowsize;	     /* tune.zlib.windowsize: 8..15, default 15 */
	uint32_t rate_lim;   /* maxcomprate, bytes per second (kB/s * 1024), 0: none */
	int min_idle;	     /* 100 - maxcompcpuusage: idle % under which compression
			      * backs off, 0: none */
	uint64_t maxzlibmem; /* maxzlibmem, bytes (MB * 1048576), 0: none */
};

#endif
