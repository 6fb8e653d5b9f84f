/* Process entry point: the HAProxy-compatible command line, then load → check → prepare →
 * bind → (daemonize) → pidfile → run. Owns only the parsed command line; daemon and pidfile
 * mechanics live in proc/daemon, version output in proc/version.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <base/list.h>
#include <backend/server.h>
#include <check/agent.h>
#include <lua/hlua.h>
#include <check/check_cfg.h>
#include <backend/srv_state.h>
#include <dns/dns.h>
#include <log/logfwd.h>
#include <log/ring.h>
#include <cfg/cfg.h>
#include <cfg/cfg_path.h>
#include <cfg/cond.h>
#include <cfg/lexer.h>
#include <cli/cli.h>
#include <conn/listener_fds.h>
#include <proc/daemon.h>
#include <proc/privs.h>
#include <proc/global-t.h>
#include <proc/mcli.h>
#include <proc/mworker.h>
#include <proc/program.h>
#include <proc/sd_notify.h>
#include <proc/runtime.h>
#include <proc/version.h>
#include <log/log_strm.h>
#include <ssl/ssl.h>
#include <proxy/proxy.h>
#include <cache/cache.h>
#include <stream/filter.h>
#include <stream/http_err.h>
#include <stream/stream.h>
#include <stream/userlist.h>
#include <stream/userlist_cfg.h>
#include <thread/thread_cfg.h>

/* What the command line asked for; argv strings are referenced, never copied. */
struct main_opts {
	const char **cfg_paths; /* -f and after "--", in order */
	int nb_cfg;
	pid_t *old_pids; /* -sf / -st */
	int nb_old;
	int old_sig;	       /* SIGUSR1 for -sf, SIGTERM for -st */
	const char *pidfile;   /* -p */
	const char *cond;      /* -cc EXPR */
	const char *chdir;     /* -C DIR */
	const char *localpeer; /* -L NAME */
	const char *sockpair;  /* -x: stats socket of the old process, for its listeners */
	long maxconn;	       /* -n: global maxconn, 0 = unset */
	long maxpconn;	       /* -N: default frontend maxconn, 0 = unset */
	long memmax_mb;	       /* -m: memory limit in MB, 0 = unset */
	int version;	       /* 1 for -v, 2 for -vv */
	bool check;	       /* -c */
	bool daemon;	       /* -D */
	bool foreground;       /* -d or -db */
	bool debug;	       /* -d */
	bool quiet;	       /* -q (-V clears it) */
	bool warn_fatal;       /* -dW */
};

static struct main_opts opts;

/* Prints the usage text (after the version header, as HAProxy does) and exits 1. */
static void __attribute__((noreturn)) main_usage(const char *prog)
{
	version_print(false);
	fprintf(stderr,
		"Usage : %s [-f <cfgfile|cfgdir>]* [ -vdVD ] [ -n <maxconn> ] [ -N <maxpconn> ]\n"
		"        [ -p <pidfile> ] [ -m <max megs> ] [ -C <dir> ] [-- <cfgfile>*]\n"
		"        -v displays version ; -vv shows known build options.\n"
		"        -d enters debug mode ; -db only disables background mode.\n"
		"        -V enters verbose mode (disables quiet mode)\n"
		"        -D goes daemon ; -C changes to <dir> before loading files.\n"
		"        -q quiet mode : don't display messages\n"
		"        -c check mode : only check config files and exit\n"
		"        -cc check condition : evaluate a condition and exit\n"
		"        -n sets the maximum total # of connections\n"
		"        -m limits the usable amount of memory (in MB)\n"
		"        -N sets the default, per-proxy maximum # of connections (0)\n"
		"        -L set local peer name (default to hostname)\n"
		"        -p writes the pid of the serving process to this file\n"
		"        -dW fails if any warning is emitted\n"
		"        -dM, -dS, -dG, -dV, -dD, -dr, -de, -dp, -dR, -dL, -dK are accepted"
		" and have no effect\n"
		"        -sf/-st [pid ]* finishes/terminates old pids once ready.\n"
		"        -x <unix_socket> get listening sockets from a unix socket\n"
		"        -W master-worker mode.\n"
		"        -Ws master-worker mode with systemd notify support.\n"
		"        -S <bind>[,<bind options>...] new master CLI\n"
		"\n",
		prog);
	exit(1);
}

/* Parses a non-negative decimal integer argument of option <opt>; exits 1 on error. */
static long main_parse_num(const char *opt, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > INT_MAX) {
		ha_alert("Option '%s' expects a non-negative integer, got '%s'.\n", opt, arg);
		exit(1);
	}
	return v;
}

/* Returns the argument following option argv[*i] and advances *i; usage if missing. */
static const char *main_next_arg(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		ha_alert("Option '%s' requires an argument.\n", argv[*i]);
		main_usage(argv[0]);
	}
	return argv[++*i];
}

