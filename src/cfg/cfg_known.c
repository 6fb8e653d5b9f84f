/* HAProxy keywords (2.6 to 3.x) that this proxy does not implement, each with the reason
 * an operator is given: "'kw' is not supported yet (reason)" instead of "unknown keyword",
 * which would read like a typo. Keywords, "option" names, "bind" and "server" options are
 * consulted here only after the owning module's own table found nothing. Pure data.
 */
#include <stddef.h>
#include <string.h>

#include <cfg/cfg.h>

struct cfg_known {
	unsigned char cls;     /* enum cfg_known_class */
	const char *name;      /* a trailing '*' matches any word with that prefix */
	const char *why;
};

#define G CFG_KNOWN_GLOBAL
#define P CFG_KNOWN_PROXY
#define O CFG_KNOWN_OPTION
#define B CFG_KNOWN_BIND
#define S CFG_KNOWN_SERVER

#define WHY_TLS    "this TLS setting is not implemented yet"
#define WHY_H2     "HTTP/2 is not implemented yet"
#define WHY_QUIC   "QUIC is not implemented"
#define WHY_CHECKS "health checks are not implemented yet"
#define WHY_PP     "custom PROXY v2 TLVs are not supported yet"
#define WHY_VARS   "variables are not implemented yet"
#define WHY_DNS    "DNS address family selection is not implemented yet"
#define WHY_POLL   "only the epoll poller is implemented"
#define WHY_BUFS   "socket buffer tuning is not implemented yet"
#define WHY_ZCOPY  "zero-copy forwarding is not implemented"
#define WHY_DEVDB  "device detection is not implemented"
#define WHY_RATE   "connection and session rate limits are not implemented yet"

