/* Types of stick tables: a table of entries keyed by an address, an integer or a string,
 * each holding the counters and rates the "store" list of its "stick-table" line names,
 * and the tracking slots (sc0..sc2) that streams and front connections fill with entries.
 * Concurrency and memory rules are in the header comment of src/stream/stktable.c.
 */
#ifndef STREAM_STKTABLE_T_H
#define STREAM_STKTABLE_T_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <base/compiler.h>
#include <base/list.h>

struct proxy;
struct acl_cond;
struct sample_expr;

#define STK_SHARDS 64	     /* lock shards of a table; the key's hash picks one */
#define STK_MAX_CTR 3	     /* tracking slots sc0..sc2 (HAProxy's MAX_SESS_STKCTR) */
#define STK_MAX_STORE 8	     /* "stick store-*" keys a stream keeps until the response */
#define STK_MAX_ARRAY 100    /* largest N of gpc(N), gpt(N), gpc_rate(N,P) */
#define STK_MAX_KEYLEN 65535 /* largest "len" of string and binary keys */

/* Key types ("type" of a stick-table line). */
enum stk_key_type {
	STK_KEY_IP = 0, /* IPv4 address, 4 bytes */
	STK_KEY_IPV6,	/* IPv6 address, 16 bytes (IPv4 is mapped) */
	STK_KEY_INT,	/* 32-bit signed integer, 4 bytes */
	STK_KEY_STR,	/* string truncated to "len" bytes (default 32) */
	STK_KEY_BIN,	/* bytes, zero-padded or truncated to "len" (default 32) */
	STK_KEY_TYPES
};

/* Stored data types, in HAProxy's order (the order "show table" prints them in). */
enum stk_dt {
	STK_DT_SERVER_ID = 0, /* the server a "stick" rule stored (its id) */
	STK_DT_GPT0,	      /* general purpose tag 0 */
	STK_DT_GPC0,	      /* general purpose counter 0 */
	STK_DT_GPC0_RATE,
	STK_DT_CONN_CNT, /* trackings started (connections or requests) */
	STK_DT_CONN_RATE,
	STK_DT_CONN_CUR, /* trackings in progress */
	STK_DT_SESS_CNT, /* sessions accepted while tracked at connection level */
	STK_DT_SESS_RATE,
	STK_DT_HTTP_REQ_CNT, /* HTTP requests */
	STK_DT_HTTP_REQ_RATE,
	STK_DT_HTTP_ERR_CNT, /* 4xx from servers, denied and invalid requests */
	STK_DT_HTTP_ERR_RATE,
	STK_DT_BYTES_IN_CNT, /* bytes from the client */
	STK_DT_BYTES_IN_RATE,
	STK_DT_BYTES_OUT_CNT, /* bytes to the client */
	STK_DT_BYTES_OUT_RATE,
	STK_DT_GPC1, /* general purpose counter 1 */
	STK_DT_GPC1_RATE,
	STK_DT_SERVER_KEY,    /* the name of the server a "stick" rule stored */
	STK_DT_HTTP_FAIL_CNT, /* 5xx from servers (not 501, 505) and invalid responses */
	STK_DT_HTTP_FAIL_RATE,
	STK_DT_GPT,	 /* array gpt(N) */
	STK_DT_GPC,	 /* array gpc(N) */
	STK_DT_GPC_RATE, /* array gpc_rate(N,P) */
	STK_DT_TYPES
};

/* How a data type is stored. */
enum stk_std {
	STK_STD_SINT = 0, /* int32_t */
	STK_STD_UINT,	  /* uint32_t, wrapping as HAProxy's */
	STK_STD_ULL,	  /* uint64_t */
	STK_STD_RATE,	  /* struct stk_rate */
	STK_STD_PTR,	  /* const char * (server_key: a server's name) */
};

#define STK_DT_NONE 0xffffu /* stktable.data_ofs[] of a type that is not stored */

/* An event rate over a period of P ms, with HAProxy's sliding window: the count of the
 * current period plus the count of the previous one weighted by the share of the window
 * that still covers it. Read and written under the entry's shard lock. */
struct stk_rate {
	uint64_t tick; /* ms, start of the current period; 0: no event yet */
	uint32_t curr; /* events in the current period */
	uint32_t prev; /* events in the period before it */
};

