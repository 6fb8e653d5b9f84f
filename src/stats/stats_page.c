/* The stats page ("stats uri"): the request check (uri prefix, stats http-request rules,
 * stats auth with its 401, admin POST acting on servers then a 303), and the page itself
 * as an HTTP service (stream/service.h): HTML in HAProxy's layout and colours from the
 * typed fields of the stats model (stats/stats.h), one proxy line at a time, so the page
 * is streamed in bounded memory; ";csv", ";json" and ";json-schema" are the runtime API's
 * "show stat" / "show stat json" / "show schema json" producers, served as they write.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <backend/server-t.h>
#include <backend/server.h>
#include <check/check-t.h>
#include <base/buf.h>
#include <cli/cli.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <http/h1.h>
#include <http/meth.h>
#include <proc/global-t.h>
#include <proc/version.h>
#include <proxy/proxy.h>
#include <sample/acl.h>
#include <stats/stats.h>
#include <stats/stats_form.h>
#include <stats/stats_page-t.h>
#include <stream/action.h>
#include <stream/service.h>
#include <stream/stream.h>
#include <stream/userlist.h>

#define SP_CSV_BUF 8192 /* producer output waiting to be sent (CSV, JSON) */

struct stats_page {
	const struct stats_cfg *st;
	struct stats_opts o; /* options after the uri */
	uint8_t admin;	     /* stats admin granted to this request */
	struct cli_ctx cc;   /* CSV/JSON: the runtime API producer */
	char *args[5];
	struct buf csv;
	int csv_done;
	struct stat_line line; /* HTML: the line being rendered */
};

/* ---- request side ---- */

static bool sp_auth_ok(const struct stats_cfg *st, const struct stream *s)
{
	char dec[512];
	struct ist u, p;

	for (uint16_t i = 0; i < s->req.nhdr; i++) {
		const struct h1_hdr *h = &s->req.hdr[i];

		if (h->skip || !ist_ieq(h->n, IST("authorization")))
			continue;
		if (userlist_basic_decode(h->v.ptr, h->v.len, dec, sizeof(dec), &u, &p) < 0)
			return false;
		for (int k = 0; k < st->nb_users; k++) {
			const char *c = st->users[k], *col = strchr(c, ':');
			size_t ul = col ? (size_t)(col - c) : strlen(c);
			const char *pw = col ? col + 1 : ""; /* "user" alone: an empty password */

			if (ul == u.len && !memcmp(c, u.ptr, ul) && strlen(pw) == p.len &&
			    !memcmp(pw, p.ptr, p.len))
				return true;
		}
		return false;
	}
	return false;
}

/* HAProxy's 401 page with the realm's challenge. */
static int sp_reply_401(struct stream *s, const struct stats_cfg *st)
{
	static const char body[] = "<html><body><h1>401 Unauthorized</h1>\n"
				   "You need a valid user and password to access this content.\n"
				   "</body></html>\n";
	struct buf *ob = &s->front->obuf;
	int start = stream_reply_start(s);

	if (start < 0 ||
	    svc_printf(ob,
		       "HTTP/1.1 401 Unauthorized\r\ncontent-length: %zu\r\n"
		       "cache-control: no-cache\r\ncontent-type: text/html\r\n"
		       "www-authenticate: Basic realm=\"%s\"\r\n\r\n%s",
		       sizeof(body) - 1, st->realm ? st->realm : STATS_DEFAULT_REALM, body) < 0)
		return stream_reply_error(s, 500, false);
	stream_set_term(s, 'L');
	return stream_reply_finish(s, start, 401, false);
}

/* Applies <action> to server <name> of <be>; false when it does not exist or the action is
 * not one of the form's. */
static bool sp_admin_srv(struct proxy *be, const char *name, const char *action)
{
	char target[256], ob[256];
	char *args[6] = { "set", "server", target, "state", (char *)action, NULL };
	struct buf out = { .area = ob, .size = sizeof(ob) };
	struct cli_ctx cc = {
		.args = args, .nargs = 5, .level = CLI_LVL_ADMIN, .out = &out, .fd = -1
	};
	const struct cli_kw *kw;
	struct server *srv;
	int r;

	if (strcmp(action, "ready") && strcmp(action, "drain") && strcmp(action, "maint"))
		return false;
	for (srv = be->srv; srv && strcmp(srv->id, name); srv = srv->next)
		;
	if (!srv || snprintf(target, sizeof(target), "%s/%s", be->id, name) >= (int)sizeof(target))
		return false;
	/* the runtime API's command: the change runs on the thread of the server's check
	 * (posted there when it is another one; applied within that thread's next loop turn) */
	kw = cli_kw_find(args, 5);
	if (!kw || !kw->words[1] || strcmp(kw->words[1], "server"))
		return false;
	r = kw->fn(&cc);
	return r != CLI_MORE && !out.data;
}

