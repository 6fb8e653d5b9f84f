/* Arguments of fetches and converters: "(a,b,...)" after a keyword, with quotes and
 * backslash escapes, typed per the keyword's declaration. Names of proxies, servers,
 * stick tables and userlists are only known after the whole configuration is read: they
 * are queued here and resolved by sample_resolve_args() in the check phase, through
 * resolvers that the owning modules register for the types this layer cannot see.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server-t.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy.h>
#include <sample/arg.h>
#include <sample/sample.h>
#include <sample/regex.h>
#include <sample/vars.h>

#define ARG_MAX_LEN 4096 /* one argument, after unquoting */

/* A name argument waiting for the check phase. */
struct arg_pending {
	struct arg_pending *next;
	struct arg *arg;
	char *file;
	int line;
	const char *kw;	  /* keyword owning the argument (static) */
	struct proxy *px; /* proxy of the rule, or NULL */
};

static struct arg_pending *pending;
static arg_resolve_fn resolvers[ARGT_TYPES];

static const char *const argt_names[ARGT_TYPES] = {
	[ARGT_STOP] = "end",	      [ARGT_SINT] = "integer",	 [ARGT_STR] = "string",
	[ARGT_IPV4] = "IPv4 address", [ARGT_MSK4] = "IPv4 mask", [ARGT_IPV6] = "IPv6 address",
	[ARGT_MSK6] = "IPv6 mask",    [ARGT_TIME] = "delay",	 [ARGT_SIZE] = "size",
	[ARGT_FE] = "frontend",	      [ARGT_BE] = "backend",	 [ARGT_TAB] = "table",
	[ARGT_SRV] = "server",	      [ARGT_USR] = "user list",	 [ARGT_MAP] = "map",
	[ARGT_REG] = "regex",	      [ARGT_VAR] = "variable",
};

void arg_register_resolver(int type, arg_resolve_fn fn)
{
	resolvers[type] = fn;
}

const char *arg_type_name(int type)
{
	return type >= 0 && type < ARGT_TYPES ? argt_names[type] : "?";
}

void arg_drop_str(struct arg *a, int type)
{
	if (a->owns == ARG_OWN_STR)
		free((char *)a->data.str.ptr);
	a->owns = ARG_OWN_NONE;
	a->type = (uint8_t)type;
}

void arg_free_list(struct arg *args)
{
	if (!args)
		return;
	for (struct arg *a = args; a->type != ARGT_STOP; a++) {
		if (a->owns == ARG_OWN_STR)
			free((char *)a->data.str.ptr);
		else if (a->owns == ARG_OWN_REG)
			regex_free(a->data.reg);
	}
	free(args);
}

/* Reads one argument at *p into buf (unquoted); stops at ',' or ')' at depth 0.
 * Returns its length, or -1 on error. */
static int arg_read_one(const char **p, char *buf, size_t bufsz, char *err, size_t errsz)
{
	const char *s = *p;
	size_t n = 0;
	int depth = 0;
	char q = 0;

	for (; *s; s++) {
		char c = *s;

		if (q) {
			if (c == q) {
				q = 0;
				continue;
			}
			if (c == '\\' && s[1] && q == '"')
				c = *++s;
		} else if (c == '\'' || c == '"') {
			q = c;
			continue;
		} else if (c == '\\' && s[1]) {
			c = *++s;
		} else if (c == '(') {
			depth++;
		} else if (c == ')') {
			if (!depth)
				break;
			depth--;
		} else if (c == ',' && !depth) {
			break;
		}
		if (n + 1 >= bufsz) {
			snprintf(err, errsz, "argument too long");
			return -1;
		}
		buf[n++] = c;
	}
	if (q) {
		snprintf(err, errsz, "unterminated quote in arguments");
		return -1;
	}
	buf[n] = 0;
	*p = s;
	return (int)n;
}

