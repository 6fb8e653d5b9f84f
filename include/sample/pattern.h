/* Patterns (pattern.c): parsing one pattern for a match method, the sets that hold them,
 * loading pattern files, and matching a sample against a set. Sets are built at config
 * time and read-only afterwards; matching allocates nothing and takes no lock.
 */
#ifndef SAMPLE_PATTERN_H
#define SAMPLE_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <sample/pattern-t.h>
#include <sample/sample-t.h>

/* "-m NAME" to PAT_MATCH_*, or -1. */
int pat_match_by_name(const char *name);
const char *pat_match_name(int match);
/* The sample type a method compares (SMP_T_STR for strings, SMP_T_SINT, SMP_T_ADDR...). */
int pat_match_type(int match);

void pat_set_init(struct pat_set *ps, int match, unsigned flags);
void pat_set_free(struct pat_set *ps);

/* Integer operators of ACL lines ("eq", "ge", "gt", "le", "lt"). */
enum pat_int_op {
	PAT_OP_NONE = 0,
	PAT_OP_EQ,
	PAT_OP_GE,
	PAT_OP_GT,
	PAT_OP_LE,
	PAT_OP_LT,
};
int pat_int_op_by_name(const char *word);

/* Parses <text> as a pattern of the set's method (with the integer operator <op>) and
 * adds it with <value>. Returns 0, or -1 with a message in err. Config time. */
int pat_set_add(struct pat_set *ps, const char *text, int op, void *value, char *err,
		size_t errsz);
/* Adds every line of file <path> (trimmed; '#' comments and empty lines skipped).
 * Returns the number of patterns added, or -1 with "file:line: message" in err. */
int pat_set_load_file(struct pat_set *ps, const char *path, char *err, size_t errsz);
/* The same with a map file ("-M"): only the first word of each line is a pattern. */
int pat_set_load_map_keys(struct pat_set *ps, const char *path, char *err, size_t errsz);
/* Calls <fn> with each non-comment line of <path> (trimmed, NUL-terminated, writable)
 * and its number; stops at the first -1 from <fn>. Returns the number of lines given, or
 * -1 with a message in err (fn's own message is prefixed by "path:line: "). */
int pat_read_lines(const char *path, int (*fn)(char *line, int lineno, void *arg, char *err,
					       size_t errsz),
		   void *arg, char *err, size_t errsz);

/* Returns the first pattern (in insertion order for scanned methods, the longest for
 * indexed prefixes and networks) that <smp> matches, or NULL. <smp> is cast to the
 * method's type in place when needed. Any thread. */
struct pattern *pat_match(const struct pat_set *ps, struct sample *smp);

/* One pattern of a scanned method against <smp>, already cast to the method's type. */
bool pat_test_one(const struct pat_set *ps, const struct pattern *p, const struct sample *smp);

/* map_regm: the match's groups for the value's \N references. */
struct regex_match;
struct pattern *pat_match_regm(const struct pat_set *ps, struct sample *smp,
			       struct regex_match *m, int nmatch);

#endif
