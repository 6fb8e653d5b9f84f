/* Unit tests of the compression configuration (comp/comp_cfg.c) on temporary files:
 * the "compression" lines and their errors worded as HAProxy's, what proxies inherit
 * from their defaults section (algorithms and types added in front, offload not), the
 * global tunables, and the filter declared at check time or refused next to others.
 */
#include <stdio.h>
#include <string.h>

#include <cfg/cfg.h>
#include <comp/comp.h>
#include <proxy/proxy.h>
#include <stream/filter.h>
#include "../test.h"

struct cct_run {
	int check;
	char err[8192];
};

static char cct_dir[64];

static void cct_load(const char *text, struct cct_run *r)
{
	char path[128];
	int saved;

	proxy_deinit_all();
	test_tmpdir(cct_dir, "comptest");
	test_write_file(cct_dir, "t.cfg", text);
	snprintf(path, sizeof(path), "%s/t.cfg", cct_dir);
	saved = test_capture_begin(cct_dir);
	cfg_load_path(path);
	r->check = proxy_check_all();
	r->check += flt_check_all();
	test_capture_end(saved, cct_dir, r->err, sizeof(r->err));
	test_rmdir(cct_dir);
}

static void cct_done(void)
{
	proxy_deinit_all();
	comp_set = (struct comp_settings){ .maxlevel = 1, .memlevel = 8, .windowsize = 15 };
}

#define CCT_HEAD                                                            \
	"defaults\n  mode http\n  timeout client 5s\n  timeout server 5s\n" \
	"  timeout connect 1s\n"

/* The cfg_names of <c>'s response algorithms, space separated. */
__attribute__((unused)) static const char *cct_algos(const struct comp_px *c)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t i = 0; c && i < c->n_algos && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "",
				      c->algos[i]->cfg_name);
	return buf;
}

__attribute__((unused)) static const char *cct_types(const struct comp_px *c)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = 0;
	for (uint32_t i = 0; c && i < c->n_types && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%.*s", i ? " " : "",
				      (int)c->types[i].len, c->types[i].ptr);
	return buf;
}

static int cct_nfilters(struct proxy *px)
{
	struct flt_conf *fc;
	int n = 0;

	list_for_each_entry(fc, flt_list(px), list) n++;
	return n;
}

#ifdef USE_ZLIB
TEST(comp_cfg_inheritance_as_haproxy)
{
	struct cct_run r;
	struct proxy *fe, *be, *li;

	cct_load("defaults A\n  mode http\n  timeout client 5s\n  timeout server 5s\n"
		 "  timeout connect 1s\n"
		 "  compression algo gzip\n  compression type text/html\n  compression offload\n"
		 "defaults B\n  mode http\n  timeout client 5s\n  timeout server 5s\n"
		 "  timeout connect 1s\n"
		 "frontend fe from A\n  bind :18080\n  compression algo deflate raw-deflate\n"
		 "  compression type text/plain\n  default_backend be\n"
		 "backend be from B\n  server s 127.0.0.1:8000\n"
		 "listen li from A\n  bind :18081\n  server s 127.0.0.1:8000\n",
		 &r);
	CHECK_INT(r.check, 0);
	CHECK_HAS(r.err, "parsing [");
	CHECK_HAS(r.err, ":8] : 'compression' : 'offload' ignored in 'defaults' section.");
	fe = proxy_find("fe", PR_CAP_FE);
	be = proxy_find("be", PR_CAP_BE);
	li = proxy_find("li", PR_CAP_FE);
	CHECK(fe && be && li);
	if (!fe || !be || !li)
		goto out;
	/* each line's algorithms go first, in reverse: HAProxy's list */
	CHECK_STR(cct_algos(fe->comp), "raw-deflate deflate gzip");
	CHECK_STR(cct_types(fe->comp), "text/plain text/html");
	CHECK_INT(fe->comp->flags, COMP_F_DIR_RES);
	CHECK(be->comp == NULL);
	CHECK_INT(cct_nfilters(be), 0);
	/* a proxy without lines of its own gets its defaults' at check time */
	CHECK_STR(cct_algos(li->comp), "gzip");
	CHECK_INT(cct_nfilters(fe), 1);
	CHECK_INT(cct_nfilters(li), 1);
out:
	cct_done();
}

TEST(comp_cfg_later_keywords)
{
	struct cct_run r;
	struct proxy *fe;

	cct_load(CCT_HEAD
		 "  compression direction both\n  compression minsize-res 1k\n"
		 "frontend fe\n  bind :18080\n  compression algo-res gzip\n"
		 "  compression algo-req deflate\n  compression type-req application/json\n"
		 "  compression type-res text/html\n  compression minsize-req 2048\n"
		 "  compression offload\n  default_backend be\n"
		 "backend be\n  server s 127.0.0.1:8000\n",
		 &r);
	CHECK_INT(r.check, 0);
	fe = proxy_find("fe", PR_CAP_FE);
	if (!fe || !fe->comp) {
		CHECK(0);
		goto out;
	}
	CHECK_STR(cct_algos(fe->comp), "gzip");
	CHECK_STR(fe->comp->algo_req->cfg_name, "deflate");
	CHECK_INT(fe->comp->n_types_req, 1);
	CHECK_STR(cct_types(fe->comp), "text/html");
	CHECK_INT(fe->comp->minsize_res, 1024);
	CHECK_INT(fe->comp->minsize_req, 2048);
	CHECK_INT(fe->comp->flags, COMP_F_DIR_REQ | COMP_F_DIR_RES | COMP_F_OFFLOAD);
	CHECK(proxy_find("be", PR_CAP_BE)->comp != NULL); /* from the defaults */
out:
	cct_done();
}
#endif /* USE_ZLIB */

