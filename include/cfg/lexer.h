/* Pure configuration-line tokenizer: quotes, backslash escapes, '#' comments, "${VAR}" and
 * "${VAR-default}" expansion. No I/O, no globals, no allocation: the caller gives the
 * output area and the environment lookup.
 */
#ifndef CFG_LEXER_H
#define CFG_LEXER_H

#include <stddef.h>

/* Environment lookup: returns the value or NULL if unset. */
typedef const char *(*cfg_env_fn)(const char *name, void *arg);

struct cfg_tokens {
	char *args[65];           /* args[nargs] == NULL */
	int nargs;
};

/* Splits <line> (<len> bytes, no trailing newline required) into words written into
 * out[0..outsz) as NUL-terminated strings referenced by tok->args. Rules (HAProxy's):
 * words are separated by spaces/tabs; '#' outside quotes starts a comment; "..." allows
 * spaces and expands ${VAR}; '...' is fully literal; a backslash escapes the next
 * character outside single quotes (\\ \" \' \# \space, \r \n \t \xHH); as in HAProxy,
 * ${VAR} is expanded only inside double quotes ("${VAR[*]}" splits a value into several
 * words); ${VAR-default} uses the default when VAR is unset; an unset variable expands to
 * an empty string (an empty word is dropped unless it was quoted: "" yields an empty word).
 * Returns 0 on success, -1 with a message in err[0..errsz) on an unterminated quote, an
 * unterminated "${", a bad \x escape, a NUL byte before any '#' comment, too many words
 * (over 64) or output overflow.
 */
int cfg_tokenize(const char *line, size_t len, char *out, size_t outsz, struct cfg_tokens *tok,
		 cfg_env_fn env, void *env_arg, char *err, size_t errsz);

#endif
