/* Soft-stop pacing: whether a front connection may be closed now during a graceful stop
 * ("close-spread-time": closes spread over a window from the start of the soft stop,
 * "infinite": never closed by the stop). Read on the stopping path only.
 */
#ifndef EVENT_STOP_H
#define EVENT_STOP_H

#include <stdbool.h>
#include <stdint.h>

#include <base/atomic.h>
#include <event/loop.h>
#include <proc/global-t.h>

#define CLOSE_SPREAD_INFINITE (-1) /* global.close_spread_time: never close on stop */

/* True when the connection (or exchange) identified by <key> may be closed by the soft
 * stop now: always without "close-spread-time"; never with "infinite"; else once the
 * time since the soft stop started passes the key's own slot in the window (a hash of
 * the key spreads the slots evenly), every one of them at the end of the window.
 */
static inline bool stop_close_due(uintptr_t key)
{
	int win = global.close_spread_time;
	uint64_t start, now = now_ms();
	uint64_t slot;

	if (!win)
		return true;
	if (win < 0)
		return false;
	start = HA_ATOMIC_LOAD_RLX(&global.stop_start_ms);
	if (now < start)
		return false;
	if (now - start >= (uint64_t)win)
		return true;
	slot = ((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 33;
	return slot % (uint64_t)win < now - start;
}

#endif
