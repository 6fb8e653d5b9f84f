/* Chunked transfer-coding scanner: an incremental state machine over body bytes that the
 * caller forwards verbatim. It validates the framing (size lines, CRLF after data, trailers)
 * and finds the end of the message; chunk data is skipped in one step, never walked. Works
 * with the input split at any byte. No allocation, no globals but constant tables.
 */
#include <stdint.h>
#include <http/h1.h>

enum {
	CS_SIZE0 = 0, /* first hex digit of a size line */
	CS_SIZE,      /* more hex digits (line_len counts them) */
	CS_BWS,       /* spaces after the size or an ext-val: only ';' may follow */
	CS_EXT_BWS,   /* after ';': spaces, then an ext-name */
	CS_EXT_NAME,  /* ext-name (token) */
	CS_EXT_NBWS,  /* spaces after an ext-name: ';' or '=' may follow */
	CS_EXT_VBWS,  /* after '=': spaces, then a token or a quoted-string */
	CS_EXT_TOK,   /* ext-val as a token */
	CS_EXT_QS,    /* inside a quoted-string */
	CS_EXT_QP,    /* after a backslash in a quoted-string */
	CS_EXT_QEND,  /* after the closing quote */
	CS_SIZE_LF,   /* LF ending the size line (the states up to here are the size line) */
	CS_DATA,      /* <remain> data bytes */
	CS_DATA_CR,   /* CR after the data */
	CS_DATA_LF,   /* LF after the data */
	CS_TRL0,      /* start of a trailer line, or CR of the final empty line */
	CS_TRL_NAME,  /* trailer field name */
	CS_TRL_VAL,   /* trailer field value up to CR */
	CS_TRL_LF,    /* LF ending a trailer line */
	CS_END_LF,    /* LF ending the message */
	CS_DONE,      /* message complete */
};

#define MAX_SIZE_DIGITS 16 /* 64 bits: more digits (even zeros) are refused */

/* Hex digit value + 1, 0 when not a hex digit. */
#define HX(c)                                                                          \
	(((c) >= '0' && (c) <= '9') ? (c) - '0' + 1 :                                  \
	 ((c) >= 'a' && (c) <= 'f') ? (c) - 'a' + 11 :                                 \
	 ((c) >= 'A' && (c) <= 'F') ? (c) - 'A' + 11 : 0)
#define HX4(c)  HX(c), HX((c) + 1), HX((c) + 2), HX((c) + 3)
#define HX16(c) HX4(c), HX4((c) + 4), HX4((c) + 8), HX4((c) + 12)
#define HX64(c) HX16(c), HX16((c) + 16), HX16((c) + 32), HX16((c) + 48)

static const uint8_t h1c_hex[256] = { HX64(0), HX64(64), HX64(128), HX64(192) };

