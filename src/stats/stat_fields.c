/* Descriptors of the stats data model (the "show stat" columns and the "show info"
 * fields: name, value type, HAProxy's tags and description, as HAProxy 2.6 prints them)
 * and the setters that fill a line's typed fields.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <stats/stats.h>

/* clang-format off */
const struct stat_desc stat_cols[ST_NCOLS] = {
	[ST_pxname] = { "pxname", SF_STR, "KNS",
		"Proxy name" },
	[ST_svname] = { "svname", SF_STR, "KNS",
		"Server name" },
	[ST_qcur] = { "qcur", SF_U32, "MGP",
		"Number of current queued connections" },
	[ST_qmax] = { "qmax", SF_U32, "MMP",
		"Highest value of queued connections encountered since process started" },
	[ST_scur] = { "scur", SF_U32, "MGP",
		"Number of current sessions on the frontend, backend or server" },
	[ST_smax] = { "smax", SF_U32, "MMP",
		"Highest value of current sessions encountered since process started" },
	[ST_slim] = { "slim", SF_U32, "CLP",
		"Frontend/listener/server's maxconn, backend's fullconn" },
	[ST_stot] = { "stot", SF_U64, "MCP",
		"Total number of sessions since process started" },
	[ST_bin] = { "bin", SF_U64, "MCP",
		"Total number of request bytes since process started" },
	[ST_bout] = { "bout", SF_U64, "MCP",
		"Total number of response bytes since process started" },
	[ST_dreq] = { "dreq", SF_U64, "MCP",
		"Total number of denied requests since process started" },
	[ST_dresp] = { "dresp", SF_U64, "MCP",
		"Total number of denied responses since process started" },
	[ST_ereq] = { "ereq", SF_U64, "MCP",
		"Total number of invalid requests since process started" },
	[ST_econ] = { "econ", SF_U64, "MCP",
		"Total number of failed connections to server since the worker process "
		"started" },
	[ST_eresp] = { "eresp", SF_U64, "MCP",
		"Total number of invalid responses since the worker process started" },
	[ST_wretr] = { "wretr", SF_U64, "MCP",
		"Total number of server connection retries since the worker process "
		"started" },
	[ST_wredis] = { "wredis", SF_U64, "MCP",
		"Total number of server redispatches due to connection failures since "
		"the worker process started" },
	[ST_status] = { "status", SF_STR, "SGP",
		"Frontend/listen status: OPEN/WAITING/FULL/STOP; backend: UP/DOWN; "
		"server: last check status" },
	[ST_weight] = { "weight", SF_U32, "MaP",
		"Server's effective weight, or sum of active servers' effective weights"
		" for a backend" },
	[ST_act] = { "act", SF_U32, "SGP",
		"Total number of active UP servers with a non-zero weight" },
	[ST_bck] = { "bck", SF_U32, "SGP",
		"Total number of backup UP servers with a non-zero weight" },
	[ST_chkfail] = { "chkfail", SF_U64, "MCP",
		"Total number of failed individual health checks per server/backend, "
		"since the worker process started" },
	[ST_chkdown] = { "chkdown", SF_U64, "MCP",
		"Total number of failed checks causing UP to DOWN server transitions, "
		"per server/backend, since the worker process started" },
	[ST_lastchg] = { "lastchg", SF_U32, "MAP",
		"How long ago the last server state changed, in seconds" },
	[ST_downtime] = { "downtime", SF_U32, "MCP",
		"Total time spent in DOWN state, for server or backend" },
	[ST_qlimit] = { "qlimit", SF_U32, "CGS",
		"Limit on the number of connections in queue, for servers only "
		"(maxqueue argument)" },
	[ST_pid] = { "pid", SF_U32, "KGP",
		"Relative worker process number (1)" },
	[ST_iid] = { "iid", SF_U32, "KGS",
		"Frontend or Backend numeric identifier ('id' setting)" },
	[ST_sid] = { "sid", SF_U32, "KGS",
		"Server numeric identifier ('id' setting)" },
	[ST_throttle] = { "throttle", SF_U32, "MaP",
		"Throttling ratio applied to a server's maxconn and weight during the "
		"slowstart period (0 to 100%)" },
	[ST_lbtot] = { "lbtot", SF_U64, "MCP",
		"Total number of requests routed by load balancing since the worker "
		"process started (ignores queue pop and stickiness)" },
	[ST_tracked] = { "tracked", SF_STR, "CNS",
		"Name of the other server this server tracks for its state" },
	[ST_type] = { "type", SF_U32, "CGS",
		"Type of the object (Listener, Frontend, Backend, Server)" },
	[ST_rate] = { "rate", SF_U32, "MRP",
		"Total number of sessions processed by this object over the last second"
		" (sessions for listeners/frontends, requests for backends/servers)" },
	[ST_rate_lim] = { "rate_lim", SF_U32, "CLP",
		"Limit on the number of sessions accepted in a second (frontend only, "
		"'rate-limit sessions' setting)" },
	[ST_rate_max] = { "rate_max", SF_U32, "MMP",
		"Highest value of sessions per second observed since the worker process"
		" started" },
	[ST_check_status] = { "check_status", SF_STR, "MOP",
		"Status report of the server's latest health check, prefixed with '*' "
		"if a check is currently in progress" },
	[ST_check_code] = { "check_code", SF_U32, "MOP",
		"HTTP/SMTP/LDAP status code reported by the latest server health check" },
	[ST_check_duration] = { "check_duration", SF_U64, "MDP",
		"Total duration of the latest server health check, in milliseconds" },
	[ST_hrsp_1xx] = { "hrsp_1xx", SF_U64, "MCP",
		"Total number of HTTP responses with status 100-199 returned by this "
		"object since the worker process started" },
	[ST_hrsp_2xx] = { "hrsp_2xx", SF_U64, "MCP",
		"Total number of HTTP responses with status 200-299 returned by this "
		"object since the worker process started" },
	[ST_hrsp_3xx] = { "hrsp_3xx", SF_U64, "MCP",
		"Total number of HTTP responses with status 300-399 returned by this "
		"object since the worker process started" },
	[ST_hrsp_4xx] = { "hrsp_4xx", SF_U64, "MCP",
		"Total number of HTTP responses with status 400-499 returned by this "
		"object since the worker process started" },
	[ST_hrsp_5xx] = { "hrsp_5xx", SF_U64, "MCP",
		"Total number of HTTP responses with status 500-599 returned by this "
		"object since the worker process started" },
	[ST_hrsp_other] = { "hrsp_other", SF_U64, "MCP",
		"Total number of HTTP responses with status <100, >599 returned by this"
		" object since the worker process started (error -1 included)" },
	[ST_hanafail] = { "hanafail", SF_U64, "MCP",
		"Total number of failed checks caused by an 'on-error' directive after "
		"an 'observe' condition matched" },
	[ST_req_rate] = { "req_rate", SF_U32, "MRP",
		"Number of HTTP requests processed over the last second on this object" },
	[ST_req_rate_max] = { "req_rate_max", SF_U32, "MMP",
		"Highest value of http requests observed since the worker process "
		"started" },
	[ST_req_tot] = { "req_tot", SF_U64, "MCP",
		"Total number of HTTP requests processed by this object since the "
		"worker process started" },
	[ST_cli_abrt] = { "cli_abrt", SF_U64, "MCP",
		"Total number of requests or connections aborted by the client since "
		"the worker process started" },
	[ST_srv_abrt] = { "srv_abrt", SF_U64, "MCP",
		"Total number of requests or connections aborted by the server since "
		"the worker process started" },
	[ST_comp_in] = { "comp_in", SF_U64, "MCP",
		"Total number of bytes submitted to the HTTP compressor for this object"
		" since the worker process started" },
	[ST_comp_out] = { "comp_out", SF_U64, "MCP",
		"Total number of bytes emitted by the HTTP compressor for this object "
		"since the worker process started" },
	[ST_comp_byp] = { "comp_byp", SF_U64, "MCP",
		"Total number of bytes that bypassed HTTP compression for this object "
		"since the worker process started (CPU/memory/bandwidth limitation)" },
	[ST_comp_rsp] = { "comp_rsp", SF_U64, "MCP",
		"Total number of HTTP responses that were compressed for this object "
		"since the worker process started" },
	[ST_lastsess] = { "lastsess", SF_S32, "MAP",
		"How long ago some traffic was seen on this object on this worker "
		"process, in seconds" },
	[ST_last_chk] = { "last_chk", SF_STR, "MOP",
		"Short description of the latest health check report for this server "
		"(see also check_desc)" },
	[ST_last_agt] = { "last_agt", SF_STR, "MOP",
		"Short description of the latest agent check report for this server "
		"(see also agent_desc)" },
	[ST_qtime] = { "qtime", SF_U32, "MaP",
		"Time spent in the queue, in milliseconds, averaged over the 1024 last "
		"requests (backend/server)" },
	[ST_ctime] = { "ctime", SF_U32, "MaP",
		"Time spent waiting for a connection to complete, in milliseconds, "
		"averaged over the 1024 last requests (backend/server)" },
	[ST_rtime] = { "rtime", SF_U32, "MaP",
		"Time spent waiting for a server response, in milliseconds, averaged "
		"over the 1024 last requests (backend/server)" },
	[ST_ttime] = { "ttime", SF_U32, "MaP",
		"Total request+response time "
		"(request+queue+connect+response+processing), in milliseconds, averaged"
		" over the 1024 last requests (backend/server)" },
	[ST_agent_status] = { "agent_status", SF_STR, "MOP",
		"Status report of the server's latest agent check, prefixed with '*' if"
		" a check is currently in progress" },
	[ST_agent_code] = { "agent_code", SF_U32, "MOP",
		"Numeric code reported by the latest server agent check" },
	[ST_agent_duration] = { "agent_duration", SF_U64, "MDP",
		"Total duration of the latest server agent check, in milliseconds" },
	[ST_check_desc] = { "check_desc", SF_STR, "MOP",
		"Textual description of the latest health check report for this server" },
	[ST_agent_desc] = { "agent_desc", SF_STR, "MOP",
		"Textual description of the latest agent check report for this server" },
	[ST_check_rise] = { "check_rise", SF_U32, "CGS",
		"Number of successful health checks before declaring a server UP "
		"(server 'rise' setting)" },
	[ST_check_fall] = { "check_fall", SF_U32, "CGS",
		"Number of failed health checks before declaring a server DOWN (server "
		"'fall' setting)" },
	[ST_check_health] = { "check_health", SF_U32, "CGS",
		"Current server health check level (0..fall-1=DOWN, fall..rise-1=UP)" },
	[ST_agent_rise] = { "agent_rise", SF_U32, "CGS",
		"Number of successful agent checks before declaring a server UP (server"
		" 'rise' setting)" },
	[ST_agent_fall] = { "agent_fall", SF_U32, "CGS",
		"Number of failed agent checks before declaring a server DOWN (server "
		"'fall' setting)" },
	[ST_agent_health] = { "agent_health", SF_U32, "CGS",
		"Current server agent check level (0..fall-1=DOWN, fall..rise-1=UP)" },
	[ST_addr] = { "addr", SF_STR, "CGS",
		"Server's address:port, shown only if show-legends is set, or at levels"
		" oper/admin for the CLI" },
	[ST_cookie] = { "cookie", SF_STR, "CNS",
		"Backend's cookie name or Server's cookie value, shown only if show-"
		"legends is set, or at levels oper/admin for the CLI" },
	[ST_mode] = { "mode", SF_STR, "CGS",
		"'mode' setting (tcp/http/health/cli)" },
	[ST_algo] = { "algo", SF_STR, "CGS",
		"Backend's load balancing algorithm, shown only if show-legends is set,"
		" or at levels oper/admin for the CLI" },
	[ST_conn_rate] = { "conn_rate", SF_U32, "MRP",
		"Number of new connections accepted over the last second on the "
		"frontend for this worker process" },
	[ST_conn_rate_max] = { "conn_rate_max", SF_U32, "MMP",
		"Highest value of connections per second observed since the worker "
		"process started" },
	[ST_conn_tot] = { "conn_tot", SF_U64, "MCP",
		"Total number of new connections accepted on this frontend since the "
		"worker process started" },
	[ST_intercepted] = { "intercepted", SF_U64, "MCP",
		"Total number of HTTP requests intercepted on the frontend "
		"(redirects/stats/services) since the worker process started" },
	[ST_dcon] = { "dcon", SF_U64, "MCP",
		"Total number of incoming connections blocked on a listener/frontend by"
		" a tcp-request connection rule since the worker process started" },
	[ST_dses] = { "dses", SF_U64, "MCP",
		"Total number of incoming sessions blocked on a listener/frontend by a "
		"tcp-request connection rule since the worker process started" },
	[ST_wrew] = { "wrew", SF_U64, "MCP",
		"Total number of failed HTTP header rewrites since the worker process "
		"started" },
	[ST_connect] = { "connect", SF_U64, "MCP",
		"Total number of outgoing connection attempts on this backend/server "
		"since the worker process started" },
	[ST_reuse] = { "reuse", SF_U64, "MCP",
		"Total number of reused connection on this backend/server since the "
		"worker process started" },
	[ST_cache_lookups] = { "cache_lookups", SF_U64, "MCP",
		"Total number of HTTP requests looked up in the cache on this "
		"frontend/backend since the worker process started" },
	[ST_cache_hits] = { "cache_hits", SF_U64, "MCP",
		"Total number of HTTP requests not found in the cache on this "
		"frontend/backend since the worker process started" },
	[ST_srv_icur] = { "srv_icur", SF_U32, "MGP",
		"Current number of idle connections available for reuse on this server" },
	[ST_src_ilim] = { "src_ilim", SF_U32, "CLP",
		"Limit on the number of available idle connections on this server "
		"(server 'pool_max_conn' directive)" },
	[ST_qtime_max] = { "qtime_max", SF_U32, "MMP",
		"Maximum observed time spent in the queue, in milliseconds "
		"(backend/server)" },
	[ST_ctime_max] = { "ctime_max", SF_U32, "MMP",
		"Maximum observed time spent waiting for a connection to complete, in "
		"milliseconds (backend/server)" },
	[ST_rtime_max] = { "rtime_max", SF_U32, "MMP",
		"Maximum observed time spent waiting for a server response, in "
		"milliseconds (backend/server)" },
	[ST_ttime_max] = { "ttime_max", SF_U32, "MMP",
		"Maximum observed total request+response time "
		"(request+queue+connect+response+processing), in milliseconds "
		"(backend/server)" },
	[ST_eint] = { "eint", SF_U64, "MCP",
		"Total number of internal errors since process started" },
	[ST_idle_conn_cur] = { "idle_conn_cur", SF_U32, "MGP",
		"Current number of unsafe idle connections" },
	[ST_safe_conn_cur] = { "safe_conn_cur", SF_U32, "MGP",
		"Current number of safe idle connections" },
	[ST_used_conn_cur] = { "used_conn_cur", SF_U32, "MGP",
		"Current number of connections in use" },
	[ST_need_conn_est] = { "need_conn_est", SF_U32, "MGP",
		"Estimated needed number of connections" },
	[ST_uweight] = { "uweight", SF_U32, "MaP",
		"Server's user weight, or sum of active servers' user weights for a "
		"backend" },
	[ST_agg_server_status] = { "agg_server_status", SF_U32, "MGP",
		"Backend's aggregated gauge of servers' status" },
	[ST_agg_server_check_status] = { "agg_server_check_status", SF_U32, "MGP",
		"Backend's aggregated gauge of servers' state check status" },
	[ST_agg_check_status] = { "agg_check_status", SF_U32, "MGP",
		"Backend's aggregated gauge of servers' state check status" },
};

