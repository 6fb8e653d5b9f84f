/* Unit tests for the HTTP actions, captures, unique ids, redirects and error sections at
 * config time: configs loaded from temporary files through cfg_load_path() and checked by
 * proxy_check_all() and rules_check_all() with stderr captured (HAProxy's messages with
 * file:line), the resolution of error messages in config-line order, the capture slots,
 * global set-var, and the rule runner's resume of a yielded rule and strict-mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/tinfo.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stats/counters-t.h>
#include <stream/action.h>
#include <stream/http_err.h>
#include <stream/px_ext.h>
#include <stream/stream.h>
#include "../test.h"

struct hat_run {
	int errors; /* alerts printed */
	int warnings;
	char err[16384]; /* captured stderr */
};

static char hat_dir[64];

/* Writes <text> (with "@DIR@" replaced by the temporary directory) as t.cfg, loads and
 * checks it with stderr captured. */
static void hat_load(const char *text, struct hat_run *r)
{
	int e0 = cfg_errors, w0 = cfg_warnings, saved;
	char path[128], buf[8192];
	size_t o = 0, len;
	const char *p, *at;

	for (p = text; *p && o < sizeof(buf) - 64; p = at + 5) {
		at = strstr(p, "@DIR@");
		if (!at) {
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s", p);
			break;
		}
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%.*s%s", (int)(at - p), p,
				      hat_dir);
	}
	test_write_file(hat_dir, "t.cfg", buf);
	snprintf(path, sizeof(path), "%s/t.cfg", hat_dir);
	saved = test_capture_begin(hat_dir);
	cfg_load_path(path);
	test_capture_end(saved, hat_dir, r->err, sizeof(r->err));
	len = strlen(r->err);
	saved = test_capture_begin(hat_dir);
	if (proxy_check_all() == 0)
		rules_check_all();
	test_capture_end(saved, hat_dir, r->err + len, sizeof(r->err) - len);
	r->errors = cfg_errors - e0;
	r->warnings = cfg_warnings - w0;
}

static void hat_setup(void)
{
	proxy_deinit_all();
	http_errors_deinit();
	test_tmpdir(hat_dir, "hatest");
}

static void hat_cleanup(void)
{
	proxy_deinit_all();
	http_errors_deinit();
	test_rmdir(hat_dir);
}

#define HAT_BASE                                                             \
	"defaults\n  mode http\n  timeout connect 1s\n  timeout client 1s\n" \
	"  timeout server 1s\nlisten px\n  bind :1\n  server s 127.0.0.1:1\n"

/* Loads HAT_BASE plus one line (line 9) and checks its message. */
static void hat_line_fails(const char *file, int line, const char *rule, const char *msg)
{
	struct hat_run r;
	char cfg[1024], want[512];

	hat_setup();
	snprintf(cfg, sizeof(cfg), HAT_BASE "  %s\n", rule);
	hat_load(cfg, &r);
	snprintf(want, sizeof(want), "t.cfg:9] : ");
	if (!r.errors || !strstr(r.err, want) || !strstr(r.err, msg))
		test_fail(file, line, "'%s': wanted \"%s\" in:\n%s", rule, msg, r.err);
	hat_cleanup();
}

#define LINE_FAILS(rule, msg) hat_line_fails(__FILE__, __LINE__, rule, msg)

