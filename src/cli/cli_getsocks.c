/* "_getsocks": hands this process's listening sockets to a new process started with -x
 * (seamless reload), on a "stats socket" that has "expose-fd listeners"; the transfer
 * itself is conn/listener_fds.c's.
 */
#include <cli/cli.h>
#include <conn/listener_fds.h>

static int cli_getsocks_fn(struct cli_ctx *ctx)
{
	if (ctx->fd < 0)
		return cli_printf(ctx, "Permission denied\n") < 0 ? CLI_MORE : CLI_DONE;
	lfds_send(ctx->fd); /* a failure shows on the other side */
	ctx->flags |= CLI_CTX_F_QUIT;
	return CLI_DONE;
}

static const struct cli_kw getsocks_kws[] = {
	{ { "_getsocks" }, NULL, NULL, CLI_LVL_USER, cli_getsocks_fn },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(getsocks_kws)
