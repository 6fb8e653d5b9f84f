/* Type of a backend's per-group queue of streams waiting for a server slot. */
#ifndef BACKEND_QUEUE_T_H
#define BACKEND_QUEUE_T_H

#include <pthread.h>
#include <base/compiler.h>
#include <base/list.h>

/* Shared by the threads of one group: the lock is taken only when every usable server is
 * full (enqueue, dequeue on a released slot, expiry), never on the plain request path. */
struct px_queue {
	pthread_mutex_t lock;
	struct list head;         /* struct stream, FIFO */
	int len;                  /* streams in <head> (written under lock, read relaxed) */
} ALIGNED_CL;

#endif
