/* HTTP status reason phrases and the canned error pages, as static strings. The pages are
 * byte for byte what HAProxy sends from its stream layer (lowercase header names, in this
 * order), including the odd bytes of its texts ("400 Bad request", the '.' in 501, the '>'
 * in 431, 407 titled "Unauthorized"), since tools and tests compare them.
 */
#include <base/compiler.h>
#include <http/status.h>

/* Reason phrase for <status>; classes as HAProxy names them for unknown codes. */
const char *http_reason(int status)
{
	switch (status) {
	case 100: return "Continue";
	case 101: return "Switching Protocols";
	case 102: return "Processing";
	case 103: return "Early Hints";
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 203: return "Non-Authoritative Information";
	case 204: return "No Content";
	case 205: return "Reset Content";
	case 206: return "Partial Content";
	case 207: return "Multi-Status";
	case 210: return "Content Different";
	case 226: return "IM Used";
	case 300: return "Multiple Choices";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 305: return "Use Proxy";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 310: return "Too many Redirects";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 402: return "Payment Required";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 406: return "Not Acceptable";
	case 407: return "Proxy Authentication Required";
	case 408: return "Request Time-out";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 411: return "Length Required";
	case 412: return "Precondition Failed";
	case 413: return "Request Entity Too Large";
	case 414: return "Request-URI Too Long";
	case 415: return "Unsupported Media Type";
	case 416: return "Requested range unsatisfiable";
	case 417: return "Expectation failed";
	case 418: return "I'm a teapot";
	case 421: return "Misdirected Request";
	case 422: return "Unprocessable Content";
	case 423: return "Locked";
	case 424: return "Method failure";
	case 425: return "Too Early";
	case 426: return "Upgrade Required";
	case 428: return "Precondition Required";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 449: return "Retry With";
	case 450: return "Blocked by Windows Parental Controls";
	case 451: return "Unavailable For Legal Reasons";
	case 456: return "Unrecoverable Error";
	case 499: return "client has closed connection";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway or Proxy Error";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Time-out";
	case 505: return "HTTP Version not supported";
	case 506: return "Variant also negotiate";
	case 507: return "Insufficient storage";
	case 508: return "Loop detected";
	case 509: return "Bandwidth Limit Exceeded";
	case 510: return "Not extended";
	case 511: return "Network authentication required";
	case 520: return "Web server is returning an unknown error";
	}
	if (status >= 100 && status <= 199)
		return "Informational";
	if (status >= 200 && status <= 299)
		return "Success";
	if (status >= 300 && status <= 399)
		return "Redirection";
	if (status >= 400 && status <= 499)
		return "Client Error";
	if (status >= 500 && status <= 599)
		return "Server Error";
	return "Other";
}

/* Every canned page once: status, "NNN Reason" title, body length as a string literal
 * (checked by the unit tests), whether it closes, and the text. The stream layer sends the
 * pages with lower-case header names (they go through HAProxy's internal message format);
 * the H1 mux sends its own errors (parsing, request timeout) raw, with HAProxy's original
 * mixed-case headers and connection header before content-type.
 */
