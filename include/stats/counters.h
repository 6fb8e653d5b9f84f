/* Traffic counters: allocation of the per-group blocks, updates from the calling thread's
 * group (relaxed atomics: the threads of one group share a block), and sums for readers.
 */
#ifndef STATS_COUNTERS_H
#define STATS_COUNTERS_H

#include <stdbool.h>
#include <base/atomic.h>
#include <base/tinfo.h>
#include <stats/counters-t.h>
#include <stats/stat_time-t.h>

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

/* Sums the blocks, except the timing maxima: the largest of the groups'. */
static inline void be_counters_sum(const struct be_counters *b, struct be_counters *out)
{
	counters_sum(b, sizeof(*b), counters_ngroups, out);
	for (int i = 0; i < 4; i++) {
		out->t_max[i] = 0;
		for (int g = 0; g < counters_ngroups; g++) {
			uint64_t v = HA_ATOMIC_LOAD_RLX(&b[g].t_max[i]);

			out->t_max[i] = v > out->t_max[i] ? v : out->t_max[i];
		}
	}
}

/* Raises the timing maximum <i> of block <b> to <v>. A CAS loop: threads of one group
 * may raise the same maximum at once; a failed CAS reloads the current value, so the loop
 * ends once it is >= v. Inline so that the stream's slow path calls nothing outside. */
static inline void counters_raise_max(struct be_counters *b, int i, uint64_t v)
{
	uint64_t *p = &b->t_max[i];
	uint64_t cur = HA_ATOMIC_LOAD_RLX(p);

	while (cur < v &&
	       !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Adds the <r>esponse and <t>otal times (ms) of one exchange to the calling thread's
 * block <b> (stream end, on the request path: two relaxed adds). The queue and connect
 * times are added apart (stat_time_add_max), when they are not 0. */
static inline void stat_time_add(struct be_counters *b, uint64_t r, uint64_t t)
{
	HA_COUNTER_ADD(&b->t_sum[STAT_T_RESPONSE], r);
	HA_COUNTER_ADD(&b->t_sum[STAT_T_TOTAL], t);
}

/* Whether <r> or <t> exceeds its maximum in <b> (then call stat_time_raise). */
static inline bool stat_time_new_max(const struct be_counters *b, uint64_t r, uint64_t t)
{
	return r > HA_ATOMIC_LOAD_RLX(&b->t_max[STAT_T_RESPONSE]) ||
	       t > HA_ATOMIC_LOAD_RLX(&b->t_max[STAT_T_TOTAL]);
}

/* Raises the response and total maxima of <b> to <r> and <t> where they are lower. */
static inline void stat_time_raise(struct be_counters *b, uint64_t r, uint64_t t)
{
	if (r > HA_ATOMIC_LOAD_RLX(&b->t_max[STAT_T_RESPONSE]))
		counters_raise_max(b, STAT_T_RESPONSE, r);
	if (t > HA_ATOMIC_LOAD_RLX(&b->t_max[STAT_T_TOTAL]))
		counters_raise_max(b, STAT_T_TOTAL, t);
}

/* Adds <v> ms to the timing <i> of block <b> and raises its maximum (off the common path:
 * queue times, and the connect times of new connections). */
static inline void stat_time_add_max(struct be_counters *b, int i, uint64_t v)
{
	HA_COUNTER_ADD(&b->t_sum[i], v);
	if (v > HA_ATOMIC_LOAD_RLX(&b->t_max[i]))
		counters_raise_max(b, i, v);
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
