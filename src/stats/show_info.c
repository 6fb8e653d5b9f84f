/* "show info": process-wide facts and totals as HAProxy's "Name: value" lines, in HAProxy
 * 2.6's order and spelling (its "TotalSplicdedBytesOut" included), followed by the fields
 * HAProxy 3.2 added. Values of features that do not exist yet are 0.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <cfg/cfg.h>
#include <cli/cli.h>
#include <conn/listener.h>
#include <event/loop.h>
#include <log/log.h>
#include <log/logfwd.h>
#include <proc/global-t.h>
#include <proc/version.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <thread/thread-t.h>

#define INFO_RELEASE_DATE "2025/05/28"   /* HAProxy 3.2.0's, as "Version" is its number */

struct info_totals {
	uint64_t cum_conns, cum_req, bytes_out, streams;
	int listeners;
};

static void info_sum(struct info_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (const struct proxy *px = proxies; px; px = px->next) {
		struct bind_conf *bc;
		struct listener *li;
		struct fe_counters c;

		if (!(px->cap & PR_CAP_FE) || !px->fe_cnt)
			continue;
		fe_counters_sum(px->fe_cnt, &c);
		t->cum_conns += c.cum_conn;
		t->cum_req += c.cum_req;
		t->bytes_out += c.bytes_out;
		list_for_each_entry(bc, &px->binds, list)
			list_for_each_entry(li, &bc->listeners, list)
				t->listeners++;
	}
	for (int i = 0; i < global.nbthread && i < MAX_THREADS; i++)
		t->streams += HA_ATOMIC_LOAD_RLX(&activity[i].streams);
}

/* Appends "Name: value\n" to <b>; returns the new length (clamped at <size>). */
static size_t info_add(char *b, size_t len, size_t size, const char *name, const char *fmt,
		       unsigned long long v)
{
	int n;

	if (len >= size)
		return size;
	n = snprintf(b + len, size - len, "%s: ", name);
	if (n < 0)
		return size;
	len += (size_t)n;
	if (len >= size)
		return size;
	n = fmt ? snprintf(b + len, size - len, fmt, v) : snprintf(b + len, size - len, "%llu\n", v);
	return n < 0 ? size : len + (size_t)n;
}

/* Fields that are 0 until their feature exists, in HAProxy's order (but the connection
 * and session rates: info_rate_value()). */
static const char *const info_zeros_ssl[] = {
	"MaxSslConns", "CurrSslConns", "CumSslConns", "Maxpipes", "PipesUsed", "PipesFree",
	"ConnRate", "ConnRateLimit", "MaxConnRate", "SessRate", "SessRateLimit", "MaxSessRate",
	"SslRate", "SslRateLimit", "MaxSslRate", "SslFrontendKeyRate", "SslFrontendMaxKeyRate",
	"SslFrontendSessionReuse_pct", "SslBackendKeyRate", "SslBackendMaxKeyRate",
	"SslCacheLookups", "SslCacheMisses", "CompressBpsIn", "CompressBpsOut",
	"CompressBpsRateLim", "Tasks", "Run_queue",
};

static const char *const info_zeros_peers[] = {
	"Unstoppable Jobs", NULL, "ActivePeers", "ConnectedPeers", "DroppedLogs", "BusyPolling",
	"FailedResolutions",
};

/* The connection and session rates among those fields (a session starts at each accept:
 * both rates are the same), else 0. */
static unsigned long long info_rate_value(const char *name)
{
	uint64_t now = 0;

	if (strstr(name, "Ssl") || (!strstr(name, "ConnRate") && !strstr(name, "SessRate")))
		return 0;
	if (strstr(name, "Limit"))
		return (unsigned long long)(name[0] == 'C' ? global.maxconnrate
							  : global.maxsessrate);
	if (strncmp(name, "Max", 3) == 0)
		return HA_ATOMIC_LOAD_RLX(&conn_rate_max);
	if (th_ctx)
		now = now_ms();
	return freq_ctr_rate(&conn_rate, now);
}

