/* Unit tests of the Prometheus exporter: the query-string filters as HAProxy 2.6 reads
 * them, the value and label formatters, the metric tables (names, fields known to the
 * stats model), and the writer resumed through a small buffer giving the same text as
 * through a big one.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <base/buf.h>
#include <stats/promex.h>
#include <stats/stats.h>
#include "../test.h"

static int pq(const char *q)
{
	return promex_parse_query(q, strlen(q));
}

TEST(promex_query_scopes)
{
	CHECK_INT(pq(""), PROMEX_SC_ALL);
	CHECK_INT(pq("&"), PROMEX_SC_ALL);
	CHECK_INT(pq("scope=global"), PROMEX_SC_GLOBAL);
	CHECK_INT(pq("scope=frontend&scope=backend"), PROMEX_SC_FRONT | PROMEX_SC_BACK);
	CHECK_INT(pq("scope=frontend&&scope=backend"), PROMEX_SC_FRONT | PROMEX_SC_BACK);
	CHECK_INT(pq("scope="), 0);
	CHECK_INT(pq("scope=server&scope="), 0);
	CHECK_INT(pq("scope=&scope=server"), PROMEX_SC_SERVER);
	CHECK_INT(pq("scope=*"), PROMEX_SC_ALL);
	CHECK_INT(pq("scope=%2A"), PROMEX_SC_ALL);
	CHECK_INT(pq("scope=glob%61l"), PROMEX_SC_GLOBAL);
	CHECK_INT(pq("scope=listener"), PROMEX_SC_LISTENER);
	CHECK_INT(pq("scope=sticktable&scope=global"), PROMEX_SC_STKTABLE | PROMEX_SC_GLOBAL);
	CHECK_INT(pq("foo=bar&scope=global"), PROMEX_SC_GLOBAL);
	CHECK_INT(pq("no-maint"), PROMEX_SC_ALL | PROMEX_FL_NO_MAINT);
	CHECK_INT(pq("no-maint=1&scope=server"), PROMEX_SC_SERVER | PROMEX_FL_NO_MAINT);
}

TEST(promex_query_errors)
{
	CHECK_INT(pq("scope"), -1);
	CHECK_INT(pq("scope=bogus"), -1);
	CHECK_INT(pq("scope=Global"), -1);
	CHECK_INT(pq("scope=global,server"), -1);
	CHECK_INT(pq("scope=global;scope=server"), -1);
	CHECK_INT(pq("scope=%"), -1);
	CHECK_INT(pq("scope=%4"), -1);
	CHECK_INT(pq("scope=%zz"), -1);
	CHECK_INT(pq("scope=serverserverserverserverserverserverserver"), -1);
	/* a bad scope after a good one still fails the request */
	CHECK_INT(pq("scope=global&scope=x"), -1);
	/* not a scope: ignored, even when it does not decode */
	CHECK_INT(pq("x=%zz&scope=server"), PROMEX_SC_SERVER);
}

TEST(promex_fmt_values)
{
	char v[48];

	CHECK_INT(promex_fmt_int(v, sizeof(v), 42, false, false), 2);
	CHECK_STR(v, "42");
	promex_fmt_int(v, sizeof(v), -1, false, false);
	CHECK_STR(v, "-1");
	promex_fmt_int(v, sizeof(v), 7, true, false);
	CHECK_STR(v, "NaN");
	promex_fmt_int(v, sizeof(v), 1500, false, true);
	CHECK_STR(v, "1.500000");
	promex_fmt_int(v, sizeof(v), 0, false, true);
	CHECK_STR(v, "0.000000");
	CHECK_INT(promex_fmt_int(v, 3, 12345, false, false), 2); /* truncated, terminated */
	CHECK_STR(v, "12");
}

TEST(promex_label_escapes)
{
	char area[64];
	struct buf b = { .area = area, .size = sizeof(area) };

	CHECK_INT(promex_put_label(&b, "a\"b\\c\nd"), 0);
	CHECK_INT(b.data, 10);
	CHECK(memcmp(area, "a\\\"b\\\\c\\nd", 10) == 0);
	b.size = 12;
	CHECK_INT(promex_put_label(&b, "xyz"), -1);
}

/* Every metric name is unique but for the status classes, reads a field the stats
 * model has, and names follow the Prometheus rules. */
