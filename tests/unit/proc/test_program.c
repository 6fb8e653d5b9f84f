/* Unit tests of the master's bookkeeping that crosses a re-exec: the running programs in
 * HAPX_PROGRAMS (proc/program) and the -S option parser (proc/mcli). Forking, the master
 * loop and the master CLI's sessions are covered by the integration tests.
 */
#include <stdlib.h>
#include <string.h>

#include <proc/mcli.h>
#include <proc/program.h>

#include "../test.h"

TEST(program_env_round_trip)
{
	const struct program_proc *p;
	int n;

	setenv("HAPX_PROGRAMS", "123:2:1000:sleeper,124:0:2000:keeper", 1);
	program_import_env();
	CHECK(getenv("HAPX_PROGRAMS") == NULL);
	p = program_procs(&n);
	CHECK_INT(n, 2);
	CHECK_INT(p[0].pid, 123);
	CHECK_INT(p[0].reloads, 2);
	CHECK(p[0].start == 1000);
	CHECK_STR(p[0].name, "sleeper");
	CHECK(p[0].current);
	CHECK_STR(p[1].name, "keeper");
	program_reloading();
	program_export_env();
	CHECK_STR(getenv("HAPX_PROGRAMS"), "123:3:1000:sleeper,124:1:2000:keeper");
	unsetenv("HAPX_PROGRAMS");
	CHECK(!program_reaped(999, 0, "Exit"));
	CHECK(program_reaped(123, 143, "Terminated"));
	CHECK(program_reaped(124, 0, "Exit"));
	CHECK_INT(program_count(), 0);
}

TEST(program_env_malformed)
{
	static const char *const bad[] = { "",	       "x",	  "12",	   "12:1",
					   "-5:0:0:a", "0:0:0:a", "1:2:3", ",,," };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("HAPX_PROGRAMS", bad[i], 1);
		program_import_env();
		CHECK_INT(program_count(), 0);
	}
	/* a valid entry then garbage: the valid one is kept */
	setenv("HAPX_PROGRAMS", "7:0:0:a,zz", 1);
	program_import_env();
	CHECK_INT(program_count(), 1);
	CHECK(program_reaped(7, 0, "Exit"));
}

TEST(mcli_spec_parse)
{
	CHECK_INT(mcli_add_spec("/tmp/hapx-unit-m.sock"), 0);
	CHECK_INT(mcli_add_spec("/tmp/hapx-unit-m2.sock,mode,600,uid,0,gid,0,level,admin"), 0);
	CHECK_INT(mcli_add_spec("ipv4@127.0.0.1:31999"), 0);
	CHECK_INT(mcli_add_spec("/tmp/x.sock,mode,999"), -1);
	CHECK_INT(mcli_add_spec("/tmp/x.sock,mode"), -1);
	CHECK_INT(mcli_add_spec("/tmp/x.sock,bogus,1"), -1);
	CHECK_INT(mcli_add_spec("/tmp/x.sock,level,root"), -1);
	CHECK_INT(mcli_add_spec("/tmp/x.sock,user,hapx-no-such-user"), -1);
	CHECK_INT(mcli_add_spec("127.0.0.1:0"), -1);
	CHECK_INT(mcli_add_spec(""), -1);
}