const struct stat_desc info_fields[INF_NFIELDS] = {
	[INF_NAME] = { "Name", SF_STR, "POS",
		"Product name" },
	[INF_VERSION] = { "Version", SF_STR, "POS",
		"Product version" },
	[INF_RELEASE_DATE] = { "Release_date", SF_STR, "POS",
		"Date of latest source code update" },
	[INF_NBTHREAD] = { "Nbthread", SF_U32, "CGS",
		"Number of started threads (global.nbthread)" },
	[INF_NBPROC] = { "Nbproc", SF_U32, "CGS",
		"Number of started worker processes (historical, always 1)" },
	[INF_PROCESS_NUM] = { "Process_num", SF_U32, "KGP",
		"Relative worker process number (1)" },
	[INF_PID] = { "Pid", SF_U32, "SGP",
		"This worker process identifier for the system" },
	[INF_UPTIME] = { "Uptime", SF_STR, "MDP",
		"How long ago this worker process was started "
		"(days+hours+minutes+seconds)" },
	[INF_UPTIME_SEC] = { "Uptime_sec", SF_U32, "MDP",
		"How long ago this worker process was started (seconds)" },
	[INF_MEMMAX_MB] = { "Memmax_MB", SF_U32, "CLP",
		"Worker process's hard limit on memory usage in MB (-m on command line)" },
	[INF_POOLALLOC_MB] = { "PoolAlloc_MB", SF_U32, "MGP",
		"Amount of memory allocated in pools (in MB)" },
	[INF_POOLUSED_MB] = { "PoolUsed_MB", SF_U32, "MGP",
		"Amount of pool memory currently used (in MB)" },
	[INF_POOLFAILED] = { "PoolFailed", SF_U32, "MCP",
		"Number of failed pool allocations since this worker was started" },
	[INF_ULIMIT_N] = { "Ulimit-n", SF_U32, "CLP",
		"Hard limit on the number of per-process file descriptors" },
	[INF_MAXSOCK] = { "Maxsock", SF_U32, "CLP",
		"Hard limit on the number of per-process sockets" },
	[INF_MAXCONN] = { "Maxconn", SF_U32, "CLP",
		"Hard limit on the number of per-process connections (configured or "
		"imposed by Ulimit-n)" },
	[INF_HARD_MAXCONN] = { "Hard_maxconn", SF_U32, "CLP",
		"Hard limit on the number of per-process connections (imposed by "
		"Memmax_MB or Ulimit-n)" },
	[INF_CURRCONNS] = { "CurrConns", SF_U32, "MGP",
		"Current number of connections on this worker process" },
	[INF_CUMCONNS] = { "CumConns", SF_U32, "MCP",
		"Total number of connections on this worker process since started" },
	[INF_CUMREQ] = { "CumReq", SF_U32, "MCP",
		"Total number of requests on this worker process since started" },
	[INF_MAXSSLCONNS] = { "MaxSslConns", SF_U32, "MMP",
		"Hard limit on the number of per-process SSL endpoints (front+back), "
		"0=unlimited" },
	[INF_CURRSSLCONNS] = { "CurrSslConns", SF_U32, "MGP",
		"Current number of SSL endpoints on this worker process (front+back)" },
	[INF_CUMSSLCONNS] = { "CumSslConns", SF_U32, "MCP",
		"Total number of SSL endpoints on this worker process since started "
		"(front+back)" },
	[INF_MAXPIPES] = { "Maxpipes", SF_U32, "CLP",
		"Hard limit on the number of pipes for splicing, 0=unlimited" },
	[INF_PIPESUSED] = { "PipesUsed", SF_U32, "MGP",
		"Current number of pipes in use in this worker process" },
	[INF_PIPESFREE] = { "PipesFree", SF_U32, "MGP",
		"Current number of allocated and available pipes in this worker process" },
	[INF_CONNRATE] = { "ConnRate", SF_U32, "MRP",
		"Number of front connections created on this worker process over the "
		"last second" },
	[INF_CONNRATELIMIT] = { "ConnRateLimit", SF_U32, "CLP",
		"Hard limit for ConnRate (global.maxconnrate)" },
	[INF_MAXCONNRATE] = { "MaxConnRate", SF_U32, "MMP",
		"Highest ConnRate reached on this worker process since started (in "
		"connections per second)" },
	[INF_SESSRATE] = { "SessRate", SF_U32, "MRP",
		"Number of sessions created on this worker process over the last second" },
	[INF_SESSRATELIMIT] = { "SessRateLimit", SF_U32, "CLP",
		"Hard limit for SessRate (global.maxsessrate)" },
	[INF_MAXSESSRATE] = { "MaxSessRate", SF_U32, "MRP",
		"Highest SessRate reached on this worker process since started (in "
		"sessions per second)" },
	[INF_SSLRATE] = { "SslRate", SF_U32, "MRP",
		"Number of SSL connections created on this worker process over the last"
		" second" },
	[INF_SSLRATELIMIT] = { "SslRateLimit", SF_U32, "CLP",
		"Hard limit for SslRate (global.maxsslrate)" },
	[INF_MAXSSLRATE] = { "MaxSslRate", SF_U32, "MMP",
		"Highest SslRate reached on this worker process since started (in "
		"connections per second)" },
	[INF_SSLFRONTENDKEYRATE] = { "SslFrontendKeyRate", SF_U32, "MGP",
		"Number of SSL keys created on frontends in this worker process over "
		"the last second" },
	[INF_SSLFRONTENDMAXKEYRATE] = { "SslFrontendMaxKeyRate", SF_U32, "MMP",
		"Highest SslFrontendKeyRate reached on this worker process since "
		"started (in SSL keys per second)" },
	[INF_SSLFRONTENDSESSIONREUSE_PCT] = { "SslFrontendSessionReuse_pct", SF_U32, "MGP",
		"Percent of frontend SSL connections which did not require a new key" },
	[INF_SSLBACKENDKEYRATE] = { "SslBackendKeyRate", SF_U32, "MRP",
		"Number of SSL keys created on backends in this worker process over the"
		" last second" },
	[INF_SSLBACKENDMAXKEYRATE] = { "SslBackendMaxKeyRate", SF_U32, "MMP",
		"Highest SslBackendKeyRate reached on this worker process since started"
		" (in SSL keys per second)" },
	[INF_SSLCACHELOOKUPS] = { "SslCacheLookups", SF_U32, "MCP",
		"Total number of SSL session ID lookups in the SSL session cache on "
		"this worker since started" },
	[INF_SSLCACHEMISSES] = { "SslCacheMisses", SF_U32, "MCP",
		"Total number of SSL session ID lookups that didn't find a session in "
		"the SSL session cache on this worker since started" },
	[INF_COMPRESSBPSIN] = { "CompressBpsIn", SF_U32, "MRP",
		"Number of bytes submitted to the HTTP compressor in this worker "
		"process over the last second" },
	[INF_COMPRESSBPSOUT] = { "CompressBpsOut", SF_U32, "MRP",
		"Number of bytes emitted by the HTTP compressor in this worker process "
		"over the last second" },
	[INF_COMPRESSBPSRATELIM] = { "CompressBpsRateLim", SF_U32, "CLP",
		"Limit of CompressBpsOut beyond which HTTP compression is automatically"
		" disabled" },
	[INF_ZLIBMEMUSAGE] = { "ZlibMemUsage", SF_U32, "MGP",
		"Current memory used for zlib in bytes" },
	[INF_MAXZLIBMEMUSAGE] = { "MaxZlibMemUsage", SF_U32, "CLP",
		"Configured maximum amount of memory for zlib in bytes" },
	[INF_TASKS] = { "Tasks", SF_U32, "MGP",
		"Total number of tasks in the current worker process (active + "
		"sleeping)" },
	[INF_RUN_QUEUE] = { "Run_queue", SF_U32, "MGP",
		"Total number of active tasks+tasklets in the current worker process" },
	[INF_IDLE_PCT] = { "Idle_pct", SF_U32, "MaP",
		"Percentage of last second spent waiting in the current worker thread" },
	[INF_NODE] = { "node", SF_STR, "COS",
		"Node name (global.node)" },
	[INF_DESCRIPTION] = { "description", SF_STR, "COS",
		"Node description (global 'description' setting)" },
	[INF_STOPPING] = { "Stopping", SF_U32, "MGP",
		"1 if the worker process is currently stopping, otherwise zero" },
	[INF_JOBS] = { "Jobs", SF_U32, "MGP",
		"Current number of active jobs on the current worker process (frontend "
		"connections, master connections, listeners)" },
	[INF_UNSTOPPABLE_JOBS] = { "Unstoppable Jobs", SF_U32, "MGP",
		"Current number of unstoppable jobs on the current worker process "
		"(master connections)" },
	[INF_LISTENERS] = { "Listeners", SF_U32, "MGP",
		"Current number of active listeners on the current worker process" },
	[INF_ACTIVEPEERS] = { "ActivePeers", SF_U32, "MGP",
		"Current number of verified active peers connections on the current "
		"worker process" },
	[INF_CONNECTEDPEERS] = { "ConnectedPeers", SF_U32, "MGP",
		"Current number of peers having passed the connection step on the "
		"current worker process" },
	[INF_DROPPEDLOGS] = { "DroppedLogs", SF_U32, "MGP",
		"Total number of dropped logs for current worker process since started" },
	[INF_BUSYPOLLING] = { "BusyPolling", SF_U32, "MGP",
		"1 if busy-polling is currently in use on the worker process, otherwise"
		" zero (config.busy-polling)" },
	[INF_FAILEDRESOLUTIONS] = { "FailedResolutions", SF_U32, "MGP",
		"Total number of failed DNS resolutions in current worker process since"
		" started" },
	[INF_TOTALBYTESOUT] = { "TotalBytesOut", SF_U64, "MGP",
		"Total number of bytes emitted by current worker process since started" },
	[INF_TOTALSPLICDEDBYTESOUT] = { "TotalSplicdedBytesOut", SF_U64, "MGP",
		"Total number of bytes emitted by current worker process through a "
		"kernel pipe since started" },
	[INF_BYTESOUTRATE] = { "BytesOutRate", SF_U64, "MRP",
		"Number of bytes emitted by current worker process over the last second" },
	[INF_DEBUGCOMMANDSISSUED] = { "DebugCommandsIssued", SF_U32, "MGP",
		"Number of debug commands issued on this process (anything > 0 is "
		"unsafe)" },
	[INF_CUMRECVLOGS] = { "CumRecvLogs", SF_U32, "MCP",
		"Total number of log messages received by log-forwarding listeners on "
		"this worker process since started" },
	[INF_BUILD_INFO] = { "Build info", SF_STR, "POS",
		"Build info" },
	[INF_MEMMAX_BYTES] = { "Memmax_bytes", SF_U32, "CLP",
		"Worker process's hard limit on memory usage in byes (-m on command "
		"line)" },
	[INF_POOLALLOC_BYTES] = { "PoolAlloc_bytes", SF_U64, "MGP",
		"Amount of memory allocated in pools (in bytes)" },
	[INF_POOLUSED_BYTES] = { "PoolUsed_bytes", SF_U64, "MGP",
		"Amount of pool memory currently used (in bytes)" },
	[INF_START_TIME_SEC] = { "Start_time_sec", SF_U32, "MDP",
		"Start time in seconds" },
	[INF_TAINTED] = { "Tainted", SF_STR, "SGP",
		"Experimental features used" },
	[INF_TOTALWARNINGS] = { "TotalWarnings", SF_U32, "MCP",
		"Total warnings issued" },
	[INF_MAXCONNREACHED] = { "MaxconnReached", SF_U32, "MCP",
		"Number of times an accepted connection resulted in Maxconn being "
		"reached" },
	[INF_BOOTTIME_MS] = { "BootTime_ms", SF_U32, "MDP",
		"How long ago it took to parse and process the config before being "
		"ready (milliseconds)" },
	[INF_NICED_TASKS] = { "Niced_tasks", SF_U32, "MGP",
		"Number of active tasks in the run queue that were niced" },
	[INF_CURRSTREAMS] = { "CurrStreams", SF_U64, "MGP",
		"Current number of streams on this worker process" },
	[INF_CUMSTREAMS] = { "CumStreams", SF_U64, "MCP",
		"Total number of streams created on this worker process since started" },
	[INF_BLOCKEDTRAFFICWARNINGS] = { "BlockedTrafficWarnings", SF_U32, "MCP",
		"Total number of warnings issued about traffic being blocked by too "
		"slow a task" },
	[INF_PATTERNSADDED] = { "PatternsAdded", SF_U64, "MCP",
		"Total number of patterns added (acl/map entries)" },
	[INF_PATTERNSFREED] = { "PatternsFreed", SF_U64, "MCP",
		"Total number of patterns freed (acl/map entries)" },
	[INF_NBTHREADGROUPS] = { "NbThreadGroups", SF_U32, "CGS",
		"Number of thread groups" },
};
/* clang-format on */