TEST(http_act_cfg_action_errors)
{
	LINE_FAILS("http-request redirect",
		   "error detected in proxy 'px' while parsing "
		   "'http-request redirect' rule : redirection type expected ('prefix', "
		   "'location', or 'scheme').");
	LINE_FAILS(
		"http-request redirect location /x code 404",
		"'code': unsupported HTTP code '404' (must be one of 301, 302, 303, 307 or 308)");
	LINE_FAILS("http-request redirect location /x set-cookie", "missing argument for "
								   "'set-cookie'");
	LINE_FAILS("http-response redirect scheme https", "response only supports redirect "
							  "type 'location'");
	LINE_FAILS("http-request auth realm", "missing realm value");
	LINE_FAILS("http-request auth foo", "'http-request auth' expects either 'if' or "
					    "'unless' followed by a condition but found 'foo'.");
	LINE_FAILS("http-response set-status 1000", "expects an integer status code between 100 "
						    "and 999");
	LINE_FAILS("http-response set-status", "expects 1 argument: <status>; or 3 arguments: "
					       "<status> reason <fmt>");
	LINE_FAILS("http-request set-var(txn.x,ifbogus) str(a)",
		   "while parsing 'http-request "
		   "set-var(txn.x,ifbogus)' rule : unknown condition \"ifbogus\".");
	LINE_FAILS("http-request unset-var(txn.x,ifset)", "unset-var does not expect "
							  "parameters after the variable name");
	LINE_FAILS("http-request set-var(txn.x", "incomplete argument after action "
						 "'set-var(txn.x'");
	LINE_FAILS("http-request set-var(txn.x)", "missing fetch method");
	LINE_FAILS("http-request set-log-level loud", "expects exactly 1 argument (log level "
						      "name or 'silent')");
	LINE_FAILS("http-request set-timeout client2 1s",
		   "'set-timeout' rule supports "
		   "'server'/'tunnel'/'client' (got 'client2')");
	LINE_FAILS("http-request set-timeout server foo", "unexpected character 'f' in rule "
							  "'set-timeout server'");
	LINE_FAILS("http-request wait-for-body time 1s at-least x", "unexpected character 'x'");
	LINE_FAILS("http-request normalize-uri percent-to-uppercase full",
		   "unknown argument "
		   "'full' for 'percent-to-uppercase' normalizer");
	LINE_FAILS("http-request strict-mode", "expects exactly 1 arguments");
	LINE_FAILS("http-request replace-uri ( x", "regex '(' is invalid");
	LINE_FAILS("http-request replace-value X a", "expects exactly 3 arguments");
	LINE_FAILS("http-request set-method", "expects exactly 1 argument <format>");
	LINE_FAILS("http-request capture req.hdr(host)", "expects <expression> [ 'len' "
							 "<length> | id <idx> ]");
	LINE_FAILS("http-request capture req.hdr(host) id x", "cannot parse id 'x'");
	LINE_FAILS("http-request tarpit deny_status 299",
		   "status code '299' not handled by "
		   "default with 'default-errorfiles' argument");
	LINE_FAILS("http-request set-src", "missing fetch method");
}

TEST(http_act_cfg_keyword_errors)
{
	LINE_FAILS("capture request header Host len", "'capture request' expects 'header' "
						      "<header_name> 'len' <len>.");
	LINE_FAILS("capture response header Host len 5 extra",
		   "'capture response' cannot "
		   "handle unexpected argument 'extra'.");
	LINE_FAILS("capture cookie", "'capture' expects 'cookie' <cookie_name> 'len' <len>.");
	LINE_FAILS("declare capture request", "'declare capture' requires a capture length "
					      "('len')");
	LINE_FAILS("declare capture request len 0", "length must be > 0");
	LINE_FAILS("unique-id-format a b", "unique-id-format expects only one argument, don't "
					   "forget to escape spaces!");
	LINE_FAILS("unique-id-header", "unique-id-header expects an argument.");
	LINE_FAILS("monitor foo", "'monitor' only supports 'fail'.");
	LINE_FAILS("monitor fail if nosuchacl", "error detected while parsing a 'monitor fail' "
						"condition : ");
	LINE_FAILS("redirect location", "error detected in proxy 'px' while parsing redirect "
					"rule : missing argument for 'location'.");
	LINE_FAILS("block if TRUE",
		   "The 'block' directive is not supported anymore since "
		   "HAProxy 2.1. Use 'http-request deny' which uses the exact same syntax.");
	LINE_FAILS("reqpass ^x", "The 'reqpass' directive is not supported anymore since "
				 "HAProxy 2.1.");
	LINE_FAILS("rspdel ^x", "The 'rspdel' directive is not supported anymore since HAProxy "
				"2.1. Use 'http-response del-header' instead.");
	LINE_FAILS("errorfiles", "errorfiles : expects <name> as argument.");
	LINE_FAILS("errorfiles site 418", "errorfiles : status code '418' not handled.");
	LINE_FAILS("http-error status 403 string abc",
		   "http-error : a content type must be "
		   "defined when non-empty payload is configured.");
	LINE_FAILS("http-error status 418", "http-error : Unexpected status code '418'.");
	LINE_FAILS("http-error string x", "http-error : expects at least a <status> as "
					  "arguments.");
	LINE_FAILS("errorloc 404", "errorloc : expects <status_code> and <url> as arguments.");
	LINE_FAILS("errorloc303 99 /x", "errorloc303 : status code '99' not handled.");
}