/* An entry. Lives in one shard (its key's hash decides), in a bucket chain, and in the
 * shard's LRU list while nobody holds it. Key and data follow the header. */
struct stksess {
	struct stksess *hnext; /* next entry of the same bucket */
	struct list lru;       /* in the shard's LRU list while ref == 0, else empty */
	uint64_t touch;	       /* ms of the last write: it expires at touch + expire */
	uint64_t hash;	       /* of the key: its shard and its bucket */
	uint32_t ref;	       /* holders (trackers, stores, readers): while > 0 it is neither
				* evicted nor expired */
	uint32_t klen;	       /* bytes of the key (strings: up to the table's len) */
	unsigned char kd[];    /* the key (key_size bytes, 8-aligned room), then the data */
};

/* A lock shard: entries whose hash falls here, their hash chains and their LRU order. */
struct stk_shard {
	pthread_spinlock_t lock; /* held for a few instructions: no allocation, no I/O */
	uint32_t nbuckets;	 /* power of two; 0 before the first entry */
	uint32_t count;		 /* entries of the shard */
	struct stksess **buckets;
	struct list lru; /* unreferenced entries, most recently touched first */
	uint64_t oldest; /* touch of the LRU tail, UINT64_MAX when empty; written under
			  * the lock, read without it to pick a shard to evict from */
} ALIGNED_CL;

struct stktable {
	struct stktable *next; /* every table, the latest declared first */
	char *id;	       /* its name: the proxy's */
	char *file;	       /* declaration */
	int line;
	struct proxy *px;  /* the proxy that declared it */
	uint8_t type;	   /* enum stk_key_type */
	uint8_t nopurge;   /* full: refuse new entries instead of evicting the oldest */
	uint32_t key_size; /* bytes of a key (strings and binaries: "len") */
	uint32_t size;	   /* most entries */
	int expire;	   /* ms after the last write, 0: entries never expire */
	uint16_t data_ofs[STK_DT_TYPES];    /* offset of each stored type in the data area */
	uint32_t data_nb[STK_DT_TYPES];	    /* elements of the array types (1 for the others) */
	uint32_t data_period[STK_DT_TYPES]; /* ms period of the rate types */
	uint32_t data_off0;		    /* offset of the data area in kd[] */
	uint32_t ent_size;		    /* allocation size of an entry */
	uint64_t seed[2];		    /* hash key (random per process) */
	int current;			    /* entries (atomic) */
	uint64_t next_purge;		    /* ms of the next purge of expired entries (atomic) */
	struct stk_shard *shards;	    /* STK_SHARDS shards, allocated by stktable_init() */
};

/* A key made from a sample or a CLI word, ready for lookups. <ptr> points to <buf> or to
 * the sample's bytes; zero-padding of binary keys is done by the lookup. */
struct stk_key {
	const unsigned char *ptr;
	uint32_t len;
	unsigned char buf[16];
};

/* stk_ctr->flags */
#define STK_CTR_BACKEND 0x01 /* tracked by the backend's "tcp-request content" rules */

/* One tracking slot: an entry held (one reference) and its table. */
struct stk_ctr {
	struct stktable *t; /* NULL: slot unused */
	struct stksess *ts;
	uint8_t flags; /* STK_CTR_* */
};

/* What a stream or a front connection (its session) tracks, allocated on the first use.
 * Owned by the thread of the stream or connection. */
struct stk_trk {
	struct stk_ctr ctr[STK_MAX_CTR];
	uint8_t nb_store; /* streams: pending "stick store-*" entries */
	struct {
		struct stktable *t;
		struct stksess *ts; /* detached entry (in no table yet) holding the key */
	} store[STK_MAX_STORE];
};

/* stick_rule->flags */
#define STK_RULE_MATCH 0x01 /* "stick match" (and "on"): the stored server is used */
#define STK_RULE_STORE 0x02 /* "stick store-*" (and "on"): the server is stored */

/* One "stick on|match|store-request|store-response PATTERN [table T] [if COND]". */
struct stick_rule {
	struct list list; /* in proxy->stick_rules or proxy->store_rules */
	uint8_t flags;	  /* STK_RULE_* */
	struct sample_expr *expr;
	struct acl_cond *cond; /* NULL: always */
	char *table_name;      /* "table T", or NULL for the proxy's own (owned) */
	struct stktable *t;    /* resolved at check time */
	char *file;
	int line;
};

#endif
