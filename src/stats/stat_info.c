/* Filler of the "show info" fields: process-wide facts and totals (summed over the
 * frontends' per-group counter blocks), in HAProxy 2.6's order and spelling (its
 * "TotalSplicdedBytesOut" included), then the fields later HAProxy versions added. Values
 * of features that do not exist yet are 0. Any thread may call it.
 */
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <cfg/cfg.h>
#include <cli/cli.h>
#include <comp/comp.h>
#include <conn/listener.h>
#include <event/loop.h>
#include <log/log.h>
#include <log/logfwd.h>
#include <proc/global-t.h>
#include <proc/version.h>
#include <proxy/proxy.h>
#include <ssl/ssl_stats.h>
#include <stream/splice.h>
#include <stats/counters.h>
#include <stats/stats.h>
#include <thread/thread-t.h>

#define INFO_RELEASE_DATE "2025/05/28" /* HAProxy 3.2.0's, as "Version" is its number */

#define INF_NUM(l, i, v) stat_set_num((l), info_fields, (i), (int64_t)(v))
#define INF_STR(l, i, s) stat_set_str((l), info_fields, (i), (s))

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
		t->cum_req += c.cum_req + c.cum_tcp;
		t->bytes_out += c.bytes_out;
		list_for_each_entry(bc, &px->binds, list)
			list_for_each_entry(li, &bc->listeners, list) t->listeners++;
	}
	for (int i = 0; i < global.nbthread && i < MAX_THREADS; i++)
		t->streams += HA_ATOMIC_LOAD_RLX(&activity[i].streams);
}

/* Fields that are 0 until their feature exists. */
static const enum info_field info_zeros[] = {
	INF_MEMMAX_MB,
	INF_POOLALLOC_MB,
	INF_POOLUSED_MB,
	INF_POOLFAILED,
	INF_MAXSSLCONNS,
	INF_CURRSSLCONNS,
	INF_CUMSSLCONNS,
	INF_SSLRATE,
	INF_SSLRATELIMIT,
	INF_MAXSSLRATE,
	INF_SSLFRONTENDKEYRATE,
	INF_SSLFRONTENDMAXKEYRATE,
	INF_SSLFRONTENDSESSIONREUSE_PCT,
	INF_SSLBACKENDKEYRATE,
	INF_SSLBACKENDMAXKEYRATE,
	INF_SSLCACHELOOKUPS,
	INF_SSLCACHEMISSES,
	INF_TASKS,
	INF_RUN_QUEUE,
	INF_UNSTOPPABLE_JOBS,
	INF_ACTIVEPEERS,
	INF_CONNECTEDPEERS,
	INF_BUSYPOLLING,
	INF_FAILEDRESOLUTIONS,
	INF_TOTALSPLICDEDBYTESOUT,
	INF_BYTESOUTRATE,
	INF_DEBUGCOMMANDSISSUED,
	INF_MEMMAX_BYTES,
	INF_POOLALLOC_BYTES,
	INF_POOLUSED_BYTES,
	INF_MAXCONNREACHED,
	INF_BOOTTIME_MS,
	INF_NICED_TASKS,
	INF_CURRSTREAMS,
	INF_BLOCKEDTRAFFICWARNINGS,
	INF_PATTERNSADDED,
	INF_PATTERNSFREED,
};

/* Connection and session rates (a session starts at each accept: they are the same). */
static void info_fill_rates(struct stat_line *l)
{
	uint32_t rate = freq_ctr_rate(&conn_rate, th_ctx ? now_ms() : 0);
	uint32_t max = HA_ATOMIC_LOAD_RLX(&conn_rate_max);

	INF_NUM(l, INF_CONNRATE, rate);
	INF_NUM(l, INF_CONNRATELIMIT, global.maxconnrate);
	INF_NUM(l, INF_MAXCONNRATE, max);
	INF_NUM(l, INF_SESSRATE, rate);
	INF_NUM(l, INF_SESSRATELIMIT, global.maxsessrate);
	INF_NUM(l, INF_MAXSESSRATE, max);
}

/* The TLS fields (ssl/ssl_stats.c). */
static void info_fill_ssl(struct stat_line *l)
{
	struct ssl_info si;

	ssl_stats_info(&si, th_ctx ? now_ms() : 0);
	INF_NUM(l, INF_MAXSSLCONNS, si.max_conns);
	INF_NUM(l, INF_CURRSSLCONNS, si.curr_conns);
	INF_NUM(l, INF_CUMSSLCONNS, si.cum_conns);
	INF_NUM(l, INF_SSLRATE, si.rate);
	INF_NUM(l, INF_SSLRATELIMIT, si.rate_limit);
	INF_NUM(l, INF_MAXSSLRATE, si.rate_max);
	INF_NUM(l, INF_SSLFRONTENDKEYRATE, si.fe_key_rate);
	INF_NUM(l, INF_SSLFRONTENDMAXKEYRATE, si.fe_key_max);
	INF_NUM(l, INF_SSLFRONTENDSESSIONREUSE_PCT, si.fe_reuse_pct);
	INF_NUM(l, INF_SSLBACKENDKEYRATE, si.be_key_rate);
	INF_NUM(l, INF_SSLBACKENDMAXKEYRATE, si.be_key_max);
	INF_NUM(l, INF_SSLCACHELOOKUPS, si.cache_lookups);
	INF_NUM(l, INF_SSLCACHEMISSES, si.cache_misses);
}

