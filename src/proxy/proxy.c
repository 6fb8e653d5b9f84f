/* Proxy objects: allocation, the `proxies` list (config order) and the private list of
 * defaults sections, defaults inheritance, lookups, errorfiles, and freeing everything a
 * proxy owns (binds, listeners, servers, rules, errorfiles). The post-parse checks live in
 * proxy_check.c, the section and keyword parsers in proxy_cfg.c.
 */
#include <stdlib.h>
#include <string.h>

#include <backend/server-t.h>
#include <conn/bind_cfg.h>
#include <ssl/ssl.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <stream/action-t.h>

struct proxy *proxies;                /* frontends, backends, listens in config order */
int proxy_first_id = 1;
static struct proxy *proxies_tail;
static struct proxy *defaults_list;   /* defaults sections, most recent first */
static struct proxy *defaults_last;   /* the last defaults section declared */

int proxy_ist_set(struct ist *dst, const char *s)
{
	char *copy = NULL;

	if (s && *s) {
		copy = strdup(s);
		if (!copy)
			return -1;
	}
	free((char *)dst->ptr);
	*dst = copy ? ist_str(copy) : ist2(NULL, 0);
	return 0;
}

/* Copies <len> bytes of <src> into a new NUL-terminated owned view. Returns 0 or -1. */
static int proxy_ist_dup(struct ist *dst, struct ist src)
{
	char *copy;

	*dst = ist2(NULL, 0);
	if (!src.len)
		return 0;
	copy = malloc(src.len + 1);
	if (!copy)
		return -1;
	memcpy(copy, src.ptr, src.len);
	copy[src.len] = 0;
	*dst = ist2(copy, src.len);
	return 0;
}

uint32_t proxy_err_seq;

/* The entry of <status> in <px>, created when missing (NULL when the table is full). */
static struct errorfile *proxy_errorfile_slot(struct proxy *px, int status)
{
	for (int i = 0; i < px->nb_errorfiles; i++)
		if (px->errorfiles[i].status == status)
			return &px->errorfiles[i];
	if (px->nb_errorfiles >= PR_MAX_ERRORFILES)
		return NULL;
	px->errorfiles[px->nb_errorfiles] = (struct errorfile){ .status = status };
	return &px->errorfiles[px->nb_errorfiles++];
}

/* Stores a copy of <msg> or the reply <reply> as the message of <status>, from the
 * config line numbered <seq>. Returns 0 or -1. */
static int proxy_set_error(struct proxy *px, int status, struct ist msg,
			   const struct http_reply *reply, uint32_t seq)
{
	struct errorfile *ef;
	struct ist copy;

	if (proxy_ist_dup(&copy, msg) < 0)
		return -1;
	ef = proxy_errorfile_slot(px, status);
	if (!ef) {
		free((char *)copy.ptr);
		return -1;
	}
	free((char *)ef->msg.ptr);
	ef->msg = copy;
	ef->reply = reply;
	ef->seq = seq;
	return 0;
}

int proxy_set_errorfile(struct proxy *px, int status, const char *msg, size_t len)
{
	return proxy_set_error(px, status, ist2(msg, len), NULL, ++proxy_err_seq);
}

int proxy_set_error_reply(struct proxy *px, int status, const struct http_reply *reply,
			  uint32_t seq)
{
	return proxy_set_error(px, status, ist2(NULL, 0), reply, seq);
}

int proxy_set_errorfile_seq(struct proxy *px, int status, const char *msg, size_t len,
			    uint32_t seq)
{
	return proxy_set_error(px, status, ist2(msg, len), NULL, seq);
}

void proxy_del_errorfile(struct proxy *px, int status)
{
	for (int i = 0; i < px->nb_errorfiles; i++) {
		if (px->errorfiles[i].status != status)
			continue;
		free((char *)px->errorfiles[i].msg.ptr);
		px->errorfiles[i] = px->errorfiles[--px->nb_errorfiles];
		return;
	}
}

const struct errorfile *proxy_errorfile(const struct proxy *px, int status)
{
	int i;

	for (i = 0; i < px->nb_errorfiles; i++)
		if (px->errorfiles[i].status == status)
			return &px->errorfiles[i];
	return NULL;
}

/* Sets the built-in defaults of a fresh proxy: what HAProxy does without any "defaults". */
static int proxy_init_builtin(struct proxy *px)
{
	px->mode = PR_MODE_TCP;
	px->options = PR_O_HTTP_KAL;
	px->retries = 3;
	px->retry_on = PR_RE_CONN_FAILED;
	px->lbalgo = LB_ALGO_ROUNDROBIN;
	return proxy_ist_set(&px->fwdfor_hdr, "X-Forwarded-For");
}

int proxy_defsrv_append(struct proxy *px, char *const *args, int nargs)
{
	char **na;

	if (nargs <= 0)
		return 0;
	na = realloc(px->defsrv_args, (size_t)(px->defsrv_nargs + nargs) * sizeof(*na));
	if (!na)
		return -1;
	px->defsrv_args = na;
	for (int i = 0; i < nargs; i++) {
		na[px->defsrv_nargs] = strdup(args[i]);
		if (!na[px->defsrv_nargs])
			return -1;
		px->defsrv_nargs++;
	}
	return 0;
}

