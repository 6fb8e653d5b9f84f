/* Config-time API of proxies, used by the keyword parsers of the proxy sections (proxy,
 * bind, server and rule keywords): creation with defaults inheritance, the defaults
 * sections, and the capability checks that print HAProxy's warnings. Single-threaded,
 * parse time only.
 */
#ifndef PROXY_PROXY_CFG_H
#define PROXY_PROXY_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cfg/cfg.h>
#include <proxy/proxy-t.h>

struct act_rule;

/* Creates a proxy <name> with capabilities <cap> (PR_CAP_DEF for a defaults section)
 * defined at <file>:<line>, starting as a copy of the settings of <defpx> (mode, options,
 * timeouts, retries, maxconn, backlog, default_backend, balance, forwardfor, monitor-uri,
 * errorfiles, default-server options; never binds, servers or rules), or of the built-in
 * defaults when NULL.
 * Defaults sections go to a private list (the last one becomes the default of the next
 * proxies); others are appended to `proxies`. Returns NULL on allocation failure.
 */
struct proxy *proxy_new(const char *name, uint32_t cap, const char *file, int line,
			const struct proxy *defpx);

/* Appends copies of the "default-server" option words args[0..nargs) to <px>. Returns 0,
 * or -1 when out of memory. */
int proxy_defsrv_append(struct proxy *px, char *const *args, int nargs);

/* The defaults section a proxy without "from" inherits: the last one declared, or NULL. */
struct proxy *proxy_defaults_last(void);

/* The last defaults section named <name>, or NULL. */
struct proxy *proxy_defaults_find(const char *name);

/* "frontend", "backend", "proxy" (listen) or "defaults", as HAProxy names them. */
const char *proxy_type_str(const struct proxy *px);

/* Checks that the current section has capability <cap> for keyword <kw>. A defaults
 * section has every capability. Otherwise prints HAProxy's warning "'kw' ignored because
 * backend 'x' has no frontend capability." and returns false: the caller then ignores the
 * line (returns 0).
 */
bool proxy_cfg_has_cap(struct cfg_ctx *ctx, uint32_t cap, const char *kw);

/* Refuses a keyword in a defaults section ("'kw' not allowed in 'defaults' section.").
 * Returns true (after the alert) when the current section is a defaults section.
 */
bool proxy_cfg_in_defaults(struct cfg_ctx *ctx, const char *kw);

/* Prints "'kw' cannot handle unexpected argument 'x'." when more than <max> arguments follow
 * the keyword's first <skip> words; returns -1 then, 0 otherwise.
 */
int proxy_cfg_max_args(struct cfg_ctx *ctx, int skip, int max);

/* Refuses <what> (e.g. "option httpchk", "balance leastconn"), which is not
 * implemented yet: "'what' is not supported yet (why)". Returns -1.
 */
int proxy_cfg_later(struct cfg_ctx *ctx, const char *what, const char *why);

/* Parses a time (default unit ms) or a decimal integer in [min, max] for the sub-keyword
 * <kw> (e.g. "timeout client", "weight"), printing an alert naming <kw> on error.
 * Return 0 or -1.
 */
int proxy_cfg_time(struct cfg_ctx *ctx, const char *kw, const char *s, int *ms);
int proxy_cfg_int(struct cfg_ctx *ctx, const char *kw, const char *s, long min, long max,
		  long *out);

/* Stores a copy of the complete HTTP response msg[0..len) as the errorfile of <status>
 * (replacing a previous one). Returns 0, or -1 on allocation failure or table full.
 */
int proxy_set_errorfile(struct proxy *px, int status, const char *msg, size_t len);

/* Error messages are resolved in config-line order: every line that sets one takes the next
 * number of this counter (++proxy_err_seq); a later line wins over an earlier one. */
extern uint32_t proxy_err_seq;
/* The same as proxy_set_errorfile() for the line numbered <seq>; or a reply built per
 * request (not owned by the proxy). Return 0 or -1. */
int proxy_set_errorfile_seq(struct proxy *px, int status, const char *msg, size_t len,
			    uint32_t seq);
int proxy_set_error_reply(struct proxy *px, int status, const struct http_reply *reply,
			  uint32_t seq);
/* Forgets the message of <status> (the default page is used again). */
void proxy_del_errorfile(struct proxy *px, int status);

/* True for the statuses an errorfile may replace (200, 400, 401, 403, 404, 405, 407, 408,
 * 410, 413, 425, 429, 500..504). */
bool proxy_cfg_err_code_ok(long code);

/* Reads the errorfile <path> for status <code_s> (keyword <kw> in messages): checks the
 * code, reads the file (an empty one means "close without answering") and checks that it
 * holds a complete HTTP response. Returns 0 with the status and a malloc'd copy in *out
 * (*outlen bytes), or -1 after an alert. */
int proxy_cfg_read_errorfile(struct cfg_ctx *ctx, const char *kw, const char *code_s,
			     const char *path, int *status, char **out, size_t *outlen);

/* Frees a rule and every view it owns (all of them: see stream/http_act_cfg.c). */

/* Replaces the owned string view <dst> with a copy of <s> (NULL or "" gives an empty view).
 * Returns 0 or -1 on allocation failure (dst unchanged).
 */
int proxy_ist_set(struct ist *dst, const char *s);

/* Set by check/: parses "[no] option httpchk ..." with args[a] = "httpchk". */
extern int (*proxy_httpchk_hook)(struct cfg_ctx *ctx, int a, bool neg);
/* Set by check/: parses "[no] option tcp-check|ssl-hello-chk|redis-check|smtpchk|
 * mysql-check|pgsql-check|ldap-check ..." with args[a] the option name. */
extern int (*proxy_chkopt_hook)(struct cfg_ctx *ctx, int a, bool neg);
/* Set by log/ (log_strm.c): the logging options (httplog, tcplog, dontlognull...). */
extern int (*proxy_logopt_hook)(struct cfg_ctx *ctx, int a, bool neg);

#endif
