/* Types of the stats data model: the columns of "show stat" and the fields of "show info"
 * as enums in HAProxy 2.6's order, their descriptors (name, type, tags, description), and
 * one typed value per field. Fillers (stat_proxy.c, stat_info.c) produce lines of fields;
 * every reader (CSV, typed, JSON, HTML page, Prometheus) renders only these.
 */
#ifndef STATS_STATS_T_H
#define STATS_STATS_T_H

#include <stddef.h>
#include <stdint.h>

/* The fixed columns of "show stat", in HAProxy 2.6's order (its CSV header). */
/* clang-format off */
#define STAT_COLS(X) \
	X(pxname) X(svname) X(qcur) X(qmax) X(scur) X(smax) X(slim) X(stot) X(bin) X(bout) \
	X(dreq) X(dresp) X(ereq) X(econ) X(eresp) X(wretr) X(wredis) X(status) X(weight) \
	X(act) X(bck) X(chkfail) X(chkdown) X(lastchg) X(downtime) X(qlimit) X(pid) X(iid) \
	X(sid) X(throttle) X(lbtot) X(tracked) X(type) X(rate) X(rate_lim) X(rate_max) \
	X(check_status) X(check_code) X(check_duration) X(hrsp_1xx) X(hrsp_2xx) X(hrsp_3xx) \
	X(hrsp_4xx) X(hrsp_5xx) X(hrsp_other) X(hanafail) X(req_rate) X(req_rate_max) \
	X(req_tot) X(cli_abrt) X(srv_abrt) X(comp_in) X(comp_out) X(comp_byp) X(comp_rsp) \
	X(lastsess) X(last_chk) X(last_agt) X(qtime) X(ctime) X(rtime) X(ttime) \
	X(agent_status) X(agent_code) X(agent_duration) X(check_desc) X(agent_desc) \
	X(check_rise) X(check_fall) X(check_health) X(agent_rise) X(agent_fall) \
	X(agent_health) X(addr) X(cookie) X(mode) X(algo) X(conn_rate) X(conn_rate_max) \
	X(conn_tot) X(intercepted) X(dcon) X(dses) X(wrew) X(connect) X(reuse) \
	X(cache_lookups) X(cache_hits) X(srv_icur) X(src_ilim) X(qtime_max) X(ctime_max) \
	X(rtime_max) X(ttime_max) X(eint) X(idle_conn_cur) X(safe_conn_cur) X(used_conn_cur) \
	X(need_conn_est) X(uweight) X(agg_server_status) X(agg_server_check_status) \
	X(agg_check_status)

#define STAT_COL_ENUM(n) ST_##n,

enum stat_col {
	STAT_COLS(STAT_COL_ENUM)
	ST_NCOLS
};
/* clang-format on */

/* The fields of "show info": HAProxy 2.6's, in its order, then those later versions
 * added (printed after them, numbered on). */
