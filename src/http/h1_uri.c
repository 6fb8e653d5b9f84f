/* Request-target helpers of the pure HTTP/1 parser: the authority of absolute-form and
 * CONNECT targets checked against Host (RFC 9112 section 3.2), the path and query of a
 * target (monitor-uri), idempotent methods (replay rules). No I/O, no allocation, no
 * globals; any thread may call them. Header-block parsing lives in h1.c.
 */
#include <stdint.h>
#include <string.h>
#include <http/h1.h>

bool h1_ieq(struct ist a, struct ist b)
{
	size_t i;

	if (a.len != b.len)
		return false;
	for (i = 0; i < a.len; i++) {
		unsigned char x = (unsigned char)a.ptr[i], y = (unsigned char)b.ptr[i];

		if ((unsigned int)(x - 'A') < 26u)
			x += 32;
		if ((unsigned int)(y - 'A') < 26u)
			y += 32;
		if (x != y)
			return false;
	}
	return true;
}

static inline bool uri_is_alpha(char ch)
{
	return (unsigned char)((ch | 0x20) - 'a') < 26u;
}

/* <a> without a trailing ":<dport>" (the scheme's default port means no port). */
static struct ist uri_strip_dport(struct ist a, const char *dport)
{
	size_t dl = dport ? strlen(dport) : 0;

	if (dl && a.len > dl && a.ptr[a.len - dl - 1] == ':' &&
	    memcmp(a.ptr + a.len - dl, dport, dl) == 0)
		a.len -= dl + 1;
	return a;
}

/* Cuts the authority out of an absolute-form target "scheme://[userinfo@]authority[/?#...]"
 * into <auth> and returns the scheme's default port ("80", "443" or NULL); *ok is false
 * when the target is not in that form.
 */
static const char *uri_abs_authority(struct ist u, struct ist *auth, bool *ok)
{
	size_t i = 0, start, end, at;

	*ok = false;
	if (!u.len || !uri_is_alpha(u.ptr[0]))
		return NULL;
	while (i < u.len && (uri_is_alpha(u.ptr[i]) || (unsigned char)(u.ptr[i] - '0') < 10u ||
			     u.ptr[i] == '+' || u.ptr[i] == '-' || u.ptr[i] == '.'))
		i++;
	if (u.len - i < 3 || memcmp(u.ptr + i, "://", 3) != 0)
		return NULL;
	start = end = i + 3;
	while (end < u.len && u.ptr[end] != '/' && u.ptr[end] != '?' && u.ptr[end] != '#')
		end++;
	for (at = end; at > start && u.ptr[at - 1] != '@'; at--)
		;
	*auth = ist2(u.ptr + at, end - at);
	*ok = true;
	if (h1_ieq(ist2(u.ptr, i), IST("http")))
		return "80";
	if (h1_ieq(ist2(u.ptr, i), IST("https")))
		return "443";
	return NULL;
}

int h1_target_check(struct ist uri, bool connect, const struct ist *host)
{
	const char *dport = "443";
	struct ist auth = uri;
	bool ok = true;

	if (!connect) {
		if (uri.len == 1 && uri.ptr[0] == '*')
			return 0;
		dport = uri_abs_authority(uri, &auth, &ok);
	}
	if (!ok)
		return -1;
	if (!host)
		return 0;
	return h1_ieq(uri_strip_dport(auth, dport), uri_strip_dport(*host, dport)) ? 0 : -1;
}

bool h1_meth_idempotent(struct ist m)
{
	static const char *const idem[] = { "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE" };
	size_t i;

	for (i = 0; i < sizeof(idem) / sizeof(idem[0]); i++)
		if (m.len == strlen(idem[i]) && memcmp(m.ptr, idem[i], m.len) == 0)
			return true;
	return false;
}

struct ist h1_uri_pathq(struct ist uri)
{
	struct ist auth;
	const char *e;
	bool ok;

	if (!uri.len || uri.ptr[0] == '/')
		return uri;
	uri_abs_authority(uri, &auth, &ok);
	if (!ok)
		return ist2(uri.ptr + uri.len, 0);
	e = auth.ptr + auth.len;
	return ist2(e, (size_t)(uri.ptr + uri.len - e));
}
