/* HTTP methods as a small id (http/meth.c), for what must outlive the request line: the
 * method fetch in response rules answers from the id once the request was sent, as
 * HAProxy does (an unknown method is then not available). Pure; any thread.
 */
#ifndef HTTP_METH_H
#define HTTP_METH_H

#include <base/ist.h>

enum http_meth {
	HTTP_METH_OTHER = 0, /* none of the below (or no request) */
	HTTP_METH_OPTIONS,
	HTTP_METH_GET,
	HTTP_METH_HEAD,
	HTTP_METH_POST,
	HTTP_METH_PUT,
	HTTP_METH_DELETE,
	HTTP_METH_TRACE,
	HTTP_METH_CONNECT,
	HTTP_METH_COUNT
};

/* The id of method <m> (case-sensitive, as methods are). */
enum http_meth http_meth_id(struct ist m);

/* The name of <id>; empty for HTTP_METH_OTHER. */
struct ist http_meth_name(enum http_meth id);

#endif
