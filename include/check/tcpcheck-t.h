/* Types of rule-based checks ("option tcp-check" + "tcp-check" lines, and the protocol
 * checks built as fixed rule lists: ssl-hello, redis, smtp, mysql, pgsql, ldap): a rule
 * list built at parse time, read-only at run time, and the verdict of one expect rule.
 */
#ifndef CHECK_TCPCHECK_T_H
#define CHECK_TCPCHECK_T_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <base/ist.h>
#include <check/check-t.h>
#include <sample/sample-t.h>

struct regex;
struct lf_expr;
struct sample_expr;

/* Which check a proxy runs when it is not a plain connect or an HTTP check. */
enum tcpchk_kind {
	TCPCHK_K_NONE = 0, /* TCP connect or "option httpchk" */
	TCPCHK_K_TCP,	   /* option tcp-check: the tcp-check lines */
	TCPCHK_K_SSL,	   /* option ssl-hello-chk */
	TCPCHK_K_REDIS,	   /* option redis-check */
	TCPCHK_K_SMTP,	   /* option smtpchk */
	TCPCHK_K_MYSQL,	   /* option mysql-check */
	TCPCHK_K_PGSQL,	   /* option pgsql-check */
	TCPCHK_K_LDAP,	   /* option ldap-check */
	TCPCHK_K_HTTP,	   /* option httpchk with an http-check sequence (httpchk_seq.c) */
	TCPCHK_K_EXT,	   /* option external-check (extcheck.c): no rules */
};

enum tcpchk_act {
	TCPCHK_ACT_CONNECT = 0,
	TCPCHK_ACT_SEND,
	TCPCHK_ACT_EXPECT,
	TCPCHK_ACT_SETVAR,   /* set-var(NAME) EXPR / set-var-fmt(NAME) FMT (tcpcheck_vars.c) */
	TCPCHK_ACT_UNSETVAR, /* unset-var(NAME) */
};

enum tcpchk_exp {
	TCPCHK_EXP_STRING = 0, /* substring */
	TCPCHK_EXP_RSTRING,    /* regex on the bytes */
	TCPCHK_EXP_BINARY,     /* bytes given in hex */
	TCPCHK_EXP_RBINARY,    /* regex on the upper-case hex dump of the bytes */
	TCPCHK_EXP_STRING_LF,  /* substring rendered from a log-format at run time */
	TCPCHK_EXP_BINARY_LF,  /* hex rendered from a log-format at run time */
	TCPCHK_EXP_MYSQL_HS,   /* built-in: a MySQL initial handshake packet */
	TCPCHK_EXP_MYSQL_OK,   /* built-in: the MySQL reply to the login */
	TCPCHK_EXP_LDAP,       /* built-in: a successful LDAPv3 bind response */
	TCPCHK_EXP_HTTP,       /* http-check expect status|rstatus|string|rstring (hexp) */
	TCPCHK_EXP_HTTP_HDR,   /* http-check expect hdr|fhdr */
};

/* How "http-check expect hdr" compares a name or a value ("-m"). */
enum tcpchk_hmeth {
	TCPCHK_HM_STR = 0,
	TCPCHK_HM_BEG,
	TCPCHK_HM_END,
	TCPCHK_HM_SUB,
	TCPCHK_HM_REG,
};

/* What a built-in expect reports as info (instead of a log-format). */
enum tcpchk_info {
	TCPCHK_INFO_NONE = 0,
	TCPCHK_INFO_LINE, /* the reply up to the first CR or LF */
	TCPCHK_INFO_SMTP, /* the reply after its 3-digit code and blanks, up to CR/LF */
	TCPCHK_INFO_NUL,  /* from info_err_off up to a NUL byte (PostgreSQL error fields) */
};

