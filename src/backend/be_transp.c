/* "option transparent": a backend that ignores its servers and connects each request to
 * the address its client connected to (SO_ORIGINAL_DST after a netfilter REDIRECT/DNAT,
 * else the socket's own address), or to its "dispatch" address when it has one. Owns the
 * keywords ("option transparent", and "transparent" which 2.6 still takes silently), the
 * check and the "<transparent>" pseudo-server; backend_assign() picks it, the connect
 * code (stream.c) asks be_transp_addr() where to go.
 */
#include <stdlib.h>
#include <string.h>

#include <backend/be_transp.h>
#include <backend/server-t.h>
#include <backend/srv_limits.h>
#include <cfg/cfg.h>
#include <conn/conn_addr.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

int be_transp_parse_opt(struct cfg_ctx *ctx, int a, bool neg)
{
	if (a + 1 < ctx->nargs) {
		cfg_alert(ctx, "'option %s' cannot handle unexpected argument '%s'.", ctx->args[a],
			  ctx->args[a + 1]);
		return -1;
	}
	if (neg)
		ctx->px->options &= ~PR_O_TRANSP;
	else
		ctx->px->options |= PR_O_TRANSP;
	return 0;
}

/* transparent (defaults, frontend, backend, listen): "option transparent" as HAProxy 1.x
 * spelled it; 2.6 takes it without a word, even in a frontend */
static int be_transp_kw(struct cfg_ctx *ctx)
{
	if (!ctx->px)
		return -1;
	if (proxy_cfg_max_args(ctx, 1, 0) < 0)
		return -1;
	ctx->px->options |= PR_O_TRANSP;
	return 0;
}

/* A "dispatch"-like server with no address of its own (no stats row, no checks). */
static struct server *be_transp_new_srv(struct proxy *px)
{
	struct server *srv = calloc(1, sizeof(*srv));

	if (!srv)
		return NULL;
	srv->id = strdup("<transparent>");
	srv->file = strdup(px->file ? px->file : "");
	if (!srv->id || !srv->file) {
		free(srv->id);
		free(srv->file);
		free(srv);
		return NULL;
	}
	srv->px = px;
	srv->line = px->line;
	srv->flags = SRV_F_TRANSP;
	srv->weight = 1;
	srv_limits_init(srv);
	return srv;
}

int be_transp_check(struct proxy *px)
{
	struct cfg_ctx ctx = { .file = px->file, .line = px->line };

	if (!(px->cap & PR_CAP_BE) || !(px->options & PR_O_TRANSP))
		return 0;
	if (px->lb_set) { /* HAProxy's words */
		cfg_alert(&ctx, "%s '%s' cannot use both transparent and balance mode.",
			  proxy_type_str(px), px->id);
		return 1;
	}
	if (px->dispatch) /* "dispatch" wins: HAProxy connects there */
		return 0;
	px->dispatch = be_transp_new_srv(px);
	if (!px->dispatch) {
		cfg_alert(&ctx, "out of memory.");
		return 1;
	}
	return 0;
}

bool be_transp_addr(struct conn *front, struct sockaddr_storage *to)
{
	const struct sockaddr *l = conn_local_addr(front);

	if (!l)
		return false;
	memset(to, 0, sizeof(*to));
	if (l->sa_family == AF_INET)
		memcpy(to, l, sizeof(struct sockaddr_in));
	else
		memcpy(to, l, sizeof(struct sockaddr_in6));
	return true;
}

static const struct cfg_kw be_transp_kws[] = {
	{ "transparent", CFG_SEC_PROXIES, be_transp_kw },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(be_transp_kws)
