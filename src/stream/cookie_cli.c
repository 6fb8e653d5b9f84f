/* Runtime API commands on dynamic cookies: "set dynamic-cookie-key backend", "enable|
 * disable dynamic-cookie backend", with 2.6's answers. Servers' dynamic cookies are
 * recomputed and swapped atomically; a replaced string is freed once every thread has
 * been outside its handlers (event/qsbr.h). Thread 0 (the CLI's).
 */
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <base/atomic.h>
#include <cli/cli.h>
#include <event/qsbr.h>
#include <proxy/proxy.h>
#include <stream/cookie.h>

/* A cookie string replaced while streams may still read it. */
struct ck_retired {
	struct ck_retired *next;
	char *str;
	struct qs_snap snap;
};

static struct ck_retired *ck_retired_list; /* thread 0 only */

/* Frees the retired strings no thread can still read (all of them with <all>: exit). */
static void ck_reclaim(bool all)
{
	struct ck_retired **p = &ck_retired_list, *r;

	while ((r = *p)) {
		if (!all && !qs_passed(&r->snap)) {
			p = &r->next;
			continue;
		}
		*p = r->next;
		free(r->str);
		free(r);
	}
}

static void __attribute__((destructor)) ck_cli_exit(void)
{
	ck_reclaim(true);
}

/* Publishes <v> (owned, or NULL) as the cookie of <srv>, retiring the old one. Returns 0,
 * or -1 (memory: nothing changed, <v> freed). */
static int ck_swap(struct server *srv, char *v, bool dyn)
{
	struct ck_retired *r = NULL;
	char *old = srv->cookie;

	if (old && !(r = calloc(1, sizeof(*r)))) {
		free(v);
		return -1;
	}
	HA_ATOMIC_STORE(&srv->cookie, v); /* release: readers see the string filled */
	srv->ck_dyn = dyn && v;
	if (r) {
		r->str = old;
		qs_snapshot(&r->snap); /* after the new value is published */
		r->next = ck_retired_list;
		ck_retired_list = r;
	}
	return 0;
}

/* Whether the servers of <px> get dynamic cookies now. */
static bool ck_dyn_on(const struct proxy *px)
{
	return px->ck_dyn_rt > 0 || (px->ck_dyn_rt == 0 && cookie_dyn_configured(px));
}

/* Recomputes the dynamic cookies of <px>'s servers (those without "cookie VALUE"), or
 * removes them when dynamic cookies are off. */
static void ck_dyn_refresh(struct proxy *px)
{
	bool on = ck_dyn_on(px);
	char hex[17];

	ck_reclaim(false);
	for (struct server *srv = px->srv; srv; srv = srv->next) {
		char *v = NULL;

		if (srv->cookie && !srv->ck_dyn)
			continue; /* set on the server line */
		if (on && cookie_dyn_value(px, srv, hex) && !(v = strdup(hex)))
			continue; /* memory: the old one stays */
		if (v && srv->cookie && !strcmp(v, srv->cookie)) {
			free(v);
			continue;
		}
		ck_swap(srv, v, true);
	}
}

/* srv_addr_changed_hook: the dynamic cookie of <srv> follows its new address. */
static void ck_addr_changed(struct server *srv)
{
	char hex[17], *v;

	if ((srv->cookie && !srv->ck_dyn) || !ck_dyn_on(srv->px))
		return;
	ck_reclaim(false);
	if (!cookie_dyn_value(srv->px, srv, hex) || !(v = strdup(hex)))
		return;
	ck_swap(srv, v, true);
}

__attribute__((constructor)) static void ck_cli_register(void)
{
	srv_addr_changed_hook = ck_addr_changed;
}

/* The backend named by args[<i>], or NULL after answering 2.6's error (*ret). */
static struct proxy *ck_cli_backend(struct cli_ctx *ctx, int i, int *ret)
{
	struct proxy *px;

	if (ctx->nargs <= i || !*ctx->args[i]) {
		*ret = cli_printf(ctx, "A backend name is expected.\n") < 0 ? CLI_MORE : CLI_DONE;
		return NULL;
	}
	px = proxy_find(ctx->args[i], PR_CAP_BE);
	if (!px)
		*ret = cli_printf(ctx, "No such backend.\n") < 0 ? CLI_MORE : CLI_DONE;
	return px;
}

/* set dynamic-cookie-key backend <b> <key> */
static int ck_cli_set_key(struct cli_ctx *ctx)
{
	struct proxy *px;
	char *k;
	int ret;

	px = ck_cli_backend(ctx, 3, &ret);
	if (!px)
		return ret;
	if (ctx->nargs < 5)
		return cli_printf(ctx, "String value expected.\n") < 0 ? CLI_MORE : CLI_DONE;
	k = strdup(ctx->args[4]);
	if (!k)
		return cli_printf(ctx, "Out of memory.\n") < 0 ? CLI_MORE : CLI_DONE;
	free(px->dyncookie_key); /* only read here and at check time */
	px->dyncookie_key = k;
	ck_dyn_refresh(px);
	return CLI_DONE;
}

/* enable|disable dynamic-cookie backend <b> */
static int ck_cli_endis(struct cli_ctx *ctx)
{
	struct proxy *px;
	int ret;

	px = ck_cli_backend(ctx, 3, &ret);
	if (!px)
		return ret;
	px->ck_dyn_rt = ctx->args[0][0] == 'e' ? 1 : -1;
	ck_dyn_refresh(px);
	return CLI_DONE;
}

static const struct cli_kw ck_cli_kws[] = {
	{ { "set", "dynamic-cookie-key", "backend", NULL },
	  "set dynamic-cookie-key backend <bk> <k>",
	  "change a backend secret key for dynamic cookies",
	  CLI_LVL_ADMIN,
	  ck_cli_set_key },
	{ { "enable", "dynamic-cookie", "backend", NULL },
	  "enable dynamic-cookie backend <bk>",
	  "enable dynamic cookies on a specific backend",
	  CLI_LVL_ADMIN,
	  ck_cli_endis },
	{ { "disable", "dynamic-cookie", "backend", NULL },
	  "disable dynamic-cookie backend <bk>",
	  "disable dynamic cookies on a specific backend",
	  CLI_LVL_ADMIN,
	  ck_cli_endis },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(ck_cli_kws)
