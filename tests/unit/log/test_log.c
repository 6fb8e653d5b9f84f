/* Log targets: the "log" line parser (levels, facilities, formats, len, sample) and the
 * header each format writes, read back through a datagram socketpair used as "fd@N".
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <log/log.h>

#include "../test.h"

/* Parses "log <args>" into <list>; returns log_parse_line's result. */
static int parse_log(struct list *list, const char *line)
{
	char buf[512], *args[CFG_MAX_ARGS + 1];
	struct cfg_ctx ctx = { "t.cfg", 1, args, 0, CFG_SEC_GLOBAL, NULL };
	char *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "log %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && ctx.nargs < CFG_MAX_ARGS;
	     tok = strtok_r(NULL, " ", &save))
		args[ctx.nargs++] = tok;
	args[ctx.nargs] = NULL;
	return log_parse_line(&ctx, list);
}

/* Sends <msg> at <level> through a logger "fd@N <opts>" and returns what was received. */
static int send_recv(const char *opts, int level, const char *msg, char *out, size_t outsz)
{
	struct list l = LIST_HEAD_INIT(l);
	char line[256];
	int sv[2], n;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		return -1;
	snprintf(line, sizeof(line), "fd@%d %s", sv[0], opts);
	if (parse_log(&l, line) < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	log_send(&l, level, "tag", msg, strlen(msg), (struct ist){ NULL, 0 });
	n = (int)recv(sv[1], out, outsz - 1, MSG_DONTWAIT);
	out[n < 0 ? 0 : n] = '\0';
	log_list_free(&l);
	close(sv[0]);
	close(sv[1]);
	return n;
}

static void check_re(const char *s, const char *re, int line)
{
	regex_t r;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB) != 0) {
		test_fail(__FILE__, line, "bad regex %s", re);
		return;
	}
	if (regexec(&r, s, 0, NULL, 0) != 0)
		test_fail(__FILE__, line, "\"%s\" does not match %s", s, re);
	regfree(&r);
}

#define CHECK_RE(s, re) check_re((s), (re), __LINE__)

TEST(log_formats)
{
	char out[2048];
	const char *iso = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}[+-][0-"
			  "9]{2}:[0-9]{2}";
	char re[256];

	CHECK(send_recv("local0", LOG_LVL_INFO, "hello", out, sizeof(out)) > 0);
	CHECK_RE(out, "^<134>[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} tag\\[[0-9]+\\]: "
		      "hello\n$");
	CHECK(send_recv("format rfc3164 local1", LOG_LVL_NOTICE, "m", out, sizeof(out)) > 0);
	CHECK_RE(out, "^<141>[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} localhost tag\\[[0-9]+\\]: m\n$");
	CHECK(send_recv("format local local7", LOG_LVL_ERR, "m", out, sizeof(out)) > 0);
	CHECK_RE(out, "^<187>[A-Z][a-z]{2} [ 0-9][0-9] [0-9:]{8} tag\\[[0-9]+\\]: m\n$");
	CHECK(send_recv("format rfc5424 local2", LOG_LVL_INFO, "m", out, sizeof(out)) > 0);
	snprintf(re, sizeof(re), "^<150>1 %s - tag [0-9]+ - - m\n$", iso);
	CHECK_RE(out, re);
	CHECK(send_recv("format short daemon", LOG_LVL_WARNING, "m", out, sizeof(out)) > 0);
	CHECK_STR(out, "<4>m\n");
	CHECK(send_recv("format priority daemon", LOG_LVL_WARNING, "m", out, sizeof(out)) > 0);
	CHECK_STR(out, "<28>m\n");
	CHECK(send_recv("format timed daemon", LOG_LVL_WARNING, "m", out, sizeof(out)) > 0);
	snprintf(re, sizeof(re), "^<4>%s m\n$", iso);
	CHECK_RE(out, re);
	CHECK(send_recv("format iso daemon", LOG_LVL_WARNING, "m", out, sizeof(out)) > 0);
	snprintf(re, sizeof(re), "^%s m\n$", iso);
	CHECK_RE(out, re);
	CHECK(send_recv("format raw daemon", LOG_LVL_WARNING, "m", out, sizeof(out)) > 0);
	CHECK_STR(out, "m\n");
}

TEST(log_levels_and_len)
{
	char out[2048], msg[300];

	/* above the logger's level: nothing */
	CHECK_INT(send_recv("format raw local0 notice", LOG_LVL_INFO, "m", out, sizeof(out)), -1);
	/* minlevel: a more severe message is sent at the minimum level */
	CHECK(send_recv("format priority local0 info notice", LOG_LVL_WARNING, "m", out,
			sizeof(out)) > 0);
	CHECK_STR(out, "<133>m\n");
	CHECK(send_recv("format priority local0 info notice", LOG_LVL_INFO, "m", out, sizeof(out)) >
	      0);
	CHECK_STR(out, "<134>m\n");
	/* len: the header and the text are cut to it, the newline comes after */
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	CHECK_INT(send_recv("len 80 format short local0", LOG_LVL_INFO, msg, out, sizeof(out)), 81);
	CHECK(out[80] == '\n' && out[79] == 'x' && !strncmp(out, "<6>xxx", 6));
}

TEST(log_sample)
{
	struct list l = LIST_HEAD_INIT(l);
	char line[64], out[64], got[64] = "";
	int sv[2], i;

	CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) == 0);
	snprintf(line, sizeof(line), "fd@%d sample 2,4-5:5 format raw local0", sv[0]);
	CHECK_INT(parse_log(&l, line), 0);
	for (i = 1; i <= 10; i++) {
		char m[8];

		snprintf(m, sizeof(m), "%d", i);
		log_send(&l, LOG_LVL_INFO, NULL, m, strlen(m), (struct ist){ NULL, 0 });
	}
	while ((i = (int)recv(sv[1], out, sizeof(out) - 1, MSG_DONTWAIT)) > 0) {
		out[i - 1] = ',';
		out[i] = '\0';
		strncat(got, out, sizeof(got) - strlen(got) - 1);
	}
	/* messages 2, 4, 5 of each period of 5 */
	CHECK_STR(got, "2,4,5,7,9,10,");
	log_list_free(&l);
	close(sv[0]);
	close(sv[1]);
}

TEST(log_parse_errors)
{
	struct list l = LIST_HEAD_INIT(l);

	CHECK_INT(parse_log(&l, "127.0.0.1 foo"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 local0 bar"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 local0 info baz"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 local0 info notice extra"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 len 79 local0"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 len 65536 local0"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 format foo local0"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 sample 1:0 local0"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 sample 3:2 local0"), -1);
	CHECK_INT(parse_log(&l, "127.0.0.1 sample x:2 local0"), -1);
	CHECK_INT(parse_log(&l, "fd@999 local0"), -1);
	CHECK(list_empty(&l));
	CHECK_INT(parse_log(&l, "127.0.0.1 local0"), 0);
	CHECK_INT(parse_log(&l, "[::1]:1514 len 80 format rfc5424 sample 1:3 local0 info err"), 0);
	CHECK_INT(parse_log(&l, "/dev/log daemon"), 0);
	CHECK(!list_empty(&l));
	log_list_free(&l);
}