TEST(http_act_cfg_check_errors)
{
	struct hat_run r;

	hat_setup();
	hat_load(HAT_BASE "  http-response capture res.hdr(x) id 2\n"
			  "  errorfiles nosuch\n  http-request deny errorfiles nosuch2\n",
		 &r);
	CHECK_HAS(r.err, "t.cfg:9] : Proxy 'px': unable to find capture id '2' referenced by "
			 "http-response capture rule.");
	CHECK_HAS(r.err, "proxy 'px': unknown http-errors section 'nosuch' (at ");
	CHECK_HAS(r.err, "t.cfg:11] : Proxy 'px': unknown http-errors section 'nosuch2' "
			 "referenced by an http reply.");
	hat_cleanup();

	hat_setup();
	hat_load("http-errors\nhttp-errors a\n  errorfile 403\n  errorfile 999 /dev/null\n"
		 "  bogus\nhttp-errors a\n" HAT_BASE,
		 &r);
	CHECK_HAS(r.err, "t.cfg:1] : missing name for http-errors section.");
	CHECK_HAS(r.err, "t.cfg:3] : errorfile: expects <status_code> and <file> as arguments.");
	CHECK_HAS(r.err, "t.cfg:4] : errorfile : status code '999' not handled.");
	CHECK_HAS(r.err, "t.cfg:5] : unknown keyword 'bogus' in 'http-errors' section");
	CHECK_HAS(r.err, "t.cfg:6] : http-errors section 'a' already exists (declared at ");
	hat_cleanup();
}

/* The body of the message of <status> in <px> ("" when the page is the default one). */
static const char *page_of(const char *pxname, int status)
{
	static char body[256];
	struct proxy *px = proxy_find(pxname, PR_CAP_FE);
	const struct errorfile *ef = px ? proxy_errorfile(px, status) : NULL;
	const char *b;

	if (!ef)
		return "";
	if (ef->reply)
		return "<reply>";
	b = ef->msg.ptr ? strstr(ef->msg.ptr, "\r\n\r\n") : NULL;
	snprintf(body, sizeof(body), "%s", b ? b + 4 : "");
	return body;
}

TEST(http_err_resolution_order)
{
	struct hat_run r;

	hat_setup();
	test_write_file(hat_dir, "a.http", "HTTP/1.1 403 Forbidden\r\n\r\nA");
	test_write_file(hat_dir, "b.http", "HTTP/1.1 403 Forbidden\r\n\r\nB");
	test_write_file(hat_dir, "c.http", "HTTP/1.1 404 Not Found\r\n\r\nC");
	hat_load("defaults d1\n  mode http\n  timeout connect 1s\n  timeout client 1s\n"
		 "  timeout server 1s\n  errorfiles late 404\n"
		 "frontend f1\n  bind :1\n  errorfile 403 @DIR@/a.http\n  errorfiles late\n"
		 "frontend f2\n  bind :2\n  errorfiles late\n  errorfile 403 @DIR@/a.http\n"
		 "frontend f3\n  bind :3\n  errorfiles late\n  http-error status 403 "
		 "default-errorfiles\n"
		 "frontend f4\n  bind :4\n  http-error status 403 content-type text/plain "
		 "string x\n  errorfiles late 404\n"
		 "frontend f5\n  bind :5\n  http-error status 403 errorfiles late\n"
		 "  errorloc 404 /nf\n"
		 "http-errors late\n  errorfile 403 @DIR@/b.http\n  errorfile 404 @DIR@/c.http\n",
		 &r);
	CHECK_INT(r.errors, 0);
	CHECK(!strcmp(page_of("f1", 403), "B")); /* errorfiles after errorfile */
	CHECK(!strcmp(page_of("f1", 404), "C")); /* and from the defaults */
	CHECK(!strcmp(page_of("f2", 403), "A")); /* errorfile after errorfiles */
	CHECK(!strcmp(page_of("f3", 403), ""));	 /* reset */
	CHECK(!strcmp(page_of("f4", 403), "<reply>"));
	CHECK(!strcmp(page_of("f4", 404), "C"));
	CHECK(!strcmp(page_of("f5", 403), "B"));
	CHECK(!strcmp(page_of("f5", 404), "")); /* a redirect: empty body */
	CHECK(strstr(proxy_errorfile(proxy_find("f5", PR_CAP_FE), 404)->msg.ptr,
		     "HTTP/1.1 302 Found\r\ncache-control: no-cache\r\ncontent-length: 0\r\n"
		     "location: /nf\r\n\r\n") != NULL);
	hat_cleanup();
}

TEST(http_capture_slots)
{
	const struct px_rules_ext *x;
	struct hat_run r;

	hat_setup();
	hat_load(HAT_BASE
		 "  capture request header Host len 4\n"
		 "  http-request capture req.hdr(a) len 7\n  declare capture request len 3\n"
		 "  capture response header Server len 9\n  capture cookie SID len 100\n"
		 "  http-response capture res.hdr(x) id 0\n"
		 "backend b\n  capture request header Host len 4\n",
		 &r);
	CHECK_INT(r.errors, 0);
	CHECK_HAS(r.err, "t.cfg:16] : 'capture' ignored because backend 'b' has no frontend "
			 "capability.");
	x = px_ext(proxy_find("px", PR_CAP_FE));
	CHECK(x != NULL);
	if (x) {
		CHECK_INT(x->nb_req_cap, 3);
		CHECK_INT(x->nb_res_cap, 1);
		CHECK_INT(x->req_cap[1].len, 7);
		CHECK_INT(x->req_cap[2].off, 11);
		CHECK_INT(x->res_cap[0].off, 14);
		CHECK_INT(x->cap_size, 23);
		CHECK_INT(x->cookie_len, 63); /* tune.http.cookielen */
		CHECK(!strcmp(x->cookie_name, "SID"));
	}
	hat_cleanup();
}

