/* Growable arrays built at config time: one growth rule for the pattern trees and any
 * other index sized by what the configuration loads.
 */
#include <stdlib.h>

#include <base/array.h>

void *array_grow(void *arr, uint32_t *cap, uint64_t need, size_t size)
{
	uint64_t ncap = *cap + *cap / 2;
	void *p;

	if (need > UINT32_MAX)
		return NULL;
	if (ncap < need)
		ncap = need < 16 ? 16 : need;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	if (ncap > SIZE_MAX / size)
		return NULL;
	p = realloc(arr, (size_t)ncap * size);
	if (p)
		*cap = (uint32_t)ncap;
	return p;
}
