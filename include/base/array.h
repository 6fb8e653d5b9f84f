/* Growable arrays built at config time (array.c). */
#ifndef BASE_ARRAY_H
#define BASE_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* Returns <arr> (of *cap elements of <size> bytes) grown by half, to hold at least <need>
 * elements (16 at first), updating *cap; NULL on failure (or beyond UINT32_MAX elements),
 * leaving <arr> and *cap as they were.
 */
void *array_grow(void *arr, uint32_t *cap, uint64_t need, size_t size);

#endif
