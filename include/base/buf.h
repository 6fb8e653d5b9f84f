/* Buffer helpers. Buffers take their storage from the per-thread "buffer" pool on demand
 * and give it back when empty, so that an idle connection holds none. b_get() returns -1
 * when memory is exhausted.
 */
#ifndef BASE_BUF_H
#define BASE_BUF_H

#include <stdbool.h>
#include <string.h>
#include <base/buf-t.h>
#include <base/compiler.h>
#include <base/pool.h>

extern struct pool_head pool_buffer;
extern uint32_t global_bufsize;   /* tune.bufsize, set before threads start */

void buf_pool_setup(uint32_t bufsize);

static inline char *b_head(const struct buf *b)
{
	return b->area + b->head;
}

static inline char *b_tail(const struct buf *b)
{
	return b->area + b->head + b->data;
}

/* Room after the data, without moving it. */
static inline uint32_t b_room(const struct buf *b)
{
	return b->size - b->head - b->data;
}

static inline bool b_is_null(const struct buf *b)
{
	return b->area == NULL;
}

/* Attaches storage if none; returns 0 or -1 on memory shortage. */
static inline int b_get(struct buf *b)
{
	if (likely(b->area))
		return 0;
	b->area = pool_alloc(&pool_buffer);
	if (unlikely(!b->area))
		return -1;
	b->size = global_bufsize;
	b->head = b->data = 0;
	return 0;
}

/* Gives storage back if the buffer is empty. */
static inline void b_release_if_empty(struct buf *b)
{
	if (b->area && !b->data) {
		pool_free(&pool_buffer, b->area);
		b->area = NULL;
		b->head = 0;
	}
}

static inline void b_release(struct buf *b)
{
	if (b->area) {
		pool_free(&pool_buffer, b->area);
		b->area = NULL;
	}
	b->head = b->data = 0;
}

/* Consumes <n> bytes from the front. */
static inline void b_del(struct buf *b, uint32_t n)
{
	b->head += n;
	b->data -= n;
	if (!b->data)
		b->head = 0;
}

/* Moves data to the start of the area to maximise b_room(). */
static inline void b_realign(struct buf *b)
{
	if (b->head && b->data)
		memmove(b->area, b->area + b->head, b->data);
	b->head = 0;
}

/* Appends <len> bytes; returns 0, or -1 if they do not fit (nothing written). */
static inline int b_putblk(struct buf *b, const void *blk, uint32_t len)
{
	if (b_room(b) < len) {
		b_realign(b);
		if (b_room(b) < len)
			return -1;
	}
	memcpy(b_tail(b), blk, len);
	b->data += len;
	return 0;
}

#endif
