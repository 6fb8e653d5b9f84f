/* Error messages of proxies: the "http-errors NAME" sections and their "errorfile" lines,
 * the proxy keywords "errorfiles NAME [CODE...]", "http-error status N ...", "errorloc",
 * "errorloc302" and "errorloc303", the check-time resolution of the lines that name a
 * section (which may be declared later in the file) in config-line order with "errorfile",
 * the "errorfiles" form of return/deny/tarpit replies, and the lookup of a status' message
 * for a stream (backend first, then frontend, as HAProxy).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <stream/action.h>
#include <stream/http_err.h>
#include <stream/http_reply.h>
#include <stream/px_ext.h>
#include <stream/stream-t.h>

/* The statuses HAProxy has pages for; bit i of px_err_conf->codes is http_err_codes[i]. */
static const int http_err_codes[] = { 200, 400, 401, 403, 404, 405, 407, 408, 410,
				      413, 425, 429, 500, 501, 502, 503, 504 };
#define HTTP_ERR_NB ((int)(sizeof(http_err_codes) / sizeof(http_err_codes[0])))

static int err_code_index(int status)
{
	for (int i = 0; i < HTTP_ERR_NB; i++)
		if (http_err_codes[i] == status)
			return i;
	return -1;
}

/* One "http-errors NAME" section. */
struct http_errors {
	struct http_errors *next;
	char *id;
	char *file;
	int line;
	struct errorfile msgs[HTTP_ERR_NB]; /* status 0: not declared */
};

static struct http_errors *http_errors_list;
static struct http_errors *http_errors_cur; /* the section being parsed */

static struct http_errors *http_errors_find(const char *name)
{
	for (struct http_errors *h = http_errors_list; h; h = h->next)
		if (!strcmp(h->id, name))
			return h;
	return NULL;
}

void http_errors_deinit(void)
{
	while (http_errors_list) {
		struct http_errors *h = http_errors_list;

		http_errors_list = h->next;
		for (int i = 0; i < HTTP_ERR_NB; i++)
			free((char *)h->msgs[i].msg.ptr);
		free(h->id);
		free(h->file);
		free(h);
	}
	http_errors_cur = NULL;
}

