/* Event rates over a sliding second, shared by every thread (maxconnrate, maxsessrate,
 * rate-limit sessions). The current second and its count live in one 64-bit word, so an
 * event is one CAS in the common case; the count of the previous second weighs in for
 * the part of the window that still covers it. Any thread; lock-free. Times are the
 * threads' monotonic milliseconds (they share one clock source).
 */
#ifndef BASE_FREQ_CTR_H
#define BASE_FREQ_CTR_H

#include <stdint.h>
#include <base/atomic.h>
#include <base/freq_ctr-t.h>

/* Counts one event at <now_ms>. */
static inline void freq_ctr_inc(struct freq_ctr *f, uint64_t now_ms)
{
	uint64_t sec = now_ms / 1000, old = HA_ATOMIC_LOAD_RLX(&f->cur), nv;

	do {
		uint64_t osec = old >> 32;

		if (osec == sec)
			nv = old + 1;
		else if (osec < sec)
			nv = (sec << 32) | 1;
		else
			return; /* another thread's clock is a little ahead: count it there */
	} while (!HA_ATOMIC_CAS(&f->cur, &old, nv));
	if ((old >> 32) != sec) /* this thread opened the new second */
		HA_ATOMIC_STORE_RLX(&f->prev, (old >> 32) + 1 == sec ? (uint32_t)old : 0);
}

/* Counts <n> events at <now_ms> at once (bytes through a compressor, say); the count of a
 * second stops at 2^32 - 1. */
static inline void freq_ctr_add(struct freq_ctr *f, uint64_t now_ms, uint32_t n)
{
	uint64_t sec = now_ms / 1000, old = HA_ATOMIC_LOAD_RLX(&f->cur), nv;

	do {
		uint64_t osec = old >> 32;
		uint32_t cnt = (uint32_t)old;

		if (osec == sec)
			nv = (sec << 32) | (cnt > UINT32_MAX - n ? UINT32_MAX : cnt + n);
		else if (osec < sec)
			nv = (sec << 32) | n;
		else
			return; /* another thread's clock is a little ahead: count it there */
	} while (!HA_ATOMIC_CAS(&f->cur, &old, nv));
	if ((old >> 32) != sec)
		HA_ATOMIC_STORE_RLX(&f->prev, (old >> 32) + 1 == sec ? (uint32_t)old : 0);
}

/* Events of the current second and of the previous one, as seen at <now_ms>. */
static inline void freq_ctr_read(const struct freq_ctr *f, uint64_t now_ms, uint32_t *cur,
				 uint32_t *prev)
{
	uint64_t sec = now_ms / 1000, c = HA_ATOMIC_LOAD_RLX(&f->cur);

	*cur = (c >> 32) >= sec ? (uint32_t)c : 0;
	*prev = (c >> 32) >= sec ? HA_ATOMIC_LOAD_RLX(&f->prev)
				 : (c >> 32) + 1 == sec ? (uint32_t)c : 0;
}

/* Events over the last second at <now_ms>: the current second's plus the previous one's
 * weighted by the share of the window it still covers. */
static inline uint32_t freq_ctr_rate(const struct freq_ctr *f, uint64_t now_ms)
{
	uint32_t cur, prev, in_sec = (uint32_t)(now_ms % 1000);

	freq_ctr_read(f, now_ms, &cur, &prev);
	return cur + (uint32_t)(((uint64_t)prev * (1000 - in_sec)) / 1000);
}

/* Milliseconds to wait at <now_ms> before one more event keeps the rate under <limit>
 * per second (limit > 0); 0 when it may happen now. */
static inline uint32_t freq_ctr_wait(const struct freq_ctr *f, uint32_t limit, uint64_t now_ms)
{
	uint32_t cur, prev, in_sec = (uint32_t)(now_ms % 1000);
	uint64_t room;

	freq_ctr_read(f, now_ms, &cur, &prev);
	if (cur >= limit)
		return 1000 - in_sec; /* the next second starts with an empty count */
	room = limit - cur;       /* prev * (1000 - t) / 1000 < room from t on */
	if ((uint64_t)prev * (1000 - in_sec) < room * 1000)
		return 0;
	return (uint32_t)(1000 - (room * 1000 - 1) / prev) - in_sec;
}

#endif