enum info_field {
	INF_NAME = 0,
	INF_VERSION,
	INF_RELEASE_DATE,
	INF_NBTHREAD,
	INF_NBPROC,
	INF_PROCESS_NUM,
	INF_PID,
	INF_UPTIME,
	INF_UPTIME_SEC,
	INF_MEMMAX_MB,
	INF_POOLALLOC_MB,
	INF_POOLUSED_MB,
	INF_POOLFAILED,
	INF_ULIMIT_N,
	INF_MAXSOCK,
	INF_MAXCONN,
	INF_HARD_MAXCONN,
	INF_CURRCONNS,
	INF_CUMCONNS,
	INF_CUMREQ,
	INF_MAXSSLCONNS,
	INF_CURRSSLCONNS,
	INF_CUMSSLCONNS,
	INF_MAXPIPES,
	INF_PIPESUSED,
	INF_PIPESFREE,
	INF_CONNRATE,
	INF_CONNRATELIMIT,
	INF_MAXCONNRATE,
	INF_SESSRATE,
	INF_SESSRATELIMIT,
	INF_MAXSESSRATE,
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
	INF_COMPRESSBPSIN,
	INF_COMPRESSBPSOUT,
	INF_COMPRESSBPSRATELIM,
	INF_ZLIBMEMUSAGE,
	INF_MAXZLIBMEMUSAGE,
	INF_TASKS,
	INF_RUN_QUEUE,
	INF_IDLE_PCT,
	INF_NODE,
	INF_DESCRIPTION,
	INF_STOPPING,
	INF_JOBS,
	INF_UNSTOPPABLE_JOBS,
	INF_LISTENERS,
	INF_ACTIVEPEERS,
	INF_CONNECTEDPEERS,
	INF_DROPPEDLOGS,
	INF_BUSYPOLLING,
	INF_FAILEDRESOLUTIONS,
	INF_TOTALBYTESOUT,
	INF_TOTALSPLICDEDBYTESOUT,
	INF_BYTESOUTRATE,
	INF_DEBUGCOMMANDSISSUED,
	INF_CUMRECVLOGS,
	INF_BUILD_INFO,
	INF_MEMMAX_BYTES,
	INF_POOLALLOC_BYTES,
	INF_POOLUSED_BYTES,
	INF_START_TIME_SEC,
	INF_TAINTED,
	INF_TOTALWARNINGS,
	INF_MAXCONNREACHED,
	INF_BOOTTIME_MS,
	INF_NICED_TASKS,
	INF_CURRSTREAMS,
	INF_CUMSTREAMS,
	INF_BLOCKEDTRAFFICWARNINGS,
	INF_PATTERNSADDED,
	INF_PATTERNSFREED,
	INF_NBTHREADGROUPS,
	INF_NFIELDS
};

/* Type of a field's value; SF_EMPTY is a field the line does not have (an empty CSV
 * cell, absent from typed and JSON output). */
enum stat_ftype {
	SF_EMPTY = 0,
	SF_S32,
	SF_U32,
	SF_S64,
	SF_U64,
	SF_STR,
};

/* The kind of object a line describes; the values are the CSV "type" column's. */
enum stat_obj {
	STAT_OBJ_FE = 0,
	STAT_OBJ_BE = 1,
	STAT_OBJ_SRV = 2,
	STAT_OBJ_LI = 3,
};

/* One field of a line. <tags> are HAProxy's three letters: origin (M metric, S status,
 * K key, C config, P product), nature (A age, a avg, C counter, D duration, G gauge,
 * L limit, M max, m min, N name, O output, R rate, T time) and scope (P process,
 * S service, s system, C cluster). A string points to static or config text, or into
 * the line's storage (struct stat_line), valid as long as the line. */
struct stat_field {
	uint8_t type; /* enum stat_ftype */
	char tags[3];
	union {
		int32_t s32;
		uint32_t u32;
		int64_t s64;
		uint64_t u64;
		const char *str;
	} u;
};

/* What a column or info field is: its name, value type and tags (a line may override
 * the tags of a field, as HAProxy does for a few backend columns), and its description
 * ("desc" outputs, "show schema json", the HTML page's tooltips, Prometheus' HELP). */
struct stat_desc {
	const char *name;
	uint8_t type; /* enum stat_ftype */
	char tags[4]; /* three letters, NUL-terminated */
	const char *desc;
};

#define STAT_STR_SIZE 1024 /* storage for the strings made for one line */

/* One line of "show stat" (or "show info", using INF_NFIELDS of the fields) with the
 * storage of its strings. The caller owns it (a stack variable fits: ~2.7 kB). */
struct stat_line {
	enum stat_obj obj; /* "show stat" lines only */
	int iid;	   /* proxy's numeric id, as the iid column */
	int sid;	   /* server or listener id; 0 for a frontend or backend */
	struct stat_field f[(int)ST_NCOLS > (int)INF_NFIELDS ? (int)ST_NCOLS : (int)INF_NFIELDS];
	size_t used; /* bytes of <strs> in use */
	char strs[STAT_STR_SIZE];
	char last_chk[128]; /* copies of a server's check and agent texts (stats/stat_text.c) */
	char last_agt[128];
};

#endif
