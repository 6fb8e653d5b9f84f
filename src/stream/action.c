/* Rules: the action keyword registry, the parsing of a rule line with its condition
 * (messages in HAProxy's shape), freeing, the check-phase hooks of actions, and the runner
 * that evaluates conditions and calls the actions in order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <conn/connection-t.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <proxy/proxy-t.h>
#include <sample/acl.h>
#include <sample/cond_index.h>
#include <sample/logfmt.h>
#include <stream/action.h>
#include <stream/stream.h>

static struct action_kw_list *act_kws;

void action_register(struct action_kw_list *kwl)
{
	kwl->next = act_kws;
	act_kws = kwl;
}

static const struct action_kw *action_find(const char *name, uint8_t from, bool *other_set)
{
	*other_set = false;
	for (const struct action_kw_list *l = act_kws; l; l = l->next) {
		for (const struct action_kw *k = l->kws; k->kw; k++) {
			bool hit = k->prefix ? !strncmp(name, k->kw, strlen(k->kw))
					     : !strcmp(name, k->kw);

			if (!hit)
				continue;
			if (k->from & from)
				return k;
			*other_set = true;
		}
	}
	return NULL;
}

bool act_is_cond_word(const char *w)
{
	return !strcmp(w, "if") || !strcmp(w, "unless");
}

const char *act_next_word(char **args, int *pos, int nargs)
{
	if (*pos >= nargs || act_is_cond_word(args[*pos]))
		return NULL;
	return args[(*pos)++];
}

int act_parse_fmt(struct lf_expr *lf, const char *text, const struct act_parse *ap, char *err,
		  size_t errsz)
{
	return lf_compile(lf, text, &ap->pc, err, errsz);
}

struct sample_expr *act_parse_expr(const char *text, const struct act_parse *ap, char *err,
				   size_t errsz)
{
	return sample_parse_expr(text, NULL, &ap->pc, err, errsz);
}

static void act_block_free(struct act_block *b)
{
	if (!b)
		return;
	cond_index_free(b->ci);
	free(b->rules);
	free(b);
}

void act_rule_free(struct act_rule *r)
{
	if (!r)
		return;
	act_block_free(r->block);
	if (r->release)
		r->release(r);
	acl_cond_free(r->cond);
	free(r->file);
	free(r);
}

void act_rules_free(struct list *rules)
{
	struct act_rule *r, *n;

	list_for_each_entry_safe(r, n, rules, list)
	{
		list_delete(&r->list);
		act_rule_free(r);
	}
}

#define ACT_BLOCK_MIN 2 /* shortest run of rules worth an index */

/* Hangs an index on the first rule of rules[0..n). Returns 0 or -1 (no memory: the rules
 * then run one by one, which is only slower). */
static int act_block_make(struct act_rule **rules, unsigned int n)
{
	struct act_block *b = calloc(1, sizeof(*b));
	struct acl_cond **conds = calloc(n, sizeof(*conds));

	if (!b || !conds)
		goto fail;
	b->rules = malloc(n * sizeof(*b->rules));
	if (!b->rules)
		goto fail;
	for (unsigned int i = 0; i < n; i++) {
		b->rules[i] = rules[i];
		conds[i] = rules[i]->cond;
	}
	b->n = n;
	b->ci = cond_index_build(conds, n);
	if (!b->ci)
		goto fail;
	free(conds);
	rules[0]->block = b;
	return 0;
fail:
	free(conds);
	act_block_free(b);
	return -1;
}

/* Finds the runs of consecutive rules with indexable conditions and indexes each. */
static void act_rules_index(struct list *rules)
{
	struct act_rule **run = NULL, *r;
	unsigned int n = 0, cap = 0;

	list_for_each_entry(r, rules, list)
	{
		if (r->cond && cond_indexable(r->cond)) {
			if (n == cap) {
				struct act_rule **nr =
					realloc(run, (cap ? cap * 2 : 16) * sizeof(*nr));

				if (!nr)
					break;
				run = nr;
				cap = cap ? cap * 2 : 16;
			}
			run[n++] = r;
			continue;
		}
		if (n >= ACT_BLOCK_MIN)
			act_block_make(run, n);
		n = 0;
	}
	if (n >= ACT_BLOCK_MIN)
		act_block_make(run, n);
	free(run);
}