int (*proxy_log_inherit_hook)(struct proxy *px, const struct proxy *def);

/* Copies the inheritable settings of defaults section <def> into the fresh <px>. */
static int proxy_inherit(struct proxy *px, const struct proxy *def)
{
	int i;

	px->defpx = (struct proxy *)def; /* its rules run before the proxy's own */
	px->mode = def->mode;
	px->options = def->options;
	px->clitcpka = def->clitcpka;
	px->srvtcpka = def->srvtcpka;
	px->tcp_inspect_delay = def->tcp_inspect_delay;
	px->tcp_res_inspect_delay = def->tcp_res_inspect_delay;
	px->timeout = def->timeout;
	px->maxconn = def->maxconn;
	px->sess_rate_lim = def->sess_rate_lim;
	px->backlog = def->backlog;
	px->retries = def->retries;
	px->redispatch_every = def->redispatch_every;
	px->retry_on = def->retry_on;
	px->fullconn = def->fullconn;
	if (def->dyncookie_key && !(px->dyncookie_key = strdup(def->dyncookie_key)))
		return -1;
	px->srv_state_load = def->srv_state_load;
	if (def->srv_state_file && !(px->srv_state_file = strdup(def->srv_state_file)))
		return -1;
	px->src = def->src;
	px->srclen = def->srclen;
	if (proxy_ist_dup(&px->srv_name_hdr, def->srv_name_hdr) < 0)
		return -1;
	px->lbalgo = def->lbalgo;
	px->lb_draws = def->lb_draws;
	px->lb_static = def->lb_static;
	px->lb_set = def->lb_set;
	px->http_reuse = def->http_reuse;
	px->lb_key = def->lb_key; /* shared: freed by the defaults section that parsed it */
	memcpy(px->rdp_prst, def->rdp_prst, sizeof(px->rdp_prst)); /* persist rdp-cookie */
	px->hash_type = def->hash_type;
	px->hash_fn = def->hash_fn;
	px->hash_avalanche = def->hash_avalanche;
	px->hash_balance_factor = def->hash_balance_factor;
	px->httpchk = def->httpchk; /* shared until this proxy changes it */
	px->tcpchk_kind = def->tcpchk_kind; /* rule lists: shared, freed by the defaults */
	px->tcpchk_user = def->tcpchk_user;
	px->tcpchk_proto = def->tcpchk_proto;
	px->httpchk_seq = def->httpchk_seq;
	px->extchk_cmd = def->extchk_cmd;
	px->extchk_path = def->extchk_path;
	px->fwdfor_except_net = def->fwdfor_except_net;
	px->fwdfor_except_mask = def->fwdfor_except_mask;
	px->fwdfor_has_except = def->fwdfor_has_except;
	px->origto_except_net = def->origto_except_net;
	px->origto_except_mask = def->origto_except_mask;
	px->origto_has_except = def->origto_has_except;
	px->stats = def->stats; /* shared until the proxy changes it (stats_page_cfg.c) */
	if (def->defbe_name && !(px->defbe_name = strdup(def->defbe_name)))
		return -1;
	if (proxy_defsrv_append(px, def->defsrv_args, def->defsrv_nargs) < 0)
		return -1;
	if (proxy_ist_dup(&px->fwdfor_hdr, def->fwdfor_hdr) < 0 ||
	    proxy_ist_dup(&px->origto_hdr, def->origto_hdr) < 0 ||
	    proxy_ist_dup(&px->monitor_uri, def->monitor_uri) < 0)
		return -1;
	for (i = 0; i < def->nb_errorfiles; i++) {
		const struct errorfile *ef = &def->errorfiles[i];

		if (proxy_set_error(px, ef->status, ef->msg, ef->reply, ef->seq) < 0)
			return -1;
	}
	return proxy_log_inherit_hook ? proxy_log_inherit_hook(px, def) : 0;
}

static void proxy_free(struct proxy *px);

struct proxy *proxy_new(const char *name, uint32_t cap, const char *file, int line,
			const struct proxy *defpx)
{
	struct proxy *px = calloc(1, sizeof(*px));

	if (!px)
		return NULL;
	list_init(&px->binds);
	list_init(&px->switching_rules);
	list_init(&px->acls);
	list_init(&px->http_req_rules);
	list_init(&px->http_res_rules);
	list_init(&px->http_after_rules);
	list_init(&px->filters);
	list_init(&px->tcp_req_conn_rules);
	list_init(&px->tcp_req_sess_rules);
	list_init(&px->tcp_req_cont_rules);
	list_init(&px->tcp_res_cont_rules);
	list_init(&px->server_rules);
	list_init(&px->persist_rules);
	list_init(&px->stick_rules);
	list_init(&px->store_rules);
	list_init(&px->loggers);
	px->cap = cap;
	px->line = line;
	px->id = strdup(name ? name : "");
	px->file = strdup(file ? file : "");
	if (!px->id || !px->file || (defpx ? proxy_inherit(px, defpx) : proxy_init_builtin(px))) {
		proxy_free(px);
		return NULL;
	}
	if (cap & PR_CAP_DEF) {
		px->next = defaults_list;
		defaults_list = defaults_last = px;
	} else if (proxies_tail) {
		proxies_tail->next = px;
		proxies_tail = px;
	} else {
		proxies = proxies_tail = px;
	}
	return px;
}

