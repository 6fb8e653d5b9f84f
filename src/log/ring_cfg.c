/* Configuration of rings: the "ring NAME" section (description, format, maxlen, size,
 * timeout connect/server, server NAME ADDR [log-proto legacy|octet-count]), the implicit
 * ring of each "tcp@ADDR" log target, and the check that resolves "ring@NAME" targets and
 * makes the buffers. The run-time side is ring.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <log/log.h>
#include <log/ring.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy.h>

static struct ring *ring_cur; /* the section being parsed */
static int ring_implicit_nb;

static int ring_oom(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "out of memory.");
	return -1;
}

struct ring *ring_new(const char *name, const char *file, int line)
{
	struct ring *r = calloc(1, sizeof(*r)), **tail;

	if (!r || !(r->id = strdup(name)) || !(r->conf_file = strdup(file))) {
		if (r)
			free(r->id);
		free(r);
		return NULL;
	}
	r->conf_line = line;
	r->fmt = LOG_FMT_RAW; /* 2.6's defaults */
	r->size = 16384;
	r->maxlen = 16384;
	r->tmo_connect = r->tmo_server = 5000;
	r->wake_fd = -1;
	r->wake_h.fd = -1;
	pthread_mutex_init(&r->lock, NULL);
	for (tail = &rings; *tail; tail = &(*tail)->next)
		;
	*tail = r;
	return r;
}

static int ring_begin(struct cfg_ctx *ctx)
{
	struct ring *r;

	ring_cur = NULL;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "missing ring name.");
		return -1;
	}
	r = ring_find(ctx->args[1]);
	if (r && r->declared) {
		cfg_alert(ctx, "sink '%s' already exists.", ctx->args[1]);
		return -1;
	}
	if (r) { /* named by a "ring@" target above: the section comes now */
		free(r->conf_file);
		if (!(r->conf_file = strdup(ctx->file)))
			return ring_oom(ctx);
		r->conf_line = ctx->line;
	} else if (!(r = ring_new(ctx->args[1], ctx->file, ctx->line)))
		return ring_oom(ctx);
	r->declared = true;
	ring_cur = r;
	return 0;
}

static const struct cfg_section ring_section = { "ring", CFG_SEC_RING, ring_begin };

__attribute__((constructor)) static void ring_register_section(void)
{
	cfg_register_section(&ring_section);
}

static int ring_kw_desc(struct cfg_ctx *ctx)
{
	if (!ring_cur)
		return 0;
	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'description' expects an argument.");
		return -1;
	}
	free(ring_cur->desc);
	ring_cur->desc = strdup(ctx->args[1]);
	return ring_cur->desc ? 0 : ring_oom(ctx);
}

static int ring_kw_format(struct cfg_ctx *ctx)
{
	int f = ctx->nargs >= 2 ? log_fmt_parse(ctx->args[1]) : -1;

	if (!ring_cur)
		return 0;
	if (f < 0) {
		cfg_alert(ctx, "unknown format '%s'.", ctx->nargs >= 2 ? ctx->args[1] : "");
		return -1;
	}
	ring_cur->fmt = (enum log_fmt)f;
	ring_cur->explicit_fmt = true;
	return 0;
}

static int ring_kw_maxlen(struct cfg_ctx *ctx)
{
	long v;

	if (!ring_cur)
		return 0;
	if (ctx->nargs < 2 || parse_long(ctx->args[1], 1, 65535, &v) < 0) {
		cfg_alert(ctx, "invalid size '%s' for new sink buffer.",
			  ctx->nargs >= 2 ? ctx->args[1] : "");
		return -1;
	}
	ring_cur->maxlen = (int)v;
	return 0;
}

static int ring_kw_size(struct cfg_ctx *ctx)
{
	uint64_t v;

	if (!ring_cur)
		return 0;
	if (ctx->nargs < 2 || parse_size(ctx->args[1], &v) || v < 64 || v > (1u << 30)) {
		cfg_alert(ctx, "invalid size '%s' for new sink buffer.",
			  ctx->nargs >= 2 ? ctx->args[1] : "");
		return -1;
	}
	ring_cur->size = (uint32_t)v;
	return 0;
}

