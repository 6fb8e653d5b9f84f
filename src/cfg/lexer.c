/* Configuration-line tokenizer (see cfg/lexer.h): cuts one line into words, resolving
 * quotes, backslash escapes, comments and environment variables the way HAProxy does.
 * Pure: writes only into the caller's output area; the environment comes from a callback.
 * It knows nothing about keywords, sections or .if blocks (cfg/cfg.c owns those).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cfg/lexer.h>

#define LEX_MAX_WORDS 64
#define LEX_MAX_NAME  256

/* Tokenizer state for one line. */
struct lex {
	const char *in;
	size_t len;
	size_t i;            /* read position in <in> */
	char *out;
	size_t outsz;
	size_t o;            /* write position in <out> */
	size_t wstart;       /* start of the current word in <out> */
	bool in_word;        /* a word is being built */
	bool quoted;         /* the current word had an opening quote: keep it even if empty */
	struct cfg_tokens *tok;
	cfg_env_fn env;
	void *env_arg;
	char *err;
	size_t errsz;
};

/* Formats an error message into the caller's buffer; always returns -1. */
__attribute__((format(printf, 2, 3))) static int lex_fail(struct lex *lx, const char *fmt, ...)
{
	va_list ap;

	if (lx->err && lx->errsz) {
		va_start(ap, fmt);
		vsnprintf(lx->err, lx->errsz, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Appends one byte to the current word, always keeping room for its NUL. */
static int lex_put(struct lex *lx, char c)
{
	if (lx->o + 2 > lx->outsz)
		return lex_fail(lx, "line too long after expansion");
	lx->out[lx->o++] = c;
	return 0;
}

static void lex_word_begin(struct lex *lx)
{
	lx->wstart = lx->o;
	lx->quoted = false;
	lx->in_word = true;
}

/* Terminates the current word; an empty word is kept only if it was quoted. */
static int lex_word_end(struct lex *lx)
{
	lx->in_word = false;
	if (lx->o == lx->wstart && !lx->quoted)
		return 0;
	if (lx->tok->nargs >= LEX_MAX_WORDS)
		return lex_fail(lx, "too many words, the maximum is %d", LEX_MAX_WORDS);
	if (lx->o + 1 > lx->outsz)
		return lex_fail(lx, "line too long after expansion");
	lx->out[lx->o++] = '\0';
	lx->tok->args[lx->tok->nargs++] = lx->out + lx->wstart;
	return 0;
}

static int lex_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Handles the backslash at lx->i (outside single quotes). Unknown escapes keep their
 * backslash, as HAProxy does ("\q" stays "\q").
 */
static int lex_escape(struct lex *lx)
{
	size_t i = lx->i;
	char c2;
	int hi, lo;

	if (i + 1 >= lx->len) {
		lx->i++;
		return lex_put(lx, '\\');
	}
	c2 = lx->in[i + 1];
	switch (c2) {
	case ' ': case '\t': case '#': case '\\': case '\'': case '"': case '$':
		lx->i += 2;
		return lex_put(lx, c2);
	case 'n':
		lx->i += 2;
		return lex_put(lx, '\n');
	case 'r':
		lx->i += 2;
		return lex_put(lx, '\r');
	case 't':
		lx->i += 2;
		return lex_put(lx, '\t');
	case 'x':
		hi = i + 2 < lx->len ? lex_hexval(lx->in[i + 2]) : -1;
		lo = i + 3 < lx->len ? lex_hexval(lx->in[i + 3]) : -1;
		if (hi < 0 || lo < 0)
			return lex_fail(lx, "truncated or invalid hexadecimal sequence at position %zu",
					i + 1);
		lx->i += 4;
		return lex_put(lx, (char)(hi * 16 + lo));
	default:
		lx->i++;
		return lex_put(lx, '\\');
	}
}

/* Copies an expanded value into the output. With <split> ("${VAR[*]}"), spaces and tabs
 * in the value separate words.
 */
static int lex_emit_value(struct lex *lx, const char *val, size_t vlen, bool split)
{
	size_t k;

	if (split && lx->o == lx->wstart)
		lx->quoted = false;     /* an empty "${VAR[*]}" yields no word */
	for (k = 0; k < vlen; k++) {
		if (split && (val[k] == ' ' || val[k] == '\t')) {
			if (lx->o > lx->wstart) {
				if (lex_word_end(lx) < 0)
					return -1;
				lex_word_begin(lx);
			}
			continue;
		}
		if (lex_put(lx, val[k]) < 0)
			return -1;
	}
	return 0;
}

/* Expands "$NAME", "${NAME}", "${NAME-default}" or "${NAME[*]}" at lx->i (the '$', inside
 * double quotes). Names are letters, digits and '_', not starting with a digit; a leading
 * '.' names a pseudo-variable the lookup may know (".FILE", ".LINE"...).
 */
static int lex_expand(struct lex *lx)
{
	const char *in = lx->in, *def = NULL, *val;
	size_t i = lx->i + 1, bpos = 0, ns, nlen, deflen = 0;
	char name[LEX_MAX_NAME];
	bool brace = false, split = false;

	if (i < lx->len && in[i] == '{') {
		brace = true;
		bpos = i++;
	}
	ns = i;
	if (i >= lx->len || !(isalpha((unsigned char)in[i]) || in[i] == '_' || in[i] == '.'))
		return lex_fail(lx, "forbidden first char in environment variable name at position %zu",
				i + 1);
	i++;
	while (i < lx->len && (isalnum((unsigned char)in[i]) || in[i] == '_'))
		i++;
	nlen = i - ns;
	if (brace) {
		if (i + 2 < lx->len && in[i] == '[' && in[i + 1] == '*' && in[i + 2] == ']') {
			split = true;
			i += 3;
		}
		if (i < lx->len && in[i] == '-') {
			def = in + ++i;
			while (i < lx->len && in[i] != '}' && in[i] != '\0')
				i++;
			if (i < lx->len && in[i] == '\0')
				return lex_fail(lx, "Stray NUL character at position %zu", i + 1);
			deflen = (size_t)(in + i - def);
		}
		if (i >= lx->len || in[i] != '}')
			return lex_fail(lx, "unmatched brace in environment variable name at position %zu",
					bpos + 1);
		i++;
	}
	if (nlen >= sizeof(name))
		return lex_fail(lx, "environment variable name too long at position %zu", ns + 1);
	memcpy(name, in + ns, nlen);
	name[nlen] = '\0';
	lx->i = i;

	val = lx->env ? lx->env(name, lx->env_arg) : NULL;
	if (val)
		return lex_emit_value(lx, val, strlen(val), split);
	if (def)
		return lex_emit_value(lx, def, deflen, split);
	return lex_emit_value(lx, "", 0, split);
}

/* Processes one character at lx->i inside a word. <sq>/<dq> are the quote states. */
static int lex_step(struct lex *lx, bool *sq, bool *dq, size_t *qpos)
{
	char c = lx->in[lx->i];

	if (*sq) {
		lx->i++;
		if (c == '\'') {
			*sq = false;
			return 0;
		}
		return lex_put(lx, c);
	}
	if (c == '\\')
		return lex_escape(lx);
	if (c == '"') {
		if (!*dq) {
			lx->quoted = true;
			*qpos = lx->i;
		}
		*dq = !*dq;
		lx->i++;
		return 0;
	}
	if (c == '\'' && !*dq) {
		*sq = true;
		lx->quoted = true;
		*qpos = lx->i;
		lx->i++;
		return 0;
	}
	if (c == '$' && *dq)
		return lex_expand(lx);
	lx->i++;
	return lex_put(lx, c);
}

/* See cfg/lexer.h. Environment variables expand only inside double quotes, as in HAProxy;
 * "${VAR[*]}" splits the value into several words.
 */
int cfg_tokenize(const char *line, size_t len, char *out, size_t outsz, struct cfg_tokens *tok,
		 cfg_env_fn env, void *env_arg, char *err, size_t errsz)
{
	struct lex lx = {
		.in = line, .len = len, .out = out, .outsz = outsz, .tok = tok,
		.env = env, .env_arg = env_arg, .err = err, .errsz = errsz,
	};
	bool sq = false, dq = false;
	size_t qpos = 0;
	char c;

	tok->nargs = 0;
	tok->args[0] = NULL;
	if (err && errsz)
		err[0] = '\0';
	while (lx.i < len) {
		c = line[lx.i];
		if (!sq && !dq) {
			if (c == ' ' || c == '\t') {
				if (lx.in_word && lex_word_end(&lx) < 0)
					goto fail;
				lx.i++;
				continue;
			}
			if (c == '#' || c == '\n' || c == '\r')
				break;
		}
		if (c == '\0') {
			lex_fail(&lx, "Stray NUL character at position %zu", lx.i + 1);
			goto fail;
		}
		if (!lx.in_word)
			lex_word_begin(&lx);
		if (lex_step(&lx, &sq, &dq, &qpos) < 0)
			goto fail;
	}
	if (sq || dq) {
		lex_fail(&lx, "unmatched quote at position %zu", qpos + 1);
		goto fail;
	}
	if (lx.in_word && lex_word_end(&lx) < 0)
		goto fail;
	tok->args[tok->nargs] = NULL;
	return 0;
fail:
	tok->args[tok->nargs] = NULL;
	return -1;
}
