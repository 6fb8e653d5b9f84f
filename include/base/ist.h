/* String views: (ptr, len) pairs pointing into someone else's memory. Never own memory;
 * the owner of the bytes must outlive the view.
 */
#ifndef BASE_IST_H
#define BASE_IST_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

struct ist {
	const char *ptr;
	size_t len;
};

#define IST(str) ((struct ist){ (str), sizeof(str) - 1 })

static inline struct ist ist2(const void *ptr, size_t len)
{
	return (struct ist){ (const char *)ptr, len };
}

static inline struct ist ist_str(const char *s)
{
	return (struct ist){ s, s ? strlen(s) : 0 };
}

static inline bool ist_eq(struct ist a, struct ist b)
{
	return a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
}

/* Case-insensitive equality (header names, tokens). */
static inline bool ist_ieq(struct ist a, struct ist b)
{
	return a.len == b.len && strncasecmp(a.ptr, b.ptr, a.len) == 0;
}

static inline bool ist_istarts(struct ist a, struct ist prefix)
{
	return a.len >= prefix.len && strncasecmp(a.ptr, prefix.ptr, prefix.len) == 0;
}

#endif