int act_rules_check(struct list *rules, struct proxy *px)
{
	struct act_rule *r;
	char err[512];
	int errs = 0;

	list_for_each_entry(r, rules, list)
	{
		if (!r->check)
			continue;
		err[0] = 0;
		if (r->check(r, px, err, sizeof(err)) < 0) {
			ha_alert("parsing [%s:%d] : %s.\n", r->file, r->line, err);
			errs++;
		}
	}
	if (!errs)
		act_rules_index(rules);
	return errs;
}

/* SMP_VAL_* where a rule of <from> runs; SMP_VAL_BE when the proxy has a backend side
 * (listen and defaults sections included), where backend fetches are valid. */
static uint32_t act_where(uint8_t from, const struct proxy *px)
{
	uint32_t be = (px->cap & (PR_CAP_BE | PR_CAP_DEF)) ? SMP_VAL_BE : 0;

	switch (from) {
	case ACT_F_HTTP_REQ:
		return SMP_VAL_HRQ_HDR | be;
	case ACT_F_HTTP_RES:
	case ACT_F_HTTP_AFTER:
		return SMP_VAL_HRS_HDR | be;
	case ACT_F_TCP_REQ_CON:
		return SMP_VAL_CON_ACC;
	case ACT_F_TCP_REQ_SES:
		return SMP_VAL_SES_ACC;
	case ACT_F_TCP_REQ_CNT:
		return SMP_VAL_REQ_CNT | be;
	case ACT_F_TCP_RES_CNT:
		return SMP_VAL_RES_CNT | be;
	}
	return 0;
}

static const char *rule_set_desc(uint8_t from)
{
	switch (from) {
	case ACT_F_HTTP_REQ:
		return "http-request";
	case ACT_F_HTTP_RES:
		return "http-response";
	case ACT_F_HTTP_AFTER:
		return "http-after-response";
	case ACT_F_TCP_REQ_CON:
		return "tcp-request connection";
	case ACT_F_TCP_REQ_SES:
		return "tcp-request session";
	case ACT_F_TCP_REQ_CNT:
		return "tcp-request content";
	}
	return "tcp-response content";
}

/* Lists the actions valid for <from> into buf, HAProxy-style ("'allow', 'deny', ..."). */
static void act_list_names(uint8_t from, char *buf, size_t sz)
{
	size_t o = 0;

	buf[0] = 0;
	for (const struct action_kw_list *l = act_kws; l; l = l->next)
		for (const struct action_kw *k = l->kws; k->kw && o + 1 < sz; k++)
			if (k->from & from)
				o += (size_t)snprintf(buf + o, sz - o, "%s'%s%s'", o ? ", " : "",
						      k->kw,
						      !k->prefix			? ""
						      : k->kw[strlen(k->kw) - 1] == '(' ? "*)"
											: "*");
}

/* HAProxy actions this proxy knows but does not run: each is refused with its reason. */
static const struct {
	const char *name; /* a name ending in '(' or '.' is a prefix */
	const char *why;
} act_unsupported[] = {
#ifndef USE_LUA /* with Lua, src/lua/ owns every lua.NAME action */
	{ "lua.", "Lua support is not built in: USE_LUA=0" },
#endif
	{ "send-spoe-group", "SPOE is not supported" },
	{ "set-bandwidth-limit", "bandwidth limitation filters are not supported yet" },
	{ "ot-group", "OpenTracing is not supported" },
	{ "expect-netscaler-cip", "NetScaler CIP is not supported" },
	{ NULL, NULL },
};

static const char *act_unsupported_why(const char *name)
{
	for (int i = 0; act_unsupported[i].name; i++) {
		const char *n = act_unsupported[i].name;
		size_t len = strlen(n);
		bool prefix = n[len - 1] == '(' || n[len - 1] == '.';

		if (prefix ? !strncmp(name, n, len) : !strcmp(name, n))
			return act_unsupported[i].why;
	}
	return NULL;
}

int act_rule_parse_line(struct cfg_ctx *ctx, int first, uint8_t from, const char *set,
			struct list *list)
{
	struct proxy *px = ctx->px;
	struct act_parse ap = {
		.px = px,
		.pc = { ctx->file, ctx->line, px, act_where(from, px), rule_set_desc(from) },
		.set = set,
		.from = from,
	};
	const char *name = first < ctx->nargs ? ctx->args[first] : "";
	const struct action_kw *kw;
	struct act_rule *r;
	char err[1024] = "";
	bool other;
	int pos = first + 1;

