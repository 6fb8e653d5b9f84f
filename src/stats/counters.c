/* Per-group counter blocks: allocation for every proxy, server and listener, and sums.
 * Blocks are written with relaxed atomics by the threads of their group; a reader's sum is
 * a snapshot that may be a few updates behind, never torn per field.
 */
#include <stdlib.h>
#include <string.h>
#include <backend/server-t.h>
#include <conn/listener-t.h>
#include <proxy/proxy.h>
#include <stats/counters.h>

int counters_ngroups = 1;
struct thread_activity activity[MAX_THREADS];

static void *blocks_new(size_t size, int n)
{
	void *p = aligned_alloc(CACHELINE, size * (size_t)n);

	if (p)
		memset(p, 0, size * (size_t)n);
	return p;
}

void *counters_blocks_new(size_t size)
{
	return blocks_new(size, counters_ngroups);
}

int counters_alloc(int ngroups)
{
	struct proxy *px;

	counters_ngroups = ngroups;
	for (px = proxies; px; px = px->next) {
		struct bind_conf *bc;
		struct listener *li;

		px->fe_cnt = blocks_new(sizeof(struct fe_counters), ngroups);
		px->be_cnt = blocks_new(sizeof(struct be_counters), ngroups);
		if (!px->fe_cnt || !px->be_cnt)
			return -1;
		for (struct server *s = px->srv; s; s = s->next)
			if (!(s->cnt = blocks_new(sizeof(struct be_counters), ngroups)))
				return -1;
		if (px->dispatch && /* counted, never shown */
		    !(px->dispatch->cnt = blocks_new(sizeof(struct be_counters), ngroups)))
			return -1;
		list_for_each_entry(bc, &px->binds, list)
			list_for_each_entry(li, &bc->listeners, list)
				if (!(li->cnt = blocks_new(sizeof(struct li_counters), ngroups)))
					return -1;
	}
	return 0;
}

void counters_free(void)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		struct bind_conf *bc;
		struct listener *li;

		free(px->fe_cnt);
		free(px->be_cnt);
		px->fe_cnt = NULL;
		px->be_cnt = NULL;
		for (struct server *s = px->srv; s; s = s->next) {
			free(s->cnt);
			s->cnt = NULL;
		}
		if (px->dispatch) {
			free(px->dispatch->cnt);
			px->dispatch->cnt = NULL;
		}
		list_for_each_entry(bc, &px->binds, list)
			list_for_each_entry(li, &bc->listeners, list) {
				free(li->cnt);
				li->cnt = NULL;
			}
	}
}

void counters_sum(const void *blocks, size_t size, int n, void *out)
{
	const uint64_t *src = blocks;
	uint64_t *dst = out;
	size_t words = size / sizeof(uint64_t);

	memset(out, 0, size);
	for (int g = 0; g < n; g++, src += words)
		for (size_t i = 0; i < words; i++)
			dst[i] += HA_ATOMIC_LOAD_RLX(&src[i]);
}
