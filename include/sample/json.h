/* JSON for the json([<input-code>]) and json_query(<path>[,<output_type>]) converters:
 * escaping a string into a JSON string body, and a streaming path evaluator over a JSON
 * document that returns the first value a path designates. Pure over (ptr, len): no
 * allocation, no recursion (nesting is bounded by JSON_MAX_DEPTH), never reads past len,
 * callable from any thread.
 */
#ifndef SAMPLE_JSON_H
#define SAMPLE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How json() decodes its input before escaping it. */
enum json_enc {
	JSON_ENC_ASCII = 0, /* each byte is a character (the default); never fails */
	JSON_ENC_UTF8,	    /* UTF-8; fails on any error */
	JSON_ENC_UTF8S,	    /* UTF-8; drops invalid characters, never fails */
	JSON_ENC_UTF8P,	    /* UTF-8; accepts overlong forms, fails on other errors */
	JSON_ENC_UTF8PS,    /* UTF-8; accepts overlong forms, drops other errors */
};

/* Parses json()'s argument: "ascii", "utf8", "utf8s", "utf8p" or "utf8ps"; -1 otherwise. */
int json_enc_parse(const char *name);

/* Escapes in[0..len) into out[0..outsz) as json() does: '"' '\' '/' and \b \f \n \r \t get
 * a backslash, other characters below 0x20 or above 0x7e become \u00xx (lowercase hex).
 * In the UTF-8 modes a character is decoded first and written as \uxxxx when above 0x7e;
 * errors are a bad sequence, a surrogate or U+FFFE/U+FFFF (invalid range), an overlong
 * form, and characters above U+FFFF (which \uxxxx cannot hold). Returns the length
 * written, or -1 when an error is fatal for <enc> or out is too small.
 */
int json_escape(const char *in, size_t len, enum json_enc enc, char *out, size_t outsz);

/* The deepest nesting of arrays and objects json_query() walks through (as mjson). */
#define JSON_MAX_DEPTH 20

enum json_kind {
	JSON_K_NONE = 0,
	JSON_K_STRING, /* out holds the unescaped string */
	JSON_K_NUMBER, /* out holds "%g" of the number, or ->i its value with JSON_Q_INT */
	JSON_K_TRUE,   /* ->i = 1 */
	JSON_K_FALSE,  /* ->i = 0 */
	JSON_K_NULL,   /* HAProxy 2.6's json_query fails on the next three kinds */
	JSON_K_OBJECT, /* out holds the raw JSON text of the object */
	JSON_K_ARRAY,  /* out holds the raw JSON text of the array */
};

/* json_query() flags */
#define JSON_Q_INT 0x0001 /* output_type "int": a number is returned as an integer */

struct json_result {
	enum json_kind kind;
	int64_t i;  /* JSON_K_TRUE/FALSE, and JSON_K_NUMBER with JSON_Q_INT */
	size_t len; /* bytes written to out (0 for booleans and integers) */
};

/* Evaluates the path path[0..pathlen) over doc[0..len) and describes the first value it
 * designates in *res, its text (if any) in out[0..outsz). Paths start with '$' followed by
 * steps: ".key" (the key ends at '.', '[' or the end; a backslash takes the next byte
 * literally, as in "$.my\.key"), "[N]" (array index from 0) and "['key']" / ["key"] (a
 * key with any bytes; an extension HAProxy 2.6 refuses). Keys are compared with the raw
 * bytes between the key's quotes, and the first matching key wins.
 *
 * As HAProxy 2.6 (mjson) does: the document is read as a stream and only up to the value
 * found, so what follows it is not validated; strings are unescaped for \" \\ \b \f \n \r
 * \t and \u00XX (one byte 0xXX), any other escape (\/, \u20ac...) fails; a number is
 * printed with "%g", or with JSON_Q_INT read as strtoll(, 0) would read it and refused
 * outside +/-(2^53-1); arrays and objects may have a trailing comma.
 *
 * Returns 0, or -1 when the path is invalid, nothing matches, the document is invalid
 * before the value, a string cannot be unescaped, an integer is out of range, or the text
 * does not fit in outsz.
 */
int json_query(const char *doc, size_t len, const char *path, size_t pathlen, unsigned int flags,
	       char *out, size_t outsz, struct json_result *res);

#endif
