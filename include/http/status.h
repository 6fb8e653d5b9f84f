/* HTTP status reasons and the canned error responses HAProxy users know. */
#ifndef HTTP_STATUS_H
#define HTTP_STATUS_H

#include <stdbool.h>
#include <base/ist.h>

/* Reason phrase for <status> ("OK", "Not Found"...), "Unknown" when not known. */
const char *http_reason(int status);

/* Complete canned HTTP/1.1 response for an error status (200, 400, 401, 403, 404, 405,
 * 407, 408, 410, 413, 414, 421, 422, 425, 429, 431, 500, 501, 502, 503, 504): status line,
 * "content-length", "cache-control: no-cache", "content-type: text/html", and for 400 and
 * 408 "connection: close", then an HTML body "<html><body><h1>NNN Reason</h1>\n...". Other
 * statuses get the 500 page, as HAProxy does. Static storage, never freed.
 */
struct ist http_error_message(int status);

/* The same page as the H1 mux sends its own errors (parsing errors, request timeout):
 * HAProxy's original mixed-case header names, "Connection: close" before content-type. */
struct ist http_error_message_raw(int status);

/* True when <status> has a page of its own among HAProxy's default error messages. */
bool http_status_has_page(int status);

#endif
