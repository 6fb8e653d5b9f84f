/* Traffic counters: allocation of the per-group blocks, updates from the calling thread's
 * group (relaxed atomics: the threads of one group share a block), and sums for readers.
 */
#ifndef STATS_COUNTERS_H
#define STATS_COUNTERS_H

#include <base/atomic.h>
#include <base/tinfo.h>
#include <stats/counters-t.h>

struct proxy;
struct server;
struct listener;

extern int counters_ngroups;                /* blocks per object */
extern struct thread_activity activity[MAX_THREADS];

/* The calling thread's block of a per-group array. */
#define CNT_GRP(blocks) (&(blocks)[tgid - 1])
#define CNT_INC(blocks, field) HA_COUNTER_INC(&CNT_GRP(blocks)->field)
#define CNT_ADD(blocks, field, v) HA_COUNTER_ADD(&CNT_GRP(blocks)->field, (v))

/* Allocates <ngroups> zeroed blocks for every proxy, server and listener (before threads
 * start). Returns 0 or -1. */
int counters_alloc(int ngroups);
void counters_free(void);
/* One zeroed, cache-aligned block of <size> bytes per thread group (the counters of a
 * server added at run time), or NULL. Freed with free(). */
void *counters_blocks_new(size_t size);

/* Sums <n> blocks of a counters struct made only of uint64_t fields into <out>. */
void counters_sum(const void *blocks, size_t size, int n, void *out);

static inline void fe_counters_sum(const struct fe_counters *b, struct fe_counters *out)
{
	counters_sum(b, sizeof(*b), counters_ngroups, out);
}

static inline void be_counters_sum(const struct be_counters *b, struct be_counters *out)
{
	counters_sum(b, sizeof(*b), counters_ngroups, out);
}

static inline void li_counters_sum(const struct li_counters *b, struct li_counters *out)
{
	counters_sum(b, sizeof(*b), counters_ngroups, out);
}

/* Response class index of <status>: 1..5 for 1xx..5xx, 0 otherwise. */
static inline int status_class(int status)
{
	return (status >= 100 && status < 600) ? status / 100 : 0;
}

#endif
