/* Converters over a proxy or a server named by their input, as HAProxy 2.6 has them:
 * nbsrv (the usable servers of the backend named by the string) and srv_queue (the streams
 * waiting for the server named "backend/server"). The names are looked up at each call,
 * as in 2.6 (a name that matches nothing gives nothing): they cost a walk of the proxy and
 * server lists, and nothing when they are not configured.
 */
#include <stdio.h>
#include <string.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <proxy/proxy.h>

#include "fetch_int.h"

/* The backend named <name> (len bytes), or NULL. */
static struct proxy *conv_backend(const char *name, size_t len)
{
	char buf[256];

	if (len >= sizeof(buf))
		return NULL;
	memcpy(buf, name, len);
	buf[len] = 0;
	return proxy_find(buf, PR_CAP_BE);
}

static int conv_nbsrv(const struct arg *args, struct sample *smp, void *private)
{
	const struct proxy *be = conv_backend(smp->data.u.str.ptr, smp->data.u.str.len);

	if (!be)
		return 0;
	return smp_set_int(smp, fetch_be_usable(be));
}

static int conv_srv_queue(const struct arg *args, struct sample *smp, void *private)
{
	const char *s = smp->data.u.str.ptr, *slash;
	size_t len = smp->data.u.str.len, slen;
	const struct server *srv;
	const struct proxy *be;

	slash = memchr(s, '/', len);
	if (!slash)
		return 0;
	be = conv_backend(s, (size_t)(slash - s));
	if (!be)
		return 0;
	slen = len - (size_t)(slash + 1 - s);
	for (srv = be->srv; srv; srv = srv->next)
		if (strlen(srv->id) == slen && !memcmp(srv->id, slash + 1, slen))
			break;
	if (!srv)
		return 0;
	return smp_set_int(smp, HA_ATOMIC_LOAD_RLX(&srv->queued));
}

/* clang-format off */
static const struct sample_conv px_convs[] = {
	{ "nbsrv", conv_nbsrv, 0, { 0 }, NULL, SMP_T_STR, SMP_T_SINT, NULL },
	{ "srv_queue", conv_srv_queue, 0, { 0 }, NULL, SMP_T_STR, SMP_T_SINT, NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};
/* clang-format on */

SMP_REGISTER_CONVS(px_convs)
