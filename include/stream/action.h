/* Rules and actions (action.c): the action keyword registry, parsing of a rule line
 * "ACTION ARGS... [if|unless COND]" into an act_rule, and the rule runner. The HTTP
 * actions live in http_act*.c, the TCP ones in tcp_act.c; each registers its table.
 */
#ifndef STREAM_ACTION_H
#define STREAM_ACTION_H

#include <stdbool.h>
#include <base/list.h>
#include <sample/sample.h>
#include <stream/action-t.h>

struct cfg_ctx;

/* What a parser of an action sees besides its words. */
struct act_parse {
	struct proxy *px;	 /* the proxy (or defaults section) of the rule */
	struct smp_parse_ctx pc; /* file, line, where (SMP_VAL_*) for expressions */
	const char *set;	 /* "http-request", "tcp-request content"... */
	uint8_t from;		 /* ACT_F_* */
};

void action_register(struct action_kw_list *kwl);

#define ACT_REGISTER_KEYWORDS(tbl)                                    \
	static struct action_kw_list tbl##_list = { NULL, tbl };      \
	__attribute__((constructor)) static void tbl##_register(void) \
	{                                                             \
		action_register(&tbl##_list);                         \
	}

/* Parses a whole rule from ctx->args[first..] (the action word first) for the rule set
 * <from>, with the condition; appends it to <list>. Prints HAProxy's alert on error and
 * returns -1; 0 on success. Config time. */
int act_rule_parse_line(struct cfg_ctx *ctx, int first, uint8_t from, const char *set,
			struct list *list);
void act_rule_free(struct act_rule *r);
void act_rules_free(struct list *rules);
/* Runs every rule's check (names resolved after parsing); returns the number of errors. */
int act_rules_check(struct list *rules, struct proxy *px);

/* True when word args[i] starts a condition ("if"/"unless"). */
bool act_is_cond_word(const char *w);

/* Helpers for parsers: the next word if it is not a condition (NULL otherwise). */
const char *act_next_word(char **args, int *pos, int nargs);

/* Compiles a log-format argument; 0 or -1. */
int act_parse_fmt(struct lf_expr *lf, const char *text, const struct act_parse *ap, char *err,
		  size_t errsz);
/* Compiles a sample expression argument; NULL on error. */
struct sample_expr *act_parse_expr(const char *text, const struct act_parse *ap, char *err,
				   size_t errsz);

/* Runs the rules of <list> for <s> from rule set <from>. Returns ACT_RET_CONT when every
 * rule ran (or an "allow" stopped the set: *last is NULL then, or the allow rule), else the
 * result of the rule that stopped it, with *last set to it. Loop thread. */
enum act_return act_rules_run(struct list *list, struct proxy *px, struct stream *s, int from,
			      struct act_rule **last);

/* The smp_ctx of a stream for rules of <px> on the request or the response. */
void act_smp_ctx(struct smp_ctx *ctx, struct stream *s, struct proxy *px, int from);

#endif
