/* Server state files at startup: the global "server-state-file" and "server-state-base",
 * the backends' "load-server-state-from-file" and "server-state-file-name"; each file is
 * read whole (bounded), parsed by srv_state_parse.c, and its lines for the backend applied
 * to the servers they name: maintenance, weight, and DOWN for a checked server that was
 * stopped, the port, and (through srv_ext_state_addr) the address for "init-addr last".
 * Single-threaded, at the end of the configuration check, before the LB state is built.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <backend/server.h>
#include <backend/srv_state.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

#define SRVSTATE_MAX_FILE (64u << 20) /* a state file larger than this is refused */

static char *srvstate_global_file; /* "server-state-file" */
static char *srvstate_base;	   /* "server-state-base" */

/* Sets *dst to a copy of the only argument of the keyword. */
static int srvstate_kw_str(struct cfg_ctx *ctx, char **dst)
{
	char *v;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	v = strdup(ctx->args[1]);
	if (!v) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*dst);
	*dst = v;
	return 0;
}

static int srvstate_kw_global(struct cfg_ctx *ctx)
{
	return srvstate_kw_str(ctx,
			       ctx->args[0][13] == 'f' ? &srvstate_global_file : &srvstate_base);
}

/* load-server-state-from-file global|local|none */
static int srvstate_kw_load(struct cfg_ctx *ctx)
{
	const char *v = ctx->nargs > 1 ? ctx->args[1] : "";
	int mode;

	if (!ctx->px)
		return -1;
	if (!strcmp(v, "global"))
		mode = PR_SSL_GLOBAL;
	else if (!strcmp(v, "local"))
		mode = PR_SSL_LOCAL;
	else if (!strcmp(v, "none"))
		mode = PR_SSL_NONE;
	else {
		cfg_alert(ctx, "'%s' expects 'global', 'local' or 'none'. Got '%s'", ctx->args[0],
			  v);
		return -1;
	}
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, ctx->args[0]))
		return 0;
	ctx->px->srv_state_load = (uint8_t)mode;
	return 0;
}

/* server-state-file-name [use-backend-name|NAME] */
static int srvstate_kw_name(struct cfg_ctx *ctx)
{
	if (!ctx->px)
		return -1;
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
			  ctx->args[2]);
		return -1;
	}
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, ctx->args[0]))
		return 0;
	free(ctx->px->srv_state_file);
	ctx->px->srv_state_file = NULL;
	if (ctx->nargs < 2 || !strcmp(ctx->args[1], "use-backend-name"))
		return 0;
	return srvstate_kw_str(ctx, &ctx->px->srv_state_file);
}

/* Reads <path> whole into a new buffer (*len bytes); NULL with errno set on failure. */
static char *srvstate_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 65536, n = 0;
	char *buf = NULL, *nb;
	ssize_t r;

	if (fd < 0)
		return NULL;
	for (;;) {
		if (n == cap || !buf) {
			if (buf && cap >= SRVSTATE_MAX_FILE) {
				errno = EFBIG;
				goto out_err;
			}
			cap = buf ? cap * 2 : cap;
			nb = realloc(buf, cap);
			if (!nb)
				goto out_err;
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out_err;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
out_err : {
	int e = errno;

	free(buf);
	close(fd);
	errno = e;
}
	return NULL;
}

static bool srvstate_ist_eq(struct ist v, const char *s)
{
	return strlen(s) == v.len && !memcmp(s, v.ptr, v.len);
}

void (*srv_ext_state_addr)(struct server *srv, struct ist addr, int port);

static void srvstate_set_port(struct server *srv, int port)
{
	if (srv->addr.ss_family == AF_INET)
		((struct sockaddr_in *)&srv->addr)->sin_port = htons((uint16_t)port);
	else if (srv->addr.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&srv->addr)->sin6_port = htons((uint16_t)port);
}

/* Applies one line to the server it names in backend <arg>. */
static int srvstate_apply(void *arg, const struct srvstate_rec *r)
{
	struct proxy *px = arg;
	struct server *srv;

	if (!srvstate_ist_eq(r->be_name, px->id))
		return 0;
	for (srv = px->srv; srv && !srvstate_ist_eq(r->srv_name, srv->id); srv = srv->next)
		;
	if (!srv)
		return 0; /* removed from the configuration since */
	/* maintenance set at run time; "disabled" in the configuration stays as written */
	if (r->admin_state & SRVSTATE_ADM_FMAINT)
		srv->flags |= SRV_F_DISABLED;
	/* the weight set at run time, unless the configured one changed since */
	if (r->iweight == srv->weight)
		srv->weight = r->uweight;
	/* a checked server that was down stays down until its checks bring it up */
	if (r->op_state == 0 && (srv->flags & SRV_F_CHECK))
		srv->run_state = SRV_RS_DOWN;
	/* 2.6 restores srv_port for every server; 0 (a port map's) changes nothing here */
	if (r->port > 0 && !(srv->flags & SRV_F_PORT_MAP))
		srvstate_set_port(srv, r->port);
	if (srv_ext_state_addr)
		srv_ext_state_addr(srv, r->srv_addr, r->port);
	return 0;
}

/* The path of <px>'s file in <buf>; false (with a warning) when there is none. */
static bool srvstate_path(const struct proxy *px, char *buf, size_t size)
{
	const char *name = px->srv_state_load == PR_SSL_GLOBAL ? srvstate_global_file
			   : px->srv_state_file		       ? px->srv_state_file
							       : px->id;
	int n;

	if (!name) {
		ha_warning("backend '%s' configured to load server state file from "
			   "global section 'server-state-file' directive. Unfortunately, "
			   "'server-state-file' is not set!\n",
			   px->id);
		return false;
	}
	if (name[0] == '/' || !srvstate_base)
		n = snprintf(buf, size, "%s", name);
	else
		n = snprintf(buf, size, "%s%s%s", srvstate_base,
			     srvstate_base[strlen(srvstate_base) - 1] == '/' ? "" : "/", name);
	return n > 0 && (size_t)n < size;
}

void srv_state_load_all(void)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		char path[PATH_MAX];
		size_t len;
		char *buf;
		int bad;

		if (!(px->cap & PR_CAP_BE) || px->srv_state_load == PR_SSL_NONE ||
		    !srvstate_path(px, path, sizeof(path)))
			continue;
		buf = srvstate_read(path, &len);
		if (!buf) {
			ha_warning("Can't open server state file '%s': %s\n", path,
				   strerror(errno));
			continue;
		}
		if (srvstate_parse(buf, len, srvstate_apply, px, &bad) < 0)
			ha_warning("Can't get version of the server state file '%s'.\n", path);
		else if (bad)
			ha_warning("server state file '%s': %d invalid line(s) ignored.\n", path,
				   bad);
		free(buf);
	}
}

static void __attribute__((destructor)) srvstate_free(void)
{
	free(srvstate_global_file);
	free(srvstate_base);
}

static const struct cfg_kw srvstate_kws[] = {
	{ "server-state-file", CFG_SEC_GLOBAL, srvstate_kw_global },
	{ "server-state-base", CFG_SEC_GLOBAL, srvstate_kw_global },
	{ "load-server-state-from-file", CFG_SEC_PROXIES, srvstate_kw_load },
	{ "server-state-file-name", CFG_SEC_PROXIES, srvstate_kw_name },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(srvstate_kws)
