/* Types of compiled log-format strings: a list of nodes (literal text, a sample
 * expression "%[...]", or a variable such as "%ci") with their flags. Built at config
 * time, rendered at run time without parsing.
 */
#ifndef SAMPLE_LOGFMT_T_H
#define SAMPLE_LOGFMT_T_H

#include <stdint.h>
#include <base/ist.h>

struct sample_expr;
struct smp_ctx;
struct lf_tag;

/* lf_node->flags ("%{+Q,+X,+E}") */
#define LF_F_QUOTE 0x01	    /* +Q: double quotes around the value */
#define LF_F_HEX 0x02	    /* +X: integers in hexadecimal */
#define LF_F_ESC 0x04	    /* +E: escape '"', '\\' and ']' */
#define LF_F_MANDATORY 0x08 /* a missing value renders as "-" (log lines) */

enum lf_node_type {
	LF_TEXT = 0, /* literal text */
	LF_EXPR,     /* %[expr] */
	LF_TAG,	     /* %name */
};

struct lf_node {
	uint8_t type;		  /* enum lf_node_type */
	uint8_t flags;		  /* LF_F_* */
	struct ist text;	  /* LF_TEXT: owned */
	struct sample_expr *expr; /* LF_EXPR: owned */
	const struct lf_tag *tag; /* LF_TAG */
};

struct lf_expr {
	int nb;
	uint32_t use;	       /* SMP_USE_* of every expression */
	struct lf_node *nodes; /* nb entries (owned) */
};

/* A log-format variable: renders into out[0..outsz); returns the length, 0 for "no value",
 * or -1 when it does not fit. */
struct lf_tag {
	const char *name;
	/* either a render function, or a sample expression evaluated like "%[expr]" with the
	 * tag's flags ("+X" writes integers in hex, "+Q" quotes strings) */
	int (*render)(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags);
	uint32_t use;	     /* SMP_USE_* */
	const char *expr;    /* the expression of an expression tag */
	const char *prefix;  /* written before a non-empty value ("?" for %HQ) */
	const char *missing; /* written when the expression finds nothing ("<NOSRV>") */
};

struct lf_tag_list {
	struct lf_tag_list *next;
	const struct lf_tag *tags; /* terminated by a NULL name */
};

#endif