/* http-errors NAME */
static int http_errors_begin(struct cfg_ctx *ctx)
{
	const char *name = ctx->nargs > 1 ? ctx->args[1] : "";
	struct http_errors *h;

	http_errors_cur = NULL;
	if (!*name) {
		cfg_alert(ctx, "missing name for http-errors section.");
		return -1;
	}
	h = http_errors_find(name); /* extra words are ignored, as HAProxy does */
	if (h) {
		cfg_alert(ctx, "http-errors section '%s' already exists (declared at %s:%d).", name,
			  h->file, h->line);
		return -1;
	}
	h = calloc(1, sizeof(*h));
	if (!h || !(h->id = strdup(name)) || !(h->file = strdup(ctx->file))) {
		if (h)
			free(h->id);
		free(h);
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	h->line = ctx->line;
	h->next = http_errors_list;
	http_errors_list = http_errors_cur = h;
	return 0;
}

/* errorfile CODE FILE, inside an http-errors section */
static int http_errors_errorfile(struct cfg_ctx *ctx)
{
	struct errorfile *ef;
	size_t len;
	char *msg;
	int code;

	if (!http_errors_cur)
		return -1;
	if (ctx->nargs < 3) {
		cfg_alert(ctx, "errorfile: expects <status_code> and <file> as arguments.");
		return -1;
	}
	if (ctx->nargs > 3) {
		cfg_alert(ctx, "'errorfile' cannot handle unexpected argument '%s'.", ctx->args[3]);
		return -1;
	}
	if (proxy_cfg_read_errorfile(ctx, "errorfile", ctx->args[1], ctx->args[2], &code, &msg,
				     &len) < 0)
		return -1;
	ef = &http_errors_cur->msgs[err_code_index(code)];
	free((char *)ef->msg.ptr);
	ef->status = code;
	ef->msg = ist2(msg, len);
	return 0;
}

/* ---- proxy keywords ---- */

static struct px_err_conf *err_conf_new(struct cfg_ctx *ctx, uint8_t type)
{
	struct px_rules_ext *x = px_ext_get(ctx->px);
	struct px_err_conf *c = x ? calloc(1, sizeof(*c)) : NULL;

	if (!c || !(c->file = strdup(ctx->file))) {
		free(c);
		cfg_alert(ctx, "out of memory.");
		return NULL;
	}
	c->type = type;
	c->line = ctx->line;
	c->seq = ++proxy_err_seq;
	list_append(&x->err_conf, &c->list);
	return c;
}

static void err_conf_free(struct px_err_conf *c)
{
	free(c->section);
	http_reply_free(c->reply);
	free(c->file);
	free(c);
}

void http_err_conf_free(struct list *l)
{
	struct px_err_conf *c, *n;

	list_for_each_entry_safe(c, n, l, list)
	{
		list_delete(&c->list);
		err_conf_free(c);
	}
}

/* errorfiles NAME [CODE...] */
static int kw_errorfiles(struct cfg_ctx *ctx)
{
	struct px_err_conf *c;
	uint32_t codes = 0;
	long code;

	if (!ctx->px)
		return -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "%s : expects <name> as argument.", ctx->args[0]);
		return -1;
	}
	for (int i = 2; i < ctx->nargs; i++) {
		char *end;

		code = strtol(ctx->args[i], &end, 10);
		if (*end || err_code_index((int)code) < 0) {
			cfg_alert(ctx, "%s : status code '%s' not handled.", ctx->args[0],
				  ctx->args[i]);
			return -1;
		}
		codes |= 1u << err_code_index((int)code);
	}
	c = err_conf_new(ctx, ERRC_FILES);
	if (!c)
		return -1;
	c->codes = codes;
	c->section = strdup(ctx->args[1]);
	if (!c->section) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

/* http-error status N [content-type T] [payload...] [hdr NAME FMT]... */
static int kw_http_error(struct cfg_ctx *ctx)
{
	struct act_parse ap = {
		.px = ctx->px,
		.pc = { ctx->file, ctx->line, ctx->px, 0, "http-error" },
		.set = "http-error",
		.from = ACT_F_HTTP_RES,
	};
	struct http_reply *r;
	struct px_err_conf *c;
	char err[1024] = "";
	int pos = 1;

	if (!ctx->px)
		return -1;
	for (pos = 1; pos < ctx->nargs && strcmp(ctx->args[pos], "status"); pos++)
		;
	if (pos >= ctx->nargs) {
		cfg_alert(ctx, "http-error : expects at least a <status> as arguments.");
		return -1;
	}
	pos = 1;
	r = http_reply_parse(ctx->args, &pos, ctx->nargs, &ap, 0, false, err, sizeof(err));
	if (!r) {
		cfg_alert(ctx, "http-error : %s.", err);
		return -1;
	}
	if (pos < ctx->nargs) { /* "if"/"unless" have no meaning here */
		cfg_alert(ctx, "http-error : unknown argument '%s'.", ctx->args[pos]);
		goto fail;
	}
	if (!r->status) {
		cfg_alert(ctx, "http-error : expects at least a <status> as arguments.");
		goto fail;
	}
	if (err_code_index(r->status) < 0) {
		cfg_alert(ctx, "http-error : Unexpected status code '%d'.", r->status);
		goto fail;
	}
	c = err_conf_new(ctx, ERRC_REPLY);
	if (!c)
		goto fail;
	c->status = r->status;
	c->reply = r;
	return 0;
fail:
	http_reply_free(r);
	return -1;
}

