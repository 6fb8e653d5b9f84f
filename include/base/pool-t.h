/* Types of the typed object pools: one pool per object type, a free-list cache per thread. */
#ifndef BASE_POOL_T_H
#define BASE_POOL_T_H

#include <stddef.h>
#include <stdint.h>
#include <base/compiler.h>
#include <base/tinfo.h>

struct pool_item {
	struct pool_item *next;
};

/* Per-thread cache: only touched by its thread, so no synchronisation. */
struct pool_cache {
	struct pool_item *free;   /* singly linked free objects */
	unsigned int count;       /* objects in <free> */
	unsigned int used;        /* objects handed out and not returned by this thread */
	unsigned long allocated;  /* objects obtained from malloc by this thread */
	unsigned long misses;     /* allocations the cache could not serve (slow path) */
	unsigned long gc_misses;  /* <misses> at the last pool_gc_thread() */
	unsigned long failed;     /* system allocations that failed ("show pools") */
} ALIGNED_CL;

/* A pool's usage summed over the threads' caches, for "show pools" (pool_stats()). */
struct pool_stats {
	unsigned long allocated;  /* objects obtained from the system and not given back */
	unsigned long used;       /* objects handed out */
	unsigned long cached;     /* objects idle in the threads' caches */
	unsigned long failed;     /* failed system allocations */
};

struct pool_head {
	const char *name;
	size_t size;
	unsigned int max_cached;   /* per thread; beyond it objects go back to the system */
	struct pool_head *next;    /* all pools, for "show pools" */
	struct pool_cache cache[MAX_THREADS];
};

#endif
