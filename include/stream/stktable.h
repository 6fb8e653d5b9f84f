/* Stick tables (stktable.c): tables of counters keyed by addresses, integers or strings,
 * shared by every thread; entries created on first sight of a key, found by a keyed hash
 * in one of STK_SHARDS lock shards, held by references while streams track them, evicted
 * oldest-first when the table is full and freed when they expire. Times are the callers'
 * milliseconds (<now>): the functions are pure of any clock and usable from unit tests.
 * Functions returning int return 0 or -1 unless stated otherwise.
 */
#ifndef STREAM_STKTABLE_H
#define STREAM_STKTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sample/sample-t.h>
#include <stream/stktable-t.h>

/* How a data type takes its arguments in a "store" list. */
#define STK_ARG_NONE 0	    /* conn_cnt */
#define STK_ARG_PERIOD 1    /* http_req_rate(P) */
#define STK_ARG_NB 2	    /* gpc(N) */
#define STK_ARG_NB_PERIOD 3 /* gpc_rate(N,P) */

struct stk_dt_info {
	const char *name;
	uint8_t std; /* enum stk_std */
	uint8_t arg; /* STK_ARG_* */
};

extern const struct stk_dt_info stk_dt_info[STK_DT_TYPES];
extern struct stktable *stktables; /* every table, the latest declared first */

/* Bytes of one element of a type stored as <std> (enum stk_std). */
static inline size_t stk_std_size(int std)
{
	return std == STK_STD_RATE			    ? sizeof(struct stk_rate)
	       : (std == STK_STD_ULL || std == STK_STD_PTR) ? 8
							    : 4;
}

/* The data type named name[0..len), or -1. */
int stk_dt_find(const char *name, size_t len);
/* "ip", "ipv6", "integer", "string", "binary". */
const char *stk_key_type_name(int type);

/* ---- configuration (single-threaded, before the threads start) ---- */

/* A new table <id> of <px> declared at <file>:<line>: type ip, no size yet. NULL when out
 * of memory. Not registered. */
struct stktable *stktable_new(const char *id, const char *file, int line, struct proxy *px);
/* Stores data type <dt> with <nb> elements (arrays; 1 otherwise) and <period> ms (rates). */
void stktable_store(struct stktable *t, int dt, uint32_t nb, uint32_t period);
/* Lays entries out and allocates the shards; after every store. */
int stktable_init(struct stktable *t);
/* Adds <t> to the list of tables; the list owns it from then on. */
void stktable_register(struct stktable *t);
struct stktable *stktable_find(const char *id);
/* Frees a table and its entries (no thread may use it). */
void stktable_free(struct stktable *t);
/* Frees every registered table (exit, tests). */
void stktables_deinit(void);

/* stktable_cfg.c: check phase (stick rules find their tables, tables are laid out) and
 * the release of what a proxy owns (its stick rules and its table). */
int stktable_check_all(void);
void stick_rules_free(struct proxy *px);

/* ---- keys ---- */

/* Converts <smp> to a key of <t>'s type (casting the sample, truncating strings,
 * truncating binaries; shorter binaries are zero-padded by the lookups). Returns 1, or 0
 * when the sample cannot be a key of this table (an IPv6 address for "type ip"...). */
int stk_key_from_smp(const struct stktable *t, struct sample *smp, struct stk_key *k);
/* Parses a key from text as the CLI gives it; <buf> of bufsz bytes holds decoded binary
 * keys. Returns 0 or -1. */
int stk_key_parse(const struct stktable *t, const char *text, struct stk_key *k, unsigned char *buf,
		  size_t bufsz);
/* Writes the key of <ts> as "show table" prints it (NUL-terminated, truncated to sz). */
void stk_key_print(const struct stktable *t, const struct stksess *ts, char *out, size_t sz);

/* ---- entries: any thread ---- */

/* The entry of <k>, created when absent (evicting the oldest unused entries when the table
 * is full), with one reference held for the caller; NULL when the table is full of entries
 * in use (or "nopurge") or memory is short. */
struct stksess *stktable_get(struct stktable *t, const struct stk_key *k, uint64_t now);
/* The entry of <k> with one reference held, or NULL when absent or expired. */
struct stksess *stktable_lookup(struct stktable *t, const struct stk_key *k, uint64_t now);
/* Drops a reference; <touch> renews the entry's expiry (a write happened). */
void stktable_release(struct stktable *t, struct stksess *ts, bool touch, uint64_t now);
/* Reads data type <dt> (element <idx>) of the entry of <k> without creating it: 1 and *v
 * when the entry exists and stores it, 0 when the entry is absent (*v = 0), -1 when the
 * table does not store the type. */