static int ring_kw_timeout(struct cfg_ctx *ctx)
{
	const char *err;
	int ms;

	if (!ring_cur)
		return 0;
	if (ctx->nargs < 3 || (strcmp(ctx->args[1], "connect") && strcmp(ctx->args[1], "server"))) {
		cfg_alert(ctx, "'timeout' expects 'connect' or 'server' and a value.");
		return -1;
	}
	err = parse_time_ms(ctx->args[2], 1, &ms);
	if (err || ms <= 0) {
		cfg_alert(ctx, "'timeout %s' : invalid value '%s'.", ctx->args[1], ctx->args[2]);
		return -1;
	}
	if (ctx->args[1][0] == 'c')
		ring_cur->tmo_connect = ms;
	else
		ring_cur->tmo_server = ms;
	return 0;
}

/* Adds a server at <addr> (an IPv4/IPv6 address and port, "tcp@" prefixes) to <r>. */
static struct ring_srv *ring_add_srv(struct cfg_ctx *ctx, struct ring *r, const char *id,
				     const char *addr, enum ring_proto proto)
{
	struct ring_srv *rs, **tail;
	struct addr_res res;
	char err[256];
	int ret = addr_parse(addr, ADDR_F_HOSTNAME, &res, err, sizeof(err));

	if (ret == ADDR_HOSTNAME && addr_resolve(&res, err, sizeof(err)) < 0)
		ret = ADDR_ERR;
	if (ret == ADDR_ERR || (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6)) {
		cfg_alert(ctx, "invalid address '%s' for server '%s'.", addr, id);
		return NULL;
	}
	rs = calloc(1, sizeof(*rs));
	if (!rs || !(rs->id = strdup(id))) {
		free(rs);
		ring_oom(ctx);
		return NULL;
	}
	rs->ring = r;
	rs->addr = res.ss;
	rs->addrlen = res.len;
	rs->proto = proto;
	rs->h.fd = -1;
	for (tail = &r->srvs; *tail; tail = &(*tail)->next)
		;
	*tail = rs;
	return rs;
}

static int ring_kw_server(struct cfg_ctx *ctx)
{
	enum ring_proto proto = RING_PROTO_LEGACY;
	int i;

	if (!ring_cur)
		return 0;
	if (ctx->nargs < 3) {
		cfg_alert(ctx, "'server' expects <name> and <addr>[:<port>] as arguments.");
		return -1;
	}
	for (i = 3; i < ctx->nargs; i++) {
		if (strcmp(ctx->args[i], "log-proto") == 0 && i + 1 < ctx->nargs &&
		    (strcmp(ctx->args[i + 1], "legacy") == 0 ||
		     strcmp(ctx->args[i + 1], "octet-count") == 0)) {
			proto = ctx->args[i + 1][0] == 'l' ? RING_PROTO_LEGACY : RING_PROTO_OCTET;
			i++;
			continue;
		}
		cfg_alert(ctx,
			  "'server %s' : option '%s' is not supported yet in a ring section "
			  "(log-proto legacy|octet-count only).",
			  ctx->args[1], ctx->args[i]);
		return -1;
	}
	return ring_add_srv(ctx, ring_cur, ctx->args[1], ctx->args[2], proto) ? 0 : -1;
}

