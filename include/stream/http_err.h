/* Error messages of proxies (http_err_cfg.c): "http-errors" sections, the "errorfiles",
 * "http-error" and "errorloc*" keywords, their resolution at check time in config-line
 * order with "errorfile", the "errorfiles" form of return/deny/tarpit replies, and the
 * lookup of a status' message for a stream.
 */
#ifndef STREAM_HTTP_ERR_H
#define STREAM_HTTP_ERR_H

#include <stddef.h>
#include <base/list.h>

struct act_rule;
struct errorfile;
struct proxy;
struct stream;

/* Resolves the errorfiles/http-error lines of every proxy and defaults section. Prints
 * HAProxy's alerts and warnings; returns the number of errors. Check phase. */
int http_err_check_all(void);

/* Check hook of a rule whose reply is "errorfiles NAME": turns it into the section's
 * message for the reply's status (the proxy's own when the section lacks it, with a
 * warning). 0, or -1 with a message when the section does not exist. */
int http_reply_check_rule(struct act_rule *r, struct proxy *px, char *err, size_t errsz);

/* The message of <status> for <s>: the backend's, else the frontend's, else NULL (the
 * default page). Loop thread. */
const struct errorfile *http_error_find(const struct stream *s, int status);

/* Frees a list of struct px_err_conf. */
void http_err_conf_free(struct list *l);
/* Frees every http-errors section (at exit, between unit tests). */
void http_errors_deinit(void);

#endif
