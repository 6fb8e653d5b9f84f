/* Unit tests of the stats writers on fixed lines: CSV, typed and JSON fields of a
 * "show stat" line, the three "show info" forms, and the descriptor tables. */
#include <stdio.h>
#include <string.h>
#include <stats/stats.h>
#include "../test.h"

/* A server line with a few fields set. */
static void fixed_srv_line(struct stat_line *l)
{
	stat_line_reset(l);
	l->obj = STAT_OBJ_SRV;
	l->iid = 3;
	l->sid = 1;
	STAT_STR(l, ST_pxname, "be");
	STAT_STR(l, ST_svname, "s1");
	STAT_NUM(l, ST_qcur, 0);
	STAT_NUM(l, ST_stot, 12345678901ULL);
	STAT_STR(l, ST_status, "UP");
	STAT_NUM(l, ST_lastsess, -1);
	stat_set_fmt(l, stat_cols, ST_check_desc, "say \"%s\", ok", "hi");
}

TEST(stat_desc_tables_complete)
{
	for (int i = 0; i < ST_NCOLS; i++) {
		CHECK(stat_cols[i].name && stat_cols[i].desc && strlen(stat_cols[i].tags) == 3);
		CHECK(stat_cols[i].type != SF_EMPTY);
	}
	for (int i = 0; i < INF_NFIELDS; i++)
		CHECK(info_fields[i].name && info_fields[i].desc &&
		      strlen(info_fields[i].tags) == 3);
	CHECK_STR(stat_cols[ST_agg_check_status].name, "agg_check_status");
	CHECK_STR(stat_cols[ST_src_ilim].name, "src_ilim");
	CHECK_STR(info_fields[INF_TAINTED].name, "Tainted");
	CHECK_STR(info_fields[INF_TOTALSPLICDEDBYTESOUT].name, "TotalSplicdedBytesOut");
	CHECK_INT(ST_NCOLS, 103);
	CHECK_INT(INF_TAINTED, 71);
}

TEST(stat_out_csv_line_and_header)
{
	struct stat_line l;
	char b[4096];
	size_t len;

	fixed_srv_line(&l);
	len = stat_out_csv_line(b, 0, sizeof(b), &l);
	CHECK(len != (size_t)-1);
	CHECK(strncmp(b, "be,s1,0,,,,,12345678901,", 24) == 0);
	CHECK_HAS(b, ",UP,");
	CHECK_HAS(b, ",-1,");			  /* lastsess */
	CHECK_HAS(b, ",\"say \"\"hi\"\", ok\","); /* quoted CSV cell */
	CHECK(len > 3 && strcmp(b + len - 3, "-,\n") == 0);
	len = stat_out_csv_header(b, 0, sizeof(b));
	CHECK(strncmp(b, "# pxname,svname,qcur,", 21) == 0);
	CHECK(strcmp(b + len - 20, "agg_check_status,-,\n") == 0);
	/* too small: nothing counted */
	CHECK(stat_out_csv_line(b, 0, 40, &l) == (size_t)-1);
}

TEST(stat_out_typed_fields)
{
	struct stat_line l;
	char b[1024];
	size_t len;

	fixed_srv_line(&l);
	len = stat_out_typed_field(b, 0, sizeof(b), &l, ST_pxname, false);
	CHECK_STR(b, "S.3.1.0.pxname.1:KNS:str:be\n");
	CHECK_INT(len, strlen(b));
	stat_out_typed_field(b, 0, sizeof(b), &l, ST_stot, false);
	CHECK_STR(b, "S.3.1.7.stot.1:MCP:u64:12345678901\n");
	stat_out_typed_field(b, 0, sizeof(b), &l, ST_lastsess, false);
	CHECK_STR(b, "S.3.1.55.lastsess.1:MAP:s32:-1\n");
	stat_out_typed_field(b, 0, sizeof(b), &l, ST_qcur, true);
	CHECK_STR(b, "S.3.1.2.qcur.1:MGP:u32:0:\"Number of current queued connections\"\n");
	/* an empty field writes nothing */
	CHECK_INT(stat_out_typed_field(b, 5, sizeof(b), &l, ST_qmax, false), 5);
	stat_set_tags(&l, ST_qcur, "SGP");
	stat_out_typed_field(b, 0, sizeof(b), &l, ST_qcur, false);
	CHECK_STR(b, "S.3.1.2.qcur.1:SGP:u32:0\n");
}

