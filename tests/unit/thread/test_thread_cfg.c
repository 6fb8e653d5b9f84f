/* Unit tests of the thread configuration: the split of threads into groups, thread sets,
 * CPU sets, cpu-map rules and their resolution (pure functions of thread/thread_cfg.c), and
 * the check on config files (cfg_load_path + proxy_check_all + thread_cfg_check) with
 * stderr captured. Every config test resets thread_cfg, the proxies and global.nbthread.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <conn/listener-t.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <thread/thread_cfg.h>
#include "../test.h"

static char terr[512];

/* Checks that group <g> of <out> covers threads base..base+count-1. */
#define CHECK_GRP(out, g, b, c)                                                        \
	do {                                                                           \
		CHECK_INT((out)[g].base, (b));                                         \
		CHECK_INT((out)[g].count, (c));                                        \
	} while (0)

#define CHECK_ERR_HAS(s)                                                               \
	do {                                                                           \
		if (!strstr(terr, (s)))                                                \
			test_fail(__FILE__, __LINE__, "error lacks \"%s\": %s", (s), terr); \
	} while (0)

TEST(thread_split_default_64)
{
	struct tgroup_info out[MAX_TGROUPS];

	CHECK_INT(thread_split_groups(64, 0, 0, NULL, out, terr, sizeof(terr)), 4);
	CHECK_GRP(out, 0, 0, 16);
	CHECK_GRP(out, 1, 16, 16);
	CHECK_GRP(out, 2, 32, 16);
	CHECK_GRP(out, 3, 48, 16);
}

TEST(thread_split_balanced)
{
	struct tgroup_info out[MAX_TGROUPS];

	CHECK_INT(thread_split_groups(40, 3, 0, NULL, out, terr, sizeof(terr)), 3);
	CHECK_GRP(out, 0, 0, 14);
	CHECK_GRP(out, 1, 14, 13);
	CHECK_GRP(out, 2, 27, 13);
	CHECK_INT(thread_split_groups(17, 0, 0, NULL, out, terr, sizeof(terr)), 2);
	CHECK_GRP(out, 0, 0, 9);
	CHECK_GRP(out, 1, 9, 8);
	CHECK_INT(thread_split_groups(4, 0, 0, NULL, out, terr, sizeof(terr)), 1);
	CHECK_GRP(out, 0, 0, 4);
	CHECK_INT(thread_split_groups(4, 2, 0, NULL, out, terr, sizeof(terr)), 2);
	CHECK_GRP(out, 0, 0, 2);
	CHECK_GRP(out, 1, 2, 2);
	CHECK_INT(thread_split_groups(1, 0, 0, NULL, out, terr, sizeof(terr)), 1);
	CHECK_GRP(out, 0, 0, 1);
	/* max-threads-per-group 8: ceil(20 / 8) = 3 groups */
	CHECK_INT(thread_split_groups(20, 0, 8, NULL, out, terr, sizeof(terr)), 3);
	CHECK_GRP(out, 0, 0, 7);
	CHECK_GRP(out, 1, 7, 7);
	CHECK_GRP(out, 2, 14, 6);
	/* one group of 64 */
	CHECK_INT(thread_split_groups(64, 1, 0, NULL, out, terr, sizeof(terr)), 1);
	CHECK_GRP(out, 0, 0, 64);
	CHECK_INT(thread_split_groups(64, 16, 0, NULL, out, terr, sizeof(terr)), 16);
	CHECK_GRP(out, 15, 60, 4);
}

TEST(thread_split_explicit)
{
	struct tgroup_info out[MAX_TGROUPS];
	uint64_t a[MAX_TGROUPS] = { 0 };

	/* thread-group 2 1-2, 8 threads in 3 groups: the others fill groups 1 and 3 */
	a[1] = 0x3;
	CHECK_INT(thread_split_groups(8, 3, 0, a, out, terr, sizeof(terr)), 3);
	CHECK_GRP(out, 0, 2, 3);
	CHECK_GRP(out, 1, 0, 2);
	CHECK_GRP(out, 2, 5, 3);
	/* thread-group 1 1-4 without thread-groups: 1 + ceil(36 / 16) groups */
	memset(a, 0, sizeof(a));
	a[0] = 0xF;
	CHECK_INT(thread_split_groups(40, 0, 0, a, out, terr, sizeof(terr)), 4);
	CHECK_GRP(out, 0, 0, 4);
	CHECK_GRP(out, 1, 4, 12);
	CHECK_GRP(out, 2, 16, 12);
	CHECK_GRP(out, 3, 28, 12);
	/* thread-group 3 7-8 alone: groups 1 and 2 exist too */
	memset(a, 0, sizeof(a));
	a[2] = 0xC0;
	CHECK_INT(thread_split_groups(8, 0, 0, a, out, terr, sizeof(terr)), 3);
	CHECK_GRP(out, 0, 0, 3);
	CHECK_GRP(out, 1, 3, 3);
	CHECK_GRP(out, 2, 6, 2);
	/* every group explicit */
	memset(a, 0, sizeof(a));
	a[0] = 0xC;
	a[1] = 0x3;
	CHECK_INT(thread_split_groups(4, 2, 0, a, out, terr, sizeof(terr)), 2);
	CHECK_GRP(out, 0, 2, 2);
	CHECK_GRP(out, 1, 0, 2);
}

