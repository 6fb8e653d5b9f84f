/* The map and ACL actions of http-request and http-response: add-acl(FILE) KEYFMT,
 * del-acl(FILE) KEYFMT, set-map(FILE) KEYFMT VALUEFMT and del-map(FILE) KEYFMT. They
 * change the same references the runtime API's "add acl", "set map"... change, through
 * sample/map_act.h (one locked change each; readers on other threads keep matching without
 * a lock). The file is looked up when the rule runs, as HAProxy 2.6 does: a file that no
 * ACL or map converter loaded is left alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/logfmt.h>
#include <sample/map_act.h>
#include <sample/sample.h>
#include <stream/action.h>
#include <stream/stream.h>

enum map_act_op {
	MAP_ACT_ADD_ACL = 0,
	MAP_ACT_DEL_ACL,
	MAP_ACT_SET_MAP,
	MAP_ACT_DEL_MAP,
};

/* rule->arg.gen.p[0] */
struct map_act_arg {
	char *file;
	struct lf_expr key, value;
	int op; /* enum map_act_op */
};

/* Renders <lf> at <p> (room bytes) as a C string; its length, or -1. */
static int map_act_render(const struct lf_expr *lf, const struct smp_ctx *ctx, char *p, size_t room)
{
	int n;

	if (room < 1)
		return -1;
	n = lf_render(lf, ctx, p, room - 1);
	if (n < 0)
		return -1;
	p[n] = 0;
	return n;
}

/* The key and the value are rendered into the free space of the stream's rewrite buffer
 * without keeping them there (nothing else writes it meanwhile): the scratch chunks
 * rotate, so a value's converters could overwrite a key kept in one. */
static enum act_return act_map(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	const struct map_act_arg *a = r->arg.gen.p[0];
	struct map_ref *ref = map_act_find(a->file);
	struct smp_ctx ctx;
	char *key, *value;
	size_t room;
	int n;

	if (!ref)
		return ACT_RET_CONT;
	key = stream_rw_tail(s, &room);
	if (!key)
		return ACT_RET_CONT;
	act_smp_ctx(&ctx, s, px, from);
	n = map_act_render(&a->key, &ctx, key, room);
	if (n < 0)
		return ACT_RET_CONT;
	switch (a->op) {
	case MAP_ACT_ADD_ACL:
		map_act_add_acl(ref, key);
		break;
	case MAP_ACT_SET_MAP:
		value = key + n + 1;
		if (map_act_render(&a->value, &ctx, value, room - (size_t)n - 1) < 0)
			return ACT_RET_CONT;
		map_act_set(ref, key, value);
		break;
	default:
		map_act_del(ref, key);
		break;
	}
	return ACT_RET_CONT;
}

static void act_map_release(struct act_rule *r)
{
	struct map_act_arg *a = r->arg.gen.p[0];

	if (!a)
		return;
	free(a->file);
	lf_free(&a->key);
	lf_free(&a->value);
	free(a);
}

/* The file between the parentheses of the action word (HAProxy takes the rest of the word
 * when the closing one is missing). */
static char *map_act_file(const char *word)
{
	const char *open = strchr(word, '('), *close;

	if (!open)
		return strdup("");
	open++;
	close = strchr(open, ')');
	return strndup(open, close ? (size_t)(close - open) : strlen(open));
}

/* add-acl(FILE) KEYFMT | del-acl(FILE) KEYFMT | del-map(FILE) KEYFMT |
 * set-map(FILE) KEYFMT VALUEFMT */
static int parse_map_act(char **args, int *pos, int nargs, const struct act_parse *ap,
			 struct act_rule *r, char *err, size_t errsz)
{
	static const char *const words[] = { "add-acl", "del-acl", "set-map", "del-map" };
	const char *word = args[*pos - 1], *key, *value = NULL;
	struct map_act_arg *a;
	int op = MAP_ACT_ADD_ACL;

	for (int i = 0; i < 4; i++)
		if (!strncmp(word, words[i], strlen(words[i])))
			op = i;
	key = act_next_word(args, pos, nargs);
	if (key && op == MAP_ACT_SET_MAP)
		value = act_next_word(args, pos, nargs);
	if (!key || (op == MAP_ACT_SET_MAP && !value)) {
		snprintf(err, errsz, "expects exactly %d arguments", op == MAP_ACT_SET_MAP ? 2 : 1);
		return -1;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	r->arg.gen.p[0] = a;
	r->release = act_map_release;
	r->action = act_map;
	a->op = op;
	a->file = map_act_file(word);
	if (!a->file) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	if (act_parse_fmt(&a->key, key, ap, err, errsz) < 0)
		return -1;
	return value ? act_parse_fmt(&a->value, value, ap, err, errsz) : 0;
}

static const struct action_kw http_act_map_kws[] = {
	{ "add-acl", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 1, parse_map_act },
	{ "del-acl", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 1, parse_map_act },
	{ "set-map", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 1, parse_map_act },
	{ "del-map", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 1, parse_map_act },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_map_kws);
