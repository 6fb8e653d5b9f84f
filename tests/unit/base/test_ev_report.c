/* ev_report(): the stderr line with HAProxy's prefix and the log hook's copy, with its
 * level and the proxy; ev_report2()'s separate log text; "quiet" silences stderr only. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <base/ev_report.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include "../test.h"

static const struct proxy *ev_px;
static int ev_level;
static char ev_txt[256];

static void ev_hook(const struct proxy *px, int level, const char *msg, size_t len)
{
	ev_px = px;
	ev_level = level;
	snprintf(ev_txt, sizeof(ev_txt), "%.*s", (int)len, msg);
}

TEST(ev_report_stderr_and_log)
{
	void (*saved)(const struct proxy *, int, const char *, size_t) = ev_log_hook;
	static struct proxy px;
	char dir[64], out[512], pfx[64];
	int fd;

	ev_log_hook = ev_hook;
	test_tmpdir(dir, "ev");
	fd = test_capture_begin(dir);
	ev_report(&px, 1, EV_OUT_WARNING, "Server %s/%s is DOWN.", "be", "s1");
	ev_report2(&px, 0, EV_OUT_ALERT, "backend be has no server available!",
		   "backend '%s' has no server available!", "be");
	global.quiet = true;
	ev_report(&px, 5, EV_OUT_WARNING, "hidden on stderr");
	global.quiet = false;
	ev_report(NULL, 5, EV_OUT_NOTICE, "no proxy");
	test_capture_end(fd, dir, out, sizeof(out));
	test_rmdir(dir);
	snprintf(pfx, sizeof(pfx), "[WARNING]  (%d) : Server be/s1 is DOWN.\n", (int)getpid());
	CHECK_HAS(out, pfx);
	snprintf(pfx, sizeof(pfx), "[ALERT]    (%d) : backend 'be' has", (int)getpid());
	CHECK_HAS(out, pfx);
	snprintf(pfx, sizeof(pfx), "[NOTICE]   (%d) : no proxy\n", (int)getpid());
	CHECK_HAS(out, pfx);
	CHECK(!strstr(out, "hidden"));
	/* the last call with a proxy was the quiet one: logged all the same */
	CHECK(ev_px == &px);
	CHECK(ev_level == 5);
	CHECK(strcmp(ev_txt, "hidden on stderr") == 0);
	ev_log_hook = saved;
}

TEST(ev_report2_log_text)
{
	void (*saved)(const struct proxy *, int, const char *, size_t) = ev_log_hook;
	static struct proxy px;
	char dir[64], out[512];
	int fd;

	ev_log_hook = ev_hook;
	test_tmpdir(dir, "ev2");
	fd = test_capture_begin(dir);
	ev_report2(&px, 0, EV_OUT_ALERT, "backend be has no server available!", "x");
	test_capture_end(fd, dir, out, sizeof(out));
	test_rmdir(dir);
	CHECK(ev_level == 0);
	CHECK(strcmp(ev_txt, "backend be has no server available!") == 0);
	ev_log_hook = saved;
}