/* The backend the form names: "#IID" (as the page writes it) or its name. */
static struct proxy *sp_find_be(const char *name)
{
	if (name[0] != '#')
		return proxy_find(name, PR_CAP_BE);
	for (struct proxy *px = proxies; px; px = px->next)
		if ((px->cap & PR_CAP_BE) && stat_proxy_iid(px) == atoi(name + 1))
			return px;
	return NULL;
}

/* The admin form's POST body: the status code shown after the redirect, as 2.6 answers
 * (DONE, PART, NONE: no server or no action, ERRP: no such backend, server or action). */
static const char *sp_admin_post(char *body, size_t len)
{
	struct stats_form f;
	struct proxy *be;
	int ok = 0;

	stats_form_parse(body, len, &f);
	if (!f.backend || !(be = sp_find_be(f.backend)))
		return "ERRP";
	if (!f.nb_srv || !f.action || !*f.action)
		return "NONE";
	for (int i = 0; i < f.nb_srv; i++)
		ok += sp_admin_srv(be, f.srv[i], f.action);
	return ok == f.nb_srv ? "DONE" : ok ? "PART" : "ERRP";
}

/* 303 to the page with the result of an admin POST. */
static int sp_reply_303(struct stream *s, const struct stats_cfg *st, const char *code)
{
	struct buf *ob = &s->front->obuf;
	int start = stream_reply_start(s);

	if (start < 0 || svc_printf(ob,
				    "HTTP/1.1 303 See Other\r\ncache-control: no-cache\r\n"
				    "content-type: text/plain\r\ncontent-length: 0\r\n"
				    "location: %s;st=%s\r\n\r\n",
				    st->uri, code) < 0)
		return stream_reply_error(s, 500, false);
	stream_set_term(s, 'L');
	return stream_reply_finish(s, start, 303, false);
}

/* stats http-request rules: 1 go on, 0 answered (*ret set). */
static int sp_rules(struct stream *s, struct proxy *px, const struct stats_cfg *st, int *ret,
		    bool *allowed)
{
	struct act_rule *last = NULL;
	struct smp_ctx ctx;
	enum act_return r;

	*allowed = false;
	if (list_empty(&st->rules))
		return 1;
	r = act_rules_run((struct list *)&st->rules, px, s, ACT_F_HTTP_REQ, &last);
	if (r == ACT_RET_CONT) {
		*allowed = last && !strcmp(last->kw, "allow");
		return 1;
	}
	stream_set_term(s, 'L');
	if (r == ACT_RET_DONE) { /* auth: the 401 page is written */
		*ret = stream_reply_done(s);
		return 0;
	}
	if (r == ACT_RET_DENY) {
		act_smp_ctx(&ctx, s, px, ACT_F_HTTP_REQ);
		*ret = stream_reply_http(s, last->arg.reply, &ctx);
		return 0;
	}
	*ret = r == ACT_RET_ABRT ? stream_abort(s) : stream_reply_error(s, 500, false);
	return 0;
}

static const struct http_service stats_svc;

static int stats_intercept(struct stream *s, struct proxy *px, int *ret)
{
	const struct stats_cfg *st = px->stats;
	struct ist pq = h1_uri_pathq(s->req.uri);
	size_t ul = strlen(st->uri);
	struct stats_page *pg;
	bool allowed, admin;

	if (pq.len < ul || memcmp(pq.ptr, st->uri, ul))
		return 0;
	if (!sp_rules(s, px, st, ret, &allowed))
		return 1;
	if (!allowed && st->nb_users && !sp_auth_ok(st, s)) {
		*ret = sp_reply_401(s, st);
		return 1;
	}
	if (st->admin) {
		struct smp_ctx ctx;

		act_smp_ctx(&ctx, s, px, ACT_F_HTTP_REQ);
		admin = acl_cond_true(st->admin, &ctx);
	} else {
		admin = false;
	}
	if (s->meth == HTTP_METH_POST) {
		struct buf *ib = &s->front->ibuf;
		uint64_t have = ib->data - s->req.hdr_len;
		char body[1025];

		if (!admin) {
			*ret = sp_reply_303(s, st, "DENY");
			return 1;
		}
		if (s->reqx.mode != XFER_CLEN || s->reqx.remain >= sizeof(body)) {
			*ret = sp_reply_303(s, st, "EXCD");
			return 1;
		}
		if (have < s->reqx.remain) { /* the whole form first (the rules run again) */
			s->flags |= SF_BODY_RULES;
			s->state = SS_REQ_BODY_WAIT;
			*ret = 1;
			return 1;
		}
		memcpy(body, b_head(ib) + s->req.hdr_len, (size_t)s->reqx.remain);
		*ret = sp_reply_303(s, st, sp_admin_post(body, (size_t)s->reqx.remain));
		return 1;
	}
	pg = calloc(1, sizeof(*pg));
	if (!pg) {
		*ret = stream_reply_error(s, 500, false);
		return 1;
	}
	pg->st = st;
	pg->admin = admin;
	stats_opts_parse(pq.ptr + ul, pq.len - ul, &pg->o);
	*ret = service_attach(s, &stats_svc, px, pg);
	return 1;
}

