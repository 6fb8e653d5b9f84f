/* Building a rewritten value in the stream's rewrite buffer piece by piece (the URI
 * actions, redirects, header replacements): begin at the buffer's tail, append views and
 * rendered log-formats, then commit the result as one view. Loop thread.
 */
#ifndef STREAM_HTTP_RW_H
#define STREAM_HTTP_RW_H

#include <stdbool.h>
#include <string.h>
#include <base/ist.h>
#include <sample/logfmt.h>
#include <stream/stream.h>

struct rw_build {
	char *p; /* start of the value at the buffer's tail */
	size_t room;
	size_t len;
	bool ok; /* false once something did not fit */
};

static inline void rwb_begin(struct rw_build *b, struct stream *s)
{
	b->p = stream_rw_tail(s, &b->room);
	b->len = 0;
	b->ok = b->p != NULL;
}

static inline void rwb_put(struct rw_build *b, struct ist v)
{
	if (!v.len)
		return;
	if (!b->ok || v.len > b->room - b->len) {
		b->ok = false;
		return;
	}
	memmove(b->p + b->len, v.ptr, v.len);
	b->len += v.len;
}

static inline void rwb_render(struct rw_build *b, const struct lf_expr *lf,
			      const struct smp_ctx *ctx)
{
	int n;

	if (!b->ok)
		return;
	n = lf_render(lf, ctx, b->p + b->len, b->room - b->len);
	if (n < 0)
		b->ok = false;
	else
		b->len += (size_t)n;
}

/* The last <n> bytes appended (to check or edit them). */
static inline struct ist rwb_tail(const struct rw_build *b, size_t from)
{
	return ist2(b->p + from, b->len - from);
}

/* Commits the value; false (nothing committed) when a piece did not fit. */
static inline bool rwb_end(struct rw_build *b, struct stream *s, struct ist *out)
{
	if (!b->ok)
		return false;
	stream_rw_commit(s, b->len);
	*out = ist2(b->p, b->len);
	return true;
}

/* Parts of the request line a script may set (stream/http_act_uri.c). */
enum http_line_part {
	HTTP_LINE_METHOD = 0,
	HTTP_LINE_PATH,
	HTTP_LINE_QUERY,
	HTTP_LINE_URI,
	HTTP_LINE_PATHQ,
};

/* Sets <part> of the request of <s> to <v> (copied into the rewrite buffer), as the
 * set-method, set-path, set-query, set-uri and set-pathq actions do. 0, or -1 when the
 * value is invalid or does not fit. */
int http_req_set_line_part(struct stream *s, int part, struct ist v);

/* Replaces, in the headers <name> of <m>, the values (<value_mode>: each comma-separated
 * element) that <re> matches by <repl> with its \N references expanded, as the
 * replace-header and replace-value actions do (stream/http_act_hdr.c). 0, or -1 when a
 * value cannot be built. */
struct regex;
int http_hdr_replace(struct stream *s, struct h1_msg *m, struct ist name, const struct regex *re,
		     const char *repl, bool value_mode);

#endif
