/* Unit tests for the loader (cfg/cfg.c, cfg/cfg_msg.c) and the global section
 * (proc/global_cfg.c) on temporary files: .if blocks, dispatch, diagnostics and their
 * counts, directory order, environment edits. stderr is captured to check messages.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <proc/global-t.h>
#include "../test.h"

/* A private section so that the tests do not depend on the proxy sections. */
static char cfgt_seen[512];
static int cfgt_begins;

static int cfgt_begin(struct cfg_ctx *ctx)
{
	cfgt_begins++;
	if (ctx->nargs > 1 && strcmp(ctx->args[1], "bad") == 0) {
		cfg_alert(ctx, "bad section");
		return -1;
	}
	return 0;
}

static int cfgt_kw(struct cfg_ctx *ctx)
{
	int i;

	size_t l;

	for (i = 1; i < ctx->nargs; i++) {
		l = strlen(cfgt_seen);
		if (strlen(ctx->args[i]) > 100)
			snprintf(cfgt_seen + l, sizeof(cfgt_seen) - l, "L%zu,", strlen(ctx->args[i]));
		else
			snprintf(cfgt_seen + l, sizeof(cfgt_seen) - l, "%s,", ctx->args[i]);
	}
	return 0;
}

static int cfgt_kw_time(struct cfg_ctx *ctx)
{
	int ms;

	if (cfg_need_args(ctx, 1) < 0 || cfg_parse_time_arg(ctx, ctx->args[1], &ms) < 0)
		return -1;
	return 0;
}

static const struct cfg_section cfgt_section = { "utsec", 0x80000000u, cfgt_begin };

