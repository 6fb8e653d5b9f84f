/* log-forward relaying: the header each target format rebuilds from a received message
 * (log_send_fields), the level filter and "len", read back through a datagram socketpair
 * used as "fd@N".
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <log/log.h>
#include <log/syslog_parse.h>

#include "../test.h"

/* Relays <in> through a logger "fd@N <opts>"; the received bytes in <out> ("" if none). */
static void relay(const char *opts, const char *in, char *out, size_t outsz)
{
	struct list l = LIST_HEAD_INIT(l);
	char buf[512], *args[CFG_MAX_ARGS + 1], *save = NULL, *tok;
	struct cfg_ctx ctx = { "t.cfg", 1, args, 0, CFG_SEC_LOGFWD, NULL };
	struct syslog_msg m;
	int sv[2];
	ssize_t n;

	out[0] = '\0';
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return;
	snprintf(buf, sizeof(buf), "log fd@%d %s", sv[0], opts);
	for (tok = strtok_r(buf, " ", &save); tok && ctx.nargs < CFG_MAX_ARGS;
	     tok = strtok_r(NULL, " ", &save))
		args[ctx.nargs++] = tok;
	args[ctx.nargs] = NULL;
	if (log_parse_line(&ctx, &l) == 0) {
		syslog_parse(in, strlen(in), &m);
		log_send_fields(&l, &m);
		n = recv(sv[1], out, outsz - 1, MSG_DONTWAIT);
		out[n < 0 ? 0 : n] = '\0';
	}
	log_list_free(&l);
	close(sv[0]);
	close(sv[1]);
}

TEST(logfwd_formats)
{
	static const char m3164[] = "<30>Nov 24 14:00:00 host1 app[12]: hello";
	static const char m5424[] =
		"<13>1 2026-11-24T14:00:00.123Z h2 app2 99 ID47 [x@1 a=\"b\"] hi";
	char out[1024];

	relay("local1", m3164, out, sizeof(out));
	CHECK_STR(out, "<30>Nov 24 14:00:00 host1 app[12]: hello\n");
	relay("local1", m5424, out, sizeof(out));
	CHECK_STR(out, "<13>1 2026-11-24T14:00:00.123Z h2 app2 99 ID47 [x@1 a=\"b\"] hi\n");
	relay("local1", "no header", out, sizeof(out));
	CHECK_STR(out, "no header\n");
	relay("local1", "<12>just pri\n", out, sizeof(out));
	CHECK_STR(out, "<12>just pri\n");
	relay("format rfc3164 local4", m5424, out, sizeof(out));
	CHECK_STR(out, "<13>Nov 24 14:00:00 h2 app2[99]: hi\n");
	relay("format local local4", m3164, out, sizeof(out));
	CHECK_STR(out, "<30>Nov 24 14:00:00 app[12]: hello\n");
	relay("format short local4", m3164, out, sizeof(out));
	CHECK_STR(out, "<6>hello\n");
	relay("format priority local4", "plain", out, sizeof(out)); /* local4, emerg */
	CHECK_STR(out, "<160>plain\n");
	relay("format iso local4", m5424, out, sizeof(out));
	CHECK_STR(out, "2026-11-24T14:00:00.123Z hi\n");
	relay("format rfc5424 local2", "<189>Nov 24 14:00:00 app: notag pid", out, sizeof(out));
	CHECK(strstr(out, "-11-24T14:00:00-00:00 app: - - - - notag pid\n") != NULL);
	CHECK(strncmp(out, "<189>1 ", 7) == 0);
}

TEST(logfwd_level_and_len)
{
	char out[1024];

	relay("format raw local3 notice", "<14>info", out, sizeof(out));
	CHECK_STR(out, ""); /* info is above notice */
	relay("format raw local3 notice", "<13>notice", out, sizeof(out));
	CHECK_STR(out, "notice\n");
	relay("len 80 format priority local3",
	      "<13>0123456789012345678901234567890123456789012345678901234567890123456789"
	      "0123456789xyz",
	      out, sizeof(out));
	CHECK_INT((long)strlen(out), 81);
	CHECK(out[79] == '5' && out[80] == '\n');
}