/* One rule. Strings are owned by the rule. */
struct tcpchk_rule {
	int act;       /* enum tcpchk_act */
	char *comment; /* "comment C" (or a preceding "tcp-check comment"), or NULL */
	/* connect */
	int port;		      /* 0: the server's check port */
	struct sockaddr_storage addr; /* ss_family 0: the server's check address */
	bool linger;		      /* close with RST (SO_LINGER 0) */
	bool deflt;		      /* "default": the server's check settings (TLS) */
	bool send_proxy;	      /* "send-proxy": a PROXY header first (check/check_pp.c) */
	/* send: the bytes, or a log-format rendered per run (binary: rendered as hex) */
	char *data;
	size_t len;
	struct lf_expr *lf;
	bool lf_hex;
	/* expect */
	int kind; /* enum tcpchk_exp */
	bool negate;
	int min_recv;				/* -1: none */
	char *pattern;				/* as written (string, regex, hex) */
	char *bin;				/* BINARY: the decoded bytes (len in <len>) */
	struct regex *re;			/* RSTRING, RBINARY */
	struct lf_expr *plf;			/* STRING_LF, BINARY_LF */
	int ok_status, err_status, tout_status; /* enum chk_result */
	struct lf_expr *on_success, *on_error;
	int info_ok, info_err; /* enum tcpchk_info */
	bool code_smtp;	       /* the reply's 3-digit code is the check's code */
	const char *ok_msg;    /* static info on success, or NULL */
	const char *err_msg;   /* static info on failure, or NULL */
	int info_err_off;      /* TCPCHK_INFO_NUL: where the text starts */
	/* HTTP (httpchk_seq.c): a send's header block ends at data[hdr_end] (where
	 * send-state inserts its header); an expect's status/body test or header test */
	size_t hdr_end;
	bool http_state;
	struct chk_expect hexp;
	char *hname, *hval;  /* hdr/fhdr: name and value patterns (hval may be NULL) */
	int hname_m, hval_m; /* enum tcpchk_hmeth */
	struct regex *hname_re, *hval_re;
	bool hfull; /* fhdr: the whole value, not each comma-separated one */
	/* set-var / unset-var (tcpcheck_vars.c): the variable, an expression or a format */
	struct var_desc var;
	uint32_t vconds; /* VARCOND_* */
	struct sample_expr *vexpr;
	struct lf_expr *vfmt;
	/* expect "status-code EXPR": the check code reported (tcpcheck_vars.c) */
	struct sample_expr *code_expr;
	/* http-check send uri-lf / body-lf: rendered per run, the URI at data[uri_off] */
	struct lf_expr *ulf, *blf;
	size_t uri_off;
};

#define TCPCHK_F_BUILTIN 0x01 /* a protocol check: no "at step N" in messages */

/* A rule list: what a check does, in order. */
struct tcpchk_rules {
	struct tcpchk_rule *r;
	int n;
	uint32_t flags;	   /* TCPCHK_F_* */
	char *pending_cmt; /* "tcp-check comment" waiting for its rule (parse time) */
};

/* The "option httpchk" and "http-check" lines of a proxy as written (httpchk_seq.c),
 * turned into a rule list at check time when they are more than one request and one
 * expect. */
struct httpchk_line {
	char *file;
	int line;
	int nargs;
	char **args;
};

struct httpchk_seq {
	struct httpchk_line *l;
	int n;
};

/* Verdict of one expect rule on the bytes received so far. */
enum tcpchk_v {
	TCPCHK_V_MORE = 0, /* wait for more bytes */
	TCPCHK_V_OK,	   /* go to the next rule */
	TCPCHK_V_FAIL,	   /* the check failed */
};

struct tcpchk_verdict {
	int v;		 /* enum tcpchk_v */
	int status;	 /* enum chk_result, on FAIL (and OK for built-in end rules) */
	int code;	 /* the check code (MySQL error number, SMTP code) */
	bool empty;	 /* FAIL because nothing was received */
	bool matched;	 /* FAIL of a negated rule: it matched */
	struct ist info; /* built-in detail, a view into the input or static text */
};

#endif