/* ---- the page ---- */

static int sp_start(struct svc_ctx *c, struct buf *hdrs)
{
	struct stats_page *pg = c->conf;

	c->priv = pg;
	c->conf = NULL;
	if (pg->o.fmt != STATS_OUT_HTML) {
		char **a = pg->args;
		int n = 0;

		pg->csv.area = malloc(SP_CSV_BUF);
		if (!pg->csv.area)
			return -1;
		pg->csv.size = SP_CSV_BUF;
		a[n++] = "show";
		a[n++] = pg->o.fmt == STATS_OUT_SCHEMA ? "schema" : "stat";
		if (pg->o.fmt >= STATS_OUT_JSON)
			a[n++] = "json";
		if (pg->o.up && pg->o.fmt != STATS_OUT_SCHEMA)
			a[n++] = "up";
		a[n] = NULL;
		pg->cc.args = a;
		pg->cc.nargs = n;
	}
	pg->cc.level = CLI_LVL_USER;
	pg->cc.out = &pg->csv;
	pg->cc.fd = -1;
	if (svc_printf(hdrs, "cache-control: no-cache\r\ncontent-type: %s\r\n",
		       pg->o.fmt == STATS_OUT_CSV    ? "text/plain"
		       : pg->o.fmt >= STATS_OUT_JSON ? "application/json"
						     : "text/html") < 0)
		return -1;
	if (pg->o.fmt == STATS_OUT_HTML && pg->st->refresh && !pg->o.norefresh &&
	    svc_printf(hdrs, "refresh: %d\r\n", pg->st->refresh) < 0)
		return -1;
	return 0;
}

static void sp_free(void *conf)
{
	struct stats_page *pg = conf;

	if (!pg)
		return;
	free(pg->csv.area);
	free(pg);
}

static void sp_release(struct svc_ctx *c)
{
	sp_free(c->priv ? c->priv : c->conf);
	c->priv = c->conf = NULL;
}

/* Refills pg->csv from the producer. */
static int sp_produce(struct stats_page *pg)
{
	const struct cli_kw *kw = cli_kw_find(pg->args, pg->cc.nargs);
	int r;

	if (!kw)
		return -1;
	b_realign(&pg->csv);
	r = kw->fn(&pg->cc);
	if (r == CLI_DONE)
		pg->csv_done = 1;
	return 0;
}

/* ---- HTML ---- */

