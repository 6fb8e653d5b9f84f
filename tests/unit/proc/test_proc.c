/* Unit tests of proc/version (the facts "-cc" sees, checked through cond_eval) and of the
 * pidfile helpers of proc/daemon. Forking paths are covered by the integration tests.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <cfg/cond.h>
#include <proc/daemon.h>
#include <proc/version.h>

#include "../test.h"

/* Evaluates the one-word condition <expr> against the build's facts. */
static int proc_cond(const char *expr)
{
	char buf[256], err[256];
	char *args[2] = { buf, NULL };

	snprintf(buf, sizeof(buf), "%s", expr);
	return cond_eval(args, 1, version_cond_facts(), err, sizeof(err));
}

TEST(proc_version_facts)
{
	const struct cond_facts *f = version_cond_facts();

	CHECK_STR(f->version, "3.2.0");
	CHECK(strstr(f->features, "EPOLL") != NULL);
	CHECK(strstr(f->features, "THREAD") != NULL);
	CHECK(strstr(f->features, "QUIC") == NULL);
	CHECK(f->enabled("EPOLL"));
	CHECK(!f->enabled("POLL"));
	CHECK(f->defined("PATH"));
	CHECK(!f->defined("HAPX_TEST_SURELY_UNSET_VARIABLE"));
#ifdef USE_OPENSSL
	CHECK_STR(f->ssl_name, "OpenSSL");
	CHECK(f->ssl_version && f->ssl_version[0] >= '1' && f->ssl_version[0] <= '9');
	CHECK(strstr(f->features, "OPENSSL") != NULL);
#else
	CHECK(f->ssl_version == NULL);
#endif
}

TEST(proc_version_cond)
{
	CHECK_INT(proc_cond("feature(EPOLL)"), 1);
	CHECK_INT(proc_cond("feature(QUIC)"), 0);
	CHECK_INT(proc_cond("version_atleast(3.2)"), 1);
	CHECK_INT(proc_cond("version_before(3.2.1)"), 1);
	CHECK_INT(proc_cond("enabled(THREAD)"), 1);
#ifdef USE_OPENSSL
	CHECK_INT(proc_cond("ssllib_name_startswith(Open)"), 1);
	CHECK_INT(proc_cond("openssl_version_atleast(1.0.0)"), 1);
#endif
#ifdef USE_PCRE2_JIT
	CHECK_INT(proc_cond("feature(PCRE2_JIT)"), 1);
#endif
}

/* Reads the first line of <path> as an integer; -1 if unreadable. */
static long proc_read_pid(const char *path)
{
	FILE *f = fopen(path, "r");
	long pid = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = -1;
	fclose(f);
	return pid;
}

TEST(proc_pidfile_cycle)
{
	char dir[] = "/tmp/hapx-unit-pid.XXXXXX", path[PATH_MAX], cwd[PATH_MAX];
	int saved_errors;

	CHECK(mkdtemp(dir) != NULL);
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	snprintf(path, sizeof(path), "%s/test.pid", dir);

	/* Relative path, then a chdir: removal still finds the file. */
	CHECK_INT(chdir(dir), 0);
	CHECK_INT(pidfile_open("test.pid"), 0);
	CHECK_INT(chdir("/"), 0);
	CHECK_INT(pidfile_write(), 0);
	CHECK_INT(proc_read_pid(path), getpid());
	pidfile_remove();
	CHECK(access(path, F_OK) != 0);

	CHECK_INT(pidfile_write(), 0); /* nothing opened: no-op */
	saved_errors = cfg_errors; /* the expected alert must not leak into other tests */
	CHECK_INT(pidfile_open("/nonexistent-dir/x.pid"), -1);
	cfg_errors = saved_errors;
	daemon_signal_pids(NULL, 0, 0);
	daemon_report_ready(true); /* not daemonized: no-op */

	CHECK_INT(chdir(cwd), 0);
	rmdir(dir);
}
