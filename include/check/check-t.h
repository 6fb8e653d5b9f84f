/* Types of health checks: the HTTP check settings of a backend (parse time), the request
 * and expectation built from them (check time), the parsed response of a check, and the
 * per-server check state (run time, owned by one thread).
 */
#ifndef CHECK_CHECK_T_H
#define CHECK_CHECK_T_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <base/ist.h>
#include <event/loop-t.h>
#include <sample/vars-t.h>

struct regex;
struct server;
struct proxy;
struct tcpchk_rules;

enum chk_exp_kind {
	CHK_EXP_NONE = 0, /* default: a 2xx or 3xx status */
	CHK_EXP_STATUS,	  /* "status CODES": codes and ranges, comma separated */
	CHK_EXP_RSTATUS,  /* "rstatus REGEX" on the status code */
	CHK_EXP_STRING,	  /* "string TEXT" in the body */
	CHK_EXP_RSTRING,  /* "rstring REGEX" on the body */
};

/* "option httpchk" and "http-check" lines of one proxy or defaults section. Strings are
 * owned; a proxy shares its defaults' block until it changes it (copy on write). */
struct chk_http_cfg {
	bool enabled; /* "option httpchk" (else the http-check lines are unused) */
	char *file;   /* where "option httpchk" or the first http-check line is */
	int line;
	char *meth;    /* NULL: OPTIONS */
	char *uri;     /* NULL: / */
	char *ver;     /* NULL: HTTP/1.0; may carry "\r\n"-separated headers */
	char *hdrs;    /* "name: value\r\n"... from "http-check send hdr" */
	char *body;    /* "http-check send body", or NULL */
	int expect;    /* enum chk_exp_kind */
	bool negate;   /* "expect !" */
	char *pattern; /* the expect argument */
	bool disable_on_404;
};

/* What a check expects, resolved at check time (regex compiled). */
struct chk_expect {
	int kind; /* enum chk_exp_kind */
	bool negate;
	struct ist pattern;
	const struct regex *re; /* RSTATUS, RSTRING */
	bool disable_on_404;
};

/* Runtime HTTP check of a backend, built at check time, read-only afterwards. */
struct chk_proxy {
	char *req; /* the whole request, sent as is */
	size_t req_len;
	struct chk_expect exp;
	struct regex *re; /* owned, exp.re */
};

/* A parsed check response: views into the input. */
struct chk_http_rsp {
	int status;
	struct ist reason;
	struct ist body; /* what was received of the body */
};

/* Results of one check run, in the wording of "show stat" check_status. */
enum chk_result {
	CHK_R_NONE = 0,
	CHK_R_L4OK,	/* connected (TCP check) */
	CHK_R_L4CON,	/* connection error */
	CHK_R_L4TOUT,	/* connect timeout */
	CHK_R_L7OK,	/* expected response */
	CHK_R_L7OKC,	/* 404 with disable-on-404: up but not for new traffic */
	CHK_R_L7STS,	/* unexpected status or content */
	CHK_R_L7RSP,	/* invalid response */
	CHK_R_L7TOUT,	/* response timeout */
	CHK_R_SOCKERR,	/* could not create or send on the socket */
	CHK_R_L6OK,	/* ssl-hello-chk: a TLS record came back */
	CHK_R_L6RSP,	/* ssl-hello-chk: not TLS */
	CHK_R_L6TOUT,	/* ssl-hello-chk: no answer in time */
	CHK_R_PROCERR,	/* external check: non-zero exit, or could not run */
	CHK_R_PROCTOUT, /* external check: still running at the deadline (killed) */
	CHK_R_PROCOK,	/* external check: exit code 0 */
};

/* One server's check. Everything but <srv> and the settings is touched only by the
 * thread <tid> that runs it. */
struct check {
	struct server *srv;
	const struct chk_proxy *http; /* NULL: TCP connect check */
	int tid;		      /* thread that runs it */
	int first_ms;		      /* delay of the first run (spread over inter) */
	struct timer timer;	      /* next run, or the deadline of the current one */
	struct fd_handler fh;	      /* fh.fd >= 0 while a run is in progress */
	int phase;		      /* CHK_PH_* */
	int health;		      /* 0..rise+fall-1; up when >= rise */
	uint64_t start_ms;	      /* start of the current run */
	uint64_t conn_deadline;	      /* end of the connect phase */
	size_t sent;		      /* bytes of the request sent */
	size_t rcvd;		      /* bytes in <buf> */
	size_t bufsize;
	char *buf; /* response buffer, allocated once at start */
	/* rule-based checks (tcpcheck_run.c) */
	const struct tcpchk_rules *tcp; /* NULL: connect or HTTP check */
	int tstep;			/* rule being run */
	bool teof;			/* the peer closed (or the buffer is full) */
	bool tconn_rule;		/* the connect in progress is rules[tstep] */
	bool tsending;			/* rules[tstep] is a send under way */
	int tcode;			/* code of the last SMTP reply */
	size_t slen;			/* bytes to send in <sbuf> */
	char *sbuf;			/* rendered send data, <bufsize> bytes */
	char *hex;			/* hex dump room, 2 * <bufsize> + 1 bytes */
	/* external checks (extcheck.c) */
	bool ext;	 /* "option external-check" */
	bool ext_killed; /* the deadline passed: the command was killed */
	int ext_pid;	 /* the command while it runs, else 0 */
	char *ext_mem;	 /* argv, envp and their strings, built per run */
	/* check variables (tcpcheck_vars.c): [0] check.*, [1] sess.*, emptied at each run */
	struct vars vars[2];
	/* TLS (check_ssl.c): the run's TLS object, and whether its handshake is under way */
	struct ssl_st *ssl;
	bool ssl_hs;
};

#endif
