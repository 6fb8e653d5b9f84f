/* The stats page ("stats uri"): the request check (uri prefix, stats http-request rules,
 * stats auth with its 401, admin POST acting on servers then a 303), and the page itself
 * as an HTTP service (stream/service.h): HTML in HAProxy's layout and colours, ";csv",
 * ";json", ";up", ";norefresh". Rows come from the "show stat" producer (CSV lines, read
 * a few at a time into a small buffer), so the page is streamed in bounded memory.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <backend/server-t.h>
#include <backend/server.h>
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
#include <stats/stats_page-t.h>
#include <stream/action.h>
#include <stream/service.h>
#include <stream/stream.h>
#include <stream/userlist.h>

#include "../cli/cli_int.h"

#define SP_CSV_BUF 8192 /* CSV lines waiting to be rendered */
#define SP_MAX_FIELDS 128

/* stats_page->fmt */
enum sp_fmt { SP_HTML = 0, SP_CSV, SP_JSON };

struct stats_page {
	const struct stats_cfg *st;
	uint8_t fmt;	   /* enum sp_fmt */
	uint8_t up;	   /* ;up: usable servers only */
	uint8_t norefresh; /* ;norefresh */
	uint8_t admin;	   /* stats admin granted to this request */
	char status[8];	   /* ;st=XXXX of a previous admin action */
	char cur_px[128];  /* proxy whose table is open (HTML) */
	struct cli_ctx cc; /* the "show stat" producer */
	char *args[4];
	struct buf csv;
	int csv_done;
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
			size_t ul = (size_t)(col - c);

			if (ul == u.len && !memcmp(c, u.ptr, ul) && strlen(col + 1) == p.len &&
			    !memcmp(col + 1, p.ptr, p.len))
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

/* Decodes %XX and '+' of a form value in place; returns its new length. */
static size_t sp_urldecode(char *v, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		if (v[i] == '+') {
			v[o++] = ' ';
		} else if (v[i] == '%' && i + 2 < len && isxdigit((unsigned char)v[i + 1]) &&
			   isxdigit((unsigned char)v[i + 2])) {
			char h[3] = { v[i + 1], v[i + 2], 0 };

			v[o++] = (char)strtol(h, NULL, 16);
			i += 2;
		} else {
			v[o++] = v[i];
		}
	}
	return o;
}

/* Applies <action> to server <name> of <be>; false when it does not exist or the action is
 * not one of the form's. */
static bool sp_admin_srv(struct proxy *be, const char *name, const char *action)
{
	uint64_t now = now_ms();
	struct server *srv;

	for (srv = be->srv; srv && strcmp(srv->id, name); srv = srv->next)
		;
	if (!srv)
		return false;
	if (!strcmp(action, "ready")) {
		srv_set_drain(srv, false, now);
		srv_set_maint(srv, false, true, now);
	} else if (!strcmp(action, "drain")) {
		srv_set_maint(srv, false, true, now);
		srv_set_drain(srv, true, now);
	} else if (!strcmp(action, "maint")) {
		srv_set_maint(srv, true, false, now);
	} else {
		return false;
	}
	return true;
}

/* The admin form's POST body "s=SRV&...&action=A&b=BACKEND": returns the status code
 * shown after the redirect (DONE, PART, NONE, ERRP). */