/* "-sf"/"-st": consumes the following arguments that do not start with '-' as pids. */
static void main_parse_old_pids(int argc, char **argv, int *i)
{
	opts.old_sig = argv[*i][2] == 'f' ? SIGUSR1 : SIGTERM;
	while (*i + 1 < argc && argv[*i + 1][0] != '-') {
		long pid = main_parse_num(argv[*i], argv[*i + 1]);

		if (pid <= 0) {
			ha_alert("Option '%s' expects process ids, got '%s'.\n", argv[*i],
				 argv[*i + 1]);
			exit(1);
		}
		opts.old_pids[opts.nb_old++] = (pid_t)pid;
		(*i)++;
	}
}

/* "-d" and its "-dX" variants: only -d, -db and -dW change anything. */
static void main_parse_debug(const char *flag)
{
	if (strcmp(flag, "-d") == 0) {
		opts.debug = true;
		opts.foreground = true;
	} else if (strcmp(flag, "-db") == 0) {
		opts.foreground = true;
	} else if (strcmp(flag, "-dW") == 0) {
		opts.warn_fatal = true;
	}
	/* -dM, -dS, -dG, -dV, -dD, -dr, -de, -dp, -dk, -dR, -dL, -dK, -dC...: no effect. */
}

/* Handles the option at argv[*i]; may consume following arguments. */
static void main_parse_opt(int argc, char **argv, int *i)
{
	const char *f = argv[*i];

	if (strcmp(f, "-v") == 0)
		opts.version = 1;
	else if (strncmp(f, "-vv", 3) == 0 && f[3 + strspn(f + 3, "v")] == '\0')
		opts.version = 2;
	else if (strcmp(f, "-f") == 0)
		opts.cfg_paths[opts.nb_cfg++] = main_next_arg(argc, argv, i);
	else if (strcmp(f, "-c") == 0)
		opts.check = true;
	else if (strcmp(f, "-cc") == 0)
		opts.cond = main_next_arg(argc, argv, i);
	else if (strcmp(f, "-D") == 0)
		opts.daemon = true;
	else if (f[1] == 'd')
		main_parse_debug(f);
	else if (strcmp(f, "-q") == 0)
		opts.quiet = true;
	else if (strcmp(f, "-V") == 0)
		opts.quiet = false;
	else if (strcmp(f, "-p") == 0)
		opts.pidfile = main_next_arg(argc, argv, i);
	else if (strcmp(f, "-n") == 0)
		opts.maxconn = main_parse_num(f, main_next_arg(argc, argv, i));
	else if (strcmp(f, "-N") == 0)
		opts.maxpconn = main_parse_num(f, main_next_arg(argc, argv, i));
	else if (strcmp(f, "-m") == 0)
		opts.memmax_mb = main_parse_num(f, main_next_arg(argc, argv, i));
	else if (strcmp(f, "-C") == 0)
		opts.chdir = main_next_arg(argc, argv, i);
	else if (strcmp(f, "-L") == 0)
		opts.localpeer = main_next_arg(argc, argv, i);
	else if (strcmp(f, "-sf") == 0 || strcmp(f, "-st") == 0)
		main_parse_old_pids(argc, argv, i);
	else if (strcmp(f, "-W") == 0)
		mworker_mode = true;
	else if (strcmp(f, "-Ws") == 0)
		mworker_mode = sd_notify_mode = true;
	else if (strcmp(f, "-S") == 0) {
		if (mcli_add_spec(main_next_arg(argc, argv, i)) < 0)
			exit(1);
	} else if (strcmp(f, "-x") == 0)
		opts.sockpair = main_next_arg(argc, argv, i);
	else
		main_usage(argv[0]);
}

/* Fills opts from argv; exits 1 with the usage text on anything unknown. */
static void main_parse_args(int argc, char **argv)
{
	int i;

	opts.cfg_paths = calloc(argc, sizeof(*opts.cfg_paths));
	opts.old_pids = calloc(argc, sizeof(*opts.old_pids));
	if (!opts.cfg_paths || !opts.old_pids) {
		ha_alert("Out of memory while parsing the command line.\n");
		exit(1);
	}
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			while (++i < argc)
				opts.cfg_paths[opts.nb_cfg++] = argv[i];
			break;
		}
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			main_usage(argv[0]);
		main_parse_opt(argc, argv, &i);
	}
}

static const char *main_getenv(const char *name, void *arg)
{
	return getenv(name);
}

/* "-cc EXPR": tokenizes and evaluates EXPR. Returns the exit status: 0 true, 1 false,
 * 2 error (message on stderr).
 */
