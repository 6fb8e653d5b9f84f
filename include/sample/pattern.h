/* Patterns (pattern.c): parsing one pattern for a match method, the sets that hold them,
 * loading pattern files, and matching a sample against a set. Sets are built at config
 * time; at run time one writer (the CLI, thread 0) adds and removes patterns in place while
 * matching goes on in every thread: matching allocates nothing and takes no lock, and what
 * a writer removes is freed after every thread passed a quiescent state (pat_retire).
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
int pat_set_add(struct pat_set *ps, const char *text, int op, void *value, char *err, size_t errsz);
/* pat_set_add returning the pattern, or NULL with a message in err (nothing changed). With
 * <live> (run time: one writer at a time, readers running), an indexed set whose tree is
 * full gets a larger copy, the old one retired (amortised O(1) per add).
 */
struct pattern *pat_set_add_ref(struct pat_set *ps, const char *text, int op, void *value,
				bool live, char *err, size_t errsz);
/* Takes <p> out of its set (readers may still hold it: the caller retires it with
 * pat_retire and frees it with pat_free_one after the grace period). */
void pat_set_del_live(struct pattern *p);
/* Frees one pattern taken out of its set (not its value). */
void pat_free_one(struct pattern *p);

/* Deferred frees. pat_retire_reserve() makes room for <n> more retired objects (0 or -1,
 * before changing anything); pat_retire() queues <ptr> for fn(ptr); pat_retire_close()
 * ends the current batch (a snapshot of the threads' quiescent counters); pat_reclaim()
 * frees the batches every thread has passed; pat_retire_flush() frees everything (exit,
 * tests: no reader may run). Writer only. */
int pat_retire_reserve(size_t n);
void pat_retire(void *ptr, void (*fn)(void *));
void pat_retire_close(void);
void pat_reclaim(void);
void pat_retire_flush(void);

/* Adds every line of file <path> (trimmed; '#' comments and empty lines skipped).
 * Returns the number of patterns added, or -1 with "file:line: message" in err. */
int pat_set_load_file(struct pat_set *ps, const char *path, char *err, size_t errsz);
/* The same with a map file ("-M"): only the first word of each line is a pattern. */
int pat_set_load_map_keys(struct pat_set *ps, const char *path, char *err, size_t errsz);
/* Calls <fn> with each non-comment line of <path> (trimmed, NUL-terminated, writable)
 * and its number; stops at the first -1 from <fn>. Returns the number of lines given, or
 * -1 with a message in err (fn's own message is prefixed by "path:line: "). */
int pat_read_lines(const char *path,
		   int (*fn)(char *line, int lineno, void *arg, char *err, size_t errsz), void *arg,
		   char *err, size_t errsz);

/* Returns the first pattern (in insertion order for scanned methods, the longest for
 * indexed prefixes and networks) that <smp> matches, or NULL. <smp> is cast to the
 * method's type in place when needed. Any thread. */
struct pattern *pat_match(const struct pat_set *ps, struct sample *smp);

/* One pattern of a scanned method against <smp>, already cast to the method's type. */
bool pat_test_one(const struct pat_set *ps, const struct pattern *p, const struct sample *smp);

/* map_regm: the match's groups for the value's \N references. */
struct regex_match;
struct pattern *pat_match_regm(const struct pat_set *ps, struct sample *smp, struct regex_match *m,
			       int nmatch);

#endif
