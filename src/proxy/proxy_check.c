/* Post-parse check of the proxies (proxy_check_all): duplicate names, backend resolution for
 * default_backend and use_backend, mode compatibility, server sanity, and HAProxy's
 * warnings for missing timeouts and frontends without "bind". Runs once after parsing,
 * single-threaded; it resolves names but builds no runtime state.
 */
#include <string.h>

#include <backend/be_transp.h>
#include <backend/server.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* Alert located at file:line, as the keyword parsers print them. */
#define CHECK_ALERT(f, l, ...)                                                         \
	do {                                                                           \
		struct cfg_ctx _c = { .file = (f), .line = (l) };                      \
		cfg_alert(&_c, __VA_ARGS__);                                           \
	} while (0)

/* Two proxies may share a name only if they do not share a side (a frontend and a
 * backend named alike is fine, two backends are not).
 */
static int proxy_check_dup_name(const struct proxy *px)
{
	const struct proxy *o;

	for (o = proxies; o && o != px; o = o->next) {
		if (strcmp(o->id, px->id) != 0 || !(o->cap & px->cap & (PR_CAP_FE | PR_CAP_BE)))
			continue;
		CHECK_ALERT(px->file, px->line, "%s '%s' has the same name as %s '%s' declared at %s:%d.",
			    proxy_type_str(px), px->id, proxy_type_str(o), o->id, o->file, o->line);
		return 1;
	}
	return 0;
}

/* Resolves <name> to a backend for proxy <px>; prints why not at <file>:<line>. */
static struct proxy *proxy_check_resolve(const struct proxy *px, const char *name,
					 const char *what, const char *file, int line)
{
	struct proxy *be = proxy_find(name, PR_CAP_BE);

	if (be)
		return be;
	if (proxy_find(name, PR_CAP_FE))
		CHECK_ALERT(file, line, "Proxy '%s': unable to find required %s: '%s' "
			    "('%s' is a frontend, not a backend).", px->id, what, name, name);
	else
		CHECK_ALERT(file, line, "Proxy '%s': unable to find required %s: '%s'.",
			    px->id, what, name);
	return NULL;
}

/* An HTTP frontend cannot hand its streams to a TCP backend. */
static int proxy_check_be_mode(const struct proxy *px, const struct proxy *be, const char *how)
{
	if (px->mode != PR_MODE_HTTP && be->mode == PR_MODE_HTTP) {
		ha_alert("tcp frontend '%s' (%s:%d) uses http backend '%s' (%s:%d) %s: upgrading a "
			 "tcp connection to HTTP is not supported yet; put both in the same mode.",
			 px->id, px->file, px->line, be->id, be->file, be->line, how);
		return 1;
	}
	if (px->mode != PR_MODE_HTTP || be->mode == PR_MODE_HTTP)
		return 0;
	ha_alert("http frontend '%s' (%s:%d) tries to use incompatible tcp backend '%s' (%s:%d) "
		 "%s (see 'mode').", px->id, px->file, px->line, be->id, be->file, be->line, how);
	return 1;
}

static int proxy_check_backends(struct proxy *px)
{
	struct switching_rule *sw;
	int errs = 0;

	if (!(px->cap & PR_CAP_FE))
		return 0;
	if (px->defbe_name) {
		px->defbe = proxy_check_resolve(px, px->defbe_name, "default_backend", px->file,
						px->line);
		if (!px->defbe)
			errs++;
		else
			errs += proxy_check_be_mode(px, px->defbe, "as its default backend");
	}
	list_for_each_entry(sw, &px->switching_rules, list) {
		if (!sw->be_name)
			continue; /* a dynamic name is looked up per request */
		sw->be = proxy_check_resolve(px, sw->be_name, "use_backend", sw->file, sw->line);
		if (!sw->be)
			errs++;
		else
			errs += proxy_check_be_mode(px, sw->be, "in a 'use_backend' rule");
	}
	return errs;
}

static int proxy_check_servers(const struct proxy *px)
{
	const struct server *srv, *o;
	int errs = 0;

	for (srv = px->srv; srv; srv = srv->next) {
		if (!srv->addrlen) {
			CHECK_ALERT(srv->file, srv->line, "server '%s/%s' has no address.",
				    px->id, srv->id);
			errs++;
		}
		for (o = px->srv; o != srv; o = o->next) {
			if (strcmp(o->id, srv->id) != 0)
				continue;
			CHECK_ALERT(srv->file, srv->line, "%s '%s', another server named '%s' was "
				    "already defined at line %d, please use distinct names.",
				    proxy_type_str(px), px->id, srv->id, o->line);
			errs++;
			break;
		}
	}
	return errs;
}

static void proxy_check_warnings(const struct proxy *px)
{
	if ((px->cap & PR_CAP_FE) && list_empty(&px->binds))
		ha_warning("%s '%s' has no 'bind' directive. Please declare it as a backend if "
			   "this was intended.", proxy_type_str(px), px->id);
	if (((px->cap & PR_CAP_FE) && !px->timeout.client) ||
	    ((px->cap & PR_CAP_BE) && (!px->timeout.connect || !px->timeout.server)))
		ha_warning("missing timeouts for %s '%s'.\n"
			   "   | While not properly invalid, you will certainly encounter various problems\n"
			   "   | with such a configuration. To fix this, please ensure that all following\n"
			   "   | timeouts are set to a non-zero value: 'client', 'connect', 'server'.",
			   proxy_type_str(px), px->id);
}

int proxy_check_all(void)
{
	struct proxy *px;
	int errs = 0;

	for (px = proxies; px; px = px->next) {
		errs += proxy_check_dup_name(px);
		errs += proxy_check_backends(px);
		srv_assign_ids(px);
		errs += proxy_check_servers(px);
		errs += be_transp_check(px);
		proxy_check_warnings(px);
	}
	return errs;
}