static const char *sp_admin_post(char *body, size_t len)
{
	char *names[64], *action = NULL, *be_name = NULL;
	int nb = 0, ok = 0;
	struct proxy *be;
	char *p = body, *end = body + len;

	while (p < end) {
		char *amp = memchr(p, '&', (size_t)(end - p)), *eq;
		size_t n = (size_t)((amp ? amp : end) - p);

		p[n] = 0; /* the body is ours: the '&' or one byte past the end */
		eq = strchr(p, '=');
		if (eq) {
			*eq++ = 0;
			eq[sp_urldecode(eq, strlen(eq))] = 0;
			if (!strcmp(p, "s") && nb < 64)
				names[nb++] = eq;
			else if (!strcmp(p, "action"))
				action = eq;
			else if (!strcmp(p, "b"))
				be_name = eq;
		}
		p += n + 1;
	}
	if (!action || !*action || !be_name)
		return "ERRP";
	be = proxy_find(be_name, PR_CAP_BE);
	if (!be)
		return "ERRP";
	if (!nb)
		return "NONE";
	for (int i = 0; i < nb; i++)
		ok += sp_admin_srv(be, names[i], action);
	return ok == nb ? "DONE" : ok ? "PART" : "ERRP";
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

static void sp_parse_opts(struct stats_page *pg, struct ist rest)
{
	const char *p = rest.ptr, *end = rest.ptr + rest.len;

	while (p < end) {
		const char *semi = memchr(p + 1, ';', (size_t)(end - p - 1));
		const char *e = semi ? semi : end;
		size_t n = (size_t)(e - p);

		if (n >= 4 && !memcmp(p, ";csv", 4))
			pg->fmt = SP_CSV;
		else if (n >= 5 && !memcmp(p, ";json", 5) && (n == 5 || p[5] != '-'))
			pg->fmt = SP_JSON;
		else if (n >= 3 && !memcmp(p, ";up", 3))
			pg->up = 1;
		else if (n >= 10 && !memcmp(p, ";norefresh", 10))
			pg->norefresh = 1;
		else if (n >= 8 && !memcmp(p, ";st=", 4))
			memcpy(pg->status, p + 4, 4);
		p = e;
	}
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
		char body[1024];

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
		body[s->reqx.remain] = 0;
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
	sp_parse_opts(pg, ist2(pq.ptr + ul, pq.len - ul));
	*ret = service_attach(s, &stats_svc, px, pg);
	return 1;
}

/* ---- the page ---- */

static int sp_start(struct svc_ctx *c, struct buf *hdrs)
{
	struct stats_page *pg = c->conf;

	c->priv = pg;
	c->conf = NULL;
	pg->csv.area = malloc(SP_CSV_BUF);
	if (!pg->csv.area)
		return -1;
	pg->csv.size = SP_CSV_BUF;
	pg->args[0] = "show";
	pg->args[1] = "stat";
	pg->args[2] = pg->fmt == SP_JSON ? "json" : pg->up ? "up" : NULL;
	pg->cc.args = pg->args;
	pg->cc.nargs = pg->args[2] ? 3 : 2;
	pg->cc.level = CLI_LVL_USER;
	pg->cc.out = &pg->csv;
	pg->cc.fd = -1;
	if (svc_printf(hdrs, "cache-control: no-cache\r\ncontent-type: %s\r\n",
		       pg->fmt == SP_CSV    ? "text/plain"
		       : pg->fmt == SP_JSON ? "application/json"
					    : "text/html") < 0)
		return -1;
	if (pg->fmt == SP_HTML && pg->st->refresh && !pg->norefresh &&
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
	const struct cli_kw *kw = cli_kw_find(pg->args, 2);
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
		       u, pg->up ? "" : ";up", pg->norefresh ? ";norefresh" : "",
		       pg->up ? "Show all servers" : "Hide 'DOWN' servers", u, pg->up ? ";up" : "",
		       pg->norefresh ? "" : ";norefresh",
		       pg->norefresh ? "Enable refresh" : "Disable refresh", u, pg->up ? ";up" : "",
		       pg->norefresh ? ";norefresh" : "", u, u) < 0)
		return -1;
	if (pg->status[0]) {
		bool good = !strcmp(pg->status, "DONE");
		const char *msg = good				? "Action processed successfully."
				  : !strcmp(pg->status, "NONE") ? "Nothing has changed."
				  : !strcmp(pg->status, "PART") ? "Action partially processed."
				  : !strcmp(pg->status, "DENY") ? "Action denied."
				  : !strcmp(pg->status, "EXCD")
					  ? "Action not processed : the buffer "
					    "couldn't store all the data."
					  : "Action not processed because of "
					    "invalid parameters.";

		if (svc_printf(out,
			       "<p><div class=%s><a class=lfsb href=\"%s%s%s\" title=\"Remove "
			       "this message\">[X]</a> %s</div>\n",
			       good ? "active_up" : "active_down", u, pg->up ? ";up" : "",
			       pg->norefresh ? ";norefresh" : "", msg) < 0)
			return -1;
	}
	return 0;
}

/* Splits a CSV line (modified in place) into fields; returns their number. */
static int sp_split(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p && n < max; p++) {
		if (*p == ',') {
			*p = 0;
			f[n++] = p + 1;
		}
	}
	return n;
}