struct proxy *proxy_defaults_first(void)
{
	return defaults_list;
}

struct proxy *proxy_defaults_last(void)
{
	return defaults_last;
}

struct proxy *proxy_defaults_find(const char *name)
{
	struct proxy *px;

	for (px = defaults_list; px; px = px->next)
		if (*px->id && strcmp(px->id, name) == 0)
			return px;
	return NULL;
}

struct proxy *proxy_find(const char *name, uint32_t cap)
{
	struct proxy *px;

	for (px = proxies; px; px = px->next)
		if ((px->cap & cap) == cap && strcmp(px->id, name) == 0)
			return px;
	return NULL;
}

const char *proxy_type_str(const struct proxy *px)
{
	if (px->cap & PR_CAP_DEF)
		return "defaults";
	if ((px->cap & (PR_CAP_FE | PR_CAP_BE)) == (PR_CAP_FE | PR_CAP_BE))
		return "proxy";
	if (px->cap & PR_CAP_FE)
		return "frontend";
	if (px->cap & PR_CAP_BE)
		return "backend";
	return "proxy";
}

void (*proxy_rules_free_hook)(struct proxy *px);
void (*proxy_check_free_hook)(struct proxy *px);
void (*proxy_dns_free_hook)(struct proxy *px);
void (*proxy_log_free_hook)(struct proxy *px);
void (*proxy_stats_free_hook)(struct proxy *px);
void (*proxy_strm_log_free_hook)(struct proxy *px);
void (*proxy_no_log_hook)(struct proxy *px);
void (*proxy_flt_free_hook)(struct proxy *px);
void (*proxy_comp_free_hook)(struct proxy *px);

/* Frees <px> and everything it owns. lb_ctx belongs to the LB code and must have been
 * released by it before.
 */
static void proxy_free(struct proxy *px)
{
	struct bind_conf *bc, *bct;
	struct server *srv, *next;
	int i;

	list_for_each_entry_safe(bc, bct, &px->binds, list) {
		list_delete(&bc->list);
		bind_conf_free(bc);
	}
	/* rules, ACLs and switching rules belong to the layers above (stream/, sample/) */
	if (proxy_rules_free_hook)
		proxy_rules_free_hook(px);
	if (proxy_check_free_hook)
		proxy_check_free_hook(px);
	if (proxy_flt_free_hook) /* stream/filter.c */
		proxy_flt_free_hook(px);
	if (proxy_comp_free_hook) /* comp/comp_cfg.c */
		proxy_comp_free_hook(px);
	if (proxy_dns_free_hook)
		proxy_dns_free_hook(px);
	if (proxy_log_free_hook)
		proxy_log_free_hook(px);
	if (proxy_stats_free_hook)
		proxy_stats_free_hook(px);
	if (proxy_strm_log_free_hook) /* log/log_strm.c: log formats and options */
		proxy_strm_log_free_hook(px);
	free(px->err_snap[0]); /* show errors captures (stream/err_capture.c): one block each */
	free(px->err_snap[1]);
	for (srv = px->srv; srv; srv = next) {
		next = srv->next;
		free(srv->id);
		free(srv->file);
		free(srv->cookie);
		free(srv->track_name);
		free(srv->agent_send);
		free(srv->redir);
		free(srv->rt_addr); /* "set server addr" (backend/srv_cli.c) */
		ssl_srv_free(srv);
		free(srv);
	}
	for (i = 0; i < px->nb_errorfiles; i++)
		free((char *)px->errorfiles[i].msg.ptr);
	free((char *)px->fwdfor_hdr.ptr);
	free((char *)px->origto_hdr.ptr);
	free((char *)px->monitor_uri.ptr);
	free((char *)px->srv_name_hdr.ptr);
	if (px->dispatch) {
		free(px->dispatch->id);
		free(px->dispatch->file);
		free(px->dispatch);
	}
	free(px->srv_state_file);
	free(px->dyncookie_key);
	free(px->defbe_name);
	for (i = 0; i < px->defsrv_nargs; i++)
		free(px->defsrv_args[i]);
	free(px->defsrv_args);
	free(px->id);
	free(px->file);
	free(px);
}

void proxy_deinit_all(void)
{
	struct proxy *px, *next;

	for (px = proxies; px; px = next) {
		next = px->next;
		proxy_free(px);
	}
	for (px = defaults_list; px; px = next) {
		next = px->next;
		proxy_free(px);
	}
	proxies = proxies_tail = NULL;
	defaults_list = defaults_last = NULL;
}
