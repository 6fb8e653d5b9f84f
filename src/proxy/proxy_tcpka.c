/* "clitcpka-idle|intvl|cnt" and "srvtcpka-idle|intvl|cnt": the keep-alive probe tuning of
 * the client and server sides of a proxy, used when "option clitcpka"/"srvtcpka" (or
 * "option tcpka") enables probes on that side. Times default to seconds.
 */
#include <limits.h>
#include <string.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy_cfg.h>

static int tcpka_kw(struct cfg_ctx *ctx)
{
	const char *kw = ctx->args[0], *sub = kw + strlen("clitcpka-");
	bool cli = kw[0] == 'c';
	struct tcpka *ka;
	const char *bad;
	int ms = 0;
	long n;

	if (!proxy_cfg_has_cap(ctx, cli ? PR_CAP_FE : PR_CAP_BE, kw))
		return 0;
	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	ka = cli ? &ctx->px->clitcpka : &ctx->px->srvtcpka;
	if (!strcmp(sub, "cnt")) {
		if (proxy_cfg_int(ctx, kw, ctx->args[1], 0, INT_MAX, &n) < 0)
			return -1;
		ka->cnt = (int)n;
		return 0;
	}
	bad = parse_time_ms(ctx->args[1], 1000, &ms);
	if (bad) {
		cfg_alert(ctx, "'%s' expects a delay in seconds, got '%s'.", kw, ctx->args[1]);
		return -1;
	}
	/* whole seconds, as the kernel takes them; 0 keeps the system's setting */
	if (!strcmp(sub, "idle"))
		ka->idle = ms / 1000;
	else
		ka->intvl = ms / 1000;
	return 0;
}

#define PXS CFG_SEC_PROXIES
static const struct cfg_kw tcpka_kws[] = {
	{ "clitcpka-idle", PXS, tcpka_kw },
	{ "clitcpka-intvl", PXS, tcpka_kw },
	{ "clitcpka-cnt", PXS, tcpka_kw },
	{ "srvtcpka-idle", PXS, tcpka_kw },
	{ "srvtcpka-intvl", PXS, tcpka_kw },
	{ "srvtcpka-cnt", PXS, tcpka_kw },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(tcpka_kws);
