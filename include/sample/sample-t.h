/* Types of the sample engine: samples and their types, fetch and converter descriptors,
 * their arguments, and compiled expressions "fetch(args),conv(args),...". Everything is
 * built at config time and read-only at run time; a sample under evaluation lives on the
 * caller's stack.
 */
#ifndef SAMPLE_SAMPLE_T_H
#define SAMPLE_SAMPLE_T_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <base/ist.h>

struct stream;
struct conn;
struct proxy;
struct server;
struct regex;
struct userlist;
struct map_desc;
struct stktable;

/* Sample types; SMP_T_ANY and SMP_T_ADDR only appear in declarations. */
enum smp_type {
	SMP_T_ANY = 0, /* declared output: any type */
	SMP_T_BOOL,    /* u.sint is 0 or 1 */
	SMP_T_SINT,    /* u.sint, signed 64-bit */
	SMP_T_ADDR,    /* declared input: IPv4 or IPv6 */
	SMP_T_IPV4,    /* u.ipv4 */
	SMP_T_IPV6,    /* u.ipv6 */
	SMP_T_STR,     /* u.str, text */
	SMP_T_BIN,     /* u.str, bytes */
	SMP_T_METH,    /* u.str, an HTTP method name */
	SMP_TYPES
};

struct sample_data {
	int type; /* enum smp_type */
	union {
		long long sint;
		struct in_addr ipv4;
		struct in6_addr ipv6;
		struct ist str;
	} u;
};

/* sample->flags */
#define SMP_F_CONST 0x0001	/* u.str is not writable by converters (copy first) */
#define SMP_F_NOT_LAST 0x0002	/* a multi-value fetch has more values after this one */
#define SMP_F_MAY_CHANGE 0x0004 /* the answer may change with more data: ask again */
#define SMP_F_VOL_TXN 0x0008	/* depends on the transaction (cannot be cached further) */
#define SMP_F_ITER                                                          \
	0x0010 /* input: the caller (an ACL) walks every value of a         \
		* multi-value fetch; without it such a fetch gives its last \
		* value */

/* Where a sample is taken: what a fetch may look at. Set by the rule runner. */
struct smp_ctx {
	struct stream *strm; /* the stream, or NULL (connection rules, checks, config) */
	struct conn *conn;   /* the client connection, or NULL */
	struct proxy *px;    /* the proxy whose rule is being evaluated */
	uint32_t opt;	     /* SMP_OPT_* */
};

/* smp_ctx->opt */
#define SMP_OPT_DIR_REQ 0x0000 /* evaluating on the request */
#define SMP_OPT_DIR_RES 0x0001 /* evaluating on the response */
#define SMP_OPT_DIR 0x0001
#define SMP_OPT_FINAL 0x0002   /* no more data will come: answer now */
#define SMP_OPT_ITERATE 0x0004 /* an ACL walks every value of a multi-value fetch */

struct sample {
	struct sample_data data;
	uint32_t flags; /* SMP_F_* */
	const struct smp_ctx *ctx;
	uint32_t it; /* iteration state of multi-value fetches (next index) */
	uint32_t it2;
};

/* Argument types of fetches and converters. */
enum arg_type {
	ARGT_STOP = 0, /* end of the list */
	ARGT_SINT,     /* signed integer */
	ARGT_STR,      /* string */
	ARGT_IPV4,     /* IPv4 address */
	ARGT_MSK4,     /* IPv4 mask (bits or dotted) */
	ARGT_IPV6,
	ARGT_MSK6,
	ARGT_TIME, /* delay, ms by default */
	ARGT_SIZE, /* size, bytes, with k/m/g suffixes */
	ARGT_FE,   /* frontend name, resolved at check time */
	ARGT_BE,   /* backend name, resolved at check time */
	ARGT_TAB,  /* stick table name, resolved at check time (stream/) */
	ARGT_SRV,  /* "backend/server", resolved at check time */
	ARGT_USR,  /* userlist name, resolved at check time */
	ARGT_MAP,  /* map file, loaded by the converter's check */
	ARGT_REG,  /* regex, compiled by the converter's check */
	ARGT_VAR,  /* variable "scope.name" */
	ARGT_TYPES
};

/* Scopes of variables. */
enum var_scope {
	VS_PROC = 0, /* the whole process */
	VS_SESS,     /* the client connection */
	VS_TXN,	     /* the request/response exchange */
	VS_REQ,	     /* the request */
	VS_RES,	     /* the response */
	VS_CHECK,    /* a health check */
	VS_SCOPES
};

/* A variable name compiled at config time. */
struct var_desc {
	uint8_t scope; /* enum var_scope */
	uint32_t id;   /* index in the name registry (vars.c) */
};

