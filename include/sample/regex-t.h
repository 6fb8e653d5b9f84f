/* Types of the regex layer (src/sample/regex.c): the opaque compiled regex, its compile
 * flags and the offsets a match reports. Only types: no prototypes.
 */
#ifndef SAMPLE_REGEX_T_H
#define SAMPLE_REGEX_T_H

#include <stdint.h>

struct regex; /* opaque, defined in src/sample/regex.c */

/* Groups a match reports: \0 (the whole match) to \9. */
#define REGEX_MAX_MATCH 10

/* regex_comp() flags */
#define REGEX_ICASE 0x00000001U /* case-insensitive ("-i", regsub's "i") */
#define REGEX_NOSUB 0x00000002U /* no captures: plain groups do not capture ("-m reg") */
#define REGEX_NOJIT 0x00000004U /* never JIT-compile (tests: the interpreter is the reference) */

/* Offsets of a group in the subject; both are -1 when the group did not take part. */
struct regex_match {
	int so; /* first byte */
	int eo; /* one past the last byte */
};

#endif