static const char sp_css[] =
	"<style type=\"text/css\"><!--\n"
	"body { font-family: arial, helvetica, sans-serif; font-size: 12px; font-weight: normal;"
	" color: black; background: white;}\n"
	"th,td { font-size: 10px;}\n"
	"h1 { font-size: x-large; margin-bottom: 0.5em;}\n"
	"h2 { font-family: helvetica, arial; font-size: x-large; font-weight: bold; font-style:"
	" italic; color: #6020a0; margin-top: 0em; margin-bottom: 0em;}\n"
	"h3 { font-family: helvetica, arial; font-size: 16px; font-weight: bold; color: #b00040;"
	" background: #e8e8d0; margin-top: 0em; margin-bottom: 0em;}\n"
	".hr {margin-top: 0.25em; border-color: black; border-bottom-style: solid;}\n"
	".titre\t{background: #20D0D0;color: #000000; font-weight: bold; text-align: center;}\n"
	".frontend\t{background: #e8e8d0;}\n"
	".backend\t{background: #e8e8d0;}\n"
	".active_down\t\t{background: #ff9090;}\n"
	".active_going_up\t\t{background: #ffd020;}\n"
	".active_going_down\t{background: #ffffa0;}\n"
	".active_up\t\t{background: #c0ffc0;}\n"
	".active_nolb\t\t{background: #20a0ff;}\n"
	".active_draining\t\t{background: #20a0FF;}\n"
	".active_no_check\t\t{background: #e0e0e0;}\n"
	".backup_down\t\t{background: #ff9090;}\n"
	".backup_going_up\t\t{background: #ff80ff;}\n"
	".backup_going_down\t{background: #c060ff;}\n"
	".backup_up\t\t{background: #b0d0ff;}\n"
	".backup_nolb\t\t{background: #90b0e0;}\n"
	".backup_draining\t\t{background: #cc9900;}\n"
	".backup_no_check\t\t{background: #e0e0e0;}\n"
	".maintain\t{background: #c07820;}\n"
	"a.px:link {color: #ffff40; text-decoration: none;}"
	"a.px:visited {color: #ffff40; text-decoration: none;}"
	"a.lfsb:link {color: #000000; text-decoration: none;}\n"
	"table.tbl { border-collapse: collapse; border-style: none;}\n"
	"table.tbl td { text-align: right; border-width: 1px 1px 1px 1px; border-style: solid"
	" solid solid solid; padding: 2px 3px; border-color: gray; white-space: nowrap;}\n"
	"table.tbl td.ac { text-align: center;}\n"
	"table.tbl th { border-width: 1px; border-style: solid solid solid solid; border-color:"
	" gray;}\n"
	"table.tbl th.pxname { background: #b00040; color: #ffff40; font-weight: bold;"
	" border-style: solid solid none solid; padding: 2px 3px; white-space: nowrap;}\n"
	"table.tbl th.empty { border-style: none; empty-cells: hide; background: white;}\n"
	"table.lgd { border-collapse: collapse; border-width: 1px; border-style: none none none"
	" solid; border-color: black;}\n"
	"table.lgd td { border-width: 1px; border-style: solid solid solid solid; border-color:"
	" gray; padding: 2px;}\n"
	"table.lgd td.noborder { border-style: none; padding: 2px; white-space: nowrap;}\n"
	"-->\n</style></head>\n";

static const char sp_legend[] =
	"<table class=\"lgd\"><tr>\n"
	"<td class=\"active_up\">&nbsp;</td><td class=\"noborder\">active UP </td>"
	"<td class=\"backup_up\">&nbsp;</td><td class=\"noborder\">backup UP </td></tr><tr>\n"
	"<td class=\"active_going_down\"></td><td class=\"noborder\">active UP, going down </td>"
	"<td class=\"backup_going_down\"></td><td class=\"noborder\">backup UP, going down </td>"
	"</tr><tr>\n"
	"<td class=\"active_going_up\"></td><td class=\"noborder\">active DOWN, going up </td>"
	"<td class=\"backup_going_up\"></td><td class=\"noborder\">backup DOWN, going up </td>"
	"</tr><tr>\n"
	"<td class=\"active_down\"></td><td class=\"noborder\">active or backup DOWN &nbsp;</td>"
	"<td class=\"active_no_check\"></td><td class=\"noborder\">not checked </td></tr><tr>\n"
	"<td class=\"maintain\"></td><td class=\"noborder\" colspan=\"3\">active or backup DOWN"
	" for maintenance (MAINT) &nbsp;</td></tr><tr>\n"
	"<td class=\"active_draining\"></td><td class=\"noborder\" colspan=\"3\">active or backup"
	" SOFT STOPPED for maintenance &nbsp;</td></tr></table>\n"
	"Note: \"NOLB\"/\"DRAIN\" = UP with load-balancing disabled.";

static const char sp_cols[] =
	"<tr class=\"titre\"><th rowspan=2></th><th rowspan=2></th><th colspan=3>Queue</th>"
	"<th colspan=3>Session rate</th><th colspan=6>Sessions</th><th colspan=2>Bytes</th>"
	"<th colspan=2>Denied</th><th colspan=3>Errors</th><th colspan=2>Warnings</th>"
	"<th colspan=9>Server</th></tr>\n"
	"<tr class=\"titre\"><th>Cur</th><th>Max</th><th>Limit</th><th>Cur</th><th>Max</th>"
	"<th>Limit</th><th>Cur</th><th>Max</th><th>Limit</th><th>Total</th><th>LbTot</th>"
	"<th>Last</th><th>In</th><th>Out</th><th>Req</th><th>Resp</th><th>Req</th><th>Conn</th>"
	"<th>Resp</th><th>Retr</th><th>Redis</th><th>Status</th><th>LastChk</th><th>Wght</th>"
	"<th>Act</th><th>Bck</th><th>Chk</th><th>Dwn</th><th>Dwntme</th><th>Thrtle</th>\n</tr>";