int stktable_read_key(struct stktable *t, const struct stk_key *k, int dt, uint32_t idx,
		      uint64_t now, long long *v);
/* Calls <cb> under the shard's lock on the entry of <k> when it exists and has not expired
 * (<cb> may read it, not write it: a write must renew the expiry, which needs a reference
 * held); returns what <cb> returned, or 0 when there is no such entry. */
int stktable_with_key(struct stktable *t, const struct stk_key *k, uint64_t now,
		      int (*cb)(void *arg, struct stktable *t, struct stksess *ts), void *arg);
/* Removes the entry of <k>: 1 removed, 0 absent, -1 in use. */
int stktable_remove_key(struct stktable *t, const struct stk_key *k, uint64_t now);
/* Removes every unused entry <match> accepts (called under the shard's lock); returns
 * how many. */
int stktable_remove_if(struct stktable *t,
		       bool (*match)(void *arg, struct stktable *t, struct stksess *ts), void *arg);
/* Removes every unused entry; returns how many. */
int stktable_clear(struct stktable *t);
/* Frees the unused entries expired at <now>; returns how many. */
int stktable_purge(struct stktable *t, uint64_t now);
/* Entries of the table, and free places. */
int stktable_used(const struct stktable *t);

/* Detached entries: "stick store-*" keys kept by a stream until the server is known. */
struct stksess *stksess_new_detached(struct stktable *t, const struct stk_key *k);
void stksess_free_detached(struct stksess *ts);
/* Puts a detached entry in the table (or finds the entry already there for its key, then
 * frees <ts>); returns the table's entry with one reference held, or NULL (full). */
struct stksess *stktable_set_detached(struct stktable *t, struct stksess *ts, uint64_t now);

/* Walks the entries for dumps from cursor *pos (0 at the start), calling <cb> for each
 * under its shard's lock (<cb> may format text, not take locks or allocate); when <cb>
 * returns -1 the walk stops with *pos on that entry, where the next call starts again.
 * Returns 1 when stopped, 0 at the end. Entries are not held: a busy table may show one
 * twice or miss one that moved meanwhile. */
int stktable_walk(struct stktable *t, uint64_t *pos, int (*cb)(void *arg, struct stksess *ts),
		  void *arg);

/* ---- data: the caller holds the entry's lock (stksess_lock) ---- */

void stksess_lock(struct stktable *t, const struct stksess *ts);
void stksess_unlock(struct stktable *t, const struct stksess *ts);
/* Element <idx> of data type <dt> of <ts>, or NULL when not stored (idx out of range). */
void *stksess_data(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx);
/* Reads it as a number (a rate's events over its period at <now>); 1, or 0 when not
 * stored. Pointers (server_key) read as 0. */
int stksess_get(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx, uint64_t now,
		long long *v);
/* Counters and rates: adds <v> (events, bytes); tags and ids: sets <v>. 1, or 0. */
int stksess_add(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx, uint64_t v,
		uint64_t now);
int stksess_set(const struct stktable *t, struct stksess *ts, int dt, uint32_t idx, long long v,
		uint64_t now);
/* Renews the expiry of <ts> (a write). */
void stksess_touch(struct stktable *t, struct stksess *ts, uint64_t now);
/* Holders of <ts> (its "use" count). */
uint32_t stksess_refs(const struct stksess *ts);
/* ms before <ts> expires (0 when the table has no expire). */
int stksess_expires_in(const struct stktable *t, const struct stksess *ts, uint64_t now);

/* ---- rates (pure) ---- */

/* Counts <inc> events at <now> into a rate over <period> ms. */
void stk_rate_add(struct stk_rate *r, uint32_t period, uint64_t now, uint32_t inc);
/* Events over the last <period> ms at <now>, HAProxy's sliding-window estimate. */
uint32_t stk_rate_read(const struct stk_rate *r, uint32_t period, uint64_t now);

/* ---- maintenance ---- */

/* Arms the calling thread's purge timer (once); the owner of a write calls it. */
void stktable_purge_arm(void);

#endif
