/* The server options that send the PROXY protocol: send-proxy, send-proxy-v2,
 * send-proxy-v2-ssl, send-proxy-v2-ssl-cn, proxy-v2-options, check-send-proxy and their
 * "no-" forms (server, default-server, "add server"). They only set srv->pp_opts (PP_O_*)
 * and SRV_F_SEND_PROXY; the stream and check code build the header (conn/proxy_proto.c).
 */
#include <string.h>

#include <backend/server.h>
#include <backend/server_pp.h>
#include <cfg/cfg.h>
#include <conn/proxy_proto.h>

/* The flag words: what each option sets (or clears, "no-" form). */
static const struct {
	const char *name;
	uint32_t set;
	uint32_t clear;
} srv_pp_flags[] = {
	{ "send-proxy", PP_O_V1, 0 },
	{ "send-proxy-v2", PP_O_V2, 0 },
	{ "send-proxy-v2-ssl", PP_O_V2 | PP_O_SSL, 0 },
	{ "send-proxy-v2-ssl-cn", PP_O_V2 | PP_O_SSL | PP_O_SSL_CN, 0 },
	{ "check-send-proxy", PP_O_CHECK, 0 },
	{ "no-send-proxy", 0, PP_O_V1 },
	{ "no-send-proxy-v2", 0, PP_O_V2 },
	{ "no-send-proxy-v2-ssl", 0, PP_O_V2 | PP_O_SSL },
	{ "no-send-proxy-v2-ssl-cn", 0, PP_O_V2 | PP_O_SSL | PP_O_SSL_CN },
	{ "no-check-send-proxy", 0, PP_O_CHECK },
};

/* The words of "proxy-v2-options"; the certificate and cipher ones imply "ssl". */
static const struct {
	const char *name;
	uint32_t set;
} srv_pp_v2_opts[] = {
	{ "ssl", PP_O_SSL },
	{ "cert-cn", PP_O_SSL | PP_O_SSL_CN },
	{ "ssl-cipher", PP_O_SSL | PP_O_SSL_CIPHER },
	{ "cert-sig", PP_O_SSL | PP_O_CERT_SIG },
	{ "cert-key", PP_O_SSL | PP_O_CERT_KEY },
	{ "authority", PP_O_AUTHORITY },
	{ "crc32c", PP_O_CRC32C },
	{ "unique-id", PP_O_UNIQUE_ID },
};

/* Applies the comma-separated list <list> to <opts>. Returns 0, or -1 after an alert
 * naming the first unknown word (an empty one included, as HAProxy does). */
static int srv_pp_parse_v2_opts(struct cfg_ctx *ctx, struct server *srv, const char *list,
				uint32_t *opts)
{
	const char *p = list;

	for (;;) {
		size_t n = strcspn(p, ","), k;

		for (k = 0; k < sizeof(srv_pp_v2_opts) / sizeof(srv_pp_v2_opts[0]); k++) {
			if (strlen(srv_pp_v2_opts[k].name) == n &&
			    !strncmp(p, srv_pp_v2_opts[k].name, n))
				break;
		}
		if (k == sizeof(srv_pp_v2_opts) / sizeof(srv_pp_v2_opts[0])) {
			cfg_alert(ctx, "'server %s/%s' : '%.*s' : proxy v2 option not implemented.",
				  srv->px->id, srv->id, (int)n, p);
			return -1;
		}
		*opts |= srv_pp_v2_opts[k].set;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

int srv_pp_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];
	uint32_t opts = srv->pp_opts;

	if (!strcmp(opt, "proxy-v2-options")) {
		const char *list = *i + 1 < ctx->nargs ? ctx->args[++*i] : "";

		if (srv_pp_parse_v2_opts(ctx, srv, list, &opts) < 0)
			return -1;
	} else {
		size_t k;

		for (k = 0; k < sizeof(srv_pp_flags) / sizeof(srv_pp_flags[0]); k++) {
			if (!strcmp(opt, srv_pp_flags[k].name))
				break;
		}
		if (k == sizeof(srv_pp_flags) / sizeof(srv_pp_flags[0]))
			return 1;
		opts = (opts | srv_pp_flags[k].set) & ~srv_pp_flags[k].clear;
	}
	srv->pp_opts = opts;
	if (opts & (PP_O_V1 | PP_O_V2))
		srv->flags |= SRV_F_SEND_PROXY;
	else
		srv->flags &= ~SRV_F_SEND_PROXY;
	return 0;
}