TEST(http_global_set_var)
{
	struct smp_ctx ctx = { NULL, NULL, NULL, 0 };
	struct sample smp = { .ctx = &ctx };
	struct var_desc d;
	struct hat_run r;
	char err[128];

	hat_setup();
	hat_load("global\n  set-var proc.gsv int(7)\n  set-var-fmt proc.gsf \"v%[var(proc.gsv)]\"\n"
		 "  set-var txn.x int(1)\n  set-var proc.y req.hdr(x)\n" HAT_BASE,
		 &r);
	CHECK_HAS(r.err, "t.cfg:4] : 'set-var': cannot set variable 'txn.x', only scope 'proc' "
			 "is permitted in the global section.");
	CHECK_HAS(r.err, "t.cfg:5] : ");
	CHECK_INT(vars_parse_desc("proc.gsv", &d, err, sizeof(err)), 0);
	CHECK(vars_get(&ctx, &d, &smp) && smp.data.type == SMP_T_SINT && smp.data.u.sint == 7);
	CHECK_INT(vars_parse_desc("proc.gsf", &d, err, sizeof(err)), 0);
	CHECK(vars_get(&ctx, &d, &smp) && smp.data.u.str.len == 2 &&
	      !memcmp(smp.data.u.str.ptr, "v7", 2));
	hat_cleanup();
}

/* ---- the runner ---- */

static int calls[4];

static enum act_return act_count(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	calls[r->line]++;
	return ACT_RET_CONT;
}

/* yields on its first call, goes on at the second */
static enum act_return act_yield_once(struct act_rule *r, struct proxy *px, struct stream *s,
				      int from)
{
	return calls[r->line]++ ? ACT_RET_CONT : ACT_RET_YIELD;
}

static enum act_return act_fail_rewrite(struct act_rule *r, struct proxy *px, struct stream *s,
					int from)
{
	calls[r->line]++;
	return ACT_RET_ERR;
}

TEST(http_act_runner_resume_and_strict_mode)
{
	struct act_rule rules[4], *last;
	struct fe_counters fc = { 0 };
	struct proxy px = { 0 };
	struct stream *s = calloc(1, sizeof(*s));
	struct list l;
	unsigned int saved = tgid;

	tgid = 1;
	px.fe_cnt = &fc;
	s->fe = &px;
	list_init(&l);
	memset(rules, 0, sizeof(rules));
	memset(calls, 0, sizeof(calls));
	for (int i = 0; i < 4; i++) {
		rules[i].line = i;
		rules[i].action = act_count;
		list_append(&l, &rules[i].list);
	}
	rules[1].action = act_yield_once;
	CHECK_INT(act_rules_run(&l, &px, s, ACT_F_HTTP_REQ, &last), ACT_RET_YIELD);
	CHECK(last == &rules[1] && s->resume_rule == &rules[1]);
	CHECK_INT(calls[0], 1);
	/* resumed at the rule that yielded: the rules before it do not run again */
	CHECK_INT(act_rules_run(&l, &px, s, ACT_F_HTTP_REQ, &last), ACT_RET_CONT);
	CHECK(s->resume_rule == NULL);
	CHECK_INT(calls[0], 1);
	CHECK_INT(calls[1], 2);
	CHECK_INT(calls[3], 1);

	/* a failed rewrite: fatal in strict mode, counted and skipped with strict-mode off */
	rules[2].action = act_fail_rewrite;
	rules[2].flags = ACT_FL_REWRITE;
	CHECK_INT(act_rules_run(&l, &px, s, ACT_F_HTTP_REQ, &last), ACT_RET_ERR);
	CHECK(last == &rules[2]);
	s->flags |= SF_SOFT_RW; /* reset when a rule set starts: set it from a rule */
	rules[0].action = act_count;
	CHECK_INT(act_rules_run(&l, &px, s, ACT_F_HTTP_REQ, &last), ACT_RET_ERR);
	s->resume_rule = &rules[2]; /* resumed rules keep the mode they ran under */
	s->resume_list = &l;
	s->flags |= SF_SOFT_RW;
	CHECK_INT(act_rules_run(&l, &px, s, ACT_F_HTTP_REQ, &last), ACT_RET_CONT);
	CHECK_INT(fc.failed_rewrites, 1);
	CHECK_INT(calls[3], 2);
	free(s);
	tgid = saved;
}