void stat_line_reset(struct stat_line *l)
{
	memset(l->f, 0, sizeof(l->f));
	l->used = 0;
	l->strs[0] = 0;
}

static void stat_set_type(struct stat_field *f, const struct stat_desc *d)
{
	f->type = d->type;
	memcpy(f->tags, d->tags, sizeof(f->tags));
}

void stat_set_num(struct stat_line *l, const struct stat_desc *d, int i, int64_t v)
{
	struct stat_field *f = &l->f[i];

	stat_set_type(f, &d[i]);
	switch (f->type) {
	case SF_S32:
		f->u.s32 = (int32_t)v;
		break;
	case SF_U32:
		f->u.u32 = (uint32_t)v;
		break;
	case SF_S64:
		f->u.s64 = v;
		break;
	case SF_STR: /* a number in a string column (HAProxy's "Tainted") */
		stat_set_fmt(l, d, i, "%lld", (long long)v);
		break;
	default:
		f->u.u64 = (uint64_t)v;
	}
}

void stat_set_str(struct stat_line *l, const struct stat_desc *d, int i, const char *s)
{
	stat_set_type(&l->f[i], &d[i]);
	l->f[i].type = SF_STR;
	l->f[i].u.str = s ? s : "";
}

void stat_set_fmt(struct stat_line *l, const struct stat_desc *d, int i, const char *fmt, ...)
{
	size_t room = sizeof(l->strs) - l->used;
	char *s = l->strs + l->used;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = room ? vsnprintf(s, room, fmt, ap) : -1;
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		stat_set_str(l, d, i, ""); /* too long for the line: shown empty, never cut */
		return;
	}
	l->used += (size_t)n + 1;
	stat_set_str(l, d, i, s);
}

void stat_set_tags(struct stat_line *l, int i, const char *tags)
{
	memcpy(l->f[i].tags, tags, sizeof(l->f[i].tags));
}

uint64_t stat_field_u64(const struct stat_field *f)
{
	switch (f->type) {
	case SF_S32:
		return f->u.s32 < 0 ? 0 : (uint64_t)f->u.s32;
	case SF_U32:
		return f->u.u32;
	case SF_S64:
		return f->u.s64 < 0 ? 0 : (uint64_t)f->u.s64;
	case SF_U64:
		return f->u.u64;
	default:
		return 0;
	}
}