	if (!*name) {
		cfg_alert(ctx, "'%s' expects an action.", set);
		return -1;
	}
	kw = action_find(name, from, &other);
	if (!kw) {
		const char *why = act_unsupported_why(name);
		char names[2048];

		if (why) {
			snprintf(names, sizeof(names), "%s %s", set, name);
			return proxy_cfg_later(ctx, names, why);
		}
		act_list_names(from, names, sizeof(names));
		cfg_alert(ctx, "'%s' expects %s, but got '%s'%s.", set, names, name,
			  other ? " (valid in another rule set)" : "");
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->file = strdup(ctx->file))) {
		free(r);
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	r->line = ctx->line;
	r->kw = kw->kw;
	r->from = from;
	if (kw->parse(ctx->args, &pos, ctx->nargs, &ap, r, err, sizeof(err)) < 0)
		goto fail;
	if (pos < ctx->nargs && !act_is_cond_word(ctx->args[pos])) {
		cfg_alert(ctx,
			  "'%s %s' expects either 'if' or 'unless' followed by a condition but "
			  "found '%s'.",
			  set, name, ctx->args[pos]);
		act_rule_free(r);
		return -1;
	}
	if (pos < ctx->nargs) {
		r->cond = acl_cond_parse(ctx->args + pos, ctx->nargs - pos, &px->acls, &ap.pc, err,
					 sizeof(err));
		if (!r->cond)
			goto fail;
	}
	list_append(list, &r->list);
	return 0;
fail:
	cfg_alert(ctx, "error detected in %s '%s' while parsing '%s %s' rule : %s.",
		  proxy_type_str(px), px->id, set, name, err);
	act_rule_free(r);
	return -1;
}

/* ---- run time ---- */

void act_smp_ctx(struct smp_ctx *ctx, struct stream *s, struct proxy *px, int from)
{
	ctx->strm = s;
	ctx->conn = s ? s->front : NULL;
	ctx->px = px;
	ctx->opt = (from & (ACT_F_HTTP_RES | ACT_F_HTTP_AFTER | ACT_F_TCP_RES_CNT))
			   ? SMP_OPT_DIR_RES | SMP_OPT_FINAL
			   : SMP_OPT_DIR_REQ | SMP_OPT_FINAL;
}

enum act_return act_rules_run(struct list *list, struct proxy *px, struct stream *s, int from,
			      struct act_rule **last)
{
	struct smp_ctx ctx;
	struct act_rule *r;

	act_smp_ctx(&ctx, s, px, from);
	*last = NULL;
	if (s)
		s->rule_list = list;
	if (s && s->resume_rule && s->resume_list == list) {
		/* a yielded rule runs again first, without its condition */
		r = s->resume_rule;
		s->resume_rule = NULL;
		s->resume_list = NULL;
		goto run;
	}
	if (s)
		s->flags &= ~SF_SOFT_RW; /* each rule set starts in strict mode */
	for (r = list_elem(list->next, struct act_rule, list); &r->list != list;
	     r = list_elem(r->list.next, struct act_rule, list)) {
		enum act_return ret;

		if (r->block) {
			/* an indexed run: rules before the first match cannot match */
			const struct act_block *b = r->block;
			unsigned int pos = cond_index_first(b->ci, &ctx);

			if (pos >= b->n) {
				r = b->rules[b->n - 1];
				continue;
			}
			/* the rules after it are evaluated one by one: the action may have
			 * changed what they look at */
			r = b->rules[pos];
		} else if (r->cond && !acl_cond_true(r->cond, &ctx)) {
			continue;
		}
	run:
		ret = r->action(r, px, s, from);
		if (ret == ACT_RET_CONT)
			continue;
		if (ret == ACT_RET_ERR && (r->flags & ACT_FL_REWRITE) && s &&
		    (s->flags & SF_SOFT_RW)) {
			stream_count_rewrite_soft(s); /* counted, not fatal */
			continue;
		}
		*last = r;
		if ((r->flags & ACT_FL_VERDICT) && s) {
			s->last_rule_file = r->file;
			s->last_rule_line = r->line;
		}
		if (ret == ACT_RET_YIELD && s) {
			s->resume_rule = r;
			s->resume_list = list;
		}
		return ret == ACT_RET_STOP ? ACT_RET_CONT : ret;
	}
	return ACT_RET_CONT;
}