TEST(thread_split_errors)
{
	struct tgroup_info out[MAX_TGROUPS];
	uint64_t a[MAX_TGROUPS] = { 0 };

	CHECK_INT(thread_split_groups(2, 3, 0, NULL, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("more groups than threads");
	CHECK_INT(thread_split_groups(0, 0, 0, NULL, out, terr, sizeof(terr)), -1);
	CHECK_INT(thread_split_groups(65, 0, 0, NULL, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("out of range");
	CHECK_INT(thread_split_groups(8, 0, 65, NULL, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("max-threads-per-group 65");
	/* 64 threads at 1 per group: more than MAX_TGROUPS groups */
	CHECK_INT(thread_split_groups(64, 0, 1, NULL, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("exceed the maximum of 16");
	CHECK_INT(thread_split_groups(64, 17, 0, NULL, out, terr, sizeof(terr)), -1);
	/* thread in two groups */
	a[0] = 0x3;
	a[1] = 0x6;
	CHECK_INT(thread_split_groups(8, 2, 0, a, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("thread 2 already belongs to another group");
	/* non-contiguous explicit range */
	memset(a, 0, sizeof(a));
	a[0] = 0x5;
	CHECK_INT(thread_split_groups(8, 2, 0, a, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("contiguous");
	/* thread beyond nbthread */
	memset(a, 0, sizeof(a));
	a[0] = 0x30;
	CHECK_INT(thread_split_groups(4, 0, 0, a, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("thread 6 is beyond nbthread 4");
	/* explicit group beyond thread-groups */
	memset(a, 0, sizeof(a));
	a[2] = 0x1;
	CHECK_INT(thread_split_groups(4, 2, 0, a, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("thread-group 3 is beyond");
	/* threads left without a group: every group is explicit */
	memset(a, 0, sizeof(a));
	a[0] = 0xF;
	a[1] = 0x30;
	CHECK_INT(thread_split_groups(8, 2, 0, a, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("2 threads are left without a group");
	/* groups left without threads */
	memset(a, 0, sizeof(a));
	a[0] = 0x7;
	CHECK_INT(thread_split_groups(4, 3, 0, a, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("more groups than threads");
	/* an explicit range in the middle splits what group 1 would get */
	memset(a, 0, sizeof(a));
	a[1] = 0x3C;
	CHECK_INT(thread_split_groups(12, 3, 0, a, out, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("contiguous");
}

TEST(thread_set_parse_forms)
{
	struct thread_set ts;

	CHECK_INT(thread_set_parse("all", &ts, terr, sizeof(terr)), 0);
	CHECK(ts.is_abs && ts.abs == ~0ULL && !ts.grps);
	CHECK_INT(thread_set_parse("odd", &ts, terr, sizeof(terr)), 0);
	CHECK(ts.abs == 0x5555555555555555ULL);
	CHECK_INT(thread_set_parse("even", &ts, terr, sizeof(terr)), 0);
	CHECK(ts.abs == 0xAAAAAAAAAAAAAAAAULL);
	CHECK_INT(thread_set_parse("1-4", &ts, terr, sizeof(terr)), 0);
	CHECK_INT(ts.abs, 0xF);
	CHECK_INT(thread_set_parse("3", &ts, terr, sizeof(terr)), 0);
	CHECK_INT(ts.abs, 0x4);
	CHECK_INT(thread_set_parse("1,3-4,64", &ts, terr, sizeof(terr)), 0);
	CHECK(ts.abs == (0xDULL | (1ULL << 63)));
	CHECK_INT(thread_set_parse("2/1-4", &ts, terr, sizeof(terr)), 0);
	CHECK(!ts.is_abs);
	CHECK_INT(ts.grps, 0x2);
	CHECK_INT(ts.rel[1], 0xF);
	CHECK_INT(ts.rel[0], 0);
	CHECK_INT(thread_set_parse("1-2/all", &ts, terr, sizeof(terr)), 0);
	CHECK_INT(ts.grps, 0x3);
	CHECK(ts.rel[0] == ~0ULL && ts.rel[1] == ~0ULL);
	CHECK_INT(thread_set_parse("1/1,2/3,1/odd", &ts, terr, sizeof(terr)), 0);
	CHECK(ts.rel[0] == 0x5555555555555555ULL);
	CHECK_INT(ts.rel[1], 0x4);
	CHECK_INT(thread_set_parse("16/64", &ts, terr, sizeof(terr)), 0);
	CHECK(ts.grps == 0x8000 && ts.rel[15] == 1ULL << 63);
}

TEST(thread_set_parse_errors)
{
	static const char *const bad[] = { "", "0", "65", "a", "1-", "-3", "4-2", "1,", ",1",
					   "17/1", "0/1", "1/65", "1/", "/1", "1//1", "all,2/1",
					   "2/1,3", "1/2/3", "1 2", NULL };
	struct thread_set ts;
	int i;

	for (i = 0; bad[i]; i++) {
		terr[0] = '\0';
		if (thread_set_parse(bad[i], &ts, terr, sizeof(terr)) != -1)
			test_fail(__FILE__, __LINE__, "'%s' was accepted", bad[i]);
		else if (!terr[0])
			test_fail(__FILE__, __LINE__, "'%s': no message", bad[i]);
	}
	CHECK_INT(thread_set_parse("all,2/1", &ts, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("cannot be mixed");
	CHECK_INT(thread_set_parse("65", &ts, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("from 1 to 64");
	CHECK_INT(thread_set_parse("17/1", &ts, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("from 1 to 16");
}

TEST(thread_set_resolve_masks)
{
	const struct tgroup_info grps[2] = { { 0, 4 }, { 4, 4 } };
	const struct tgroup_info one[1] = { { 0, 4 } };
	uint64_t m[MAX_TGROUPS];
	struct thread_set ts;

	thread_set_parse("3-6", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, grps, 2, m, terr, sizeof(terr)), 4);
	CHECK_INT(m[0], 0xC);
	CHECK_INT(m[1], 0x3);
	thread_set_parse("2/1", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, grps, 2, m, terr, sizeof(terr)), 1);
	CHECK_INT(m[0], 0);
	CHECK_INT(m[1], 0x1);
	thread_set_parse("all", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, grps, 2, m, terr, sizeof(terr)), 8);
	CHECK_INT(m[0], 0xF);
	CHECK_INT(m[1], 0xF);
	thread_set_parse("odd", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, grps, 2, m, terr, sizeof(terr)), 4);
	CHECK_INT(m[0], 0x5);
	CHECK_INT(m[1], 0x5);
	thread_set_parse("1/all", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, grps, 2, m, terr, sizeof(terr)), 4);
	CHECK_INT(m[0], 0xF);
	CHECK_INT(m[1], 0);
	/* threads beyond the existing ones are dropped, as HAProxy does */
	thread_set_parse("1-8", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, one, 1, m, terr, sizeof(terr)), 4);
	CHECK_INT(m[0], 0xF);
	thread_set_parse("1/2-9", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, one, 1, m, terr, sizeof(terr)), 3);
	CHECK_INT(m[0], 0xE);
	/* ... but a set with no existing thread, or a missing group, is an error */
	thread_set_parse("5-8", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, one, 1, m, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("no existing thread");
	thread_set_parse("1/5", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, one, 1, m, terr, sizeof(terr)), -1);
	thread_set_parse("3/1", &ts, terr, sizeof(terr));
	CHECK_INT(thread_set_resolve(&ts, grps, 2, m, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("thread group 3 does not exist");
}

TEST(thread_cpuset_parse)
{
	cpu_set_t s;

	CHECK_INT(cpuset_parse("0-7", &s, terr, sizeof(terr)), 0);
	CHECK_INT(CPU_COUNT(&s), 8);
	CHECK_INT(cpuset_parse("0,2,4-6", &s, terr, sizeof(terr)), 0);
	CHECK_INT(CPU_COUNT(&s), 5);
	CHECK(CPU_ISSET(0, &s) && !CPU_ISSET(1, &s) && CPU_ISSET(6, &s) && !CPU_ISSET(7, &s));
	CHECK_INT(cpuset_parse("5-3", &s, terr, sizeof(terr)), 0);
	CHECK(CPU_COUNT(&s) == 3 && CPU_ISSET(3, &s) && CPU_ISSET(5, &s));
	CHECK_INT(cpuset_parse("1020-", &s, terr, sizeof(terr)), 0);
	CHECK(CPU_COUNT(&s) == 4 && CPU_ISSET(1023, &s));
	CHECK_INT(cpuset_parse("1024", &s, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("from 0 to 1023");
	CHECK_INT(cpuset_parse("a", &s, terr, sizeof(terr)), -1);
	CHECK_ERR_HAS("'a' is not a CPU range");
	CHECK_INT(cpuset_parse("", &s, terr, sizeof(terr)), -1);
	CHECK_INT(cpuset_parse("1,", &s, terr, sizeof(terr)), -1);
	CHECK_INT(cpuset_parse("0-x", &s, terr, sizeof(terr)), -1);
}

/* cpu_map_parse() with the CPU words of <c1> and optional <c2>. */
static int tcm_parse(const char *grp, const char *c1, const char *c2, struct cpu_map_rule *r)
{
	char *words[2] = { (char *)c1, (char *)c2 };

	memset(r, 0, sizeof(*r));
	return cpu_map_parse(grp, words, c1 ? (c2 ? 2 : 1) : 0, r, terr, sizeof(terr));
}

TEST(thread_cpu_map_parse)
{
	struct cpu_map_rule r;

	CHECK_INT(tcm_parse("1/all", "0-7", NULL, &r), 0);
	CHECK(!r.automap && !r.ts.is_abs && r.ts.grps == 1 && r.ts.rel[0] == ~0ULL);
	CHECK_INT(CPU_COUNT(&r.cpus), 8);
	CHECK_INT(tcm_parse("auto:1/1-4", "0-3", NULL, &r), 0);
	CHECK(r.automap && r.ts.grps == 1);
	CHECK_INT(r.ts.rel[0], 0xF);
	CHECK_INT(tcm_parse("1", "0", NULL, &r), 0);
	CHECK(r.ts.grps == 1 && r.ts.rel[0] == ~0ULL);
	CHECK_INT(tcm_parse("all/1", "0", NULL, &r), 0);
	CHECK(r.ts.grps == 0xFFFF && r.ts.rel[15] == 1);
	CHECK_INT(tcm_parse("odd/2", "0", NULL, &r), 0);
	CHECK(r.ts.grps == 0x5555 && r.ts.rel[2] == 2);
	CHECK_INT(tcm_parse("auto:1-2/1", "0-1", NULL, &r), 0);
	CHECK_INT(tcm_parse("1/1", "0", "2", &r), 0);
	CHECK(CPU_COUNT(&r.cpus) == 2 && CPU_ISSET(2, &r.cpus));
	CHECK_INT(tcm_parse("auto:1/1-2", "0", "1", &r), 0);

	CHECK_INT(tcm_parse("auto:1/1-4", "0-2", NULL, &r), -1);
	CHECK_ERR_HAS("same size");
	CHECK_INT(tcm_parse("auto:1", "0-1", NULL, &r), -1);
	CHECK_INT(tcm_parse("1", NULL, NULL, &r), -1);
	CHECK_INT(tcm_parse("0/1", "0", NULL, &r), -1);
	CHECK_INT(tcm_parse("17", "0", NULL, &r), -1);
	CHECK_INT(tcm_parse("1/0", "0", NULL, &r), -1);
	CHECK_INT(tcm_parse("1/1", "a", NULL, &r), -1);
	CHECK_INT(tcm_parse("1/1", "2000", NULL, &r), -1);
}

/* Groups of tcm_resolve(): 8 threads in 2 groups of 4. */
static const struct tgroup_info tcm_grps[2] = { { 0, 4 }, { 4, 4 } };

/* Resolves the rules parsed from <lines> ("GRP CPUS" pairs) against <avail_str>. */
static int tcm_resolve(const char *const *lines, int n, const char *avail_str,
		       cpu_set_t *cpus, bool *has)
{
	struct cpu_map_rule r[4];
	cpu_set_t avail;
	char grp[32], cpu[32];
	int i;

	cpuset_parse(avail_str, &avail, terr, sizeof(terr));
	for (i = 0; i < n; i++) {
		if (sscanf(lines[i], "%31s %31s", grp, cpu) != 2 ||
		    tcm_parse(grp, cpu, NULL, &r[i]) < 0)
			return -2;
		r[i].file = (char *)"t.cfg";
		r[i].line = i + 1;
		r[i].next = i + 1 < n ? &r[i + 1] : NULL;
	}
	return cpu_map_resolve(r, tcm_grps, 2, &avail, cpus, has, terr, sizeof(terr));
}

TEST(thread_cpu_map_resolve)
{
	static const char *const all[] = { "1/all 0-7" };
	static const char *const autom[] = { "auto:1/1-4 0-3" };
	static const char *const over[] = { "1/all 0-7", "1/2 5", "2/1-2 6" };
	static const char *const both[] = { "auto:1-2/1 2-3" };
	cpu_set_t cpus[8];
	bool has[8];
	int t;

	CHECK_INT(tcm_resolve(all, 1, "0-7", cpus, has), 0);
	for (t = 0; t < 4; t++)
		CHECK(has[t] && CPU_COUNT(&cpus[t]) == 8);
	for (t = 4; t < 8; t++)
		CHECK(!has[t]);
	CHECK_INT(tcm_resolve(autom, 1, "0-7", cpus, has), 0);
	for (t = 0; t < 4; t++)
		CHECK(has[t] && CPU_COUNT(&cpus[t]) == 1 && CPU_ISSET(t, &cpus[t]));
	CHECK(!has[4]);
	/* later rules override earlier ones for the same thread */
	CHECK_INT(tcm_resolve(over, 3, "0-7", cpus, has), 0);
	CHECK(CPU_COUNT(&cpus[0]) == 8 && CPU_COUNT(&cpus[2]) == 8);
	CHECK(CPU_COUNT(&cpus[1]) == 1 && CPU_ISSET(5, &cpus[1]));
	CHECK(has[4] && has[5] && !has[6] && CPU_ISSET(6, &cpus[5]));
	/* auto over groups: thread 1 of group 1 gets CPU 2, thread 1 of group 2 CPU 3 */
	CHECK_INT(tcm_resolve(both, 1, "0-7", cpus, has), 0);
	CHECK(has[0] && CPU_ISSET(2, &cpus[0]) && has[4] && CPU_ISSET(3, &cpus[4]));
	CHECK(!has[1]);
	/* 0-7 on a machine with CPUs 0-1: bound to what exists, as HAProxy does */
	CHECK_INT(tcm_resolve(all, 1, "0-1", cpus, has), 0);
	CHECK(has[0] && CPU_COUNT(&cpus[0]) == 2);
}

TEST(thread_cpu_map_resolve_errors)
{
	static const char *const missing[] = { "1/all 0-1", "2/all 5-6" };
	static const char *const automiss[] = { "auto:1/1-4 0-3" };
	cpu_set_t cpus[8];
	bool has[8];

	CHECK_INT(tcm_resolve(missing, 2, "0-1", cpus, has), -1);
	CHECK_ERR_HAS("parsing [t.cfg:2] : cpu-map: CPU 5-6 does not exist / is not available");
	CHECK_INT(tcm_resolve(automiss, 1, "0-1", cpus, has), -1);
	CHECK_ERR_HAS("parsing [t.cfg:1] : cpu-map: CPU 2 does not exist");
}

/* Config tests: files under a temporary directory, stderr captured. */
struct tct_run {
	int load;                 /* cfg_load_path() */
	int check;                /* proxy_check_all() */
	int thr;                  /* thread_cfg_check(), -1 when not reached */
	char err[8192];
};

static char tct_dir[64];

static void tct_setup(void)
{
	proxy_deinit_all();
	thread_cfg_reset();
	test_tmpdir(tct_dir, "thrtest");
}

static void tct_cleanup(void)
{
	proxy_deinit_all();
	thread_cfg_reset();
	global.nbthread = 1;
	test_rmdir(tct_dir);
}

/* Loads <text> as t.cfg and runs the checks as main does, with stderr captured. */
static void tct_load(const char *text, struct tct_run *r)
{
	char path[128];
	int saved, e0 = cfg_errors;

	test_write_file(tct_dir, "t.cfg", text);
	snprintf(path, sizeof(path), "%s/t.cfg", tct_dir);
	saved = test_capture_begin(tct_dir);
	r->load = cfg_load_path(path);
	r->check = cfg_errors - e0 ? -1 : proxy_check_all();
	r->thr = r->check ? -1 : thread_cfg_check();
	test_capture_end(saved, tct_dir, r->err, sizeof(r->err));
}

#define TCT_HAS(r, s) CHECK_HAS((r)->err, (s))

#define TCT_PROXIES                                                                    \
	"defaults\n  mode http\n  timeout client 5s\n  timeout server 5s\n"             \
	"  timeout connect 1s\n"                                                        \
	"backend be\n  server s 127.0.0.1:8001\n"

/* The bind_conf number <n> (0-based) of frontend "fe". */
static struct bind_conf *tct_bind(int n)
{
	struct proxy *px = proxy_find("fe", PR_CAP_FE);
	struct bind_conf *bc;

	if (!px)
		return NULL;
	list_for_each_entry(bc, &px->binds, list) {
		if (!n--)
			return bc;
	}
	return NULL;
}

TEST(thread_check_nbthread_groups)
{
	struct tct_run r;
	struct bind_conf *bc;

	tct_setup();
	tct_load("global\n  nbthread 4\n" TCT_PROXIES
		 "frontend fe\n  bind 127.0.0.1:18090\n  default_backend be\n", &r);
	CHECK_INT(r.load, 0);
	CHECK_INT(r.thr, 0);
	CHECK_INT(thread_cfg.ngroups, 1);
	CHECK_GRP(thread_cfg.groups, 0, 0, 4);
	CHECK_INT(global.nbthread, 4);
	bc = tct_bind(0);
	CHECK(bc != NULL);
	if (bc) {
		CHECK_INT(bc->thr_masks[0], 0xF);
		CHECK_INT(bc->thr_masks[1], 0);
		CHECK_INT(bc->nb_shards, 1);
	}
	tct_cleanup();

	/* no setting: one thread per CPU this process may use */
	tct_setup();
	tct_load("global\n  maxconn 100\n" TCT_PROXIES, &r);
	CHECK_INT(r.thr, 0);
	CHECK_INT(thread_cfg.nbthread, thread_default_nbthread());
	CHECK_INT(global.nbthread, thread_default_nbthread());
	CHECK(thread_cfg.nbthread >= 1 && thread_cfg.nbthread <= MAX_THREADS);
	tct_cleanup();
}

TEST(thread_check_binds_shards)
{
	struct tct_run r;
	struct bind_conf *bc;

	tct_setup();
	tct_load("global\n  nbthread 4\n  thread-groups 2\n" TCT_PROXIES
		 "frontend fe\n  default_backend be\n"
		 "  bind 127.0.0.1:18090\n"
		 "  bind 127.0.0.1:18091 thread 2/1 shards by-thread\n"
		 "  bind 127.0.0.1:18092 thread 1-4 shards by-thread\n"
		 "  bind 127.0.0.1:18093 shards 3\n"
		 "  bind 127.0.0.1:18094 shards 8\n"
		 "  bind 127.0.0.1:18095 thread 2-3\n"
		 "  bind 127.0.0.1:18096 thread 1-2\n"
		 "  bind unix@" "/tmp/hapx-thr.sock shards by-thread\n"
		 "  bind 127.0.0.1:18097 thread 1/2 thread 2/all\n", &r);
	CHECK_INT(r.load, 0);
	CHECK_INT(r.thr, 0);
	CHECK_INT(thread_cfg.ngroups, 2);
	CHECK_GRP(thread_cfg.groups, 0, 0, 2);
	CHECK_GRP(thread_cfg.groups, 1, 2, 2);
	if ((bc = tct_bind(0))) {       /* default: by-group over both groups */
		CHECK_INT(bc->thr_masks[0], 0x3);
		CHECK_INT(bc->thr_masks[1], 0x3);
		CHECK_INT(bc->nb_shards, 2);
	}
	if ((bc = tct_bind(1))) {
		CHECK_INT(bc->thr_masks[0], 0);
		CHECK_INT(bc->thr_masks[1], 0x1);
		CHECK_INT(bc->nb_shards, 1);
	}
	if ((bc = tct_bind(2)))
		CHECK_INT(bc->nb_shards, 4);
	if ((bc = tct_bind(3)))
		CHECK_INT(bc->nb_shards, 3);
	if ((bc = tct_bind(4)))         /* capped at the threads it spans */
		CHECK_INT(bc->nb_shards, 4);
	if ((bc = tct_bind(5))) {       /* absolute threads 2-3 straddle the groups */
		CHECK_INT(bc->thr_masks[0], 0x2);
		CHECK_INT(bc->thr_masks[1], 0x1);
		CHECK_INT(bc->nb_shards, 2);
	}
	if ((bc = tct_bind(6))) {
		CHECK_INT(bc->thr_masks[0], 0x3);
		CHECK_INT(bc->thr_masks[1], 0);
		CHECK_INT(bc->nb_shards, 1);
	}
	if ((bc = tct_bind(7)))         /* unix sockets are never sharded */
		CHECK_INT(bc->nb_shards, 1);
	if ((bc = tct_bind(8))) {       /* several "thread" options add up */
		CHECK_INT(bc->thr_masks[0], 0x2);
		CHECK_INT(bc->thr_masks[1], 0x3);
	}
	CHECK(tct_bind(8) != NULL);
	tct_cleanup();

	/* tune.listener.default-shards by-thread applies to binds without "shards" */
	tct_setup();
	tct_load("global\n  nbthread 4\n  tune.listener.default-shards by-thread\n"
		 TCT_PROXIES "frontend fe\n  default_backend be\n"
		 "  bind 127.0.0.1:18090\n  bind 127.0.0.1:18091 shards by-group\n", &r);
	CHECK_INT(r.thr, 0);
	if ((bc = tct_bind(0)))
		CHECK_INT(bc->nb_shards, 4);
	if ((bc = tct_bind(1)))
		CHECK_INT(bc->nb_shards, 1);
	tct_cleanup();
}

TEST(thread_check_cpu_map)
{
	struct tct_run r;
	cpu_set_t avail;
	int c = 0;

	sched_getaffinity(0, sizeof(avail), &avail);
	while (!CPU_ISSET(c, &avail))
		c++;
	tct_setup();
	{
		char cfg[256];

		snprintf(cfg, sizeof(cfg), "global\n  nbthread 2\n  cpu-map 1/all 0-1023\n"
			 "  cpu-map auto:1/2 %d\n" TCT_PROXIES, c);
		tct_load(cfg, &r);
	}
	CHECK_INT(r.thr, 0);
	CHECK(thread_cfg.has_cpus[0] && thread_cfg.has_cpus[1]);
	CHECK(CPU_EQUAL(&thread_cfg.cpus[0], &avail));
	CHECK(CPU_COUNT(&thread_cfg.cpus[1]) == 1 && CPU_ISSET(c, &thread_cfg.cpus[1]));
	TCT_HAS(&r, "t.cfg:3] : cpu-map: ");
	TCT_HAS(&r, "are ignored");
	tct_cleanup();
}

TEST(thread_check_errors)
{
	struct tct_run r;

	/* more groups than threads, at the thread-groups line */
	tct_setup();
	tct_load("global\n  nbthread 2\n  thread-groups 3\n" TCT_PROXIES, &r);
	CHECK(r.thr > 0);
	TCT_HAS(&r, "t.cfg:3] : thread groups: 3 thread groups for 2 threads: more groups "
		"than threads.");
	tct_cleanup();

	/* a CPU that does not exist */
	tct_setup();
	tct_load("global\n  nbthread 2\n  cpu-map 1/1 1000\n" TCT_PROXIES, &r);
	CHECK(r.thr > 0);
	TCT_HAS(&r, "t.cfg:3] : cpu-map: CPU 1000 does not exist / is not available");
	tct_cleanup();

	/* a bind naming a group that does not exist */
	tct_setup();
	tct_load("global\n  nbthread 2\n" TCT_PROXIES "frontend fe\n  default_backend be\n"
		 "  bind 127.0.0.1:18090 thread 2/1\n", &r);
	CHECK(r.thr > 0);
	TCT_HAS(&r, "Proxy 'fe': 'thread' on the 'bind' at [");
	TCT_HAS(&r, "t.cfg:12]: thread group 2 does not exist");
	tct_cleanup();

	/* explicit group errors at the thread-group line */
	tct_setup();
	tct_load("global\n  nbthread 4\n  thread-groups 2\n  thread-group 1 1-2\n"
		 "  thread-group 2 3,5\n" TCT_PROXIES, &r);
	CHECK(r.thr > 0);
	TCT_HAS(&r, "t.cfg:5] : 'thread-group 2' : thread 5 is beyond nbthread 4.");
	tct_cleanup();

	tct_setup();
	tct_load("global\n  nbthread 8\n  thread-group 1 1-2\n  thread-group 1 5\n"
		 TCT_PROXIES, &r);
	CHECK(r.thr > 0);
	TCT_HAS(&r, "t.cfg:4] : 'thread-group 1' : its threads must form one contiguous");
	tct_cleanup();

	tct_setup();
	tct_load("global\n  nbthread 8\n  thread-groups 2\n  thread-group 3 1\n" TCT_PROXIES,
		 &r);
	CHECK(r.thr > 0);
	TCT_HAS(&r, "t.cfg:4] : 'thread-group 3' : thread group number must be between 1 and 2");
	tct_cleanup();
}

TEST(thread_check_parse_errors)
{
	struct tct_run r;

	tct_setup();
	tct_load("global\n"
		 "  nbthread 65\n"
		 "  thread-groups 17\n"
		 "  max-threads-per-group 0\n"
		 "  thread-group 1 1-4\n"
		 "  thread-group 2 4-6\n"
		 "  thread-group 17 1\n"
		 "  thread-group 2 1/1\n"
		 "  cpu-map auto:1/1-4 0-2\n"
		 "  cpu-map 1/1 x\n"
		 "  cpu-map 1\n"
		 "  tune.listener.default-shards 0\n"
		 "  nbthread x\n"
		 TCT_PROXIES
		 "frontend fe\n  default_backend be\n"
		 "  bind 127.0.0.1:18090 thread 0\n"
		 "  bind 127.0.0.1:18091 thread 1,1/1\n"
		 "  bind 127.0.0.1:18092 thread 1 thread 1/1\n"
		 "  bind 127.0.0.1:18093 shards 0\n"
		 "  bind 127.0.0.1:18094 shards\n", &r);
	CHECK_INT(r.load, -1);
	TCT_HAS(&r, "t.cfg:2] : 'nbthread' value must be between 1 and 64 (was 65).");
	TCT_HAS(&r, "t.cfg:3] : 'thread-groups' value must be between 1 and 16 (was 17).");
	TCT_HAS(&r, "t.cfg:4] : 'max-threads-per-group' value must be between 1 and 64 (was 0).");
	TCT_HAS(&r, "t.cfg:6] : 'thread-group 2' : thread 4 is already in thread group 1 (at [");
	TCT_HAS(&r, "t.cfg:7] : 'thread-group' : thread group number must be between 1 and 16");
	TCT_HAS(&r, "t.cfg:8] : 'thread-group 2' : '1/1' : thread numbers are absolute here");
	TCT_HAS(&r, "t.cfg:9] : cpu-map : the thread set and the CPU set must have the same size");
	TCT_HAS(&r, "t.cfg:10] : cpu-map : 'x' is not a CPU range.");
	TCT_HAS(&r, "t.cfg:11] : cpu-map : expects a thread group");
	TCT_HAS(&r, "t.cfg:12] : 'tune.listener.default-shards' : invalid value '0'");
	TCT_HAS(&r, "t.cfg:13] : 'nbthread' expects an integer argument, got 'x'.");
	TCT_HAS(&r, "t.cfg:23] : 'bind 127.0.0.1:18090' : 'thread' : '0' is not a valid thread");
	TCT_HAS(&r, "t.cfg:24] : 'bind 127.0.0.1:18091' : 'thread' : '1,1/1': absolute thread "
		"numbers and group-relative ones (G/...) cannot be mixed.");
	TCT_HAS(&r, "t.cfg:25] : 'bind 127.0.0.1:18092' : 'thread' : absolute thread numbers");
	TCT_HAS(&r, "t.cfg:26] : 'bind 127.0.0.1:18093' : 'shards' : invalid value '0'");
	TCT_HAS(&r, "t.cfg:27] : 'bind 127.0.0.1:18094' : 'shards' expects");
	tct_cleanup();
}

TEST(thread_check_notice_max_per_group)
{
	struct tct_run r;

	tct_setup();
	tct_load("global\n  nbthread 8\n  thread-groups 2\n  max-threads-per-group 2\n"
		 "  nbproc 1\n" TCT_PROXIES, &r);
	CHECK_INT(r.thr, 0);
	CHECK_INT(thread_cfg.ngroups, 2);
	CHECK_GRP(thread_cfg.groups, 1, 4, 4);
	TCT_HAS(&r, "[NOTICE]");
	TCT_HAS(&r, "'max-threads-per-group' is ignored when 'thread-groups' is set.");
	TCT_HAS(&r, "t.cfg:5] : 'nbproc' is obsolete");
	tct_cleanup();

	/* without thread-groups, max-threads-per-group sets the group count */
	tct_setup();
	tct_load("global\n  nbthread 8\n  max-threads-per-group 2\n" TCT_PROXIES, &r);
	CHECK_INT(r.thr, 0);
	CHECK_INT(thread_cfg.ngroups, 4);
	CHECK_GRP(thread_cfg.groups, 3, 6, 2);
	tct_cleanup();
}