static void check_table(const struct promex_metric *t, size_t n, bool info)
{
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (int f = 0; f < (info ? INF_NFIELDS : ST_NCOLS); f++) {
			const char *name = info ? info_fields[f].name : stat_cols[f].name;

			found = found || (name && strcmp(name, t[i].field) == 0);
		}
		if (!found)
			test_fail(__FILE__, __LINE__, "%s reads unknown field %s", t[i].name,
				  t[i].field);
		for (const char *p = t[i].name; *p; p++)
			CHECK((*p >= 'a' && *p <= 'z') || *p == '_' || (*p >= '0' && *p <= '9'));
		for (size_t j = 0; j < i; j++)
			if (strcmp(t[i].name, t[j].name) == 0)
				CHECK(t[i].kind == PROMEX_K_CODE && t[j].kind == PROMEX_K_CODE);
		CHECK((t[i].kind == PROMEX_K_CODE) == (t[i].code != NULL));
	}
}

TEST(promex_tables)
{
	CHECK_INT(promex_process_nmetrics, 60);
	CHECK_INT(promex_frontend_nmetrics, 33);
	CHECK_INT(promex_backend_nmetrics, 55);
	CHECK_INT(promex_server_nmetrics, 54);
	check_table(promex_process_metrics, promex_process_nmetrics, true);
	check_table(promex_frontend_metrics, promex_frontend_nmetrics, false);
	check_table(promex_backend_metrics, promex_backend_nmetrics, false);
	check_table(promex_server_metrics, promex_server_nmetrics, false);
	CHECK_STR(promex_frontend_metrics[0].name, "frontend_current_sessions");
	CHECK_STR(promex_server_metrics[promex_server_nmetrics - 1].name, "server_uweight");
}

/* The whole output written through <size>-byte pieces, into a malloc'ed string. */
static char *dump_all(int flags, uint32_t size, int *pieces)
{
	struct promex_cursor *c = promex_cursor_new(flags);
	char *area = malloc(size), *all = calloc(1, 1 << 20);
	struct buf b = { .area = area, .size = size };
	size_t len = 0;
	int done = 0;

	*pieces = 0;
	while (c && area && all && !done && *pieces < 100000) {
		done = promex_dump(c, &b);
		if (len + b.data >= (1 << 20))
			break;
		memcpy(all + len, b.area + b.head, b.data);
		len += b.data;
		b.head = b.data = 0;
		(*pieces)++;
	}
	CHECK(done);
	promex_cursor_free(c);
	free(area);
	return all;
}

/* Drops, in place, the value lines of the metrics that move with the clock (the uptime
 * crosses a second between two dumps), so two dumps taken in turn compare equal. */
static void drop_clock_lines(char *s)
{
	static const char *const clocked[] = { "haproxy_process_uptime_seconds ",
					       "haproxy_process_idle_time_percent " };
	char *r = s, *w = s;

	while (*r) {
		char *eol = strchr(r, '\n');
		size_t len = eol ? (size_t)(eol - r) + 1 : strlen(r);
		bool drop = false;

		for (size_t i = 0; i < sizeof(clocked) / sizeof(clocked[0]); i++)
			drop |= strncmp(r, clocked[i], strlen(clocked[i])) == 0;
		if (!drop) {
			memmove(w, r, len);
			w += len;
		}
		r += len;
	}
	*w = '\0';
}

TEST(promex_dump_resumes)
{
	int n1, n2;
	char *big = dump_all(PROMEX_SC_ALL, 1 << 20, &n1);
	char *small = dump_all(PROMEX_SC_ALL, 512, &n2);

	CHECK_INT(n1, 1);
	CHECK(n2 > 10);
	CHECK_HAS(big, "\nhaproxy_process_uptime_seconds ");
	drop_clock_lines(big);
	drop_clock_lines(small);
	CHECK(strstr(big, "\nhaproxy_process_uptime_seconds ") == NULL);
	CHECK_STR(small, big);
	CHECK_HAS(big, "# HELP haproxy_process_nbthread Number of started threads "
		       "(global.nbthread)\n# TYPE haproxy_process_nbthread gauge\n"
		       "haproxy_process_nbthread ");
	CHECK_HAS(big, "\nhaproxy_process_build_info{version=\"");
	free(big);
	free(small);
	big = dump_all(0, 4096, &n1);
	CHECK_STR(big, "");
	free(big);
}