static const char sp_actions[] =
	"Choose the action to perform on the checked servers : <select name=action>"
	"<option value=\"\"></option><option value=\"ready\">Set state to READY</option>"
	"<option value=\"drain\">Set state to DRAIN</option>"
	"<option value=\"maint\">Set state to MAINT</option></select>";

/* Minimal HTML escaping of names and texts from the configuration. */
static int sp_put_esc(struct buf *out, const char *s)
{
	char tmp[512];
	size_t o = 0;

	for (; *s && o + 6 < sizeof(tmp); s++) {
		const char *r = *s == '<'   ? "&lt;"
				: *s == '>' ? "&gt;"
				: *s == '&' ? "&amp;"
				: *s == '"' ? "&quot;"
					    : NULL;

		if (r) {
			memcpy(tmp + o, r, strlen(r));
			o += strlen(r);
		} else {
			tmp[o++] = *s;
		}
	}
	return svc_write(out, tmp, o);
}

static int sp_html_head(struct svc_ctx *c, struct stats_page *pg, struct buf *out)
{
	const struct stats_cfg *st = pg->st;
	unsigned long long up = cli_uptime_ms() / 1000;
	const char *u = st->uri;

	if (svc_printf(out,
		       "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\"\n"
		       "\"http://www.w3.org/TR/html4/loose.dtd\">\n<html><head><title>"
		       "Statistics Report for HAProxy%s%s</title>\n"
		       "<link rel=\"icon\" href=\"data:,\">\n<meta http-equiv=\"content-type\""
		       " content=\"text/html; charset=iso-8859-1\">\n",
		       (st->flags & ST_F_NODE) ? " on " : "",
		       (st->flags & ST_F_NODE) ? (st->node	? st->node
						  : global.node ? global.node
								: "")
					       : "") < 0 ||
	    svc_write(out, sp_css, sizeof(sp_css) - 1) < 0)
		return -1;
	if (svc_printf(out,
		       "<body><h1><a href=\"http://www.haproxy.org/\" style=\"text-decoration:"
		       " none;\">HAProxy%s%s</a></h1>\n<h2>Statistics Report for pid %d%s%s"
		       "</h2>\n<hr width=\"100%%\" class=\"hr\">\n",
		       (st->flags & ST_F_HIDEVER) ? "" : " version ",
		       (st->flags & ST_F_HIDEVER) ? "" : HAPROXY_COMPAT_VERSION, (int)getpid(),
		       (st->flags & ST_F_NODE) ? " on " : "",
		       (st->flags & ST_F_NODE) ? (st->node	? st->node
						  : global.node ? global.node
								: "")
					       : "") < 0)
		return -1;
	if ((st->flags & ST_F_DESC) && (st->desc || global.desc) &&
	    (svc_write(out, "<h2>", 4) < 0 ||
	     sp_put_esc(out, st->desc ? st->desc : global.desc) < 0 ||
	     svc_write(out, "</h2>\n", 6) < 0))
		return -1;
	if (svc_printf(out,
		       "<h3>&gt; General process information</h3>\n<table border=0><tr>"
		       "<td align=\"left\" nowrap width=\"1%%\">\n<p><b>pid = </b> %d (process "
		       "#1, nbproc = 1, nbthread = %d)<br>\n<b>uptime = </b> %llud %lluh%02llum"
		       "%02llus<br>\n<b>maxconn = </b> %d<br>\n</td><td align=\"center\" "
		       "nowrap>\n",
		       (int)getpid(), global.nbthread, up / 86400, up / 3600 % 24, up / 60 % 60,
		       up % 60, global.maxconn) < 0)
		return -1;
	if ((st->flags & ST_F_LEGENDS) && svc_write(out, sp_legend, sizeof(sp_legend) - 1) < 0)
		return -1;
	if (svc_printf(out,
		       "</td><td align=\"left\" valign=\"top\" nowrap width=\"1%%\"><b>Display"
		       " option:</b><ul style=\"margin-top: 0.25em;\">"
		       "<li><a href=\"%s%s%s\">%s</a><br>\n"
		       "<li><a href=\"%s%s%s\">%s</a><br>\n"
		       "<li><a href=\"%s%s%s\">Refresh now</a><br>\n"
		       "<li><a href=\"%s;csv;norefresh\">CSV export</a><br>\n"
		       "<li><a href=\"%s;json;norefresh\">JSON export</a><br>\n"
		       "</ul></td></tr></table>\n",
		       u, pg->o.up ? "" : ";up", pg->o.norefresh ? ";norefresh" : "",
		       pg->o.up ? "Show all servers" : "Hide 'DOWN' servers", u,
		       pg->o.up ? ";up" : "", pg->o.norefresh ? "" : ";norefresh",
		       pg->o.norefresh ? "Enable refresh" : "Disable refresh", u,
		       pg->o.up ? ";up" : "", pg->o.norefresh ? ";norefresh" : "", u, u) < 0)
		return -1;
	if (pg->o.st[0]) {
		bool good = !strcmp(pg->o.st, "DONE");
		const char *msg = good			      ? "Action processed successfully."
				  : !strcmp(pg->o.st, "NONE") ? "Nothing has changed."
				  : !strcmp(pg->o.st, "PART") ? "Action partially processed."
				  : !strcmp(pg->o.st, "DENY") ? "Action denied."
				  : !strcmp(pg->o.st, "EXCD") ? "Action not processed : the buffer "
								"couldn't store all the data."
							      : "Action not processed because of "
								"invalid parameters.";

		if (svc_printf(out,
			       "<p><div class=%s><a class=lfsb href=\"%s%s%s\" title=\"Remove "
			       "this message\">[X]</a> %s</div>\n",
			       good ? "active_up" : "active_down", u, pg->o.up ? ";up" : "",
			       pg->o.norefresh ? ";norefresh" : "", msg) < 0)
			return -1;
	}
	return 0;
}

