/* Condition evaluator shared by "-cc EXPR" and ".if/.elif" blocks. Pure apart from the
 * facts it is given (features, version), so it can be unit-tested and fuzzed.
 */
#ifndef CFG_COND_H
#define CFG_COND_H

#include <stdbool.h>
#include <stddef.h>

/* Facts the predicates look at. */
struct cond_facts {
	const char *version;          /* HAProxy compatibility version, e.g. "3.2.0" */
	const char *features;         /* space-separated feature names: "EPOLL THREAD OPENSSL" */
	const char *ssl_version;      /* e.g. "3.0.19"; NULL when built without OpenSSL */
	const char *ssl_name;         /* e.g. "OpenSSL" */
	bool (*defined)(const char *name);  /* environment variable defined? */
	bool (*enabled)(const char *name);  /* runtime option enabled (e.g. "POLL", "EPOLL")? */
};

/* Evaluates the condition made of words args[0..nargs) (already tokenized and expanded by
 * the lexer; "(", ")", "!", "&&", "||" may be glued to other words, e.g. "!feature(X)" or
 * "defined(A)&&defined(B)"). Predicates: feature(X), version_atleast(V), version_before(V),
 * streq(a,b), strneq(a,b), defined(NAME), openssl_version_atleast(V),
 * openssl_version_before(V), ssllib_name_startswith(S), enabled(X); a bare integer is true
 * when non-zero; an empty string is false, a non-empty non-numeric word is an error.
 * Returns 1 (true), 0 (false) or -1 with a message in err[0..errsz).
 */
int cond_eval(char *const *args, int nargs, const struct cond_facts *facts, char *err,
	      size_t errsz);

/* Compares dotted versions ("2.4.1" vs "2.4-dev3"); returns <0, 0, >0. */
int cond_version_cmp(const char *a, const char *b);

#endif