static int arg_queue(struct arg *a, const char *kw, const struct smp_parse_ctx *pc, char *err,
		     size_t errsz)
{
	struct arg_pending *ap = calloc(1, sizeof(*ap));

	if (!ap || !(ap->file = strdup(pc && pc->file ? pc->file : ""))) {
		free(ap);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	ap->arg = a;
	ap->line = pc ? pc->line : 0;
	ap->kw = kw;
	ap->px = pc ? pc->px : NULL;
	ap->next = pending;
	pending = ap;
	a->unresolved = 1;
	return 0;
}

static int arg_parse_mask4(const char *s, struct in_addr *m)
{
	long bits;

	if (!strchr(s, '.')) {
		if (parse_long(s, 0, 32, &bits) < 0)
			return -1;
		m->s_addr = bits ? htonl(~0U << (32 - bits)) : 0;
		return 0;
	}
	return inet_pton(AF_INET, s, m) == 1 ? 0 : -1;
}

/* Converts the text <s> of argument number <pos> (1-based) to <type> into <a>. */
static int arg_convert(struct arg *a, int type, const char *s, int pos, const char *kw,
		       const struct smp_parse_ctx *pc, char *err, size_t errsz)
{
	uint64_t sz;
	long bits;
	int ms;
	char *end;

	a->type = (uint8_t)type;
	switch (type) {
	case ARGT_SINT:
		if (!*s)
			goto bad;
		a->data.sint = strtoll(s, &end, 10);
		if (*end)
			goto bad;
		return 0;
	case ARGT_IPV4:
		return inet_pton(AF_INET, s, &a->data.ipv4) == 1 ? 0 : -2;
	case ARGT_MSK4:
		return arg_parse_mask4(s, &a->data.ipv4) < 0 ? -2 : 0;
	case ARGT_IPV6:
		return inet_pton(AF_INET6, s, &a->data.ipv6) == 1 ? 0 : -2;
	case ARGT_MSK6:
		if (strchr(s, ':')) /* "ffff:ff00::" */
			return inet_pton(AF_INET6, s, &a->data.ipv6) == 1 ? 0 : -2;
		if (parse_long(s, 0, 128, &bits) < 0)
			goto bad;
		memset(&a->data.ipv6, 0, sizeof(a->data.ipv6));
		for (int i = 0; i < bits; i++)
			a->data.ipv6.s6_addr[i / 8] |= (uint8_t)(0x80 >> (i % 8));
		return 0;
	case ARGT_TIME:
		if (!*s || parse_time_ms(s, 1, &ms) || ms < 0)
			goto bad;
		a->data.sint = ms;
		return 0;
	case ARGT_SIZE:
		if (!*s || parse_size(s, &sz) || sz > (uint64_t)INT64_MAX)
			goto bad;
		a->data.sint = (long long)sz;
		return 0;
	case ARGT_VAR:
		return vars_parse_desc(s, &a->data.var, err, errsz) < 0 ? -1 : 0;
	}
	/* strings and names: keep the text */
	a->data.str.ptr = strdup(s);
	if (!a->data.str.ptr) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	a->data.str.len = strlen(s);
	a->owns = ARG_OWN_STR;
	if (type == ARGT_FE || type == ARGT_BE || type == ARGT_TAB || type == ARGT_SRV ||
	    type == ARGT_USR)
		return arg_queue(a, kw, pc, err, errsz);
	return 0;
bad:
	snprintf(err, errsz, "failed to parse '%s' as type '%s' at position %d", s,
		 arg_type_name(type), pos);
	return -1;
}

struct arg *arg_parse_list(const char **str, uint8_t arg_min, const uint8_t *types, const char *kw,
			   const struct smp_parse_ctx *pc, int *nb, char *err, size_t errsz)
{
	int max = 0, n = 0, rc;
	const char *p = *str;
	struct arg *args;
	char *buf;

	while (max < SMP_MAX_ARGS && types[max] != ARGT_STOP)
		max++;
	*nb = -1;
	args = calloc((size_t)max + 1, sizeof(*args));
	buf = malloc(ARG_MAX_LEN);
	if (!args || !buf) {
		snprintf(err, errsz, "out of memory");
		goto fail;
	}
	if (*p == '(') {
		p++;
		while (1) {
			if (arg_read_one(&p, buf, ARG_MAX_LEN, err, errsz) < 0)
				goto fail;
			if (n == 0 && *p == ')' && !*buf && !max)
				break; /* "kw()" */
			if (n >= max) {
				snprintf(err, errsz,
					 "invalid args in '%s': end of arguments "
					 "expected at position %d, but got '%s'",
					 kw, n + 1, buf);
				goto fail;
			}
			/* an empty optional argument keeps its default */
			if (!*buf && n >= arg_min && types[n] != ARGT_STR) {
				args[n].type = ARGT_STOP;
				break;
			}
			rc = arg_convert(&args[n], types[n], buf, n + 1, kw, pc, err, errsz);
			if (rc == -2)
				snprintf(err, errsz,
					 "invalid args in '%s': failed to parse '%s' as "
					 "type '%s' at position %d",
					 kw, buf, arg_type_name(types[n]), n + 1);
			if (rc < 0)
				goto fail;
			n++;
			if (*p == ')')
				break;
			if (*p != ',') {
				snprintf(err, errsz, "missing closing ')' after arguments to '%s'",
					 kw);
				goto fail;
			}
			p++;
		}
		if (*p != ')') { /* an empty optional argument followed by more, or the end */
			snprintf(err, errsz, "missing closing ')' after arguments to '%s'", kw);
			goto fail;
		}
		p++;
	}
	if (n < arg_min) {
		snprintf(err, errsz, "missing arguments (got %d/%d), type '%s' expected", n,
			 arg_min, arg_type_name(types[n]));
		goto fail;
	}
	free(buf);
	*str = p;
	*nb = n;
	if (!max) {
		free(args);
		return NULL;
	}
	return args; /* every declared slot exists: absent ones are ARGT_STOP */
fail:
	free(buf);
	if (args)
		arg_free_list(args);
	return NULL;
}

/* Default resolvers for the names this layer can see: proxies and servers. */
static int arg_resolve_px(struct arg *a, const char *name, struct proxy *px, char *err,
			  size_t errsz)
{
	uint32_t cap = a->type == ARGT_FE ? PR_CAP_FE : PR_CAP_BE;
	struct proxy *p = *name ? proxy_find(name, cap) : px;

	if (!p) {
		snprintf(err, errsz, "unable to find %s '%s'",
			 a->type == ARGT_FE ? "frontend" : "backend", name);
		return -1;
	}
	a->data.px = p;
	return 0;
}

static int arg_resolve_srv(struct arg *a, const char *name, struct proxy *px, char *err,
			   size_t errsz)
{
	const char *slash = strchr(name, '/');
	const char *sname = slash ? slash + 1 : name;
	struct proxy *be = px;
	struct server *s;

	if (slash) {
		char bname[256];

		snprintf(bname, sizeof(bname), "%.*s", (int)(slash - name), name);
		be = proxy_find(bname, PR_CAP_BE);
		if (!be) {
			snprintf(err, errsz, "unable to find backend '%s'", bname);
			return -1;
		}
	}
	for (s = be ? be->srv : NULL; s; s = s->next)
		if (!strcmp(s->id, sname))
			break;
	if (!s) {
		snprintf(err, errsz, "unable to find server '%s' in backend '%s'", sname,
			 be ? be->id : "?");
		return -1;
	}
	a->data.srv = s;
	return 0;
}

int sample_resolve_args(void)
{
	int errs = 0;

	if (!resolvers[ARGT_FE])
		resolvers[ARGT_FE] = arg_resolve_px;
	if (!resolvers[ARGT_BE])
		resolvers[ARGT_BE] = arg_resolve_px;
	if (!resolvers[ARGT_SRV])
		resolvers[ARGT_SRV] = arg_resolve_srv;
	while (pending) {
		struct arg_pending *ap = pending;
		struct arg *a = ap->arg;
		char *name = (char *)a->data.str.ptr;
		char err[256] = "";

		pending = ap->next;
		if (!resolvers[a->type]) {
			snprintf(err, sizeof(err), "%s names are not supported here",
				 arg_type_name(a->type));
		} else if (resolvers[a->type](a, name, ap->px, err, sizeof(err)) == 0) {
			/* the resolver replaced the name by the object */
			a->unresolved = 0;
			a->owns = ARG_OWN_NONE;
			free(name);
		}
		if (a->unresolved) {
			ha_alert("parsing [%s:%d] : in '%s': %s.\n", ap->file, ap->line, ap->kw,
				 err);
			errs++;
		}
		free(ap->file);
		free(ap);
	}
	return errs;
}

void sample_deinit(void)
{
	while (pending) {
		struct arg_pending *ap = pending;

		pending = ap->next;
		free(ap->file);
		free(ap);
	}
}
