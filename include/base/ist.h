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

/* ASCII lower case of one byte (HTTP names and tokens are ASCII; no locale). */
static inline unsigned char ist_lc(unsigned char c)
{
	return (unsigned char)(c - 'A') < 26 ? c | 0x20 : c;
}

/* Case-insensitive equality (header names, tokens), inline: names usually differ in
 * length, or match byte for byte but for the case of a few letters. */
static inline bool ist_ieq(struct ist a, struct ist b)
{
	if (a.len != b.len)
		return false;
	for (size_t i = 0; i < a.len; i++) {
		unsigned char x = (unsigned char)a.ptr[i], y = (unsigned char)b.ptr[i];

		if (x != y && ist_lc(x) != ist_lc(y))
			return false;
	}
	return true;
}

static inline bool ist_istarts(struct ist a, struct ist prefix)
{
	return a.len >= prefix.len && strncasecmp(a.ptr, prefix.ptr, prefix.len) == 0;
}

#endif
