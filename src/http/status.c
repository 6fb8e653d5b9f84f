/* HTTP status reason phrases and the canned error pages, as static strings. The pages are
 * byte for byte what HAProxy sends from its stream layer (lowercase header names, in this
 * order), including the odd bytes of its texts ("400 Bad request", the '.' in 501, the '>'
 * in 431, 407 titled "Unauthorized"), since tools and tests compare them.
 */
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

/* <title> is "NNN Reason", <len> the body length as a string literal (checked by the unit
 * tests), <extra> more header lines.
 */
#define ERR_PAGE(title, len, extra, text)                                              \
	IST("HTTP/1.1 " title "\r\n"                                                   \
	    "content-length: " len "\r\n"                                              \
	    "cache-control: no-cache\r\n"                                              \
	    "content-type: text/html\r\n" extra "\r\n"                                 \
	    "<html><body><h1>" title "</h1>\n" text "\n</body></html>\n")

#define ERR_CLOSE "connection: close\r\n"

struct http_err_page {
	int status;
	struct ist msg;
};

static const struct http_err_page http_err_pages[] = {
	{ 500, ERR_PAGE("500 Internal Server Error", "97", "",
			"An internal server error occurred.") }, /* first: the fallback */
	{ 200, ERR_PAGE("200 OK", "58", "", "Service ready.") },
	{ 400, ERR_PAGE("400 Bad request", "90", ERR_CLOSE,
			"Your browser sent an invalid request.") },
	{ 401, ERR_PAGE("401 Unauthorized", "112", "",
			"You need a valid user and password to access this content.") },
	{ 403, ERR_PAGE("403 Forbidden", "93", "", "Request forbidden by administrative rules.") },
	{ 404, ERR_PAGE("404 Not Found", "83", "", "The resource could not be found.") },
	{ 405, ERR_PAGE("405 Method Not Allowed", "146", "",
			"A request was made of a resource using a request method not supported "
			"by that resource") },
	{ 407, ERR_PAGE("407 Unauthorized", "112", "",
			"You need a valid user and password to access this content.") },
	{ 408, ERR_PAGE("408 Request Time-out", "110", ERR_CLOSE,
			"Your browser didn't send a complete request in time.") },
	{ 410, ERR_PAGE("410 Gone", "114", "",
			"The resource is no longer available and will not be available again.") },
	{ 413, ERR_PAGE("413 Payload Too Large", "106", "",
			"The request entity exceeds the maximum allowed.") },
	{ 414, ERR_PAGE("414 URI Too Long", "110", "",
			"The URI provided was too long for the server to process.") },
	{ 421, ERR_PAGE("421 Misdirected Request", "104", "",
			"Request sent to a non-authoritative server.") },
	{ 422, ERR_PAGE("422 Unprocessable Content", "116", "",
			"The server cannot process the contained instructions.") },
	{ 425, ERR_PAGE("425 Too Early", "80", "", "Your browser sent early data.") },
	{ 429, ERR_PAGE("429 Too Many Requests", "117", "",
			"You have sent too many requests in a given amount of time.") },
	{ 431, ERR_PAGE("431 Request Header Fields Too Large", "106", "",
			">Request Header Fields Too Large.") },
	{ 501, ERR_PAGE("501 Not Implemented", "136", "",
			".The server does not support the functionality required to fulfill "
			"the request.") },
	{ 502, ERR_PAGE("502 Bad Gateway", "107", "",
			"The server returned an invalid or incomplete response.") },
	{ 503, ERR_PAGE("503 Service Unavailable", "107", "",
			"No server is available to handle this request.") },
	{ 504, ERR_PAGE("504 Gateway Time-out", "92", "", "The server didn't respond in time.") },
};

/* Canned page for <status>; the 500 page, as HAProxy does, for a status it has none for. */
struct ist http_error_message(int status)
{
	size_t i;

	for (i = 0; i < sizeof(http_err_pages) / sizeof(http_err_pages[0]); i++)
		if (http_err_pages[i].status == status)
			return http_err_pages[i].msg;
	return http_err_pages[0].msg;
}