/* The value of column <col> of <l> as CSV shows it, in <b> (empty when it does not fit). */
static const char *sp_v(const struct stat_line *l, int col, char *b, size_t sz)
{
	size_t n = stat_out_value(b, 0, sz - 1, &l->f[col]);

	b[n == (size_t)-1 ? 0 : n] = 0;
	return b;
}

/* The row class of a server line: HAProxy's colours for its state. */
static const char *sp_class(const struct stat_line *l)
{
	const char *s = l->f[ST_status].type == SF_STR ? l->f[ST_status].u.str : "";
	bool bck = stat_field_u64(&l->f[ST_bck]) != 0;

	if (!strncmp(s, "MAINT", 5))
		return "maintain";
	if (!strcmp(s, "DRAIN"))
		return bck ? "backup_draining" : "active_draining";
	if (!strcmp(s, "NOLB"))
		return bck ? "backup_nolb" : "active_nolb";
	if (!strcmp(s, "no check"))
		return bck ? "backup_no_check" : "active_no_check";
	if (!strncmp(s, "UP ", 3))
		return bck ? "backup_going_down" : "active_going_down";
	if (!strncmp(s, "DOWN ", 5))
		return bck ? "backup_going_up" : "active_going_up";
	if (!strncmp(s, "UP", 2))
		return bck ? "backup_up" : "active_up";
	return "active_down";
}

/* A duration in seconds as the page shows it ("5s", "3m12s", "2h05m", "1d3h"). */
static void sp_dur(char *b, size_t sz, const struct stat_field *f)
{
	unsigned long long v = stat_field_u64(f);

	if (f->type == SF_EMPTY)
		b[0] = 0;
	else if (v >= 86400)
		snprintf(b, sz, "%llud%lluh", v / 86400, v / 3600 % 24);
	else if (v >= 3600)
		snprintf(b, sz, "%lluh%02llum", v / 3600, v / 60 % 60);
	else if (v >= 60)
		snprintf(b, sz, "%llum%02llus", v / 60, v % 60);
	else
		snprintf(b, sz, "%llus", v);
}

static bool sp_in_scope(const struct stats_page *pg, const struct proxy *px)
{
	if (!pg->st->nb_scope)
		return true;
	for (int i = 0; i < pg->st->nb_scope; i++)
		if (!strcmp(pg->st->scope[i], px->id))
			return true;
	return false;
}