struct arg {
	uint8_t type;	    /* enum arg_type */
	uint8_t unresolved; /* a name waiting for the check phase (FE, BE, SRV, TAB, USR) */
	uint8_t owns;	    /* ARG_OWN_*: what arg_free_list() frees */
	union {
		long long sint;
		struct ist str; /* owned, NUL-terminated */
		struct in_addr ipv4;
		struct in6_addr ipv6;
		struct proxy *px;   /* FE, BE */
		struct stktable *t; /* TAB */
		struct server *srv;
		struct userlist *usr;
		struct regex *reg;
		struct map_desc *map;
		struct var_desc var;
	} data;
};

/* arg->owns */
#define ARG_OWN_NONE 0 /* nothing (numbers, resolved names, maps: owned by map.c) */
#define ARG_OWN_STR 1  /* data.str.ptr (malloc'd) */
#define ARG_OWN_REG 2  /* data.reg (regex_free) */

#define SMP_MAX_ARGS 5

/* What a fetch depends on (sample_fetch->use), compared with where a rule runs. */
#define SMP_USE_INTRN 0x0001 /* internal state only: valid everywhere */
#define SMP_USE_L4CLI 0x0002 /* the client connection (addresses) */
#define SMP_USE_L6REQ 0x0004 /* request bytes (tcp-request content) */
#define SMP_USE_HRQHV 0x0008 /* HTTP request line and headers */
#define SMP_USE_HRQBO 0x0010 /* HTTP request body */
#define SMP_USE_BKEND 0x0020 /* the backend (chosen) */
#define SMP_USE_SERVR 0x0040 /* the server (chosen) */
#define SMP_USE_L6RES 0x0080 /* response bytes */
#define SMP_USE_HRSHV 0x0100 /* HTTP response status and headers */
#define SMP_USE_HRSBO 0x0200 /* HTTP response body */

/* Where a rule runs (smp_where bits), checked against SMP_USE_* by sample_check_use(). */
#define SMP_VAL_CON_ACC 0x0001 /* tcp-request connection */
#define SMP_VAL_SES_ACC 0x0002 /* tcp-request session */
#define SMP_VAL_REQ_CNT 0x0004 /* tcp-request content */
#define SMP_VAL_HRQ_HDR 0x0008 /* http-request, use_backend, use-server, redirect, stick */
#define SMP_VAL_RES_CNT 0x0010 /* tcp-response content */
#define SMP_VAL_HRS_HDR 0x0020 /* http-response, http-after-response */
#define SMP_VAL_LOG_END 0x0040 /* log-format at the end of the exchange */
#define SMP_VAL_CFG 0x0080     /* global set-var at config time */
#define SMP_VAL_CHECK 0x0100   /* health checks */
#define SMP_VAL_BE 0x1000      /* modifier: the rule belongs to a backend */

struct sample_fetch;
struct sample_conv;

/* Fetch function: fills smp->data; returns 1 when a sample was found, 0 otherwise. */
typedef int (*smp_fetch_fn)(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw);
/* Converter function: transforms smp->data in place; 1 on success, 0 to fail the chain. */
typedef int (*smp_conv_fn)(const struct arg *args, struct sample *smp, void *private);
/* Parse-time validation of arguments (compile a regex, load a map, check a range).
 * Returns 0, or -1 with a message in err. */
typedef int (*smp_val_fn)(struct arg *args, void *private, char *err, size_t errsz);

struct sample_fetch {
	const char *kw;
	smp_fetch_fn fn;
	uint8_t arg_min;		 /* mandatory arguments */
	uint8_t arg_types[SMP_MAX_ARGS]; /* ARGT_*, ARGT_STOP-terminated */
	smp_val_fn val;
	uint8_t out_type; /* SMP_T_* */
	uint32_t use;	  /* SMP_USE_* */
	int private;	  /* a small constant the function reads */
};

struct sample_conv {
	const char *kw;
	smp_conv_fn fn;
	uint8_t arg_min;
	uint8_t arg_types[SMP_MAX_ARGS];
	smp_val_fn val;
	uint8_t in_type; /* SMP_T_* accepted (cast to it first) */
	uint8_t out_type;
	void *private;
};

struct sample_conv_expr {
	const struct sample_conv *conv;
	struct arg *args; /* ARGT_STOP-terminated, NULL when none */
};

#define SMP_MAX_CONVS 16

/* "fetch(args),conv1(args),conv2..." compiled. */
struct sample_expr {
	const struct sample_fetch *fetch;
	struct arg *args;
	uint8_t nconv;
	struct sample_conv_expr conv[]; /* nconv entries */
};

/* A list of keywords registered by a module. */
struct sample_fetch_kw_list {
	struct sample_fetch_kw_list *next;
	const struct sample_fetch *kws; /* terminated by an entry with kw NULL */
};

struct sample_conv_kw_list {
	struct sample_conv_kw_list *next;
	const struct sample_conv *kws;
};

#endif