static int main_eval_cond(const char *expr)
{
	static char out[16384];
	struct cfg_tokens tok;
	char err[256] = "";
	int ret;

	if (cfg_tokenize(expr, strlen(expr), out, sizeof(out), &tok, main_getenv, NULL, err,
			 sizeof(err)) < 0) {
		ha_alert("Failed to evaluate condition: %s\n", err);
		return 2;
	}
	ret = cond_eval(tok.args, tok.nargs, version_cond_facts(), err, sizeof(err));
	if (ret < 0) {
		ha_alert("Failed to evaluate condition: %s\n", err);
		return 2;
	}
	return ret ? 0 : 1;
}

/* Exports HAPROXY_LOCALPEER (-L, else the host name) for "${HAPROXY_LOCALPEER}" in configs. */
static void main_set_localpeer(void)
{
	char host[256];

	if (opts.localpeer) {
		global.localpeer_cli = true; /* "localpeer" lines are then ignored */
		setenv("HAPROXY_LOCALPEER", opts.localpeer, 1);
		return;
	}
	if (gethostname(host, sizeof(host)) < 0)
		return;
	host[sizeof(host) - 1] = '\0';
	setenv("HAPROXY_LOCALPEER", host, 1);
}

/* Command-line settings that go into <global>; called before and after loading, since the
 * config may set some of them too ("daemon", "quiet", "zero-warning", "pidfile").
 */
static void main_apply_global(void)
{
	global.quiet = global.quiet || opts.quiet;
	global.debug = global.debug || opts.debug;
	global.warn_fatal = global.warn_fatal || opts.warn_fatal;
	global.daemon = (global.daemon || opts.daemon) && !opts.foreground;
	if (opts.pidfile && (!global.pidfile || strcmp(global.pidfile, opts.pidfile) != 0)) {
		/* -p wins over "pidfile"; the config's string stays allocated (startup only). */
		global.pidfile = strdup(opts.pidfile);
		if (!global.pidfile) {
			ha_alert("Out of memory.\n");
			exit(1);
		}
	}
	if (opts.maxconn)
		global.maxconn = (int)opts.maxconn;
}

/* Exits 1 if warnings were emitted and they are fatal (-dW or "zero-warning"). */
static void main_check_warnings(void)
{
	if (global.warn_fatal && cfg_warnings > 0) {
		ha_alert("Some warnings were found and 'zero-warning' is set. Aborting.\n");
		exit(1);
	}
}

/* Loads every config path then runs the checks; exits 1 on any error. */
static void main_load_config(void)
{
	struct proxy *px;
	int i;

	for (i = 0; i < opts.nb_cfg; i++)
		cfg_load_path(opts.cfg_paths[i]);
	if (cfg_path_reset() < 0) /* files read from now on: relative to where we started */
		cfg_errors++;
	/* userlists first: the proxies' rules may need their groups */
	if (cfg_errors || userlist_cfg_check() > 0 || dns_cfg_check() > 0 ||
	    cache_cfg_check() > 0 || proxy_check_all() > 0 || log_strm_check_all() > 0 ||
	    rules_check_all() > 0 || flt_check_all() > 0 || ssl_cfg_check_all() > 0 ||
	    check_cfg_check_all() > 0 || srv_track_check_all() > 0 || agent_check_all() > 0 ||
	    program_cfg_check(mworker_mode) > 0 || cfg_errors || thread_cfg_check() > 0 ||
	    cli_cfg_check() > 0 || logfwd_cfg_check() > 0 || ring_cfg_check() > 0 ||
	    hlua_cfg_check() > 0) {
		ha_alert("Fatal errors found in configuration.\n");
		exit(1);
	}
	srv_state_load_all(); /* as 2.6, with -c too: "init-addr last" needs srv_addr */
	if (dns_srv_init_last_check() > 0) {
		ha_alert("Failed to initialize server(s) addr.\n");
		exit(1);
	}
	main_apply_global();
	mcli_check(mworker_mode);
	main_check_warnings();

	/* -N: the default maxconn of frontends that set none, as HAProxy's -N. */
	for (px = proxies; opts.maxpconn && px; px = px->next) {
		if ((px->cap & PR_CAP_FE) && px->maxconn == 0)
			px->maxconn = (int)opts.maxpconn;
	}
}

/* True if the configuration declares something to listen on: a "bind" of a frontend or
 * a "stats socket" (HAProxy counts both).
 */
static bool main_has_listener(void)
{
	struct proxy *px;

	for (px = proxies; px; px = px->next) {
		if ((px->cap & PR_CAP_FE) && !list_empty(&px->binds))
			return true;
	}
	for (struct logfwd *lf = logfwds; lf; lf = lf->next) /* log-forward receivers */
		if (lf->rxs)
			return true;
	return cli_configured() > 0;
}