static const struct cfg_kw cfgt_kws[] = {
	{ "utkw", 0x80000000u, cfgt_kw },
	{ "uttime", 0x80000000u, cfgt_kw_time },
	{ "utwild.*", 0x80000000u, cfgt_kw },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(cfgt_kws)

__attribute__((constructor)) static void cfgt_register(void)
{
	cfg_register_section(&cfgt_section);
}

struct cfgt_run {
	int ret;
	int errors;
	int warnings;
	char err[4096];
};

static char cfgt_dir[64];

static void cfgt_write(const char *name, const char *text)
{
	test_write_file(cfgt_dir, name, text);
}

/* Loads <name> inside the temporary directory ("" = the directory itself), with stderr
 * captured into r->err and the global settings restored afterwards.
 */
static void cfgt_load(const char *name, struct cfgt_run *r)
{
	char path[128];
	struct global saved = global;
	int e0 = cfg_errors, w0 = cfg_warnings, saved_fd;

	snprintf(path, sizeof(path), "%s%s%s", cfgt_dir, *name ? "/" : "", name);
	saved_fd = test_capture_begin(cfgt_dir);
	cfgt_seen[0] = '\0';
	r->ret = cfg_load_path(path);
	test_capture_end(saved_fd, cfgt_dir, r->err, sizeof(r->err));
	r->errors = cfg_errors - e0;
	r->warnings = cfg_warnings - w0;
	if (global.pidfile != saved.pidfile)
		free(global.pidfile);
	global = saved;
}

static void cfgt_setup(void)
{
	test_tmpdir(cfgt_dir, "cfgtest");
}

static void cfgt_cleanup(void)
{
	test_rmdir(cfgt_dir);
}

TEST(cfg_load_if_blocks)
{
	struct cfgt_run r;

	cfgt_setup();
	cfgt_write("a.cfg",
		   "utsec\n"
		   ".if 1\n"
		   "  utkw one\n"
		   "  .if 0\n"
		   "    utkw no1\n"
		   "  .elif 1\n"
		   "    utkw two\n"
		   "  .elif 1\n"
		   "    utkw no2\n"
		   "  .else\n"
		   "    utkw no3\n"
		   "  .endif\n"
		   ".else\n"
		   "  utkw no4\n"
		   "  .if 1\n"
		   "    utkw no5\n"
		   "  .else\n"
		   "    utkw no6\n"
		   "  .endif\n"
		   "  unknownkw ignored\n"
		   ".endif\n"
		   ".if 0\n"
		   ".elif 0\n"
		   ".else # comment\n"
		   "  utkw three\n"
		   ".endif\n"
		   ".if streq(\"${CFGT_NOPE-x}\",x) && !0\n"
		   "  utkw four\n"
		   ".endif\n");
	cfgt_load("a.cfg", &r);
	CHECK_INT(r.ret, 0);
	CHECK_INT(r.errors, 0);
	CHECK_STR(cfgt_seen, "one,two,three,four,");
	cfgt_cleanup();
}

TEST(cfg_load_if_errors)
{
	struct cfgt_run r;

	cfgt_setup();
	cfgt_write("a.cfg",
		   "utsec\n"
		   ".endif\n"
		   ".else\n"
		   ".elif 1\n"
		   ".if 1\n"
		   ".else\n"
		   ".else\n"
		   ".elif 1\n"
		   ".endif\n"
		   ".if foo(1)\n"
		   "  utkw no\n"
		   ".endif\n"
		   ".if 1\n");
	cfgt_load("a.cfg", &r);
	CHECK_INT(r.ret, -1);
	/* 3 lone, else after else, elif after else, bad condition, non-terminated */
	CHECK_INT(r.errors, 7);
	CHECK_STR(cfgt_seen, "");
	CHECK(strstr(r.err, "parsing [") != NULL);
	CHECK(strstr(r.err, "a.cfg:2]: lone '.endif' with no matching '.if'.") != NULL);
	CHECK(strstr(r.err, "a.cfg:7]: '.else' after '.else' is not permitted.") != NULL);
	CHECK(strstr(r.err, "a.cfg:8]: '.elif' after '.else' is not permitted.") != NULL);
	CHECK(strstr(r.err, "a.cfg:10]: unknown predicate 'foo'") != NULL);
	CHECK(strstr(r.err, "a.cfg:13]: non-terminated '.if' block.") != NULL);
	CHECK(strstr(r.err, "Error(s) found in configuration file : ") != NULL);
	cfgt_cleanup();
}

TEST(cfg_load_unknown_keywords)
{
	struct cfgt_run r;
	char pfx[64];

	cfgt_setup();
	cfgt_write("a.cfg",
		   "utkw early\n"
		   "utsec\n"
		   "  utkw a b\n"
		   "  foo\n"
		   "  utwild.anything x\n"
		   "  bar 1 2\n"
		   "global\n"
		   "  utkw c\n");
	cfgt_load("a.cfg", &r);
	CHECK_INT(r.ret, -1);
	CHECK_INT(r.errors, 4); /* out of section, foo, bar, utkw in global */
	CHECK_STR(cfgt_seen, "a,b,x,");
	snprintf(pfx, sizeof(pfx), "[ALERT]    (%d) : config : parsing [", (int)getpid());
	CHECK(strncmp(r.err, pfx, strlen(pfx)) == 0);
	CHECK(strstr(r.err, "a.cfg:1]: unknown keyword 'utkw' out of section.\n") != NULL);
	CHECK(strstr(r.err, "a.cfg:4] : unknown keyword 'foo' in 'utsec' section\n") != NULL);
	CHECK(strstr(r.err, "a.cfg:6] : unknown keyword 'bar' in 'utsec' section\n") != NULL);
	CHECK(strstr(r.err, "a.cfg:8] : unknown keyword 'utkw' in 'global' section\n") != NULL);
	cfgt_cleanup();
}

TEST(cfg_load_lexer_errors_and_directives)
{
	struct cfgt_run r;

	cfgt_setup();
	cfgt_write("a.cfg",
		   "utsec\n"
		   "  utkw \"abc\n"
		   "  utkw ok\r\n"
		   "  .notice \"hello\"\n"
		   "  .warning \"careful\"\n"
		   "  .diag \"quiet\"\n"
		   "  .notice two words\n"
		   "  uttime 10x\n"
		   "  uttime 10s\n"
		   "  utsec bad\n"
		   "  utkw skipped\n"
		   "  .alert \"stop\"\n");
	cfgt_load("a.cfg", &r);
	CHECK_INT(r.ret, -1);
	CHECK_INT(r.warnings, 1);
	/* quote, two words, 10x, bad section, .alert */
	CHECK_INT(r.errors, 5);
	CHECK_STR(cfgt_seen, "ok,");
	CHECK(strstr(r.err, "a.cfg:2]: unmatched quote at position 8:\n  "
		     "  utkw \"abc\n         ^\n") != NULL);
	CHECK(strstr(r.err, "[NOTICE]   (") != NULL);
	CHECK(strstr(r.err, "a.cfg:4]: 'hello'.\n") != NULL);
	CHECK(strstr(r.err, "[WARNING]  (") != NULL);
	CHECK(strstr(r.err, "a.cfg:5]: 'careful'.\n") != NULL);
	CHECK(strstr(r.err, "quiet") == NULL);
	CHECK(strstr(r.err, "a.cfg:7]: Unexpected argument 'words' for '.notice'.") != NULL);
	CHECK(strstr(r.err, "a.cfg:8] : unexpected character 'x' in argument to 'uttime'.")
	      != NULL);
	CHECK(strstr(r.err, "a.cfg:12]: 'stop'.\n") != NULL);
	cfgt_cleanup();
}

TEST(cfg_load_directory_order)
{
	struct cfgt_run r;
	char sub[128], path[160];

	cfgt_setup();
	snprintf(sub, sizeof(sub), "%s/conf.d", cfgt_dir);
	CHECK_INT(mkdir(sub, 0700), 0);
	cfgt_write("conf.d/20-b.cfg", "utsec\n  utkw b\n");
	cfgt_write("conf.d/10-a.cfg", "utsec\n  utkw a\n");
	cfgt_write("conf.d/30-c.cfg", "utsec\n  utkw c\n");
	cfgt_write("conf.d/15-x.txt", "utsec\n  utkw no\n");
	cfgt_write("conf.d/.0-hidden.cfg", "utsec\n  utkw no\n");
	/* a file ends its section: the next one starts out of section */
	cfgt_write("conf.d/40-d.cfg", "  utkw d\n");
	snprintf(path, sizeof(path), "%s/conf.d/25-dir.cfg", cfgt_dir);
	CHECK_INT(mkdir(path, 0700), 0);
	cfgt_load("conf.d", &r);
	CHECK_INT(r.ret, -1);
	CHECK_INT(r.errors, 1);
	CHECK_STR(cfgt_seen, "a,b,c,");
	CHECK(strstr(r.err, "40-d.cfg:1]: unknown keyword 'utkw' out of section.") != NULL);
	cfgt_load("nonexistent.cfg", &r);
	CHECK_INT(r.ret, -1);
	CHECK(strstr(r.err, "Could not open configuration file ") != NULL);
	cfgt_cleanup();
}

TEST(cfg_load_long_lines)
{
	struct cfgt_run r;
	char path[128];
	FILE *f;
	int i;

	cfgt_setup();
	snprintf(path, sizeof(path), "%s/long.cfg", cfgt_dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("utsec\n  utkw ", f);
	for (i = 0; i < 5000; i++)
		fputs("0123456789", f);     /* 50 KB word: accepted */
	fputs("\n  utkw ", f);
	for (i = 0; i < 7000; i++)
		fputs("0123456789", f);     /* 70 KB line: refused */
	fputs("\n  utkw end\n", f);
	fclose(f);
	cfgt_load("long.cfg", &r);
	CHECK_INT(r.errors, 1);
	CHECK_STR(cfgt_seen, "L50000,end,");
	CHECK(strstr(r.err, "long.cfg:3]: line too long") != NULL);
	cfgt_cleanup();
}

TEST(cfg_global_keywords)
{
	struct global saved = global;

	cfgt_setup();
	unsetenv("CFGT_A");
	cfgt_write("g.cfg",
		   "global\n"
		   "  maxconn 4096\n"
		   "  daemon\n"
		   "  tune.bufsize 2048\n"
		   "  tune.maxrewrite 4000\n"
		   "  tune.http.maxhdr 200\n"
		   "  hard-stop-after 5s\n"
		   "  nbthread 1\n"
		   "  setenv CFGT_A hello\n"
		   "  presetenv CFGT_A other\n"
		   "utsec\n"
		   "  utkw \"${CFGT_A}\"\n");
	/* check the values before cfgt_load() restores them */
	{
		char path[128];
		int e0 = cfg_errors;

		snprintf(path, sizeof(path), "%s/g.cfg", cfgt_dir);
		cfgt_seen[0] = '\0';
		CHECK_INT(cfg_load_path(path), 0);
		CHECK_INT(cfg_errors - e0, 0);
		CHECK_INT(global.maxconn, 4096);
		CHECK(global.daemon);
		CHECK_INT(global.tune_bufsize, 2048);
		CHECK_INT(global.tune_maxrewrite, 1024);   /* capped at bufsize / 2 */
		CHECK_INT(global.tune_maxhdr, 200);
		CHECK_INT(global.hard_stop_after, 5000);
		CHECK_STR(cfgt_seen, "hello,");
		global = saved;
	}
	unsetenv("CFGT_A");
	cfgt_cleanup();
}

TEST(cfg_global_refusals)
{
	struct cfgt_run r;

	cfgt_setup();
	cfgt_write("g.cfg",
		   "global\n"
		   "  nbthread 32\n"
		   "  nbproc 1\n"
		   "  nbproc 4\n"
		   "  log stdout format raw local0 err\n"
		   "  tune.ssl.default-dh-param 2048\n"
		   "  ssl-default-bind-ciphers HIGH\n"
		   "  cpu-map 1/all 0-7\n"
		   "  user no-such-user-hapx\n"
		   "  daemon 1\n"
		   "  maxconn 10k\n"
		   "  tune.http.maxhdr 40000\n"
		   "  pidfile\n");
	cfgt_load("g.cfg", &r);
	CHECK_INT(r.ret, -1);
	CHECK_INT(r.warnings, 1);
	CHECK_INT(r.errors, 6);
	CHECK(strstr(r.err, ":2] : 'nbthread'") == NULL); /* threads are supported now */
	CHECK(strstr(r.err, ":3] : 'nbproc' is obsolete") != NULL);
	CHECK(strstr(r.err, ":4] : nbproc is not supported any more since HAProxy 2.5.") != NULL);
	CHECK(strstr(r.err, ":9] : cannot find user id for 'no-such-user-hapx'") != NULL);
	CHECK(strstr(r.err, ":5] :") == NULL); /* "log" is supported */
	CHECK(strstr(r.err, ":6] :") == NULL); /* TLS is supported */
	CHECK(strstr(r.err, ":7] :") == NULL);
	CHECK(strstr(r.err, ":10] : 'daemon' cannot handle unexpected argument '1'.") != NULL);
	CHECK(strstr(r.err, ":12] : 'tune.http.maxhdr' expects a numeric value between 1 and "
		     "32767.") != NULL);
	cfgt_cleanup();
}

TEST(cfg_global_env_edits)
{
	struct cfgt_run r;

	cfgt_setup();
	setenv("CFGT_KEEP", "k", 1);
	setenv("CFGT_DROP", "d", 1);
	cfgt_write("g.cfg",
		   "global\n"
		   "  unsetenv CFGT_DROP\n"
		   "utsec\n"
		   "  utkw \"${CFGT_DROP-gone}\" \"${CFGT_KEEP}\"\n");
	cfgt_load("g.cfg", &r);
	CHECK_INT(r.errors, 0);
	CHECK_STR(cfgt_seen, "gone,k,");
	unsetenv("CFGT_KEEP");
	cfgt_cleanup();
}

/* resetenv empties the environment: run it in a child process. */
TEST(cfg_global_resetenv)
{
	char path[128];
	int status = -1;
	pid_t pid;

	cfgt_setup();
	cfgt_write("g.cfg", "global\n  resetenv CFGT_KEEP\n");
	snprintf(path, sizeof(path), "%s/g.cfg", cfgt_dir);
	pid = fork();
	if (pid == 0) {
		setenv("CFGT_KEEP", "k", 1);
		setenv("PATH", "/bin", 1);
		if (cfg_load_path(path) < 0)
			_exit(2);
		_exit(getenv("PATH") == NULL && getenv("CFGT_KEEP") != NULL ? 0 : 1);
	}
	CHECK(pid > 0);
	if (pid > 0)
		waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
	cfgt_cleanup();
}
