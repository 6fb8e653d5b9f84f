/* Types of rules and actions: one "http-request ACTION ... [if COND]" (and the http-response,
 * http-after-response and tcp-* forms) compiled at config time into an act_rule whose
 * action function runs on the stream. Actions are registered by the files that implement
 * them in keyword tables (action_kw), as HAProxy does.
 */
#ifndef STREAM_ACTION_T_H
#define STREAM_ACTION_T_H

#include <stdint.h>
#include <base/ist.h>
#include <base/list.h>
#include <sample/logfmt-t.h>
#include <sample/sample-t.h>

struct acl_cond;
struct proxy;
struct stream;
struct regex;
struct act_rule;
struct errorfile;
struct act_parse;
struct cond_index;

/* What an action function returns to the rule runner. */
enum act_return {
	ACT_RET_CONT = 0,         /* go on with the next rule */
	ACT_RET_STOP,             /* stop this rule set, go on with the exchange ("allow") */
	ACT_RET_YIELD,            /* run this rule again later (the stream is woken) */
	ACT_RET_ERR,              /* internal error: 500 (counted as a failed rewrite when
				   * rule->flags has ACT_FL_REWRITE) */
	ACT_RET_DONE,             /* the action answered or closed the exchange itself */
	ACT_RET_DENY,             /* deny with the rule's reply (or its status' error page) */
	ACT_RET_ABRT,             /* close without answering (reject, silent-drop) */
	ACT_RET_INV,              /* invalid message: 400 (request) or 502 (response) */
};

/* Where a rule runs (act_rule->from, action_kw->from bits). */
#define ACT_F_HTTP_REQ     0x01 /* http-request */
#define ACT_F_HTTP_RES     0x02 /* http-response */
#define ACT_F_HTTP_AFTER   0x04 /* http-after-response */
#define ACT_F_TCP_REQ_CON  0x08 /* tcp-request connection */
#define ACT_F_TCP_REQ_SES  0x10 /* tcp-request session */
#define ACT_F_TCP_REQ_CNT  0x20 /* tcp-request content */
#define ACT_F_TCP_RES_CNT  0x40 /* tcp-response content */
#define ACT_F_HTTP_ANY     (ACT_F_HTTP_REQ | ACT_F_HTTP_RES | ACT_F_HTTP_AFTER)
#define ACT_F_TCP_ANY      (ACT_F_TCP_REQ_CON | ACT_F_TCP_REQ_SES | ACT_F_TCP_REQ_CNT | \
			    ACT_F_TCP_RES_CNT)

/* act_rule->flags */
#define ACT_FL_FINAL   0x01 /* the action ends the rule set (deny, return, redirect...) */
#define ACT_FL_REWRITE 0x02 /* a failure is a failed rewrite */
#define ACT_FL_VERDICT 0x04 /* allow, deny, tarpit, accept, reject: once it ends its rule set,
			     * the stream keeps its file and line (last_rule_file/_line) */
#define ACT_FL_ASYNC   0x08 /* a yield waits for the action's own event (a Lua action
			     * sleeping or reading a socket), not for more data: the rule
			     * runs again even when the data are final */

/* One header added to a reply: "hdr NAME FMT". */
struct http_reply_hdr {
	struct ist name;          /* owned */
	struct lf_expr value;
};

/* reply->type */
enum http_reply_type {
	HTTP_REPLY_EMPTY = 0,     /* status line and headers only */
	HTTP_REPLY_ERRMSG,        /* a complete message from an errorfile (or the default page) */
	HTTP_REPLY_ERRFILES,      /* the page of an "errorfiles" section, found at check time */
	HTTP_REPLY_RAW,           /* body from "string" or "file" */
	HTTP_REPLY_LOGFMT,        /* body from "lf-string" or "lf-file" */
};

/* A response made by the proxy: return, deny/tarpit/auth with a custom reply, http-error. */
struct http_reply {
	uint8_t type;             /* enum http_reply_type */
	int status;
	struct ist ctype;         /* content-type, owned, may be empty */
	struct ist body;          /* RAW: owned */
	struct lf_expr body_fmt;  /* LOGFMT */
	const struct errorfile *errmsg; /* ERRMSG: NULL for the default page of <status> */
	uint8_t owns_errmsg;      /* errmsg was read from "errorfile FILE" (owned) */
	char *errfiles;           /* ERRFILES: section name until resolved (owned) */
	struct http_reply_hdr *hdrs;
	int nb_hdrs;
};

/* A run of rules whose conditions are indexed together (sample/cond_index.h); hung on
 * its first rule. */
struct act_block {
	struct cond_index *ci;
	unsigned int n;
	struct act_rule **rules;  /* the n rules, in order */
};

struct act_rule {
	struct list list;         /* member of a proxy's rule list */
	struct acl_cond *cond;    /* NULL: always */
	struct act_block *block;  /* first rule of an indexed run, or NULL */
	enum act_return (*action)(struct act_rule *rule, struct proxy *px, struct stream *s,
				  int from);
	void (*release)(struct act_rule *rule); /* frees arg (NULL: nothing to free) */
	int (*check)(struct act_rule *rule, struct proxy *px, char *err, size_t errsz);
	const char *kw;           /* action name, for messages (static) */
	uint8_t from;             /* ACT_F_* */
	uint8_t flags;            /* ACT_FL_* */
	char *file;
	int line;
	union {
		struct {                  /* set/add/del/replace-header, replace-value */
			struct ist name;      /* owned */
			struct lf_expr fmt;
			struct regex *re;
			int match;            /* del-header -m: PAT_MATCH_* */
		} hdr;
		struct http_reply *reply; /* return, deny, tarpit, auth... (owned) */
		struct {                  /* set-var, unset-var, set-var-fmt */
			struct var_desc var;
			struct sample_expr *expr;
			struct lf_expr fmt;
			struct acl_cond *set_cond; /* set-var(name,COND...) conditions */
			uint32_t conds;       /* VARCOND_* */
		} vars;
		struct {                  /* generic: an expression or a format and numbers */
			struct sample_expr *expr;
			struct lf_expr fmt;
			struct regex *re;
			struct ist str;       /* owned */
			long long i[4];
			void *p[2];
		} gen;
	} arg;
};

/* A registered action keyword. <parse> reads the words after the action name from
 * args[*pos] (stopping before "if"/"unless"), fills the rule (action, release, arg) and
 * advances *pos. Returns 0, or -1 with a message in err. */
struct action_kw {
	const char *kw;
	uint8_t from;             /* ACT_F_* where it is valid */
	uint8_t prefix;           /* the name is a prefix ("set-var(" ...) */
	int (*parse)(char **args, int *pos, int nargs, const struct act_parse *ap,
		     struct act_rule *rule, char *err, size_t errsz);
};

struct action_kw_list {
	struct action_kw_list *next;
	const struct action_kw *kws;
};

#endif
