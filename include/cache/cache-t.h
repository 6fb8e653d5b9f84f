/* Types of the cache: a "cache NAME" section and its store, shared by every thread of
 * the process (sharded, each shard behind its own mutex), and the entries it keeps.
 */
#ifndef CACHE_CACHE_T_H
#define CACHE_CACHE_T_H

#include <pthread.h>
#include <stdint.h>
#include <base/compiler.h>
#include <base/list.h>

#define CACHE_SHARDS 16 /* shards of a store, chosen by the top bits of the key's hash */

/* entry->state */
#define CE_PENDING                                                                     \
	0	  /* being written: in its chain (so that a second copy is not written \
		   * meanwhile), never returned by a lookup */
#define CE_LIVE 1 /* complete, immutable, found by lookups */
#define CE_DEAD 2 /* out of its chain: freed when its last reader is done */

/* entry->framing: how the stored body was delimited, hence how a hit sends it */
#define CE_FR_NONE 0  /* no body (204, empty content-length) */
#define CE_FR_CLEN 1  /* its content-length header is stored with it */
#define CE_FR_CHUNK 2 /* chunked: sent chunked again */
#define CE_FR_EOF 3   /* close-delimited: sent so again (the connection closes) */

/* One stored response. The struct is allocated once; its bytes (<buf>) grow while it is
 * written, then never change: readers use them without a lock, under a reference. */
struct cache_entry {
	struct cache_entry *next; /* hash chain of its shard (shard lock) */
	struct list lru;	  /* its shard's LRU list, most recent first (shard lock);
				   * linked while CE_LIVE only */
	uint64_t hash;		  /* hash of the primary key */
	uint32_t refcnt;	  /* its chain's reference (while not CE_DEAD) plus one per
				   * reader and one for the writer; atomic: released without
				   * the lock, the last one frees */
	uint8_t state;		  /* CE_* (shard lock) */
	uint8_t shard;		  /* index of its shard */
	uint8_t framing;	  /* CE_FR_* */
	uint8_t vary;		  /* CACHE_VARY_* of its response: the secondary key */
	uint32_t sec[3];	  /* secondary key: its codings (CACHE_ENC_*), the Referer
				   * and Origin hashes of the request that filled it */
	uint16_t status;
	uint16_t reason_len; /* with its NUL */
	uint32_t key_len;    /* bytes of <key> */
	uint32_t head_len;   /* buf: reason, head lines ("name: value\r\n"), body */
	uint32_t etag_off;   /* its ETag value in buf (etag_len 0: none) */
	uint32_t etag_len;
	uint64_t body_len;
	uint64_t cap;		/* bytes allocated at <buf> */
	int64_t expire;		/* usable while the monotonic clock (s) is below it */
	int64_t stored;		/* monotonic clock (s) when it was stored: its Age */
	uint32_t age;		/* Age header of the response stored */
	int64_t last_mod;	/* Last-Modified, Date, or the time stored (epoch s) */
	struct cache_store *st; /* its store (the budget it is counted in) */
	char *buf;		/* grows while CE_PENDING (the writer's only) */
	char key[];		/* the primary key: never moves (compared under the lock
				 * while the writer grows <buf>) */
};

/* A shard of a store. */
struct cache_shard {
	/* The mutex guards the chains, the LRU list and the entries' states: a lookup, an
	 * insertion, a move to the head of the LRU and an eviction each change several of
	 * them together, from any thread. Held for a few pointer updates, never while
	 * copying data or calling out. */
	pthread_mutex_t lock;
	struct cache_entry **table; /* hash chains, mask + 1 of them */
	uint32_t mask;
	uint32_t nb_live; /* CE_LIVE entries */
	struct list lru;
} ALIGNED_CL;

/* The store of one cache: the objects of every thread, within max_bytes. */
struct cache_store {
	/* bytes allocated to entries (structs and buffers, pending and dead ones too);
	 * atomic, only changed when an entry is reserved, grown or freed */
	uint64_t used ALIGNED_CL;
	uint32_t evict_cursor; /* next shard to evict from (atomic, relaxed) */
	uint64_t evictions;    /* entries evicted for room (atomic, relaxed) */
	struct cache_shard shards[CACHE_SHARDS];
};

/* A "cache NAME" section. */
struct cache {
	char *id;
	char *file; /* where it is declared */
	int line;
	uint64_t max_bytes;	   /* total-max-size, bytes */
	uint64_t max_obj;	   /* max-object-size, bytes (0 in the section: the default) */
	uint32_t max_age;	   /* max-age, seconds */
	uint32_t max_sec;	   /* max-secondary-entries */
	uint8_t vary_on;	   /* process-vary on */
	uint8_t broken;		   /* a keyword failed: the section's checks are skipped */
	struct cache_store *store; /* made at check time */
	struct cache *next;
};

#endif
