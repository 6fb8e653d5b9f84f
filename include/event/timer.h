/* Timer heap internals used by the loop. Owners use timer_set/timer_del (event/loop.h). */
#ifndef EVENT_TIMER_H
#define EVENT_TIMER_H

/* Runs due timers; returns ms until the next one, or -1 if none. Loop thread only. */
int timer_run(void);

#endif
