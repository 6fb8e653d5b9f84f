/* Unit tests of the "show stat" fillers: a frontend, a server and a backend line sum the
 * per-group counter blocks (two groups here), keep HAProxy's empty fields, and render
 * through the CSV writer. */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <backend/server-t.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>
#include <stats/stats.h>
#include "../test.h"

static void *blocks(size_t size)
{
	void *p = aligned_alloc(64, size * 2);

	if (p)
		memset(p, 0, size * 2);
	return p;
}

TEST(stat_fill_sums_groups)
{
	static struct proxy px;
	static struct server srv;
	struct sockaddr_in *sin = (struct sockaddr_in *)&srv.addr;
	struct stat_line l;
	char b[8192];

	counters_ngroups = 2;
	memset(&px, 0, sizeof(px));
	memset(&srv, 0, sizeof(srv));
	px.id = "web";
	px.cap = PR_CAP_FE | PR_CAP_BE;
	px.mode = PR_MODE_HTTP;
	px.maxconn = 100;
	list_init(&px.binds);
	list_init(&px.switching_rules);
	px.fe_cnt = blocks(sizeof(*px.fe_cnt));
	px.be_cnt = blocks(sizeof(*px.be_cnt));
	srv.cnt = blocks(sizeof(*srv.cnt));
	CHECK(px.fe_cnt && px.be_cnt && srv.cnt);
	srv.id = "s1";
	srv.px = &px;
	srv.puid = 1;
	srv.weight = srv.uweight = 1;
	srv.cookie = "c1";
	sin->sin_family = AF_INET;
	sin->sin_port = htons(8080);
	sin->sin_addr.s_addr = htonl(0x7f000001);
	px.srv = &srv;
	px.fe_cnt[0].cum_conn = 3;
	px.fe_cnt[1].cum_conn = 4;
	px.fe_cnt[0].cum_req = 10;
	px.fe_cnt[1].cum_req = 5;
	px.fe_cnt[1].rsp[2] = 15;
	px.be_cnt[0].cum_sess = 7;
	px.be_cnt[1].cum_sess = 8;
	srv.cnt[0].connect = 2;
	srv.cnt[1].reuse = 13;
	srv.cnt[0].rsp[2] = 9;
	srv.cnt[1].rsp[5] = 6;

	stats_fill_fe(&l, &px);
	CHECK_INT(l.obj, STAT_OBJ_FE);
	CHECK_INT(stat_field_u64(&l.f[ST_stot]), 7);
	CHECK_INT(stat_field_u64(&l.f[ST_req_tot]), 15);
	CHECK_INT(stat_field_u64(&l.f[ST_hrsp_2xx]), 15);
	CHECK_INT(stat_field_u64(&l.f[ST_slim]), 100);
	CHECK_INT(l.f[ST_qcur].type, SF_EMPTY); /* HAProxy leaves it empty on frontends */
	CHECK_STR(l.f[ST_status].u.str, "OPEN");

	stats_fill_srv(&l, &px, &srv);
	CHECK_INT(l.obj, STAT_OBJ_SRV);
	CHECK_INT(l.sid, 1);
	CHECK_INT(stat_field_u64(&l.f[ST_stot]), 15); /* connect + reuse */
	CHECK_INT(stat_field_u64(&l.f[ST_req_tot]), 15);
	CHECK_INT(stat_field_u64(&l.f[ST_hrsp_5xx]), 6);
	CHECK_STR(l.f[ST_addr].u.str, "127.0.0.1:8080");
	CHECK_STR(l.f[ST_cookie].u.str, "c1");
	CHECK_STR(l.f[ST_status].u.str, "no check");
	CHECK_INT(stat_out_csv_line(b, 0, sizeof(b), &l) != (size_t)-1, 1);
	CHECK(strncmp(b, "web,s1,0,0,0,0,,15,", 19) == 0);

	stats_fill_be(&l, &px);
	CHECK_INT(l.obj, STAT_OBJ_BE);
	CHECK_INT(stat_field_u64(&l.f[ST_stot]), 15);
	CHECK_INT(stat_field_u64(&l.f[ST_connect]), 2);
	CHECK_INT(stat_field_u64(&l.f[ST_reuse]), 13);
	CHECK_STR(l.f[ST_algo].u.str, "roundrobin");
	CHECK(memcmp(l.f[ST_act].tags, "MGP", 3) == 0); /* a backend's act is a gauge */

	free(px.fe_cnt);
	free(px.be_cnt);
	free(srv.cnt);
	counters_ngroups = 1;
}