/* CSV columns used by the page (show stat's order). */
enum {
	F_PX = 0,
	F_SV,
	F_QCUR,
	F_QMAX,
	F_SCUR,
	F_SMAX,
	F_SLIM,
	F_STOT,
	F_BIN,
	F_BOUT,
	F_DREQ,
	F_DRESP,
	F_EREQ,
	F_ECON,
	F_ERESP,
	F_WRETR,
	F_WREDIS,
	F_STATUS,
	F_WEIGHT,
	F_ACT,
	F_BCK,
	F_CHKFAIL,
	F_CHKDOWN,
	F_LASTCHG,
	F_DOWNTIME,
	F_QLIMIT,
	F_THROTTLE = 29,
	F_LBTOT = 30,
	F_RATE = 33,
	F_RATE_LIM,
	F_RATE_MAX,
	F_CHECK_STATUS,
	F_LASTSESS = 55,
	F_NEED = 60
};

static const char *sp_class(char **f)
{
	const char *s = f[F_STATUS];
	bool bck = !strcmp(f[F_BCK], "1");

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

static void sp_dur(char *b, size_t sz, const char *secs)
{
	long long v = atoll(secs);

	if (!*secs)
		b[0] = 0;
	else if (v >= 86400)
		snprintf(b, sz, "%lldd%lldh", v / 86400, v / 3600 % 24);
	else if (v >= 3600)
		snprintf(b, sz, "%lldh%lldm", v / 3600, v / 60 % 60);
	else if (v >= 60)
		snprintf(b, sz, "%lldm%llds", v / 60, v % 60);
	else
		snprintf(b, sz, "%llds", v);
}

/* Opens the table of proxy <px> (closing the previous one). */
static int sp_px_open(struct stats_page *pg, struct buf *out, const char *px, bool be)
{
	size_t mark = out->data;

	if (pg->cur_px[0] && svc_write(out, pg->admin ? "</table>\n" : "</table>\n", 9) < 0)
		return -1;
	if (svc_printf(out,
		       "%s<table class=\"tbl\" width=\"100%%\">\n<tr class=\"titre\"><th "
		       "class=\"pxname\" width=\"10%%\"><a name=\"%s\"></a><a class=px href=\"#"
		       "%s\">%s</a></th><th class=\"empty\" width=\"90%%\"></th></tr>\n</table>"
		       "\n<table class=\"tbl\" width=\"100%%\">\n",
		       pg->admin && be ? "<form method=\"post\">" : "", px, px, px) < 0 ||
	    svc_write(out, sp_cols, sizeof(sp_cols) - 1) < 0) {
		out->data = (uint32_t)mark;
		return -1;
	}
	return 0;
}

static int sp_row(struct stats_page *pg, struct buf *out, char **f)
{
	const char *sv = f[F_SV];
	bool fe = !strcmp(sv, "FRONTEND"), be = !strcmp(sv, "BACKEND"), srv = !fe && !be;
	char chg[32], dwn[32];
	const char *cls = fe ? "frontend" : be ? "backend" : sp_class(f);
	const char *label = fe ? "Frontend" : be ? "Backend" : sv;

	sp_dur(chg, sizeof(chg), f[F_LASTCHG]);
	sp_dur(dwn, sizeof(dwn), f[F_DOWNTIME]);
	if (svc_printf(out, "<tr class=\"%s\"><td>", cls) < 0)
		return -1;
	if (srv && pg->admin &&
	    svc_printf(out, "<input type=\"checkbox\" name=\"s\" value=\"%s\">", sv) < 0)
		return -1;
	if (svc_printf(out,
		       "</td><td class=ac><a name=\"%s/%s\"></a><a class=lfsb href=\"#%s/%s\">"
		       "%s</a></td>",
		       f[F_PX], label, f[F_PX], label, label) < 0)
		return -1;
	if (fe ? svc_write(out, "<td colspan=3></td>", 19) < 0
	       : svc_printf(out, "<td>%s</td><td>%s</td><td>%s</td>", f[F_QCUR], f[F_QMAX],
			    srv ? (*f[F_QLIMIT] ? f[F_QLIMIT] : "-") : "") < 0)
		return -1;
	if (svc_printf(out,
		       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
		       f[F_RATE], f[F_RATE_MAX], fe ? (*f[F_RATE_LIM] ? f[F_RATE_LIM] : "-") : "",
		       f[F_SCUR], f[F_SMAX], *f[F_SLIM] ? f[F_SLIM] : "-", f[F_STOT],
		       fe ? "" : f[F_LBTOT], fe ? "" : f[F_LASTSESS], f[F_BIN], f[F_BOUT],
		       f[F_DREQ], f[F_DRESP], f[F_EREQ], f[F_ECON], f[F_ERESP], f[F_WRETR],
		       f[F_WREDIS]) < 0)
		return -1;
	if (fe)
		return svc_printf(out, "<td class=ac>%s</td><td colspan=8></td></tr>\n",
				  f[F_STATUS]);
	return svc_printf(out,
			  "<td class=ac>%s %s</td><td class=ac>%s</td><td class=ac>%s</td>"
			  "<td class=ac>%s</td><td class=ac>%s</td><td>%s</td><td>%s</td>"
			  "<td>%s</td><td class=ac>%s</td></tr>\n",
			  chg, f[F_STATUS], srv ? f[F_CHECK_STATUS] : "", f[F_WEIGHT],
			  srv ? (!strcmp(f[F_BCK], "1") ? "-" : "Y") : f[F_ACT],
			  srv ? (!strcmp(f[F_BCK], "1") ? "Y" : "-") : f[F_BCK], f[F_CHKFAIL],
			  f[F_CHKDOWN], dwn, srv ? "-" : "");
}

/* Closes the backend table: the admin form's action bar when it is one. */
static int sp_be_close(struct stats_page *pg, struct buf *out, const char *px)
{
	if (!pg->admin)
		return 0;
	return svc_printf(out,
			  "</table><table><tr><td class=\"left\" colspan=\"3\">%s<input "
			  "type=\"hidden\" name=\"b\" value=\"%s\">&nbsp;<input type=\"submit"
			  "\" value=\"Apply\"></td></tr></table></form><table>\n",
			  sp_actions, px);
}

/* Renders one CSV line; 0, or -1 when it does not fit (nothing written). */
static int sp_html_line(struct stats_page *pg, struct buf *out, const char *line, size_t len)
{
	char copy[4096], *f[SP_MAX_FIELDS];
	uint32_t mark = out->data;
	int n;

	if (len >= sizeof(copy) || line[0] == '#' || !len)
		return 0;
	memcpy(copy, line, len);
	copy[len] = 0;
	n = sp_split(copy, f, SP_MAX_FIELDS);
	if (n <= F_NEED)
		return 0;
	for (int i = 0; i < pg->st->nb_scope; i++) {
		if (!strcmp(pg->st->scope[i], f[F_PX]))
			break;
		if (i == pg->st->nb_scope - 1)
			return 0; /* not in the scope */
	}
	if (strcmp(pg->cur_px, f[F_PX])) {
		if (sp_px_open(pg, out, f[F_PX], strcmp(f[F_SV], "FRONTEND") != 0) < 0)
			return -1;
		snprintf(pg->cur_px, sizeof(pg->cur_px), "%s", f[F_PX]);
	}
	if (sp_row(pg, out, f) < 0 ||
	    (!strcmp(f[F_SV], "BACKEND") && sp_be_close(pg, out, f[F_PX]) < 0)) {
		out->data = mark;
		if (!mark)
			pg->cur_px[0] = 0; /* the table opens again on the next call */
		return -1;
	}
	return 0;
}

/* st 0: head; 1: rows; 2: end. */
static int sp_html_dump(struct svc_ctx *c, struct stats_page *pg, struct buf *out)
{
	if (c->st == 0) {
		if (sp_html_head(c, pg, out) < 0) {
			out->data = 0;
			return SVC_MORE;
		}
		c->st = 1;
	}
	while (c->st == 1) {
		char *nl;

		if (!pg->csv.data && !pg->csv_done && sp_produce(pg) < 0)
			return SVC_ERR;
		if (!pg->csv.data) {
			c->st = 2;
			break;
		}
		nl = memchr(b_head(&pg->csv), '\n', pg->csv.data);
		if (!nl)
			return SVC_ERR; /* a line longer than the buffer */
		if (sp_html_line(pg, out, b_head(&pg->csv), (size_t)(nl - b_head(&pg->csv))) < 0)
			return SVC_MORE;
		b_del(&pg->csv, (uint32_t)(nl + 1 - b_head(&pg->csv)));
	}
	if (svc_printf(out, "%s</body></html>\n", pg->cur_px[0] ? "</table>\n" : "") < 0)
		return SVC_MORE;
	return SVC_DONE;
}

static int sp_dump(struct svc_ctx *c, struct buf *out)
{
	struct stats_page *pg = c->priv;

	if (pg->fmt != SP_HTML) { /* CSV or JSON: the producer's text as it is */
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