TEST(stat_out_json_fields)
{
	struct stat_line l;
	char b[1024];

	fixed_srv_line(&l);
	stat_out_json_field(b, 0, sizeof(b), &l, ST_pxname, true);
	CHECK_STR(b, "{\"objType\":\"Server\",\"proxyId\":3,\"id\":1,\"field\":{\"pos\":0,"
		     "\"name\":\"pxname\"},\"processNum\":1,\"tags\":{\"origin\":\"Key\","
		     "\"nature\":\"Name\",\"scope\":\"Service\"},\"value\":{\"type\":\"str\","
		     "\"value\":\"be\"}}");
	stat_out_json_field(b, 0, sizeof(b), &l, ST_stot, false);
	CHECK(b[0] == ',');
	CHECK_HAS(b, "\"value\":{\"type\":\"u64\",\"value\":12345678901}}");
	CHECK_HAS(b, "\"nature\":\"Counter\",\"scope\":\"Process\"");
	stat_out_json_field(b, 0, sizeof(b), &l, ST_check_desc, true);
	CHECK_HAS(b, "\"value\":\"say \\\"hi\\\", ok\"}}");
}

TEST(info_out_forms)
{
	struct stat_line l;
	char b[1024];

	stat_line_reset(&l);
	stat_set_str(&l, info_fields, INF_NAME, "HAProxy");
	stat_set_num(&l, info_fields, INF_NBTHREAD, 4);
	stat_set_num(&l, info_fields, INF_TAINTED, 0);
	info_out_plain_field(b, 0, sizeof(b), &l, INF_NAME, false);
	CHECK_STR(b, "Name: HAProxy\n");
	info_out_plain_field(b, 0, sizeof(b), &l, INF_NAME, true);
	CHECK_STR(b, "Name: HAProxy:\"Product name\"\n");
	info_out_typed_field(b, 0, sizeof(b), &l, INF_NBTHREAD, false);
	CHECK_STR(b, "3.Nbthread.1:CGS:u32:4\n");
	info_out_typed_field(b, 0, sizeof(b), &l, INF_TAINTED, false);
	CHECK_STR(b, "71.Tainted.1:SGP:str:0\n");
	info_out_json_field(b, 0, sizeof(b), &l, INF_NBTHREAD, true);
	CHECK_STR(b, "{\"field\":{\"pos\":3,\"name\":\"Nbthread\"},\"processNum\":1,\"tags\":"
		     "{\"origin\":\"Config\",\"nature\":\"Gauge\",\"scope\":\"Service\"},"
		     "\"value\":{\"type\":\"u32\",\"value\":4}}");
	CHECK_INT(info_out_plain_field(b, 7, sizeof(b), &l, INF_PID, false), 7);
}

TEST(stat_line_storage_full)
{
	static struct stat_line l;
	char big[STAT_STR_SIZE + 64];

	stat_line_reset(&l);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	stat_set_fmt(&l, stat_cols, ST_check_desc, "%s", big); /* does not fit: empty */
	CHECK_INT(l.f[ST_check_desc].type, SF_STR);
	CHECK_STR(l.f[ST_check_desc].u.str, "");
	stat_set_fmt(&l, stat_cols, ST_addr, "%s", "1.2.3.4:80");
	CHECK_STR(l.f[ST_addr].u.str, "1.2.3.4:80");
	CHECK_INT(stat_field_u64(&l.f[ST_addr]), 0);
}
