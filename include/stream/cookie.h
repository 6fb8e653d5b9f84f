/* Cookie-based persistence ("cookie NAME [insert|rewrite|prefix] [options]" in backends,
 * "cookie VALUE" on servers): the request's cookie names the server, the response gets
 * the cookie inserted, rewritten or prefixed. See stream/cookie.c.
 */
#ifndef STREAM_COOKIE_H
#define STREAM_COOKIE_H

#include <stdbool.h>
#include <base/ist.h>

struct proxy;
struct stream;

/* stream->ck_state: what the request's persistence cookie said */
#define CK_NONE 0    /* no cookie (or persistence ignored) */
#define CK_INVALID 1 /* a value no server of the backend has */
#define CK_DOWN 2    /* a server that may not take traffic (disabled, down) */
#define CK_VALID 3   /* a usable server */
#define CK_EXPIRED 4 /* last date older than maxidle, or ahead (not persisted) */
#define CK_OLD 5     /* first date older than maxlife, or ahead (not persisted) */

/* Request side, once the backend is known and before the server is chosen: reads the
 * cookie, edits the request's Cookie headers (indirect insert, prefix), and takes the
 * cookie's server unless one was chosen already or persistence is ignored. */
void cookie_process_request(struct stream *s);

/* Response side, after the http-response rules: the server's own cookie is removed,
 * rewritten or prefixed, and the persistence cookie inserted. Returns 0, or -1 when a
 * header could not be written (a failed rewrite). */
int cookie_process_response(struct stream *s);

/* The persistence-cookie chars of %tsc (3rd: the request's cookie, 4th: what the
 * response's became) into out[0..1], '-' for both without a "cookie" line or in its
 * passive mode, as HAProxy 2.6. */
void cookie_log_chars(const struct stream *s, char *out);

/* Check time: proxies without "cookie" take their defaults section's. Returns the number
 * of errors (a server cookie without a "cookie" line is only HAProxy's warning). */
int cookie_check_proxy(struct proxy *px);

/* Frees the settings <px> owns. */
void cookie_free_proxy(struct proxy *px);

struct server;
/* "dynamic" cookies (cookie.c), for the runtime API (cookie_cli.c): the value of <srv> from
 * px->dyncookie_key in <hex> (1), or 0 without a key or an IP address; whether the
 * backend's "cookie" line says "dynamic". Thread 0 once running. */
int cookie_dyn_value(const struct proxy *px, const struct server *srv, char hex[17]);
bool cookie_dyn_configured(const struct proxy *px);
/* The name of the persistence cookie of <px> ("cookie NAME"), or NULL (the stats'
 * backend "cookie" column). */
const char *cookie_name(const struct proxy *px);

#endif
