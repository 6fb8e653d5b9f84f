/* Type of a backend's per-group queue of streams waiting for a server slot: the streams
 * that set no priority in a list in arrival order, those that set one in a tree in key
 * order (backend.c). */
#ifndef BACKEND_QUEUE_T_H
#define BACKEND_QUEUE_T_H

#include <pthread.h>
#include <stdint.h>
#include <base/compiler.h>
#include <base/list.h>
#include <base/rbtree-t.h>

/* Shared by the threads of one group: the lock is taken only when every usable server is
 * full (enqueue, dequeue on a released slot, expiry), never on the plain request path. */
struct px_queue {
	pthread_mutex_t lock;
	struct list head;         /* struct stream without a priority, FIFO (so in key order) */
	struct rb_tree prio;      /* struct stream with a priority class or offset, by key */
	int len;                  /* streams in both (written under lock, read relaxed) */
	uint64_t head_key;        /* smallest key queued, QKEY_NONE when empty (written under
				   * lock, read relaxed by other groups' dequeuers to compare
				   * their heads without taking every lock) */
} ALIGNED_CL;

/* stream->queue_key: the class + 2047 in the top 12 bits, then the ms date of entering the
 * queue plus the offset, biased by QKEY_BIAS to stay positive: smaller is served first. */
#define QKEY_CLASS_SHIFT 52
#define QKEY_BIAS        (1ULL << 20)
#define QKEY_NONE        UINT64_MAX

#endif