TEST(comp_cfg_errors_as_haproxy)
{
	struct cct_run r;

	cct_load(CCT_HEAD "frontend fe\n  bind :18080\n"
			  "  compression algo gzip foo\n"
			  "  compression type\n"
			  "  compression algo\n"
			  "  compression direction sideways\n"
			  "  compression bogus\n"
			  "  compression\n"
			  "  compression minsize-res 12q\n"
			  "  compression algo-req gzip deflate\n"
			  "  filter compression foo\n"
			  "  default_backend be\n"
			  "backend be\n  server s 127.0.0.1:8000\n",
		 &r);
#ifdef USE_ZLIB
	CHECK_HAS(r.err, ":8] : 'compression' : 'foo' is not a supported algorithm.");
#else
	CHECK_HAS(r.err, ":8] : 'compression' : 'gzip' is not a supported algorithm.");
#endif
	CHECK_HAS(r.err, ":9] : 'compression' expects <type>.");
	CHECK_HAS(r.err, ":10] : 'compression' expects <algorithm>.");
	CHECK_HAS(r.err,
		  ":11] : 'compression direction' expects 'request', 'response', or 'both'.");
	CHECK_HAS(r.err, ":12] : 'compression' expects 'algo', ");
	CHECK_HAS(r.err, ":13] : 'compression' expects 'algo', ");
	CHECK_HAS(r.err, ":14] : 'compression minsize-res' : unexpected character 'q'");
	CHECK_HAS(r.err, ":15] : 'compression algo-req' accepts only one algorithm.");
	CHECK_HAS(r.err, ":16] : 'filter compression' : unknown keyword 'foo'.");
	cct_done();
}

TEST(comp_cfg_global_tunables)
{
	struct cct_run r;

	cct_load("global\n  tune.comp.maxlevel\n  tune.comp.maxlevel 10\n  tune.comp.maxlevel 5 6\n"
		 "  tune.zlib.memlevel 0\n  tune.zlib.windowsize 16\n  maxcomprate\n"
		 "  maxcompcpuusage 101\n  maxcompcpuusage -1\n  maxzlibmem\n" CCT_HEAD,
		 &r);
	CHECK_HAS(r.err, ":2] : 'tune.comp.maxlevel' expects a numeric value between 1 and 9\n");
	CHECK_HAS(r.err, ":3] : 'tune.comp.maxlevel' expects a numeric value between 1 and 9\n");
	CHECK_HAS(r.err, ":4] : 'tune.comp.maxlevel' cannot handle unexpected argument '6'.");
#ifdef USE_ZLIB
	CHECK_HAS(r.err, ":5] : 'tune.zlib.memlevel' expects a numeric value between 1 and 9.");
	CHECK_HAS(r.err, ":6] : 'tune.zlib.windowsize' expects a numeric value between 8 and 15.");
#endif
	CHECK_HAS(r.err, ":7] : 'maxcomprate' expects an integer argument in kb/s.");
	CHECK_HAS(r.err, ":8] : 'maxcompcpuusage' expects an integer argument between 0 and 100.");
	CHECK_HAS(r.err, ":9] : 'maxcompcpuusage' expects an integer argument between 0 and 100.");
	CHECK_HAS(r.err, ":10] : 'maxzlibmem' expects an integer argument.");
	cct_done();
	cct_load("global\n  tune.comp.maxlevel 4\n  maxcomprate 10\n  maxcompcpuusage 70\n"
		 "  maxzlibmem 3\n" CCT_HEAD,
		 &r);
	CHECK(strstr(r.err, "ALERT") == NULL);
	CHECK_INT(comp_set.maxlevel, 4);
	CHECK_INT(comp_set.rate_lim, 10240);
	CHECK_INT(comp_set.min_idle, 30);
	CHECK_INT(comp_set.maxzlibmem, 3 << 20);
	cct_done();
}

TEST(comp_cfg_filter_rules)
{
	struct cct_run r;

	/* two "filter compression" lines */
	cct_load(CCT_HEAD "backend be\n  filter compression\n  filter compression\n"
			  "  server s 127.0.0.1:8000\n",
		 &r);
	CHECK_HAS(r.err, "'filter' : 'be: Proxy supports only one compression filter'");
	cct_done();
	/* an explicit filter line is used as it is: no second filter */
	cct_load(CCT_HEAD "backend be\n  compression algo identity\n  filter compression\n"
			  "  server s 127.0.0.1:8000\n",
		 &r);
	CHECK_INT(r.check, 0);
	CHECK_INT(cct_nfilters(proxy_find("be", PR_CAP_BE)), 1);
	cct_done();
	/* "filter compression" alone is valid and does nothing */
	cct_load(CCT_HEAD "backend be\n  filter compression\n  server s 127.0.0.1:8000\n", &r);
	CHECK_INT(r.check, 0);
	CHECK(proxy_find("be", PR_CAP_BE)->comp == NULL);
	cct_done();
}
