/* Rule-based checks: the pure parts (tcpcheck.c: expect matching, hex coding, protocol
 * reply parsers), the runtime (tcpcheck_run.c) and the config (tcpcheck_cfg.c).
 * Pure functions take (ptr, len) and never allocate; verdicts are TCPCHK_V_*.
 */
#ifndef CHECK_TCPCHECK_H
#define CHECK_TCPCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <check/check-t.h>
#include <check/tcpcheck-t.h>

struct proxy;

/* Decodes the hex string <hex> into out[0..outsz). Returns the byte count, or -1 when
 * <hex> is empty, of odd length, not hex, or does not fit. */
int tcpchk_hex_decode(const char *hex, size_t hexlen, char *out, size_t outsz);

/* Writes the upper-case hex dump of in[0..len) and a NUL into out (2*len+1 bytes). */
void tcpchk_hex_dump(const char *in, size_t len, char *out);

/* Evaluates expect rule <r> on buf[0..len); <last_read>: no more bytes can come.
 * <pat>/<patlen> is the pattern for the *_LF kinds (rendered by the caller; for
 * BINARY_LF already decoded), ignored otherwise. <hex> is scratch room for RBINARY
 * (2*len+1 bytes), NULL otherwise. Fills <v>. */
void tcpchk_expect_eval(const struct tcpchk_rule *r, const char *buf, size_t len, bool last_read,
			const char *pat, size_t patlen, char *hex, struct tcpchk_verdict *v);

/* MySQL: the server's first packet (<want_ok> false) or the reply to the login that
 * follows it (<want_ok> true). On OK, <v>.info is the server version. */
void tcpchk_mysql_eval(const char *buf, size_t len, bool last_read, bool want_ok,
		       struct tcpchk_verdict *v);

/* LDAP: a bindResponse with resultCode success. */
void tcpchk_ldap_eval(const char *buf, size_t len, bool last_read, struct tcpchk_verdict *v);

/* The built-in info <kind> (enum tcpchk_info) taken from buf[0..len). */
struct ist tcpchk_info_view(int kind, int off, const char *buf, size_t len);

/* True if a header of the HTTP response in buf[0..len) (status line first) satisfies the
 * hdr/fhdr test of <r> ("!" not applied). */
bool tcpchk_http_hdr_match(const struct tcpchk_rule *r, const char *buf, size_t len);

/* The 3-digit code at the start of an SMTP reply, or 0. */
int tcpchk_smtp_code(const char *buf, size_t len);

/* Runtime (tcpcheck_run.c), called by check.c on the check's thread for checks with
 * rules: start a run, handle socket events, handle the run's timer. */
void tcpchk_start(struct check *c);
void tcpchk_io(struct check *c, uint32_t events);
void tcpchk_timeout(struct check *c);

/* Config (tcpcheck_cfg.c): the rules a proxy's checks run, or NULL (connect/HTTP);
 * frees a rule list. */
const struct tcpchk_rules *tcpchk_proxy_rules(const struct proxy *px);
void tcpchk_rules_free(struct tcpchk_rules *rs);
struct cfg_ctx;
/* Config helpers shared with httpchk_seq.c: appends a rule with the defaults (NULL when
 * out of memory); parses "... connect ..." args into a rule; a status name of
 * ok-status/error-status/tout-status (<kw>). Return 0 or -1 after an alert. */
struct tcpchk_rule *tcpchk_add(struct tcpchk_rules *rs, int act);
int tcpchk_kw_connect(struct cfg_ctx *ctx, struct tcpchk_rules *rs);
int tcpchk_status(struct cfg_ctx *ctx, const char *kw, const char *v, int *out);

/* HTTP check sequences (httpchk_seq.c): records an "http-check" line of ctx->px (0 or -1);
 * at check time builds the rule list of a proxy whose http-check lines are more than one
 * request and one expect (1 built, 0 not needed, -1 error alerted); frees the lines. */
int httpchk_seq_record(struct cfg_ctx *ctx);
/* Parses an "http-check send|expect|set-var|unset-var" line into a throw-away rule, for
 * its errors at parse time. 0 or -1 alerted. */
int httpchk_seq_validate(struct cfg_ctx *ctx);
int httpchk_seq_build(struct proxy *px);
void httpchk_seq_free(struct proxy *px);

/* Variables and expressions (tcpcheck_vars.c). Config: "set-var(N) EXPR",
 * "set-var-fmt(N) FMT", "unset-var(N)" in ctx->args[1..] as a rule of <rs> (0 or -1
 * alerted); an expression valid in a check (NULL alerted); a log-format (tcpcheck_cfg.c,
 * 0 or -1 alerted); frees a rule's variable fields. Run time, check's thread: the
 * sample context of a check (its variables are visible until tcpchk_smp_done());
 * empties its variables (start of a run, thread stop); runs a set/unset rule; the code
 * of expect <r> ("status-code", else <dflt>). */
int tcpchk_kw_var(struct cfg_ctx *ctx, struct tcpchk_rules *rs);
struct sample_expr *tcpchk_parse_expr(struct cfg_ctx *ctx, const char *kw, const char *text);
int tcpchk_lf_compile(struct cfg_ctx *ctx, const char *kw, const char *s, struct lf_expr **out);
void tcpchk_var_clear(struct tcpchk_rule *r);
struct smp_ctx;
void tcpchk_smp_ctx(struct check *c, struct smp_ctx *ctx);
void tcpchk_smp_done(void);
void tcpchk_vars_reset(struct check *c);
void tcpchk_do_var(struct check *c, const struct tcpchk_rule *r);
int tcpchk_code(struct check *c, const struct tcpchk_rule *r, int dflt);

/* Frees the rule lists <px> owns. */
void tcpchk_proxy_free(struct proxy *px);

#endif