/* The title and column headers of proxy <px> (a form around a backend for admins). */
static int sp_px_open(struct stats_page *pg, struct buf *out, const struct proxy *px)
{
	bool form = pg->admin && (px->cap & PR_CAP_BE);
	const char *cap = (px->cap & PR_CAP_FE) && (px->cap & PR_CAP_BE) ? "proxy"
			  : (px->cap & PR_CAP_FE)			 ? "frontend"
									 : "backend";

	if ((form && svc_write(out, "<form method=\"post\">", 20) < 0) ||
	    svc_printf(out,
		       "<table class=\"tbl\" width=\"100%%\">\n<tr class=\"titre\"><th class=\""
		       "pxname\" width=\"10%%\"><a name=\"%s\"></a><a class=px href=\"#%s\">%s"
		       "</a></th><th class=\"empty\" width=\"90%%\">cap: %s, mode: %s, id: %d"
		       "</th></tr>\n</table>\n<table class=\"tbl\" width=\"100%%\">\n",
		       px->id, px->id, px->id, cap, px->mode == PR_MODE_HTTP ? "http" : "tcp",
		       stat_proxy_iid(px)) < 0)
		return -1;
	return svc_write(out, sp_cols, sizeof(sp_cols) - 1);
}

/* One row: the frontend, a server or the backend of <l>. */
static int sp_row(struct stats_page *pg, struct buf *out, const struct stat_line *l)
{
	char v[24][48], chg[32], dwn[32], name[128];
	bool fe = l->obj == STAT_OBJ_FE, be = l->obj == STAT_OBJ_BE, srv = !fe && !be;
	bool bck = stat_field_u64(&l->f[ST_bck]) != 0;
	const char *px = sp_v(l, ST_pxname, v[0], sizeof(v[0]));
	const char *label = fe	 ? "Frontend"
			    : be ? "Backend"
				 : sp_v(l, ST_svname, name, sizeof(name));

	sp_dur(chg, sizeof(chg), &l->f[ST_lastchg]);
	sp_dur(dwn, sizeof(dwn), &l->f[ST_downtime]);
	if (svc_printf(out, "<tr class=\"%s\"><td>",
		       fe   ? "frontend"
		       : be ? "backend"
			    : sp_class(l)) < 0 ||
	    (srv && pg->admin &&
	     svc_printf(out, "<input type=\"checkbox\" name=\"s\" value=\"%s\">", label) < 0) ||
	    svc_printf(out,
		       "</td><td class=ac><a name=\"%s/%s\"></a><a class=lfsb href=\"#%s/%s\">%s"
		       "</a></td>",
		       px, label, px, label, label) < 0)
		return -1;
	if (fe ? svc_write(out, "<td colspan=3></td>", 19) < 0
	       : svc_printf(out, "<td>%s</td><td>%s</td><td>%s</td>", sp_v(l, ST_qcur, v[1], 48),
			    sp_v(l, ST_qmax, v[2], 48),
			    srv ? (l->f[ST_qlimit].type ? sp_v(l, ST_qlimit, v[3], 48) : "-")
				: "") < 0)
		return -1;
	if (svc_printf(out,
		       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
		       sp_v(l, ST_rate, v[4], 48), sp_v(l, ST_rate_max, v[5], 48),
		       fe ? (l->f[ST_rate_lim].type ? sp_v(l, ST_rate_lim, v[6], 48) : "-") : "",
		       sp_v(l, ST_scur, v[7], 48), sp_v(l, ST_smax, v[8], 48),
		       l->f[ST_slim].type ? sp_v(l, ST_slim, v[9], 48) : "-",
		       sp_v(l, ST_stot, v[10], 48), fe ? "" : sp_v(l, ST_lbtot, v[11], 48),
		       fe ? "" : sp_v(l, ST_lastsess, v[12], 48), sp_v(l, ST_bin, v[13], 48),
		       sp_v(l, ST_bout, v[14], 48), sp_v(l, ST_dreq, v[15], 48),
		       sp_v(l, ST_dresp, v[16], 48), sp_v(l, ST_ereq, v[17], 48),
		       sp_v(l, ST_econ, v[18], 48), sp_v(l, ST_eresp, v[19], 48),
		       sp_v(l, ST_wretr, v[20], 48), sp_v(l, ST_wredis, v[21], 48)) < 0)
		return -1;
	if (fe)
		return svc_printf(out, "<td class=ac>%s</td><td colspan=8></td></tr>\n",
				  sp_v(l, ST_status, v[0], 48));
	return svc_printf(
		out,
		"<td class=ac>%s %s</td><td class=ac>%s</td><td class=ac>%s</td>"
		"<td class=ac>%s</td><td class=ac>%s</td><td>%s</td><td>%s</td>"
		"<td>%s</td><td class=ac>%s</td></tr>\n",
		chg, sp_v(l, ST_status, v[1], 48), srv ? sp_v(l, ST_check_status, v[2], 48) : "",
		sp_v(l, ST_weight, v[3], 48), srv ? (bck ? "-" : "Y") : sp_v(l, ST_act, v[4], 48),
		srv ? (bck ? "Y" : "-") : sp_v(l, ST_bck, v[5], 48), sp_v(l, ST_chkfail, v[6], 48),
		sp_v(l, ST_chkdown, v[7], 48), dwn, srv ? "-" : "");
}