#define HTTP_ERR_PAGES(X)                                                              \
	X(500, "500 Internal Server Error", "97", NOCLOSE,                             \
	  "An internal server error occurred.") /* first: the fallback */             \
	X(200, "200 OK", "58", NOCLOSE, "Service ready.")                              \
	X(400, "400 Bad request", "90", CLOSE, "Your browser sent an invalid request.") \
	X(401, "401 Unauthorized", "112", NOCLOSE,                                     \
	  "You need a valid user and password to access this content.")               \
	X(403, "403 Forbidden", "93", NOCLOSE, "Request forbidden by administrative rules.") \
	X(404, "404 Not Found", "83", NOCLOSE, "The resource could not be found.")     \
	X(405, "405 Method Not Allowed", "146", NOCLOSE,                               \
	  "A request was made of a resource using a request method not supported "    \
	  "by that resource")                                                          \
	X(407, "407 Unauthorized", "112", NOCLOSE,                                     \
	  "You need a valid user and password to access this content.")               \
	X(408, "408 Request Time-out", "110", CLOSE,                                   \
	  "Your browser didn't send a complete request in time.")                     \
	X(410, "410 Gone", "114", NOCLOSE,                                             \
	  "The resource is no longer available and will not be available again.")     \
	X(413, "413 Payload Too Large", "106", NOCLOSE,                                \
	  "The request entity exceeds the maximum allowed.")                          \
	X(414, "414 URI Too Long", "110", NOCLOSE,                                     \
	  "The URI provided was too long for the server to process.")                 \
	X(421, "421 Misdirected Request", "104", NOCLOSE,                              \
	  "Request sent to a non-authoritative server.")                              \
	X(422, "422 Unprocessable Content", "116", NOCLOSE,                            \
	  "The server cannot process the contained instructions.")                    \
	X(425, "425 Too Early", "80", NOCLOSE, "Your browser sent early data.")        \
	X(429, "429 Too Many Requests", "117", NOCLOSE,                                \
	  "You have sent too many requests in a given amount of time.")               \
	X(431, "431 Request Header Fields Too Large", "106", NOCLOSE,                  \
	  ">Request Header Fields Too Large.")                                         \
	X(501, "501 Not Implemented", "136", NOCLOSE,                                  \
	  ".The server does not support the functionality required to fulfill "        \
	  "the request.")                                                              \
	X(502, "502 Bad Gateway", "107", NOCLOSE,                                      \
	  "The server returned an invalid or incomplete response.")                   \
	X(503, "503 Service Unavailable", "107", NOCLOSE,                              \
	  "No server is available to handle this request.")                           \
	X(504, "504 Gateway Time-out", "92", NOCLOSE, "The server didn't respond in time.")

#define LC_CLOSE "connection: close\r\n"
#define LC_NOCLOSE ""
#define RAW_CLOSE "Connection: close\r\n"
#define RAW_NOCLOSE ""
#define ERR_BODY(title, text) "<html><body><h1>" title "</h1>\n" text "\n</body></html>\n"

#define LC_PAGE(st, title, len, cl, text)                                              \
	{ st, IST("HTTP/1.1 " title "\r\n"                                             \
		  "content-length: " len "\r\n"                                        \
		  "cache-control: no-cache\r\n"                                        \
		  "content-type: text/html\r\n" LC_##cl "\r\n" ERR_BODY(title, text)) },
#define RAW_PAGE(st, title, len, cl, text)                                             \
	{ st, IST("HTTP/1.1 " title "\r\n"                                             \
		  "Content-length: " len "\r\n"                                        \
		  "Cache-Control: no-cache\r\n" RAW_##cl                                \
		  "Content-Type: text/html\r\n\r\n" ERR_BODY(title, text)) },

struct http_err_page {
	int status;
	struct ist msg;
};

static const struct http_err_page http_err_pages[] = { HTTP_ERR_PAGES(LC_PAGE) };
static const struct http_err_page http_err_pages_raw[] = { HTTP_ERR_PAGES(RAW_PAGE) };

static struct ist err_page_find(const struct http_err_page *tbl, size_t n, int status)
{
	for (size_t i = 0; i < n; i++)
		if (tbl[i].status == status)
			return tbl[i].msg;
	return tbl[0].msg;
}

/* Canned page for <status>; the 500 page, as HAProxy does, for a status it has none for. */
struct ist http_error_message(int status)
{
	return err_page_find(http_err_pages, ARRAY_SIZE(http_err_pages), status);
}

struct ist http_error_message_raw(int status)
{
	return err_page_find(http_err_pages_raw, ARRAY_SIZE(http_err_pages_raw), status);
}

bool http_status_has_page(int status)
{
	static const short codes[] = { 200, 400, 401, 403, 404, 405, 407, 408, 410, 413,
				       421, 422, 425, 429, 500, 501, 502, 503, 504 };

	for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
		if (codes[i] == status)
			return true;
	return false;
}
