/* The actions on the client connection's socket and the stream's priority: set-mark
 * (SO_MARK, for netfilter and policy routing), set-tos (IP_TOS, or IPV6_TCLASS on an IPv6
 * socket) and set-nice. They are valid in http-request, http-response, tcp-request content
 * and tcp-response content rules; set-mark and set-tos in tcp-request connection and
 * session rules too. A socket option the kernel refuses (no CAP_NET_ADMIN for a mark, a
 * unix socket) is not an error: the rule set goes on, as in HAProxy.
 *
 * set-nice: the value (-1024..1024) is kept in the stream, where "show sess" shows it. The
 * event loop has no run queue to order by it: a stream runs as soon as the events of its
 * connections are reported (event/loop.c), so the value orders nothing.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <conn/connection-t.h>
#include <stream/action.h>
#include <stream/stream.h>
#include <stream/stream_opts.h>

#define NICE_MIN -1024
#define NICE_MAX 1024

void stream_set_mark(struct stream *s, unsigned int mark)
{
#ifdef SO_MARK
	if (s->front->h.fd >= 0)
		setsockopt(s->front->h.fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark));
#else
	(void)s;
	(void)mark;
#endif
}

void stream_set_tos(struct stream *s, int tos)
{
	int fd = s->front->h.fd, dom = AF_INET;
	socklen_t len = sizeof(dom);

	if (fd < 0)
		return;
	/* the socket's own family: set-src may have changed the peer address' */
	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len);
	if (dom == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos));
	if (dom == AF_INET || dom == AF_INET6) /* IPv4-mapped peers of an IPv6 socket too */
		setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
}

/* rule->arg.gen.i[0]: the mark */
static enum act_return act_set_mark(struct act_rule *r, struct proxy *px, struct stream *s,
				    int from)
{
	stream_set_mark(s, (unsigned int)r->arg.gen.i[0]);
	return ACT_RET_CONT;
}

/* rule->arg.gen.i[0]: the TOS (traffic class) byte */
static enum act_return act_set_tos(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	stream_set_tos(s, (int)r->arg.gen.i[0]);
	return ACT_RET_CONT;
}

/* rule->arg.gen.i[0]: the nice value */
static enum act_return act_set_nice(struct act_rule *r, struct proxy *px, struct stream *s,
				    int from)
{
	s->nice = (int16_t)r->arg.gen.i[0];
	return ACT_RET_CONT;
}

/* set-mark VALUE | set-tos VALUE: an unsigned integer, decimal or 0x-prefixed hex (read
 * the way HAProxy reads it: a sign wraps, digits past 32 bits are truncated) */
static int parse_mark_tos(char **args, int *pos, int nargs, const struct act_parse *ap,
			  struct act_rule *r, char *err, size_t errsz)
{
	const char *v = act_next_word(args, pos, nargs);
	char *end;
	unsigned long n;

	r->action = r->kw[4] == 'm' ? act_set_mark : act_set_tos;
	if (!v) {
		snprintf(err, errsz, "expects exactly 1 argument (integer/hex value)");
		return -1;
	}
	n = strtoul(v, &end, 0);
	if (*end) {
		snprintf(err, errsz,
			 "invalid character starting at '%s' (integer/hex value expected)", end);
		return -1;
	}
	r->arg.gen.i[0] = (unsigned int)n;
	return 0;
}

/* set-nice N: a leading integer (none reads 0), clamped to -1024..1024 */
static int parse_set_nice(char **args, int *pos, int nargs, const struct act_parse *ap,
			  struct act_rule *r, char *err, size_t errsz)
{
	const char *v = act_next_word(args, pos, nargs);
	long n;

	r->action = act_set_nice;
	if (!v) {
		snprintf(err, errsz, "expects exactly 1 argument (integer value)");
		return -1;
	}
	n = strtol(v, NULL, 10);
	r->arg.gen.i[0] = n < NICE_MIN ? NICE_MIN : n > NICE_MAX ? NICE_MAX : n;
	return 0;
}

#define STRM_SETS (ACT_F_HTTP_REQ | ACT_F_HTTP_RES | ACT_F_TCP_REQ_CNT | ACT_F_TCP_RES_CNT)
static const struct action_kw act_sockopt_kws[] = {
	{ "set-mark", STRM_SETS | ACT_F_TCP_REQ_CON | ACT_F_TCP_REQ_SES, 0, parse_mark_tos },
	{ "set-tos", STRM_SETS | ACT_F_TCP_REQ_CON | ACT_F_TCP_REQ_SES, 0, parse_mark_tos },
	{ "set-nice", STRM_SETS, 0, parse_set_nice },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(act_sockopt_kws);
