/* PCRE2 regular expressions for the rules engine: compiled once at config time (with JIT
 * when built with USE_PCRE2_JIT), then shared read-only by every thread, each matching with
 * its own match data. Also HAProxy's replacement syntax (\0..\9, \xHH) and the regsub
 * converter's substitution. Returns: predicates bool; searches 1 / 0 / -1 (error);
 * writers the length written or -1. Without USE_PCRE2 every regex_comp() fails.
 */
#ifndef SAMPLE_REGEX_H
#define SAMPLE_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sample/regex-t.h>

/* Compiles <pattern> (NUL-terminated, PCRE2 syntax, bytes not UTF-8) with REGEX_* <flags>.
 * Returns the regex, or NULL with PCRE2's message and offset written into err[0..errsz)
 * (e.g. "missing closing parenthesis at offset 3"); <err> may be NULL. Config time only:
 * it allocates. A pattern that JIT cannot compile falls back to the interpreter.
 */
struct regex *regex_comp(const char *pattern, uint32_t flags, char *err, size_t errsz);

/* Frees <re> (NULL is fine). Config time / deinit only: no thread may be matching with it. */
void regex_free(struct regex *re);

/* The pattern's source text, as given to regex_comp(). */
const char *regex_pattern(const struct regex *re);

/* True if <re> runs as JIT code, false if through the interpreter. */
bool regex_jit(const struct regex *re);

/* Unanchored search of <re> in s[0..len) filling m[0..nmatch) (m[0] is the whole match,
 * groups that did not take part or beyond the pattern's are -1,-1; nmatch may exceed
 * REGEX_MAX_MATCH, extra groups are then -1). Returns 1 on a match, 0 if none, -1 if the
 * search could not run (no memory for this thread's match data, a PCRE2 match or depth
 * limit, the JIT stack, len > INT_MAX); <m> is then unspecified. Any thread.
 */
int regex_search(const struct regex *re, const char *s, size_t len, struct regex_match *m,
		 int nmatch);

/* Unanchored search like HAProxy's regex_exec() ("-m reg"): true if <re> matches somewhere
 * in s[0..len). An error counts as no match. Any thread.
 */
bool regex_exec(const struct regex *re, const char *s, size_t len);

/* regex_search() as a predicate: true on a match (m filled), false on none or an error. */
bool regex_exec_match(const struct regex *re, const char *s, size_t len, struct regex_match *m,
		      int nmatch);

/* Writes <fmt> into out[0..outsz), replacing \0..\9 by the groups m[] of the last match in
 * <subject> (an unset group, or one at or beyond <nmatch>, gives nothing), \xHH by the byte
 * HH (hex digits of either case), and \c by c for any other c (so "\\" is a backslash).
 * A NUL is appended when room remains (not counted, not required). Returns the length, or
 * -1 if it does not fit or <fmt> is malformed (a final lone "\", a "\x" without two hex
 * digits: see regex_subst_check()). Pure, any thread.
 */
int regex_expand(char *out, size_t outsz, const char *fmt, const char *subject,
		 const struct regex_match *m, int nmatch);

/* Config-time check of a replacement string for regex_expand(): returns NULL if it is
 * well-formed, else a pointer to the backslash that starts the first malformed escape.
 */
const char *regex_subst_check(const char *fmt);

/* The regsub(<re>,<subst>[,g]) converter: writes in[0..len) into out[0..outsz) with the
 * first match of <re> (every match with <global>) replaced by <subst> expanded as by
 * regex_expand(). Searches run on the whole input from where the previous match ended, so
 * "^", "\b" and lookbehinds see the text before it. An empty match is replaced, then the
 * byte after it is kept and the search goes on past it (as HAProxy: "x*y*" by "A" on
 * "xzxyz" gives "AAzAAzA"). A NUL is appended when room remains. Returns the length, or -1
 * if it does not fit, <subst> is malformed or a search failed. Any thread.
 */
int regex_subst(char *out, size_t outsz, const struct regex *re, const char *in, size_t len,
		const char *subst, bool global);

/* Creates this thread's match data if it has none yet; 0 or -1 (no memory). Optional: the
 * first search of a thread does it, and fails (-1) if it cannot. Call at thread start to
 * learn of the failure there rather than at the first request.
 */
int regex_thread_init(void);

/* Frees this thread's match data (a later search creates it again). Call before a thread
 * that searched exits.
 */
void regex_thread_release(void);

#endif
