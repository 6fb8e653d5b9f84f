/* The "log-forward" section, not built yet: refused on its section line with the reason,
 * its keywords skipped (one error, naming file:line), until the receivers land (the parser
 * of received messages is log/syslog_parse.c).
 */
#include <cfg/cfg.h>

static int logfwd_begin(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "'log-forward' sections are not supported yet (receiving and relaying "
		       "syslog messages is not implemented).");
	return -1;
}

static const struct cfg_section logfwd_section = { "log-forward", CFG_SEC_LOGFWD, logfwd_begin };

__attribute__((constructor)) static void logfwd_register_section(void)
{
	cfg_register_section(&logfwd_section);
}