/* The end of the table of <px>: the admin form's action bar when it is one. */
static int sp_px_close(struct stats_page *pg, struct buf *out, const struct proxy *px)
{
	if (!pg->admin || !(px->cap & PR_CAP_BE))
		return svc_write(out, "</table>\n", 9);
	return svc_printf(out,
			  "</table><p>%s<input type=\"hidden\" name=\"b\" value=\"#%d\">&nbsp;"
			  "<input type=\"submit\" value=\"Apply\"></form><p>\n",
			  sp_actions, stat_proxy_iid(px));
}

/* Writes one step of proxy <px> (c->n[0]: 0 title, 1 frontend, 2 servers from c->p[1],
 * 3 backend, 4 end of table). Returns 1 when the proxy is done, 0 when the output is full
 * (the step is written again next time), -1 never. */
static int sp_proxy(struct svc_ctx *c, struct stats_page *pg, struct buf *out,
		    const struct proxy *px)
{
	struct stat_line *l = &pg->line;
	uint32_t mark;

	for (;;) {
		mark = out->data;
		switch (c->n[0]) {
		case 0:
			if (sp_px_open(pg, out, px) < 0)
				goto full;
			c->p[1] = (px->cap & PR_CAP_BE) ? px->srv : NULL;
			break;
		case 1:
			if (px->cap & PR_CAP_FE) {
				stats_fill_fe(l, px);
				if (sp_row(pg, out, l) < 0)
					goto full;
			}
			break;
		case 2:
			for (; c->p[1]; c->p[1] = ((const struct server *)c->p[1])->next) {
				const struct server *srv = c->p[1];

				if (pg->o.up && !stats_srv_is_up(srv))
					continue;
				mark = out->data;
				stats_fill_srv(l, px, srv);
				if (sp_row(pg, out, l) < 0)
					goto full;
			}
			break;
		case 3:
			if (px->cap & PR_CAP_BE) {
				stats_fill_be(l, px);
				if (sp_row(pg, out, l) < 0)
					goto full;
			}
			break;
		default:
			if (sp_px_close(pg, out, px) < 0)
				goto full;
			c->n[0] = 0;
			return 1;
		}
		c->n[0]++;
	}
full:
	out->data = mark;
	return 0;
}

/* c->st 0: the head; 1: the proxies (c->p[0]); 2: the end. */
static int sp_html_dump(struct svc_ctx *c, struct stats_page *pg, struct buf *out)
{
	if (c->st == 0) {
		if (sp_html_head(c, pg, out) < 0) {
			out->data = 0;
			return SVC_MORE;
		}
		c->st = 1;
		c->p[0] = proxies;
	}
	for (; c->st == 1 && c->p[0]; c->p[0] = ((const struct proxy *)c->p[0])->next) {
		const struct proxy *px = c->p[0];

		if (!(px->cap & (PR_CAP_FE | PR_CAP_BE)) || !sp_in_scope(pg, px))
			continue;
		if (!sp_proxy(c, pg, out, px))
			return SVC_MORE;
	}
	c->st = 2;
	if (svc_write(out, "</body></html>\n", 15) < 0)
		return SVC_MORE;
	return SVC_DONE;
}

static int sp_dump(struct svc_ctx *c, struct buf *out)
{
	struct stats_page *pg = c->priv;

	if (pg->o.fmt != STATS_OUT_HTML) { /* CSV or JSON: the producer's text as it is */
		for (;;) {
			uint32_t n;

			if (!pg->csv.data && !pg->csv_done && sp_produce(pg) < 0)
				return SVC_ERR;
			if (!pg->csv.data)
				return pg->csv_done ? SVC_DONE : SVC_ERR;
			n = pg->csv.data < b_room(out) ? pg->csv.data : b_room(out);
			if (!n)
				return SVC_MORE;
			memcpy(b_tail(out), b_head(&pg->csv), n);
			out->data += n;
			b_del(&pg->csv, n);
		}
	}
	return sp_html_dump(c, pg, out);
}

static const struct http_service stats_svc = {
	.name = "stats-page",
	.start = sp_start,
	.dump = sp_dump,
	.release = sp_release,
	.conf_free = sp_free,
	.owns_conf = 1,
};

__attribute__((constructor)) static void stats_page_init(void)
{
	service_stats_hook = stats_intercept;
}
