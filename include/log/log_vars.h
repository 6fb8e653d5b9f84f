/* The log-line variables (log/log_vars.c): HAProxy's timers, dates, byte counts,
 * termination state, connection counts and captures, as log-format tags usable wherever
 * a log-format is (set-header values too). The log line (log_strm.c) sets the render
 * context below once per line; elsewhere each tag computes it.
 */
#ifndef LOG_LOG_VARS_H
#define LOG_LOG_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sample/logfmt-t.h>

struct stream;

/* What every tag of one log line shares. Per thread: the loop thread renders one line at
 * a time. */
struct log_rctx {
	const struct stream *strm; /* the stream these values are for, NULL: none */
	uint64_t end_ms;	   /* now_ms() at the end of the stream */
	uint64_t accept_ms;	   /* now_ms() of the accept, or of the previous request's end
				    * on a kept-alive connection (%t, %Tt, %Ti's start) */
	uint64_t req_ms;	   /* now_ms() of the request's first byte (%tr, %Ta); the
				    * accept's for a request that never completed */
	uint64_t accept_wall_ms;   /* wall-clock ms of accept_ms */
	uint64_t req_wall_ms;	   /* wall-clock ms of req_ms */
	uint64_t lc;		   /* %lc of this line */
	bool logasap;		   /* the line is sent at the response headers: '+' before %Tt,
				    * %Ta, %B */
};

extern _Thread_local struct log_rctx log_rctx;

/* Fills log_rctx for <s> (now as the end). Loop thread. */
void log_rctx_set(const struct stream *s, bool logasap);

/* Numbers <s> for %rt (once; every stream of a logging frontend, in the order the log hook
 * first sees them). Loop thread. */
void log_stream_number(struct stream *s);

/* How a tag is written in a log line (log_strm.c): numbers are never quoted, strings are
 * under +Q, and a few write nothing at all when they have no value. */
enum log_tag_kind {
	LOG_TK_STR = 0, /* a string: "-" when empty, quoted under +Q */
	LOG_TK_NUM,	/* a number or date: "-" when empty, never quoted */
	LOG_TK_OPT,	/* captures lists: nothing when there is none */
};
enum log_tag_kind log_tag_kind(const struct lf_tag *t);

/* The line of "option httplog" written directly (the same text as its compiled format);
 * SIZE_MAX when it does not fit in outsz (the compiled format then cuts it). */
struct smp_ctx;
size_t log_httplog_render(const struct smp_ctx *ctx, char *out, size_t outsz);

/* Writes <v> in decimal at out (at least 21 bytes of room asked); returns the length. */
int log_put_u64(char *out, uint64_t v);

#endif