/* The compression fields (comp/): rates, their limit, zlib's memory (only in a build with
 * zlib, as HAProxy prints them only then). */
static void info_fill_comp(struct stat_line *l)
{
	INF_NUM(l, INF_COMPRESSBPSIN, comp_bps_in());
	INF_NUM(l, INF_COMPRESSBPSOUT, comp_bps_out());
	INF_NUM(l, INF_COMPRESSBPSRATELIM, comp_set.rate_lim);
#ifdef USE_ZLIB
	INF_NUM(l, INF_ZLIBMEMUSAGE, comp_zmem_used());
	INF_NUM(l, INF_MAXZLIBMEMUSAGE, comp_set.maxzlibmem);
#endif
}

/* Process identity and limits. */
static void info_fill_process(struct stat_line *l)
{
	unsigned long long up = cli_uptime_ms() / 1000;
	struct rlimit rl = { 0, 0 };
	char host[256] = "";

	getrlimit(RLIMIT_NOFILE, &rl);
	gethostname(host, sizeof(host) - 1);
	INF_STR(l, INF_NAME, "HAProxy");
	INF_STR(l, INF_VERSION, HAPROXY_COMPAT_VERSION);
	INF_STR(l, INF_RELEASE_DATE, INFO_RELEASE_DATE);
	INF_NUM(l, INF_NBTHREAD, global.nbthread);
	INF_NUM(l, INF_NBPROC, 1);
	INF_NUM(l, INF_PROCESS_NUM, 1);
	INF_NUM(l, INF_PID, getpid());
	stat_set_fmt(l, info_fields, INF_UPTIME, "%llud %lluh%02llum%02llus", up / 86400,
		     (up % 86400) / 3600, (up % 3600) / 60, up % 60);
	INF_NUM(l, INF_UPTIME_SEC, up);
	INF_NUM(l, INF_ULIMIT_N, rl.rlim_cur);
	INF_NUM(l, INF_MAXSOCK, rl.rlim_cur);
	INF_NUM(l, INF_MAXCONN, global.maxconn);
	INF_NUM(l, INF_MAXPIPES,
		global.maxpipes	     ? global.maxpipes
		: global.maxconn > 4 ? global.maxconn / 4
				     : 1);
	INF_NUM(l, INF_PIPESUSED, splice_pipes_used());
	INF_NUM(l, INF_PIPESFREE, splice_pipes_free());
	INF_NUM(l, INF_HARD_MAXCONN, global.maxconn);
	INF_NUM(l, INF_IDLE_PCT, 100);
	if (global.node)
		INF_STR(l, INF_NODE, global.node);
	else
		stat_set_fmt(l, info_fields, INF_NODE, "%s", host);
	if (global.desc) /* as HAProxy: only when "description" is set */
		INF_STR(l, INF_DESCRIPTION, global.desc);
	INF_NUM(l, INF_STOPPING, th_ctx && th_ctx->stopping);
	INF_STR(l, INF_BUILD_INFO, HAPROXY_COMPAT_VERSION);
	INF_NUM(l, INF_START_TIME_SEC, cli_start_time());
	INF_NUM(l, INF_TAINTED, 0);
	INF_NUM(l, INF_TOTALWARNINGS, cfg_warnings);
	INF_NUM(l, INF_NBTHREADGROUPS, thread_cfg.ngroups > 0 ? thread_cfg.ngroups : 1);
}

void stats_fill_info(struct stat_line *l)
{
	struct info_totals t;

	stat_line_reset(l);
	for (size_t i = 0; i < sizeof(info_zeros) / sizeof(*info_zeros); i++)
		INF_NUM(l, info_zeros[i], 0);
	info_fill_process(l);
	info_fill_rates(l);
	info_fill_ssl(l);
	info_fill_comp(l);
	info_sum(&t);
	t.cum_conns += cli_cum_sessions();
	t.cum_req += cli_cum_sessions();
	t.listeners += cli_listeners();
	INF_NUM(l, INF_CURRCONNS, HA_ATOMIC_LOAD_RLX(&actconn));
	INF_NUM(l, INF_CUMCONNS, t.cum_conns);
	INF_NUM(l, INF_CUMREQ, t.cum_req);
	INF_NUM(l, INF_JOBS, HA_ATOMIC_LOAD_RLX(&actconn) + cli_sessions() + t.listeners);
	INF_NUM(l, INF_LISTENERS, t.listeners);
	INF_NUM(l, INF_DROPPEDLOGS, log_dropped());
	INF_NUM(l, INF_TOTALBYTESOUT, t.bytes_out);
	INF_NUM(l, INF_CUMRECVLOGS, logfwd_received());
	INF_NUM(l, INF_CUMSTREAMS, t.streams);
}
