/* Per-thread inboxes: how one thread hands work to another. Producers push lock-free
 * (a CAS on the inbox head); the owner takes the whole list at once, restores FIFO order
 * and runs each item's callback. An eventfd wakes the owner only when it may be asleep:
 * the first push after the owner last drained writes it, later pushes do not.
 */
#ifndef EVENT_INBOX_H
#define EVENT_INBOX_H

#include <event/loop-t.h>

struct inbox_item {
	struct inbox_item *next;
	void (*fn)(struct inbox_item *it);   /* run on the target thread */
};

/* Creates the calling thread's inbox and registers its eventfd. Returns 0 or -1. */
int inbox_init(void);
void inbox_deinit(void);

/* Hands <it> to thread <tid>'s loop. Any thread; never blocks. */
void inbox_push(int tid, struct inbox_item *it);

/* Runs every pending item of the calling thread's inbox; returns how many ran. */
int inbox_drain(void);

#endif