static const struct cfg_known cfg_known_kws[] = {
	/* global */
	{ G, "h1-case-adjust", "header case adjustment is not implemented yet" },
	{ G, "h1-case-adjust-file", "header case adjustment is not implemented yet" },
	{ G, "httpclient.retries", "the HTTP client does not retry its connections yet" },
	{ G, "issuers-chain-path", WHY_TLS },
	{ G, "ssl-*", WHY_TLS },
	{ G, "tune.ssl.*", WHY_TLS },
	{ G, "tune.vars.*", WHY_VARS },
	{ G, "tune.h2.*", WHY_H2 },
	{ G, "tune.quic.*", WHY_QUIC },
	{ G, "limited-quic", WHY_QUIC },
	{ G, "tune.fail-alloc", "allocation failure injection is not implemented" },
	{ G, "tune.fd.edge-triggered", "edge-triggered polling is not implemented" },
	{ G, "tune.listener.multi-queue", "listener queue tuning is not implemented yet" },
	{ G, "tune.peers.*", "peers are not implemented yet" },
	{ G, "tune.takeover-other-tg-connections", "idle server connection tuning is not "
						    "implemented yet" },
	{ G, "tune.sched.low-latency", "scheduler tuning is not implemented yet" },
	{ G, "tune.runqueue-depth", "scheduler tuning is not implemented yet" },
	{ G, "noepoll", WHY_POLL },
	{ G, "nopoll", WHY_POLL },
	{ G, "nokqueue", WHY_POLL },
	{ G, "noevports", WHY_POLL },
	{ G, "tune.epoll.mask-events", WHY_POLL },
	{ G, "busy-polling", "busy polling is not implemented yet" },
	{ G, "noreuseport", "listeners are always sharded with SO_REUSEPORT" },
	{ G, "tune.max-checks-per-thread", WHY_CHECKS },
	{ G, "tune.recv_enough", "receive size tuning is not implemented yet" },
	{ G, "tune.buffers.*", "buffer count limits are not implemented yet" },
	{ G, "tune.bufsize.small", "small buffers are not implemented yet" },
	{ G, "tune.memory.hot-size", "pool cache tuning is not implemented yet" },
	{ G, "tune.idletimer", "the idle-stream splicing heuristic is not implemented; use "
			       "'option splice-request|splice-response'" },
	{ G, "tune.rcvbuf.*", WHY_BUFS },
	{ G, "tune.sndbuf.*", WHY_BUFS },
	{ G, "tune.comp.*", "this compression setting is not supported yet" },
	{ G, "tune.pattern.cache-size", "the ACL engine is not implemented yet" },
	{ G, "tune.disable-fast-forward", WHY_ZCOPY },
	{ G, "tune.disable-zero-copy-forwarding", WHY_ZCOPY },
	{ G, "tune.h1.zero-copy-fwd-*", WHY_ZCOPY },
	{ G, "tune.pt.zero-copy-forwarding", WHY_ZCOPY },
	{ G, "tune.applet.zero-copy-forwarding", WHY_ZCOPY },
	{ G, "tune.ring.queues", "log rings are not implemented yet" },
	{ G, "tune.events.max-events-at-once", "event hooks are not implemented yet" },
	{ G, "tune.glitches.*", "HTTP/2 glitch accounting is not implemented yet" },
	{ G, "fd-hard-limit", "fd-hard-limit is not implemented yet; use 'ulimit-n'" },
	{ G, "unix-bind", "unix socket defaults are not implemented yet" },
	{ G, "numa-cpu-mapping", "NUMA detection is not implemented yet; use 'cpu-map'" },
	{ G, "anonkey", "anonymized dumps are not implemented yet" },
	{ G, "debug", "debug mode is only the '-d' command line option" },
	{ G, "h2-workaround-bogus-websocket-clients", WHY_H2 },
	{ G, "cluster-secret", "QUIC retry tokens are not implemented" },
	{ G, "prealloc-fd", "fd preallocation is not implemented yet" },
	{ G, "shm-stats-file", "shared statistics are not implemented yet" },
	{ G, "ocsp-update.*", WHY_TLS },
	{ G, "dns-accept-family", WHY_DNS },
	{ G, "harden.*", "hardening options are not implemented yet" },
	{ G, "51degrees-*", WHY_DEVDB },
	{ G, "deviceatlas-*", WHY_DEVDB },
	{ G, "wurfl-*", WHY_DEVDB },
	/* defaults / frontend / backend / listen */
	{ P, "log-steps", "logging is not implemented yet" },
	{ P, "use-fcgi-app", "FastCGI is not implemented yet" },
	{ P, "grace", "a per-proxy stop grace period is not implemented yet; use the global 'grace'" },
	{ P, "redispatch", "removed in HAProxy 1.5; use 'option redispatch'" },
	{ P, "redisp", "removed in HAProxy 1.5; use 'option redispatch'" },
	{ P, "quic-initial", WHY_QUIC },
	/* option NAME */
	{ O, "http-use-proxy-header", "the HTTP forward-proxy mode is not implemented yet" },
	{ O, "forwarded", "the RFC 7239 Forwarded header is not implemented yet; use "
			  "'option forwardfor'" },
	{ O, "accept-unsafe-violations-in-http-*", "relaxed HTTP parsing is not implemented "
						     "yet" },
	/* bind options */
	{ B, "ca-*", WHY_TLS },
	{ B, "crt-*", WHY_TLS },
	{ B, "force-*", WHY_TLS },
	{ B, "no-ca-names", WHY_TLS },
	{ B, "sigalgs", WHY_TLS },
	{ B, "client-sigalgs", WHY_TLS },
	{ B, "ktls", WHY_TLS },
	{ B, "ssl-*", WHY_TLS },
	{ B, "quic-*", WHY_QUIC },
	{ B, "guid-prefix", "guids are not implemented yet" },
	{ B, "idle-ping", WHY_H2 },
	{ B, "nbconn", "'nbconn' applies to reverse HTTP, which is not implemented" },
	{ B, "label", "listener labels are not implemented yet" },
	/* server options */
	{ S, "check-*", WHY_CHECKS },
	{ S, "no-check-*", WHY_CHECKS },
	{ S, "allow-0rtt", WHY_TLS },
	{ S, "ssl-*", WHY_TLS },
	{ S, "sni-auto", WHY_TLS },
	{ S, "set-proxy-v2-tlv-fmt", WHY_PP },
	{ S, "no-tfo", "TCP fast open is not implemented yet" },
	{ S, "log-proto", "log servers are not implemented yet" },
	{ S, "socks4", "SOCKS4 is not implemented yet" },
	{ S, "hash-key", "hash-based load balancing is not implemented yet" },
	{ S, "pool-conn-name", "idle connection pool tuning is not implemented yet" },
	{ S, "idle-ping", WHY_H2 },
	{ S, "strict-maxconn", "strict-maxconn is not implemented yet" },
	{ 0, NULL, NULL },
};

#undef G
#undef P
#undef O
#undef B
#undef S

/* True if <pat> (a trailing '*' matching any suffix) matches <name>. */
static bool cfg_known_match(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	if (n && pat[n - 1] == '*')
		return strncmp(pat, name, n - 1) == 0;
	return strcmp(pat, name) == 0;
}

/* See cfg/cfg.h. */
const char *cfg_known_why(enum cfg_known_class cls, const char *name)
{
	const struct cfg_known *k;

	for (k = cfg_known_kws; k->name; k++) {
		if (k->cls == cls && k->why && cfg_known_match(k->name, name))
			return k->why;
	}
	return NULL;
}
