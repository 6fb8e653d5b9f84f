/* Proxy objects: creation from sections, defaults inheritance, lookup by name. */
#ifndef PROXY_PROXY_H
#define PROXY_PROXY_H

#include <proxy/proxy-t.h>

extern struct proxy *proxies;  /* all frontends/backends/listens, config order */
/* The id HAProxy gives the first proxy (fe_id, be_id): 2 when the runtime API is
 * configured (its internal proxy takes 1), else 1; the others follow in config order. */
extern int proxy_first_id;

/* The defaults sections, most recent first, linked by ->next. */
struct proxy *proxy_defaults_first(void);

/* Finds a proxy having all of <cap> by name; NULL if none. */
struct proxy *proxy_find(const char *name, uint32_t cap);

/* Runs the post-parse checks over every proxy: resolves backend and server names,
 * builds "return" responses, rejects impossible combinations. Prints alerts with file:line.
 * Returns the number of errors.
 */
int proxy_check_all(void);

/* Timeout, options and errorfile lookups used at run time. */
const struct errorfile *proxy_errorfile(const struct proxy *px, int status);

/* Frees every proxy and defaults section with all they own (binds, listeners, servers,
 * rules, switching rules, errorfiles); leaves `proxies` empty. Sockets are not closed and
 * LB private state must have been released by its owner. For tests and clean exits.
 */
void proxy_deinit_all(void);
/* Set by the rule layer: frees what it attached to a proxy (rules, ACLs, switching rules,
 * rules_ext). */
extern void (*proxy_rules_free_hook)(struct proxy *px);
/* Set by check/: frees what health checks hang on a proxy. */
extern void (*proxy_check_free_hook)(struct proxy *px);
/* Frees the DNS state of the servers of <px> (dns/dns_srv_cfg.c). */
extern void (*proxy_dns_free_hook)(struct proxy *px);
/* log/log_cfg.c: copies the defaults' loggers and log-tag; frees a proxy's */
extern int (*proxy_log_inherit_hook)(struct proxy *px, const struct proxy *def);
extern void (*proxy_log_free_hook)(struct proxy *px);
/* stats/stats_page_cfg.c: frees px->stats when the proxy owns it */
extern void (*proxy_stats_free_hook)(struct proxy *px);
/* log/log_strm.c: frees a proxy's log formats and options (px->log_conf, strm_log) */
extern void (*proxy_strm_log_free_hook)(struct proxy *px);
extern void (*proxy_no_log_hook)(struct proxy *px); /* "no log" */
extern void (*proxy_flt_free_hook)(struct proxy *px); /* the filters (stream/filter.c) */
extern void (*proxy_comp_free_hook)(struct proxy *px); /* px->comp (comp/comp_cfg.c) */

#endif
