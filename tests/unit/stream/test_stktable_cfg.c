/* Unit tests of the configuration of stick tables and TCP rules: configs loaded from
 * temporary files and checked (proxies, then rules: names resolved, tables laid out), the
 * objects they build, and the diagnostics of wrong lines. Every test frees what it loaded
 * with proxy_deinit_all() (which frees the tables too).
 */
#include <string.h>

#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <stream/action-t.h>
#include <stream/stktable.h>
#include <stream/stream.h>
#include "../test.h"

static char stc_dir[64];

struct stc_run {
	int errs; /* parse alerts + check errors */
	char err[8192];
};

static void stc_load(const char *text, struct stc_run *r)
{
	char path[128];
	int e0 = cfg_errors, saved, n;

	proxy_deinit_all();
	test_tmpdir(stc_dir, "stktest");
	test_write_file(stc_dir, "t.cfg", text);
	snprintf(path, sizeof(path), "%s/t.cfg", stc_dir);
	saved = test_capture_begin(stc_dir);
	cfg_load_path(path);
	n = cfg_errors - e0;
	if (!n)
		n += proxy_check_all() + rules_check_all();
	test_capture_end(saved, stc_dir, r->err, sizeof(r->err));
	r->errs = n;
}

static void stc_done(void)
{
	proxy_deinit_all();
	test_rmdir(stc_dir);
}

#define STC_DEF                                                             \
	"defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n" \
	"  timeout connect 1s\n"

TEST(stktable_cfg_builds_the_table)
{
	struct stc_run r;
	struct stktable *t;

	stc_load(STC_DEF "frontend fe\n  bind :18090\n"
			 "  stick-table type string len 12 size 10k expire 2m nopurge store gpc0,"
			 "http_req_rate(10s) store gpc_rate(3,1s),gpt(2)\n"
			 "  http-request track-sc1 req.hdr(host)\n"
			 "  http-request deny if { sc_http_req_rate(1) gt 10 }\n"
			 "  tcp-request inspect-delay 3s\n"
			 "  tcp-request connection accept if { src 127.0.0.1 }\n"
			 "  tcp-request content reject if { src_get_gpc0 gt 5 }\n"
			 "  default_backend be\n"
			 "backend be\n  stick-table type ip size 5\n  stick on src\n"
			 "  tcp-response content close\n"
			 "  server s1 127.0.0.1:8001 non-stick\n",
		 &r);
	CHECK_INT(r.errs, 0);
	t = stktable_find("fe");
	CHECK(t != NULL);
	if (t) {
		CHECK_INT(t->type, STK_KEY_STR);
		CHECK_INT(t->key_size, 12);
		CHECK_INT(t->size, 10240);
		CHECK_INT(t->expire, 120000);
		CHECK_INT(t->nopurge, 1);
		CHECK(t->data_ofs[STK_DT_GPC0] != STK_DT_NONE);
		CHECK_INT(t->data_period[STK_DT_HTTP_REQ_RATE], 10000);
		CHECK_INT(t->data_nb[STK_DT_GPC_RATE], 3);
		CHECK_INT(t->data_period[STK_DT_GPC_RATE], 1000);
		CHECK_INT(t->data_nb[STK_DT_GPT], 2);
		CHECK(t->data_ofs[STK_DT_SERVER_ID] == STK_DT_NONE);
		CHECK(t->shards != NULL);
	}
	/* a table used by "stick" stores the server */
	t = stktable_find("be");
	CHECK(t && t->data_ofs[STK_DT_SERVER_ID] != STK_DT_NONE &&
	      t->data_ofs[STK_DT_SERVER_KEY] != STK_DT_NONE);
	CHECK(stktables && !strcmp(stktables->id, "be")); /* the latest declared first */
	{
		struct proxy *fe = proxy_find("fe", PR_CAP_FE);

		CHECK(fe && fe->tcp_inspect_delay == 3000);
		CHECK(fe && !list_empty(&fe->tcp_req_conn_rules) &&
		      !list_empty(&fe->tcp_req_cont_rules));
	}
	stc_done();
}