/* tchar of RFC 9110 (trailer names) */
static inline bool h1c_is_tok(unsigned char ch)
{
	if ((ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z'))
		return true;
	switch (ch) {
	case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
	case '-': case '.': case '^': case '_': case '`': case '|': case '~':
		return true;
	}
	return false;
}

/* VCHAR, SP, HTAB or obs-text (extensions and trailer values) */
static inline bool h1c_is_val(unsigned char ch)
{
	return (ch >= 0x20 && ch != 0x7f) || ch == '\t';
}

/* qdtext and quoted-pair bytes of RFC 9110: HTAB, SP, VCHAR, obs-text, minus '"' and '\\'
 * for qdtext (the caller handles those two).
 */
static inline bool h1c_is_qtext(unsigned char ch)
{
	return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

/* One byte of a chunk extension, RFC 9112 section 7.1.1:
 * *( BWS ";" BWS ext-name [ BWS "=" BWS ( token / quoted-string ) ] ). Returns the new
 * state, or -1.
 */
static int h1c_ext_byte(uint8_t st, unsigned char ch)
{
	bool sp = ch == ' ' || ch == '\t';

	switch (st) {
	case CS_EXT_BWS:
		if (sp)
			return CS_EXT_BWS;
		return h1c_is_tok(ch) ? CS_EXT_NAME : -1;
	case CS_EXT_NAME:
	case CS_EXT_NBWS:
		if (st == CS_EXT_NAME && h1c_is_tok(ch))
			return CS_EXT_NAME;
		if (ch == '=')
			return CS_EXT_VBWS;
		break;
	case CS_EXT_VBWS:
		if (sp)
			return CS_EXT_VBWS;
		if (ch == '"')
			return CS_EXT_QS;
		return h1c_is_tok(ch) ? CS_EXT_TOK : -1;
	case CS_EXT_TOK:
		if (h1c_is_tok(ch))
			return CS_EXT_TOK;
		break;
	case CS_EXT_QS:
		if (ch == '"')
			return CS_EXT_QEND;
		if (ch == '\\')
			return CS_EXT_QP;
		return h1c_is_qtext(ch) ? CS_EXT_QS : -1;
	case CS_EXT_QP:
		return h1c_is_qtext(ch) ? CS_EXT_QS : -1;
	}
	/* after a name, a value or spaces: another extension or the end of the line */
	if (ch == ';')
		return CS_EXT_BWS;
	if (sp)
		return st == CS_EXT_NAME || st == CS_EXT_NBWS ? CS_EXT_NBWS : CS_BWS;
	if (ch == '\r' && st != CS_EXT_NBWS)
		return CS_SIZE_LF;
	return -1;
}

/* One byte of a size line; returns the new state, or -1. */
static int h1c_size_byte(struct h1_chunk *c, unsigned char ch)
{
	uint8_t hv = h1c_hex[ch];

	switch (c->state) {
	case CS_SIZE0:
		if (!hv)
			return -1;
		c->remain = hv - 1;
		return CS_SIZE;
	case CS_SIZE:
		if (hv) {
			if (c->line_len > MAX_SIZE_DIGITS)
				return -1;
			c->remain = (c->remain << 4) | (uint64_t)(hv - 1);
			return CS_SIZE;
		}
		/* fall through */
	case CS_BWS:
		if (ch == ';')
			return CS_EXT_BWS;
		if (ch == ' ' || ch == '\t')
			return CS_BWS;
		if (ch == '\r' && c->state == CS_SIZE)
			return CS_SIZE_LF;
		return -1;
	case CS_SIZE_LF:
		if (ch != '\n')
			return -1;
		c->line_len = 0;
		c->trailers_len = 0;
		return c->remain ? CS_DATA : CS_TRL0;
	}
	return h1c_ext_byte(c->state, ch);
}

/* One byte after the data or in the trailers; returns the new state, or -1. */
static int h1c_tail_byte(struct h1_chunk *c, unsigned char ch)
{
	switch (c->state) {
	case CS_DATA_CR:
		return ch == '\r' ? CS_DATA_LF : -1;
	case CS_DATA_LF:
		return ch == '\n' ? CS_SIZE0 : -1;
	case CS_TRL0:
		if (ch == '\r')
			return CS_END_LF;
		return h1c_is_tok(ch) ? CS_TRL_NAME : -1;
	case CS_TRL_NAME:
		if (ch == ':')
			return CS_TRL_VAL;
		return h1c_is_tok(ch) ? CS_TRL_NAME : -1;
	case CS_TRL_VAL:
		if (ch == '\r')
			return CS_TRL_LF;
		return h1c_is_val(ch) ? CS_TRL_VAL : -1;
	case CS_TRL_LF:
		return ch == '\n' ? CS_TRL0 : -1;
	case CS_END_LF:
		return ch == '\n' ? CS_DONE : -1;
	}
	return -1;
}

/* See h1.h. A size line longer than <max_line> bytes (CRLF included), or trailers (final
 * empty line included) longer than <max_line> in total, are invalid.
 */
ssize_t h1_chunk_scan(struct h1_chunk *c, const char *buf, size_t len, size_t max_line,
		      int *done)
{
	const unsigned char *p = (const unsigned char *)buf, *end = p + len;
	int st;

	*done = 0;
	while (p < end) {
		if (c->state == CS_DONE)
			break;
		if (c->state == CS_DATA) {
			size_t n = (size_t)(end - p);

			if (n > c->remain)
				n = (size_t)c->remain;
			p += n;
			c->remain -= n;
			if (!c->remain)
				c->state = CS_DATA_CR;
			continue;
		}
		if (c->state <= CS_SIZE_LF) {
			if (++c->line_len > max_line)
				return -1;
			st = h1c_size_byte(c, *p);
		} else {
			if (c->state >= CS_TRL0 && ++c->trailers_len > max_line)
				return -1;
			st = h1c_tail_byte(c, *p);
		}
		if (st < 0)
			return -1;
		c->state = (uint8_t)st;
		p++;
	}
	*done = c->state == CS_DONE;
	return (ssize_t)(p - (const unsigned char *)buf);
}

size_t h1_chunk_pending(const struct h1_chunk *c)
{
	return c->state <= CS_SIZE_LF ? c->line_len : 0;
}
