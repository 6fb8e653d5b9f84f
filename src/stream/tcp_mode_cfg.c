/* The configuration check of proxies in mode tcp: what only makes sense in HTTP (HTTP rule
 * sets, cookies, monitor-uri, the stats page, header-adding options, layer 7 hashing) is
 * ignored with HAProxy's warnings; what the stream would otherwise act on is turned off
 * (cookie persistence, layer 7 hashing, which falls back to round robin as in HAProxy).
 */
#include <stdlib.h>
#include <cfg/cfg.h>
#include <backend/server-t.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy_cfg.h>
#include <stream/cookie.h>
#include <stream/px_ext.h>
#include <stream/tcp_ana.h>

static void warn_rules(const struct proxy *px, const struct list *l, const char *what)
{
	if (!list_empty(l))
		ha_warning("config : '%s' rules ignored for %s '%s' as they require HTTP mode.\n",
			   what, proxy_type_str(px), px->id);
}

static void warn_option(const struct proxy *px, uint32_t opt, const char *what)
{
	if (px->options & opt)
		ha_warning("config : '%s' ignored for %s '%s' as it requires HTTP mode.\n", what,
			   proxy_type_str(px), px->id);
}

void tcp_mode_check(struct proxy *px)
{
	const struct px_rules_ext *x = px_ext(px);
	const char *type = proxy_type_str(px);

	if (px->mode == PR_MODE_HTTP) {
		if (px->options & (PR_O_SPLICE_REQ | PR_O_SPLICE_RSP | PR_O_SPLICE_AUTO))
			ha_warning("config : 'option splice-*' of %s '%s' takes effect in mode tcp "
				   "only: splicing HTTP bodies is not supported yet.\n",
				   type, px->id);
		return;
	}
	if (px->ck && (px->cap & PR_CAP_BE)) {
		ha_warning("config : cookie will be ignored for %s '%s' (needs 'mode http').\n",
			   type, px->id);
		cookie_free_proxy(px);
	}
	if (px->monitor_uri.len && (px->cap & PR_CAP_FE))
		ha_warning(
			"config : monitor-uri will be ignored for %s '%s' (needs 'mode http').\n",
			type, px->id);
	if ((px->cap & PR_CAP_BE) &&
	    (px->lbalgo == LB_ALGO_URI || px->lbalgo == LB_ALGO_URL_PARAM ||
	     px->lbalgo == LB_ALGO_HDR)) {
		ha_warning("config : Layer 7 hash not possible for %s '%s' (needs 'mode http'). "
			   "Falling back to round robin.\n",
			   type, px->id);
		px->lbalgo = LB_ALGO_ROUNDROBIN;
	}
	if (px->stats)
		ha_warning("config : 'stats' statement ignored for %s '%s' as it requires HTTP "
			   "mode.\n",
			   type, px->id);
	warn_rules(px, &px->http_req_rules, "http-request");
	warn_rules(px, &px->http_res_rules, "http-response");
	warn_rules(px, &px->http_after_rules, "http-after-response");
	if (x)
		warn_rules(px, &x->redirects, "redirect");
	warn_option(px, PR_O_FWDFOR, "option forwardfor");
	warn_option(px, PR_O_ORIGTO, "option originalto");
	warn_option(px, PR_O_BUF_REQ, "option http-buffer-request");
	for (struct server *srv = px->srv; srv; srv = srv->next) {
		if (!srv->cookie)
			continue;
		ha_warning("config : %s '%s' : ignoring cookie for server '%s' as HTTP mode is "
			   "disabled.\n",
			   type, px->id, srv->id);
		free(srv->cookie);
		srv->cookie = NULL;
	}
}