TEST(stktable_cfg_errors)
{
	static const struct {
		const char *cfg, *msg;
	} cases[] = {
		{ "backend b\n  stick-table type ip\n", "stick-table: missing size." },
		{ "backend b\n  stick-table size 1\n", "stick-table: missing type." },
		{ "backend b\n  stick-table type ip len 3 size 1\n", "unknown argument 'len'" },
		{ "backend b\n  stick-table type string len 0 size 1\n", "invalid length '0'" },
		{ "backend b\n  stick-table type ip size 1x\n", "unexpected character 'x'" },
		{ "backend b\n  stick-table type ip size 1 store gpc0(2)\n",
		  "unexpected argument to store option 'gpc0'" },
		{ "backend b\n  stick-table type ip size 1 store gpc_rate(2)\n",
		  "missing argument to store option 'gpc_rate'" },
		{ "backend b\n  stick-table type ip size 1 store conn_rate(1x)\n",
		  "error when processing store option 'conn_rate'" },
		{ "backend b\n  stick-table type ip size 1 store gpc(1),gpc1\n",
		  "simultaneous usage of 'gpc' and 'gpc[0/1]'" },
		{ "backend b\n  stick-table type ip size 1 store gpc_rate(1,1s),gpc0_rate(1s)\n",
		  "simultaneous usage of 'gpc_rate'" },
		{ "backend b\n  stick-table type ip size 1 peers p\n", "peers sections are not" },
		{ "backend b\n  stick-table type ip size 1 srvkey addr\n", "srvkey addr" },
		{ "backend b\n  stick-table type ip size 1 srvkey x\n",
		  "unknown server key type 'x'" },
		{ "backend b\n  stick on\n", "'stick' expects a fetch method." },
		{ "backend b\n  stick on src table\n", "missing table name" },
		{ "backend b\n  stick on src foo\n", "unexpected argument 'foo'" },
		{ "backend b\n  stick match src\n", "unable to find stick-table 'b'" },
		{ "frontend f\n  bind :18091\n  http-request track-sc0 src\n",
		  "unable to find table 'f' referenced by track-sc0" },
		{ "frontend f\n  bind :18091\n  http-request track-sc0\n",
		  "missing key expression" },
		{ "frontend f\n  bind :18091\n  http-request track-scx src\n",
		  "invalid stick counter 'x'" },
		{ "frontend f\n  bind :18091\n  http-request sc-inc-gpc0(3)\n",
		  "invalid stick counter" },
		{ "frontend f\n  bind :18091\n  http-request sc-inc-gpc(100,0)\n",
		  "invalid index" },
		{ "frontend f\n  bind :18091\n  http-request sc-set-gpt0(0)\n",
		  "expects an integer or an expression" },
		{ "frontend f\n  bind :18091\n  http-request deny if { src_conn_cur(nope) gt 1 }\n",
		  "unable to find table 'nope'" },
		{ "frontend f\n  bind :18091\n  tcp-request content switch-mode tcp\n",
		  "only 'http' is supported" },
		{ "frontend f\n  bind :18091\n  tcp-request connection expect-proxy layer3\n",
		  "'expect-proxy' only supports 'layer4' (got 'layer3')" },
		{ "frontend f\n  bind :18091\n  tcp-request inspect-delay x\n",
		  "expects a positive delay" },
		{ "backend b\n  tcp-response content reject\n  tcp-response content track-sc0 "
		  "src\n",
		  "'tcp-response content' expects" },
		{ "peers p\n  peer a 127.0.0.1:10000\n", "'peers' sections are not supported yet" },
	};
	struct stc_run r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char cfg[1024];

		snprintf(cfg, sizeof(cfg), STC_DEF "%s", cases[i].cfg);
		stc_load(cfg, &r);
		if (r.errs == 0)
			test_fail(__FILE__, __LINE__, "case %zu accepted:\n%s", i, cases[i].cfg);
		CHECK_HAS(r.err, cases[i].msg);
		stc_done();
	}
}