static size_t info_render(char *b, size_t size)
{
	unsigned long long up = cli_uptime_ms() / 1000;
	struct info_totals t;
	struct rlimit rl = { 0, 0 };
	char host[256] = "";
	size_t len = 0;
	int n, jobs;

	info_sum(&t);
	getrlimit(RLIMIT_NOFILE, &rl);
	gethostname(host, sizeof(host) - 1);
	t.cum_conns += cli_cum_sessions();
	t.cum_req += cli_cum_sessions();
	t.listeners += cli_listeners();
	jobs = HA_ATOMIC_LOAD_RLX(&actconn) + cli_sessions() + t.listeners;
	n = snprintf(b, size, "Name: HAProxy\nVersion: %s\nRelease_date: %s\n",
		     HAPROXY_COMPAT_VERSION, INFO_RELEASE_DATE);
	len = n < 0 ? size : (size_t)n;
	len = info_add(b, len, size, "Nbthread", NULL, (unsigned long long)global.nbthread);
	len = info_add(b, len, size, "Nbproc", NULL, 1);
	len = info_add(b, len, size, "Process_num", NULL, 1);
	len = info_add(b, len, size, "Pid", NULL, (unsigned long long)getpid());
	if (len < size) {
		n = snprintf(b + len, size - len, "Uptime: %llud %lluh%02llum%02llus\n", up / 86400,
			     (up % 86400) / 3600, (up % 3600) / 60, up % 60);
		len = n < 0 ? size : len + (size_t)n;
	}
	len = info_add(b, len, size, "Uptime_sec", NULL, up);
	len = info_add(b, len, size, "Memmax_MB", NULL, 0);
	len = info_add(b, len, size, "PoolAlloc_MB", NULL, 0);
	len = info_add(b, len, size, "PoolUsed_MB", NULL, 0);
	len = info_add(b, len, size, "PoolFailed", NULL, 0);
	len = info_add(b, len, size, "Ulimit-n", NULL, (unsigned long long)rl.rlim_cur);
	len = info_add(b, len, size, "Maxsock", NULL, (unsigned long long)rl.rlim_cur);
	len = info_add(b, len, size, "Maxconn", NULL, (unsigned long long)global.maxconn);
	len = info_add(b, len, size, "Hard_maxconn", NULL, (unsigned long long)global.maxconn);
	len = info_add(b, len, size, "CurrConns", NULL,
		       (unsigned long long)HA_ATOMIC_LOAD_RLX(&actconn));
	len = info_add(b, len, size, "CumConns", NULL, t.cum_conns);
	len = info_add(b, len, size, "CumReq", NULL, t.cum_req);
	for (size_t i = 0; i < sizeof(info_zeros_ssl) / sizeof(*info_zeros_ssl); i++)
		len = info_add(b, len, size, info_zeros_ssl[i], NULL,
			       info_rate_value(info_zeros_ssl[i]));
	len = info_add(b, len, size, "Idle_pct", NULL, 100);
	if (len < size) {
		n = snprintf(b + len, size - len, "node: %s\n", global.node ? global.node : host);
		len = n < 0 ? size : len + (size_t)n;
	}
	if (global.desc && len < size) { /* as HAProxy: only when "description" is set */
		n = snprintf(b + len, size - len, "description: %s\n", global.desc);
		len = n < 0 ? size : len + (size_t)n;
	}
	len = info_add(b, len, size, "Stopping", NULL, th_ctx && th_ctx->stopping);
	len = info_add(b, len, size, "Jobs", NULL, (unsigned long long)jobs);
	for (size_t i = 0; i < sizeof(info_zeros_peers) / sizeof(*info_zeros_peers); i++) {
		if (info_zeros_peers[i] && strcmp(info_zeros_peers[i], "DroppedLogs") == 0)
			len = info_add(b, len, size, "DroppedLogs", NULL, log_dropped());
		else if (info_zeros_peers[i])
			len = info_add(b, len, size, info_zeros_peers[i], NULL, 0);
		else
			len = info_add(b, len, size, "Listeners", NULL,
				       (unsigned long long)t.listeners);
	}
	len = info_add(b, len, size, "TotalBytesOut", NULL, t.bytes_out);
	len = info_add(b, len, size, "TotalSplicdedBytesOut", NULL, 0);
	len = info_add(b, len, size, "BytesOutRate", NULL, 0);
	len = info_add(b, len, size, "DebugCommandsIssued", NULL, 0);
	len = info_add(b, len, size, "CumRecvLogs", NULL, logfwd_received());
	if (len < size) {
		n = snprintf(b + len, size - len, "Build info: %s\n", HAPROXY_COMPAT_VERSION);
		len = n < 0 ? size : len + (size_t)n;
	}
	len = info_add(b, len, size, "Memmax_bytes", NULL, 0);
	len = info_add(b, len, size, "PoolAlloc_bytes", NULL, 0);
	len = info_add(b, len, size, "PoolUsed_bytes", NULL, 0);
	len = info_add(b, len, size, "Start_time_sec", NULL, (unsigned long long)cli_start_time());
	len = info_add(b, len, size, "Tainted", NULL, 0);
	/* added by HAProxy after 2.6 */
	len = info_add(b, len, size, "TotalWarnings", NULL, (unsigned long long)cfg_warnings);
	len = info_add(b, len, size, "MaxconnReached", NULL, 0);
	len = info_add(b, len, size, "BootTime_ms", NULL, 0);
	len = info_add(b, len, size, "Niced_tasks", NULL, 0);
	len = info_add(b, len, size, "CurrStreams", NULL, 0);
	len = info_add(b, len, size, "CumStreams", NULL, t.streams);
	len = info_add(b, len, size, "BlockedTrafficWarnings", NULL, 0);
	len = info_add(b, len, size, "PatternsAdded", NULL, 0);
	len = info_add(b, len, size, "PatternsFreed", NULL, 0);
	len = info_add(b, len, size, "NbThreadGroups", NULL,
		       (unsigned long long)(thread_cfg.ngroups > 0 ? thread_cfg.ngroups : 1));
	return len;
}

static int info_show(struct cli_ctx *ctx)
{
	char b[4096];
	size_t len;

	for (int i = 2; i < ctx->nargs; i++)
		if (strcmp(ctx->args[i], "typed") == 0 || strcmp(ctx->args[i], "json") == 0 ||
		    strcmp(ctx->args[i], "desc") == 0 || strcmp(ctx->args[i], "float") == 0)
			return cli_printf(ctx, "'show info %s' is not supported yet.\n",
					  ctx->args[i]) < 0 ? CLI_MORE : CLI_DONE;
	len = info_render(b, sizeof(b));
	if (len >= sizeof(b))
		len = sizeof(b) - 1;
	return cli_write(ctx, b, len) < 0 ? CLI_MORE : CLI_DONE;
}

static const struct cli_kw info_kws[] = {
	{ { "show", "info" }, "show info [desc|json|typed|float]*",
	  "report information about the running process", CLI_LVL_USER, info_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(info_kws)
