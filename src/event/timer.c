/* Per-thread lazy timers: a binary min-heap of deadlines. Owners move their deadline later
 * with a plain store (timer_set on a later value does not touch the heap); when the heap
 * entry comes due, the real deadline is checked and the entry re-queued if it moved.
 */
#include <stdlib.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <event/timer.h>

static void heap_swap(struct timer **h, uint32_t a, uint32_t b)
{
	struct timer *t = h[a];

	h[a] = h[b];
	h[b] = t;
	h[a]->idx = a;
	h[b]->idx = b;
}

static void heap_up(struct timer **h, uint32_t i)
{
	while (i) {
		uint32_t p = (i - 1) / 2;

		if (h[p]->queued <= h[i]->queued)
			break;
		heap_swap(h, p, i);
		i = p;
	}
}

static void heap_down(struct timer **h, uint32_t len, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < len && h[l]->queued < h[m]->queued)
			m = l;
		if (r < len && h[r]->queued < h[m]->queued)
			m = r;
		if (m == i)
			break;
		heap_swap(h, i, m);
		i = m;
	}
}

static void heap_remove(struct thread_ctx *tc, struct timer *t)
{
	uint32_t i = t->idx;

	tc->heap_len--;
	if (i != tc->heap_len) {
		tc->heap[i] = tc->heap[tc->heap_len];
		tc->heap[i]->idx = i;
		heap_down(tc->heap, tc->heap_len, i);
		heap_up(tc->heap, i);
	}
	t->queued = 0;
}

/* Queues <t> at <t->expire>. On allocation failure the timer stays unqueued and is
 * retried by the next timer_set (the owner's other deadlines still protect it). */
static void heap_insert(struct thread_ctx *tc, struct timer *t)
{
	if (tc->heap_len == tc->heap_cap) {
		uint32_t cap = tc->heap_cap ? tc->heap_cap * 2 : 256;
		struct timer **nh = realloc(tc->heap, cap * sizeof(*nh));

		if (!nh)
			return;
		tc->heap = nh;
		tc->heap_cap = cap;
	}
	t->queued = t->expire;
	t->idx = tc->heap_len;
	tc->heap[tc->heap_len++] = t;
	heap_up(tc->heap, t->idx);
}

void timer_queue(struct timer *t)
{
	struct thread_ctx *tc = th_ctx;

	if (t->queued)
		heap_remove(tc, t);
	heap_insert(tc, t);
}

void timer_del(struct timer *t)
{
	t->expire = 0;
	if (t->queued)
		heap_remove(th_ctx, t);
}

/* Runs the callbacks of due timers. Returns the delay in ms until the next deadline,
 * or -1 when none is queued. */
int timer_run(void)
{
	struct thread_ctx *tc = th_ctx;
	uint64_t now = tc->now_ms;

	while (tc->heap_len) {
		struct timer *t = tc->heap[0];

		if (t->queued > now) {
			uint64_t d = t->queued - now;

			return d > 60000 ? 60000 : (int)d;
		}
		heap_remove(tc, t);
		if (!t->expire)
			continue;
		if (t->expire > now) {
			heap_insert(tc, t);
			continue;
		}
		if (unlikely(tc->prof)) { /* measured: lateness is the wake-to-run latency */
			uint64_t expire = t->expire;

			t->expire = 0;
			prof_run_timer(t, expire);
			continue;
		}
		t->expire = 0;
		t->cb(t);
	}
	return -1;
}
