/* Compiler helpers shared by every layer: branch hints, BUG_ON, alignment, container_of.
 * Nothing here allocates or does I/O.
 */
#ifndef BASE_COMPILER_H
#define BASE_COMPILER_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define CACHELINE 64
#define ALIGNED_CL __attribute__((aligned(CACHELINE)))

#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Impossible state: always compiled, aborts with the location. Never used on input. */
#define BUG_ON(cond)                                                                   \
	do {                                                                           \
		if (unlikely(cond)) {                                                  \
			fprintf(stderr, "BUG at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                       \
		}                                                                      \
	} while (0)

#endif