/* errorloc|errorloc302|errorloc303 CODE URL: a redirect instead of the page. */
static int kw_errorloc(struct cfg_ctx *ctx)
{
	bool see_other = !strcmp(ctx->args[0], "errorloc303");
	const char *sl = see_other ? "HTTP/1.1 303 See Other" : "HTTP/1.1 302 Found";
	char *msg;
	long code;
	char *end;
	int n, ret;

	if (!ctx->px)
		return -1;
	if (ctx->nargs < 3) {
		cfg_alert(ctx, "%s : expects <status_code> and <url> as arguments.", ctx->args[0]);
		return -1;
	}
	code = strtol(ctx->args[1], &end, 10);
	if (*end || err_code_index((int)code) < 0) {
		cfg_alert(ctx, "%s : status code '%s' not handled.", ctx->args[0], ctx->args[1]);
		return -1;
	}
	n = snprintf(NULL, 0,
		     "%s\r\ncache-control: no-cache\r\ncontent-length: 0\r\n"
		     "location: %s\r\n\r\n",
		     sl, ctx->args[2]);
	msg = malloc((size_t)n + 1);
	if (!msg) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	snprintf(msg, (size_t)n + 1,
		 "%s\r\ncache-control: no-cache\r\ncontent-length: 0\r\n"
		 "location: %s\r\n\r\n",
		 sl, ctx->args[2]);
	ret = proxy_set_errorfile(ctx->px, (int)code, msg, (size_t)n);
	free(msg);
	if (ret < 0) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

/* ---- check time ---- */

/* Applies line <c> to <px> unless a later "errorfile" already set the status. <verbose>
 * when <c> belongs to <px> itself (messages are printed once, for the owner). */
static int err_conf_apply_one(struct proxy *px, int status, const struct px_err_conf *c,
			      const struct errorfile *msg, const struct http_reply *reply)
{
	const struct errorfile *cur = proxy_errorfile(px, status);

	if (cur && cur->seq > c->seq)
		return 0;
	if (msg)
		return proxy_set_errorfile_seq(px, status, msg->msg.ptr, msg->msg.len, c->seq);
	if (reply)
		return proxy_set_error_reply(px, status, reply, c->seq);
	proxy_del_errorfile(px, status);
	return 0;
}

static int err_conf_files(struct proxy *px, const struct px_err_conf *c, bool verbose)
{
	const struct http_errors *h = http_errors_find(c->section);
	int errs = 0;

	if (!h) {
		if (verbose)
			ha_alert("proxy '%s': unknown http-errors section '%s' (at %s:%d).", px->id,
				 c->section, c->file, c->line);
		return verbose;
	}
	for (int i = 0; i < HTTP_ERR_NB; i++) {
		bool listed = c->codes & (1u << i);

		if (c->codes && !listed)
			continue;
		if (!h->msgs[i].status) {
			if (listed && verbose)
				ha_warning("config: proxy '%s' : status '%d' not declared in "
					   "http-errors section '%s' (at %s:%d).",
					   px->id, http_err_codes[i], c->section, c->file, c->line);
			continue;
		}
		if (err_conf_apply_one(px, http_err_codes[i], c, &h->msgs[i], NULL) < 0)
			errs++;
	}
	return errs;
}

/* http-error: an "errorfiles NAME" reply takes the section's message (nothing changes
 * when the section lacks it), "default-errorfiles" resets the status, any other reply is
 * built per request. */
static int err_conf_reply(struct proxy *px, const struct px_err_conf *c, bool verbose)
{
	const struct http_reply *r = c->reply;
	const struct http_errors *h;
	int i;

	if (r->type == HTTP_REPLY_ERRMSG && !r->errmsg)
		return err_conf_apply_one(px, c->status, c, NULL, NULL) < 0;
	if (r->type != HTTP_REPLY_ERRFILES)
		return err_conf_apply_one(px, c->status, c, NULL, r) < 0;
	h = http_errors_find(r->errfiles);
	if (!h) {
		if (verbose)
			ha_alert("proxy '%s': unknown http-errors section '%s' (at %s:%d).", px->id,
				 r->errfiles, c->file, c->line);
		return verbose;
	}
	i = err_code_index(c->status);
	if (!h->msgs[i].status) {
		if (verbose)
			ha_warning("config: proxy '%s' : status '%d' not declared in http-errors "
				   "section '%s' (at %s:%d).",
				   px->id, c->status, r->errfiles, c->file, c->line);
		return 0;
	}
	return err_conf_apply_one(px, c->status, c, &h->msgs[i], NULL) < 0;
}

/* Applies the lines of <owner> (px itself or one of its defaults sections) to <px>. */
static int err_conf_apply(struct proxy *px, const struct proxy *owner)
{
	const struct px_rules_ext *x = px_ext(owner);
	const struct px_err_conf *c;
	bool verbose = px == owner;
	int errs = 0;

	if (!x)
		return 0;
	list_for_each_entry(c, &x->err_conf, list) errs += c->type == ERRC_FILES
								   ? err_conf_files(px, c, verbose)
								   : err_conf_reply(px, c, verbose);
	return errs;
}

/* Applies the lines of <px>'s defaults sections, the oldest first, then its own ones. */
static int err_resolve_proxy(struct proxy *px)
{
	const struct proxy *chain[16];
	int n = 0, errs = 0;

	for (const struct proxy *d = px->defpx; d && n < 16; d = d->defpx)
		chain[n++] = d;
	while (n--)
		errs += err_conf_apply(px, chain[n]);
	return errs + err_conf_apply(px, px);
}

int http_err_check_all(void)
{
	struct proxy *px;
	int errs = 0;

	for (px = proxy_defaults_first(); px; px = px->next)
		errs += err_conf_apply(px, px);
	for (px = proxies; px; px = px->next)
		errs += err_resolve_proxy(px);
	return errs;
}

int http_reply_check_rule(struct act_rule *rule, struct proxy *px, char *err, size_t errsz)
{
	struct http_reply *r = rule->arg.reply;
	const struct http_errors *h;
	int i;

	if (!r || r->type != HTTP_REPLY_ERRFILES)
		return 0;
	h = http_errors_find(r->errfiles);
	if (!h) {
		snprintf(err, errsz,
			 "Proxy '%s': unknown http-errors section '%s' referenced by "
			 "an http reply",
			 px->id, r->errfiles);
		return -1;
	}
	i = err_code_index(r->status);
	r->type = HTTP_REPLY_ERRMSG; /* the section's page, or the proxy's own */
	r->errmsg = NULL;
	r->owns_errmsg = 0;
	if (i >= 0 && h->msgs[i].status) {
		r->errmsg = &h->msgs[i];
		return 0;
	}
	ha_warning("Proxy '%s': status '%d' referenced by an http reply not declared in "
		   "http-errors section '%s'.",
		   px->id, r->status, r->errfiles);
	return 0;
}

/* ---- run time ---- */

const struct errorfile *http_error_find(const struct stream *s, int status)
{
	const struct errorfile *ef = NULL;

	if (s->be)
		ef = proxy_errorfile(s->be, status);
	if (!ef && s->fe != s->be)
		ef = proxy_errorfile(s->fe, status);
	return ef;
}

static const struct cfg_section http_errors_section = { "http-errors", CFG_SEC_HTTP_ERRORS,
							http_errors_begin };

__attribute__((constructor)) static void http_errors_register_section(void)
{
	cfg_register_section(&http_errors_section);
}

static const struct cfg_kw http_err_kws[] = {
	{ "errorfile", CFG_SEC_HTTP_ERRORS, http_errors_errorfile },
	{ "errorfiles", CFG_SEC_PROXIES, kw_errorfiles },
	{ "http-error", CFG_SEC_PROXIES, kw_http_error },
	{ "errorloc", CFG_SEC_PROXIES, kw_errorloc },
	{ "errorloc302", CFG_SEC_PROXIES, kw_errorloc },
	{ "errorloc303", CFG_SEC_PROXIES, kw_errorloc },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(http_err_kws);
