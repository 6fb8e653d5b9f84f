/* URI normalizers of "http-request normalize-uri" (http/uri_norm.c): pure functions over
 * (ptr, len) writing into a caller buffer. No I/O, no allocation, no globals.
 * Returns the output length, URI_NORM_ROOM when it does not fit in <outsz>, or
 * URI_NORM_INVALID for a malformed percent sequence when <strict> is asked.
 */
#ifndef HTTP_URI_NORM_H
#define HTTP_URI_NORM_H

#include <stdbool.h>
#include <stddef.h>

#define URI_NORM_ROOM (-1)
#define URI_NORM_INVALID (-2)

/* "//" becomes "/" in the path <in>. */
int uri_norm_merge_slashes(const char *in, size_t len, char *out, size_t outsz);

/* "." segments of the path <in> go ("/a/./b" gives "/a/b", "/." gives "/"). */
int uri_norm_strip_dot(const char *in, size_t len, char *out, size_t outsz);

/* ".." segments of the path <in> remove the segment before them ("/a/../b" gives "/b");
 * a leading ".." stays unless <full>. */
int uri_norm_strip_dotdot(const char *in, size_t len, bool full, char *out, size_t outsz);

/* %XX encoding an unreserved character (letters, digits, "-._~") is decoded. An invalid
 * sequence stays as is, or fails with URI_NORM_INVALID when <strict>. */
int uri_norm_pct_decode_unreserved(const char *in, size_t len, bool strict, char *out,
				   size_t outsz);

/* The hex digits of %xx sequences in upper case; invalid ones as above. */
int uri_norm_pct_upper(const char *in, size_t len, bool strict, char *out, size_t outsz);

/* The '&'-separated parameters of the query <in> (without '?') sorted by name, a stable
 * sort (same names keep their order). URI_NORM_ROOM beyond 256 parameters. */
int uri_norm_query_sort(const char *in, size_t len, char *out, size_t outsz);

/* What follows '#' is dropped. */
int uri_norm_fragment_strip(const char *in, size_t len, char *out, size_t outsz);

/* '#' becomes "%23". */
int uri_norm_fragment_encode(const char *in, size_t len, char *out, size_t outsz);

#endif
