/* Responses made by the proxy (http_reply.c): parsing of the options of return, deny,
 * tarpit, auth and http-error, and writing a reply at run time.
 */
#ifndef STREAM_HTTP_REPLY_H
#define STREAM_HTTP_REPLY_H

#include <stdbool.h>
#include <stream/action-t.h>

struct buf;
struct act_parse;

/* Parses reply options from args[*pos] up to a condition; <deny> also accepts
 * "deny_status". Returns the reply, or NULL with a message in err. Config time. */
struct http_reply *http_reply_parse(char **args, int *pos, int nargs, const struct act_parse *ap,
				    int def_status, bool deny, char *err, size_t errsz);
void http_reply_free(struct http_reply *r);

/* Writes <r> into <b> (emptied by the caller), rendering log-format parts over <ctx>.
 * Returns 0, or -1 when it does not fit. The connection header is added by
 * stream_reply_local(). */
int http_reply_write(struct buf *b, const struct http_reply *r, struct stream *s,
		     const struct smp_ctx *ctx);

#endif