/* -m: caps the data segment, as HAProxy does. Returns 0 or -1 after an alert. */
static int main_limit_memory(void)
{
	struct rlimit rl;

	if (!opts.memmax_mb)
		return 0;
	rl.rlim_cur = rl.rlim_max = (rlim_t)opts.memmax_mb * 1048576;
	if (setrlimit(RLIMIT_DATA, &rl) < 0) {
		ha_alert("Cannot limit memory to %ld MB: %s.\n", opts.memmax_mb, strerror(errno));
		return -1;
	}
	return 0;
}

/* Called by the runtime once every loop serves: releases the -D launcher, stops old pids. */
static void main_ready(void)
{
	if (!mworker_worker_ready()) /* a worker tells its master, which tells the launcher */
		daemon_report_ready(global.debug);
	daemon_signal_pids(opts.old_pids, opts.nb_old, opts.old_sig);
}

/* Seamless reload: the listening sockets of the old process, from the environment (a
 * master's re-exec) and from -x. Returns 0, or -1 after an alert.
 */
static int main_inherit_sockets(void)
{
	char err[256];

	if (lfds_import_env() < 0) {
		ha_alert("Invalid %s in the environment.\n", LFDS_ENV);
		return -1;
	}
	if (opts.sockpair && lfds_fetch(opts.sockpair, err, sizeof(err)) < 0) {
		ha_warning("%s\n", err);
		ha_alert("Failed to get the sockets from the old process!\n");
		return -1;
	}
	return 0;
}

/* Everything after a successful check: returns the process exit status. */
static int main_start(void)
{
	int ret;

	if (main_limit_memory() < 0 || runtime_prepare() < 0 || hlua_runtime_init() < 0)
		return 1;
	/* a re-executed master keeps its pid, its pidfile and its daemon state */
	if (global.pidfile && !mworker_reexec() && pidfile_open(global.pidfile) < 0)
		return 1;
	if (main_inherit_sockets() < 0)
		goto out_pidfile;
	/* the runtime API socket exists by the time the service ports answer */
	if (cli_bind_all() < 0 || listeners_bind_all() < 0 || mcli_bind_all(mworker_mode) < 0 ||
	    logfwd_bind_all() < 0)
		goto out_pidfile;
	lfds_close_unclaimed(); /* sockets of binds the new config no longer has */
	main_check_warnings();
	if (global.daemon && !mworker_reexec() && daemon_start() < 0)
		goto out_pidfile;
	if (pidfile_write() < 0)
		goto out_pidfile;
	if (mworker_mode && mworker_start() < 0) /* the master does not return */
		goto out_pidfile;
	/* every file is read and every socket bound: chroot and setuid before serving (in
	 * master-worker mode the worker only: the master keeps its privileges) */
	if (proc_drop_privileges() < 0)
		goto out_pidfile;
	ret = runtime_run(main_ready);
	pidfile_remove();
	/* a worker stopped by the master's SIGTERM/SIGINT ends by that signal, as 2.6's
	 * workers do: the master reports "exited with code 143 (Terminated)" */
	if (mworker_mode && runtime_stop_signal && !ret) {
		sigset_t set;

		fflush(NULL);
		signal(runtime_stop_signal, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, runtime_stop_signal);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(runtime_stop_signal);
	}
	return ret;

out_pidfile:
	pidfile_remove();
	return 1;
}

int main(int argc, char **argv)
{
	int ret;

	/* before OpenSSL allocates anything */
	ssl_mem_init();
	mworker_init(argc, argv); /* a master re-executed in wait mode stays there */
	main_parse_args(argc, argv);
	if (opts.version) {
		version_print(opts.version > 1);
		return 0;
	}
	if (opts.cond)
		return main_eval_cond(opts.cond);
	if (!opts.nb_cfg) {
		ha_alert("No configuration file specified (use -f <file|dir>).\n");
		main_usage(argv[0]);
	}
	if (opts.chdir && chdir(opts.chdir) < 0) {
		ha_alert("Cannot change to directory '%s': %s.\n", opts.chdir, strerror(errno));
		return 1;
	}
	main_set_localpeer();
	main_apply_global();
	main_load_config();
	if (opts.check) {
		if (!global.quiet && cfg_warnings)
			printf("Warnings were found.\n");
		if (!main_has_listener()) {
			if (!global.quiet)
				printf("Configuration file has no error but will not start (no "
				       "listener) => exit(2).\n");
			return 2;
		}
		if (!global.quiet)
			printf("Configuration file is valid\n");
		return 0;
	}
	if (!main_has_listener()) {
		cfg_phase = false;
		ha_alert("[%s.main()] No enabled listener found (check for 'bind' directives) ! "
			 "Exiting.\n",
			 "haproxy");
		return 1;
	}
	ret = main_start();
	userlist_deinit_all();
	http_errors_deinit();
	hlua_deinit();
	free(opts.cfg_paths);
	free(opts.old_pids);
	return ret;
}