static const struct cfg_kw ring_kws[] = {
	{ "description", CFG_SEC_RING, ring_kw_desc },
	{ "format", CFG_SEC_RING, ring_kw_format },
	{ "maxlen", CFG_SEC_RING, ring_kw_maxlen },
	{ "size", CFG_SEC_RING, ring_kw_size },
	{ "timeout", CFG_SEC_RING, ring_kw_timeout },
	{ "server", CFG_SEC_RING, ring_kw_server },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(ring_kws);

struct ring *ring_for_target(struct cfg_ctx *ctx, const char *name)
{
	struct ring *r = ring_find(name);

	/* a ring section may follow the line naming it: the check tells if none did */
	if (!r && !(r = ring_new(name, ctx->file, ctx->line)))
		ring_oom(ctx);
	return r;
}

struct ring *ring_for_tcp_target(struct cfg_ctx *ctx, const char *addr)
{
	char name[32];
	struct ring *r;

	snprintf(name, sizeof(name), "ring#%d", ++ring_implicit_nb);
	r = ring_new(name, ctx->file, ctx->line);
	if (!r) {
		ring_oom(ctx);
		return NULL;
	}
	r->implicit = r->declared = true;
	/* 2.6 sends the implicit ring's messages newline-terminated ("legacy") */
	if (!ring_add_srv(ctx, r, name, addr, RING_PROTO_LEGACY))
		return NULL;
	return r;
}

/* Resolves the "ring@NAME" targets of <list>; the implicit rings take their logger's
 * format and length. Returns the errors printed. */
static int ring_check_loggers(struct list *list, const struct proxy *px)
{
	struct logger *lg;
	int errs = 0;

	list_for_each_entry(lg, list, list)
	{
		if (lg->dst != LOG_DST_RING)
			continue;
		if (!lg->ring->declared) {
			/* 2.6's words, given at startup (not by -c) there */
			ha_alert("log server declared in %s%s%s in file '%s' at line %d uses "
				 "unknown ring named '%s'.\n",
				 px ? "proxy section '" : "global section", px ? px->id : "",
				 px ? "'" : "", lg->conf_file, lg->conf_line, lg->ring->id);
			errs++;
			continue;
		}
		if (lg->ring->implicit) { /* tcp@: the log line's format and length */
			lg->ring->fmt = lg->fmt;
			lg->ring->explicit_fmt = lg->explicit_fmt;
			lg->ring->maxlen = lg->maxlen;
		} else { /* ring@: the ring's format; its maxlen cuts the message */
			lg->fmt = lg->ring->fmt;
			lg->explicit_fmt = lg->ring->explicit_fmt;
			lg->maxlen = lg->ring->maxlen + 1; /* no newline is stored */
		}
	}
	return errs;
}

struct ring *ring_buf0(void)
{
	struct ring *r = ring_find("buf0"), **pr;

	if (r)
		return r;
	r = ring_new("buf0", "", 0);
	if (!r || !(r->desc = strdup("in-memory ring buffer")))
		return NULL;
	r->fmt = LOG_FMT_TIMED;
	r->explicit_fmt = true;
	r->size = 1048576;
	r->maxlen = 1048576;
	r->declared = true;
	/* listed first, as 2.6 makes it before reading the configuration */
	for (pr = &rings; *pr != r; pr = &(*pr)->next)
		;
	*pr = r->next;
	r->next = rings;
	rings = r;
	return r;
}

int ring_cfg_check(void)
{
	int errs = ring_check_loggers(&global_loggers, NULL);

	if (!ring_buf0()) {
		ha_alert("ring 'buf0' : out of memory.\n");
		return errs + 1;
	}

	for (struct proxy *px = proxies; px; px = px->next)
		errs += ring_check_loggers(&px->loggers, px);
	for (struct ring *r = rings; r; r = r->next) {
		if (r->maxlen > (int)r->size - 4)
			r->maxlen = (int)r->size - 4;
		r->area = malloc(r->size);
		if (!r->area) {
			ha_alert("ring '%s' : out of memory.\n", r->id);
			return errs + 1;
		}
		for (struct ring_srv *rs = r->srvs; rs; rs = rs->next) {
			rs->out = malloc((size_t)r->maxlen + 17);
			if (!rs->out) {
				ha_alert("ring '%s' : out of memory.\n", r->id);
				return errs + 1;
			}
		}
	}
	return errs;
}

void ring_release(void)
{
	while (rings) {
		struct ring *r = rings;

		rings = r->next;
		while (r->srvs) {
			struct ring_srv *rs = r->srvs;

			r->srvs = rs->next;
			free(rs->out);
			free(rs->id);
			free(rs);
		}
		pthread_mutex_destroy(&r->lock);
		free(r->area);
		free(r->desc);
		free(r->id);
		free(r->conf_file);
		free(r);
	}
	ring_cur = NULL;
	ring_implicit_nb = 0;
}
