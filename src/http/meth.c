/* HTTP method ids: the eight methods of RFC 9110 section 9 and their names. Pure. */
#include <string.h>

#include <http/meth.h>

/* clang-format off */
static const struct ist meth_names[HTTP_METH_COUNT] = {
	[HTTP_METH_OTHER] = { "", 0 },
	[HTTP_METH_OPTIONS] = IST("OPTIONS"),
	[HTTP_METH_GET] = IST("GET"),
	[HTTP_METH_HEAD] = IST("HEAD"),
	[HTTP_METH_POST] = IST("POST"),
	[HTTP_METH_PUT] = IST("PUT"),
	[HTTP_METH_DELETE] = IST("DELETE"),
	[HTTP_METH_TRACE] = IST("TRACE"),
	[HTTP_METH_CONNECT] = IST("CONNECT"),
};

/* clang-format on */
enum http_meth http_meth_id(struct ist m)
{
	for (int i = 1; i < HTTP_METH_COUNT; i++)
		if (ist_eq(m, meth_names[i]))
			return (enum http_meth)i;
	return HTTP_METH_OTHER;
}

struct ist http_meth_name(enum http_meth id)
{
	return (unsigned)id < HTTP_METH_COUNT ? meth_names[id] : meth_names[0];
}
