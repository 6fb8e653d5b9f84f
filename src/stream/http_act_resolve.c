/* The do-resolve(VAR,RESOLVERS[,ipv4|ipv6]) EXPR action of http-request and tcp-request
 * content rules: the host name EXPR gives is resolved through the "resolvers" section
 * (dns/dns_req.h) while the stream yields; VAR then holds the address (unset when the
 * resolution failed). The rule polls the answer every DNS_ACT_POLL_MS on the stream's
 * timer (the DNS thread does not wake streams). In tcp-request content rules, a
 * resolution only starts while the rules may wait (an inspect-delay that is not over, as
 * in 2.6: final rules leave the variable unset); that timer is then the inspect-delay's:
 * the rule set waits for the answer (bounded by the resolvers' timeouts), and the
 * inspect-delay starts again for the rules after it (stream/tcp_rules.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <dns/dns.h>
#include <dns/dns_req.h>
#include <event/loop.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stream/action.h>
#include <stream/stream.h>
#include <stream/tcp_rules.h>

#define DNS_ACT_POLL_MS 2 /* how often a waiting rule looks for its answer */

struct act_resolve {
	struct var_desc var;
	char *res_name;
	struct dns_resolvers *res; /* found at check time */
	int family;		   /* AF_INET, AF_INET6, 0: IPv6 then IPv4 */
};

/* Stores the answer of the finished request in the variable (nothing on failure). */
static void act_resolve_done(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	const struct act_resolve *a = r->arg.gen.p[0];
	struct sockaddr_storage ss;
	struct smp_ctx ctx;
	struct sample smp;

	if (dns_req_poll(s->dreq, &ss) > 0) {
		act_smp_ctx(&ctx, s, px, from);
		memset(&smp, 0, sizeof(smp));
		smp.ctx = &ctx;
		if (ss.ss_family == AF_INET) {
			smp.data.type = SMP_T_IPV4;
			smp.data.u.ipv4 = ((struct sockaddr_in *)&ss)->sin_addr;
		} else {
			smp.data.type = SMP_T_IPV6;
			smp.data.u.ipv6 = ((struct sockaddr_in6 *)&ss)->sin6_addr;
		}
		vars_set(&ctx, &a->var, &smp);
	}
	dns_req_release(s->dreq);
	s->dreq = NULL;
}

static enum act_return act_do_resolve(struct act_rule *r, struct proxy *px, struct stream *s,
				      int from)
{
	const struct act_resolve *a = r->arg.gen.p[0];
	struct sockaddr_storage ss;
	struct smp_ctx ctx;
	struct sample smp;

	s->flags &= ~SF_RULE_EXPIRED;
	if (!s->dreq && from == ACT_F_TCP_REQ_CNT && !tcp_rules_can_wait())
		return ACT_RET_CONT; /* no inspect-delay left to wait in: as 2.6, not resolved */
	if (!s->dreq) {
		act_smp_ctx(&ctx, s, px, from);
		memset(&smp, 0, sizeof(smp));
		smp.ctx = &ctx;
		if (!sample_process(r->arg.gen.expr, &smp) ||
		    (smp.data.type != SMP_T_STR && smp.data.type != SMP_T_BIN))
			return ACT_RET_CONT;
		s->dreq = dns_req_start(a->res, smp.data.u.str.ptr, smp.data.u.str.len, a->family);
		if (!s->dreq)
			return ACT_RET_CONT;
	}
	if (dns_req_poll(s->dreq, &ss) == 0) {
		s->rule_exp = now_ms() + DNS_ACT_POLL_MS;
		timer_set(&s->tmr, s->rule_exp);
		return ACT_RET_YIELD;
	}
	if (s->rule_exp && from == ACT_F_TCP_REQ_CNT)
		timer_del(&s->tmr); /* the inspect-delay is armed again if a rule waits */
	s->rule_exp = 0;
	act_resolve_done(r, px, s, from);
	return ACT_RET_CONT;
}

static void act_resolve_release(struct act_rule *r)
{
	struct act_resolve *a = r->arg.gen.p[0];

	sample_expr_free(r->arg.gen.expr);
	if (a)
		free(a->res_name);
	free(a);
}

/* At the check: the resolvers section exists; its nameservers will be opened. */
static int act_resolve_check(struct act_rule *r, struct proxy *px, char *err, size_t errsz)
{
	struct act_resolve *a = r->arg.gen.p[0];

	a->res = dns_resolvers_find(a->res_name);
	if (!a->res) {
		snprintf(err, errsz, "Can't find resolvers section '%s' for do-resolve action",
			 a->res_name);
		return -1;
	}
	a->res->dreq_used = true;
	return 0;
}

/* Splits "do-resolve(VAR,RESOLVERS[,ipv4|ipv6])" into <a>. Returns 0 or -1 with err. */
static int act_resolve_args(const char *word, struct act_resolve *a, char *err, size_t errsz)
{
	const char *open = strchr(word, '('), *close = open ? strrchr(open, ')') : NULL;
	char buf[512], *res, *fam;
	size_t len;

	if (!open || !close || close[1] || (len = (size_t)(close - open - 1)) >= sizeof(buf)) {
		snprintf(err, errsz, "Missing closing parenthesis in '%s'", word);
		return -1;
	}
	memcpy(buf, open + 1, len);
	buf[len] = 0;
	res = strchr(buf, ',');
	if (!res || !res[1] || res == buf) {
		snprintf(err, errsz,
			 "expects a variable name and a resolvers section: "
			 "'do-resolve(<var>,<resolvers>[,ipv4|ipv6])'");
		return -1;
	}
	*res++ = 0;
	fam = strchr(res, ',');
	if (fam) {
		*fam++ = 0;
		if (strcmp(fam, "ipv4") && strcmp(fam, "ipv6")) {
			snprintf(err, errsz,
				 "invalid resolve family '%s': expects 'ipv4' or 'ipv6'", fam);
			return -1;
		}
		a->family = fam[3] == '4' ? AF_INET : AF_INET6;
	}
	a->res_name = strdup(res);
	if (!a->res_name) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	return vars_parse_desc(buf, &a->var, err, errsz);
}

/* do-resolve(VAR,RESOLVERS[,ipv4|ipv6]) EXPR */
static int parse_do_resolve(char **args, int *pos, int nargs, const struct act_parse *ap,
			    struct act_rule *r, char *err, size_t errsz)
{
	struct act_resolve *a = calloc(1, sizeof(*a));
	const char *arg;

	if (!a) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	r->arg.gen.p[0] = a;
	r->release = act_resolve_release;
	if (ap->from == ACT_F_TCP_REQ_CNT) /* its yield waits even on a complete request */
		r->flags |= ACT_FL_ASYNC;
	r->check = act_resolve_check;
	r->action = act_do_resolve;
	if (act_resolve_args(args[*pos - 1], a, err, errsz) < 0)
		return -1;
	arg = act_next_word(args, pos, nargs);
	if (!arg) {
		snprintf(err, errsz, "expects a sample expression after 'do-resolve(...)'");
		return -1;
	}
	r->arg.gen.expr = act_parse_expr(arg, ap, err, errsz);
	return r->arg.gen.expr ? 0 : -1;
}

static const struct action_kw http_act_resolve_kws[] = {
	{ "do-resolve(", ACT_F_HTTP_REQ | ACT_F_TCP_REQ_CNT, 1, parse_do_resolve },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_resolve_kws);
