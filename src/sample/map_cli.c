/* Runtime API of maps and ACLs: "show/get/add/del/set/clear/prepare/commit map|acl", with
 * HAProxy 2.6's words and answers. Every change goes through map_ref.h under map_lock (the
 * CLI runs on thread 0; the lock only orders writers): the converters and ACLs keep reading
 * without a lock. What a command removes is freed once every thread has passed a quiescent
 * state (pattern.h, pat_retire): the next command reclaims it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <cli/cli.h>
#include <sample/cond_index.h>
#include <sample/map_ref.h>
#include <sample/pattern.h>
#include <sample/sample.h>

/* What the command works on: its word ("map"/"acl") decides the reference flag and the
 * messages. */
struct mcli_kind {
	unsigned flag;
	const char *word; /* "map", "acl" */
	const char *unknown;
};

static const struct mcli_kind mcli_map = {
	MAP_REF_F_MAP, "map", "Unknown map identifier. Please use #<id> or <file>.\n"
};
static const struct mcli_kind mcli_acl = {
	MAP_REF_F_ACL, "acl", "Unknown ACL identifier. Please use #<id> or <file>.\n"
};

static const struct mcli_kind *mcli_kind_of(const struct cli_ctx *ctx)
{
	return strcmp(ctx->args[1], "acl") == 0 ? &mcli_acl : &mcli_map;
}

/* One line of output; the command is done (an error or a short answer). */
static int mcli_say(struct cli_ctx *ctx, const char *msg)
{
	return cli_write(ctx, msg, strlen(msg)) < 0 ? CLI_MORE : CLI_DONE;
}

/* "@VER" at args[i]: moves past it and sets *ver; HAProxy reads the number as atoi does
 * ("@x" is version 0). Returns true when present. */
static bool mcli_version(struct cli_ctx *ctx, int *i, unsigned *ver)
{
	if (*i >= ctx->nargs || ctx->args[*i][0] != '@')
		return false;
	*ver = (unsigned)strtoul(ctx->args[*i] + 1, NULL, 10);
	(*i)++;
	return true;
}

/* Starts a change: the writer lock, and the frees the last changes left behind. */
static void mcli_begin(void)
{
	pthread_mutex_lock(&map_lock);
	pat_reclaim();
}

/* Ends a change of <r>: the retired objects wait for the threads; ACL indexes of rules
 * (which copy the patterns) are no longer used once an ACL one of them copied changed. */
static void mcli_end(const struct map_ref *r)
{
	if (r && (r->flags & MAP_REF_F_INDEXED))
		HA_ATOMIC_STORE_RLX(&cond_index_acls_changed, true);
	pat_retire_close();
	pthread_mutex_unlock(&map_lock);
}

/* ---- show ---- */

static int mcli_show_list(struct cli_ctx *ctx, const struct mcli_kind *k)
{
	const struct map_ref *r;

	if (ctx->st == 0) {
		if (cli_printf(ctx, "# id (file) description\n") < 0)
			return CLI_MORE;
		ctx->st = 1;
		ctx->p[0] = map_ref_first();
	}
	for (r = ctx->p[0]; r; r = r->next) {
		if (!(r->flags & k->flag))
			continue;
		if (cli_printf(ctx, "%d (%s) %s. curr_ver=%u next_ver=%u entry_cnt=%zu\n", r->id,
			       r->path ? r->path : "", r->desc, r->curr_ver, r->next_ver,
			       r->count) < 0) {
			ctx->p[0] = r;
			return CLI_MORE;
		}
	}
	return CLI_DONE;
}

/* The entry to go on from: the saved one, unless entries were removed since (it may be
 * gone), then the n[0]-th of the version again. */
static const struct map_elt *mcli_show_cursor(struct cli_ctx *ctx, const struct map_ref *r,
					      unsigned ver)
{
	const struct map_elt *el;
	uint64_t n = 0;

	if (ctx->n[1] == r->dels)
		return ctx->p[1];
	for (el = r->head; el && n < ctx->n[0]; el = el->next)
		n += el->gen == ver;
	return el;
}

static int mcli_show(struct cli_ctx *ctx)
{
	const struct mcli_kind *k = mcli_kind_of(ctx);
	const struct map_elt *el;
	const struct map_ref *r;
	unsigned ver;
	int i = 2;
	bool has_ver = mcli_version(ctx, &i, &ver);

	if (i >= ctx->nargs)
		return mcli_show_list(ctx, k);
	r = map_ref_lookup(ctx->args[i], k->flag);
	if (!r)
		return mcli_say(ctx, k->unknown);
	if (!has_ver)
		ver = r->curr_ver;
	el = ctx->st == 0 ? r->head : mcli_show_cursor(ctx, r, ver);
	ctx->st = 1;
	for (; el; el = el->next) {
		int rc;

		if (el->gen != ver)
			continue;
		if (k->flag == MAP_REF_F_MAP)
			rc = cli_printf(ctx, "%p %s %s\n", (const void *)el, el->key, el->value);
		else
			rc = cli_printf(ctx, "%p %s\n", (const void *)el, el->key);
		if (rc < 0) {
			ctx->p[1] = el;
			ctx->n[1] = r->dels;
			return CLI_MORE;
		}
		ctx->n[0]++;
	}
	return CLI_DONE;
}

/* ---- get ---- */

/* <d> as text into buf. */
static const char *mcli_value_text(const struct sample_data *d, char *buf, size_t sz)
{
	switch (d->type) {
	case SMP_T_SINT:
		snprintf(buf, sz, "%lld", (long long)d->u.sint);
		return buf;
	case SMP_T_IPV4:
		return inet_ntop(AF_INET, &d->u.ipv4, buf, (socklen_t)sz);
	case SMP_T_IPV6:
		return inet_ntop(AF_INET6, &d->u.ipv6, buf, (socklen_t)sz);
	}
	snprintf(buf, sz, "%.*s", (int)d->u.str.len, d->u.str.ptr);
	return buf;
}

static bool mcli_indexed(int match)
{
	return match == PAT_MATCH_STR || match == PAT_MATCH_BEG || match == PAT_MATCH_IP;
}

static int mcli_get(struct cli_ctx *ctx)
{
	const struct mcli_kind *k = mcli_kind_of(ctx);
	const struct map_ref_set *rs;
	const struct sample_data *d;
	const struct map_elt *el;
	const struct map_ref *r;
	struct sample smp;
	struct pattern *p;
	char vb[256];

	if (ctx->nargs < 4)
		return mcli_say(ctx, k->flag == MAP_REF_F_MAP
					     ? "Missing map identifier and/or key.\n"
					     : "Missing ACL identifier and/or key.\n");
	r = map_ref_lookup(ctx->args[2], k->flag);
	if (!r)
		return mcli_say(ctx, k->unknown);
	if (!r->nsets)
		return CLI_DONE;
	rs = &r->sets[0];
	memset(&smp, 0, sizeof(smp));
	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist_str(ctx->args[3]);
	smp.flags = SMP_F_CONST;
	p = pat_match(rs->ps, &smp);
	if (cli_printf(ctx, "type=%s, case=%s, %s=%s", pat_match_name(rs->ps->match),
		       (rs->ps->flags & PAT_SET_ICASE) ? "insensitive" : "sensitive",
		       k->flag == MAP_REF_F_MAP ? "found" : "match", p ? "yes" : "no") < 0)
		return CLI_MORE;
	if (!p)
		return mcli_say(ctx, "\n");
	el = p->ref;
	if (cli_printf(ctx, ", idx=%s", mcli_indexed(rs->ps->match) ? "tree" : "list") < 0)
		return CLI_MORE;
	if (k->flag != MAP_REF_F_MAP || rs->out < 0)
		return cli_printf(ctx, ", pattern=\"%s\"\n", el ? el->key : "") < 0 ? CLI_MORE
										    : CLI_DONE;
	d = p->value;
	return cli_printf(ctx, ", key=\"%s\", value=\"%s\", type=\"%s\"\n", el ? el->key : "",
			  mcli_value_text(d, vb, sizeof(vb)), smp_type_name(d->type)) < 0
		       ? CLI_MORE
		       : CLI_DONE;
}

/* ---- add ---- */

/* "add acl" on a file a map with values also uses: HAProxy refuses it. */
static bool mcli_has_values(const struct map_ref *r)
{
	for (int i = 0; i < r->nsets; i++)
		if (r->sets[i].out >= 0)
			return true;
	return false;
}

/* Adds each line of the payload; stops at the first bad one with its message in err. */
static int mcli_add_payload(struct map_ref *r, const struct mcli_kind *k, char *pl, unsigned ver,
			    char *err, size_t errsz)
{
	char *key, *value;
	int rc;

	while ((rc = map_payload_next(&pl, &key, &value)) != 0) {
		if (rc < 0) {
			snprintf(err, errsz, "Too long line in the payload.");
			return -1;
		}
		if (k->flag == MAP_REF_F_MAP && !*value) {
			snprintf(err, errsz, "Missing value for key '%s'.", key);
			return -1;
		}
		if (map_ref_add(r, key, k->flag == MAP_REF_F_MAP ? value : NULL, ver, err, errsz) <
		    0)
			return -1;
	}
	return 0;
}

static int mcli_add(struct cli_ctx *ctx)
{
	const struct mcli_kind *k = mcli_kind_of(ctx);
	struct map_ref *r;
	char err[512];
	unsigned ver;
	int i = 2, rc, want = k->flag == MAP_REF_F_MAP ? 3 : 2;
	bool has_ver = mcli_version(ctx, &i, &ver);

	if (ctx->nargs - i < want && !(ctx->nargs - i == 1 && ctx->payload))
		return mcli_say(ctx,
				k->flag == MAP_REF_F_MAP
					? "'add map' expects three parameters (map identifier, "
					  "key and value) or one parameter (map identifier) and a "
					  "payload\n"
					: "'add acl' expects two parameters: ACL identifier and "
					  "pattern.\n");
	r = map_ref_lookup(ctx->args[i], k->flag);
	if (!r)
		return mcli_say(ctx, k->unknown);
	if (k->flag == MAP_REF_F_ACL && mcli_has_values(r))
		return mcli_say(ctx, "This ACL is shared with a map containing samples. You must "
				     "use the command 'add map' to add values.\n");
	if (!has_ver)
		ver = r->curr_ver;
	else if ((int)(ver - r->next_ver) > 0)
		return mcli_say(ctx, k->flag == MAP_REF_F_MAP
					     ? "Version number in the future, please use 'prepare "
					       "map' before.\n"
					     : "Version number in the future, please use 'prepare "
					       "acl' before.\n");
	mcli_begin();
	if (ctx->nargs - i == 1)
		rc = mcli_add_payload(r, k, ctx->payload, ver, err, sizeof(err));
	else
		rc = map_ref_add(r, ctx->args[i + 1],
				 k->flag == MAP_REF_F_MAP ? ctx->args[i + 2] : NULL, ver, err,
				 sizeof(err));
	mcli_end(r);
	if (rc < 0)
		return cli_printf(ctx, "%s%s\n", err, err[strlen(err) - 1] == '.' ? "" : ".") < 0
			       ? CLI_MORE
			       : CLI_DONE;
	return CLI_DONE;
}

/* ---- del, set ---- */

/* "#0x..." as an entry of <r> (current version), or NULL. */
static struct map_elt *mcli_elt_by_ref(struct map_ref *r, const char *w)
{
	uintptr_t a;
	char *end;

	errno = 0;
	a = (uintptr_t)strtoull(w + 1, &end, 16);
	if (end == w + 1 || *end || errno)
		return NULL;
	for (struct map_elt *el = r->head; el; el = el->next)
		if ((uintptr_t)el == a && el->gen == r->curr_ver)
			return el;
	return NULL;
}

static int mcli_del(struct cli_ctx *ctx)
{
	const struct mcli_kind *k = mcli_kind_of(ctx);
	struct map_elt *el, *n;
	struct map_ref *r;
	int found = 0;

	if (ctx->nargs < 4)
		return mcli_say(ctx,
				k->flag == MAP_REF_F_MAP
					? "This command expects two parameters: map identifier "
					  "and key.\n"
					: "This command expects two parameters: ACL identifier "
					  "and key.\n");
	r = map_ref_lookup(ctx->args[2], k->flag);
	if (!r)
		return mcli_say(ctx, k->unknown);
	mcli_begin();
	if (ctx->args[3][0] == '#') {
		el = mcli_elt_by_ref(r, ctx->args[3]);
		found = el && map_ref_del(r, el) == 0;
	} else {
		for (el = r->head; el; el = n) {
			n = el->next;
			if (el->gen == r->curr_ver && !strcmp(el->key, ctx->args[3]))
				found += map_ref_del(r, el) == 0;
		}
	}
	mcli_end(r);
	return found ? CLI_DONE : mcli_say(ctx, "Key not found.\n");
}

static int mcli_set(struct cli_ctx *ctx)
{
	struct map_elt *el;
	struct map_ref *r;
	char err[512];
	int found = 0, rc = 0;

	if (ctx->nargs < 5)
		return mcli_say(ctx, "'set map' expects three parameters: map identifier, key and "
				     "value.\n");
	r = map_ref_lookup(ctx->args[2], MAP_REF_F_MAP);
	if (!r)
		return mcli_say(ctx, mcli_map.unknown);
	mcli_begin();
	if (ctx->args[3][0] == '#') {
		el = mcli_elt_by_ref(r, ctx->args[3]);
		found = el != NULL;
		if (el)
			rc = map_ref_set_value(r, el, ctx->args[4], err, sizeof(err));
	} else {
		for (el = r->head; el && rc == 0; el = el->next) {
			if (el->gen != r->curr_ver || strcmp(el->key, ctx->args[3]))
				continue;
			found++;
			rc = map_ref_set_value(r, el, ctx->args[4], err, sizeof(err));
		}
	}
	mcli_end(r);
	if (!found)
		return mcli_say(ctx, "entry not found.\n");
	if (rc < 0)
		return cli_printf(ctx, "%s.\n", err) < 0 ? CLI_MORE : CLI_DONE;
	return CLI_DONE;
}

/* ---- clear, prepare, commit ---- */

static int mcli_clear(struct cli_ctx *ctx)
{
	const struct mcli_kind *k = mcli_kind_of(ctx);
	struct map_ref *r;
	unsigned ver;
	int i = 2, rc;
	bool has_ver = mcli_version(ctx, &i, &ver);

	if (i >= ctx->nargs)
		return mcli_say(ctx, k->flag == MAP_REF_F_MAP ? "Missing map identifier.\n"
							      : "Missing ACL identifier.\n");
	r = map_ref_lookup(ctx->args[i], k->flag);
	if (!r)
		return mcli_say(ctx, k->unknown);
	mcli_begin();
	rc = map_ref_purge(r, has_ver ? ver : r->curr_ver);
	mcli_end(r);
	return rc < 0 ? mcli_say(ctx, "Out of memory error.\n") : CLI_DONE;
}

static int mcli_prepare(struct cli_ctx *ctx)
{
	const struct mcli_kind *k = mcli_kind_of(ctx);
	struct map_ref *r;
	unsigned ver;

	r = ctx->nargs > 2 ? map_ref_lookup(ctx->args[2], k->flag) : NULL;
	if (!r)
		return mcli_say(ctx, k->unknown);
	mcli_begin();
	ver = ++r->next_ver;
	mcli_end(NULL);
	return cli_printf(ctx, "New version created: %u\n", ver) < 0 ? CLI_MORE : CLI_DONE;
}

static int mcli_commit(struct cli_ctx *ctx)
{
	const struct mcli_kind *k = mcli_kind_of(ctx);
	struct map_ref *r;
	char err[512];
	unsigned ver;
	int i = 2, rc;

	if (!mcli_version(ctx, &i, &ver))
		return mcli_say(ctx, "Missing version number.\n");
	if (i >= ctx->nargs)
		return mcli_say(ctx, k->flag == MAP_REF_F_MAP ? "Missing map identifier.\n"
							      : "Missing ACL identifier.\n");
	r = map_ref_lookup(ctx->args[i], k->flag);
	if (!r)
		return mcli_say(ctx, k->unknown);
	/* only a version prepared since the current one */
	if ((int)(ver - r->curr_ver) <= 0 || (int)(ver - r->next_ver) > 0)
		return mcli_say(ctx, "Version number out of range.\n");
	mcli_begin();
	rc = map_ref_commit(r, ver, err, sizeof(err));
	mcli_end(r);
	return rc < 0 ? cli_printf(ctx, "%s.\n", err) < 0 ? CLI_MORE : CLI_DONE : CLI_DONE;
}

/* clang-format off */
static const struct cli_kw map_cli_kws[] = {
	{ { "show", "map" }, "show map [@ver] [map]", "report available maps or dump a map's contents",
	  CLI_LVL_USER, mcli_show },
	{ { "show", "acl" }, "show acl [@<ver>] <acl>]", "report available acls or dump an acl's contents",
	  CLI_LVL_USER, mcli_show },
	{ { "get", "map" }, "get map <acl> <value>", "report the keys and values matching a sample for a map",
	  CLI_LVL_USER, mcli_get },
	{ { "get", "acl" }, "get acl <acl> <value>", "report the patterns matching a sample for an ACL",
	  CLI_LVL_USER, mcli_get },
	{ { "add", "map" }, "add map [@<ver>] <map> <key> <val>",
	  "add a map entry (payload supported instead of key/val)", CLI_LVL_OPER, mcli_add },
	{ { "add", "acl" }, "add acl [@<ver>] <acl> <pattern>", "add an acl entry",
	  CLI_LVL_OPER, mcli_add },
	{ { "del", "map" }, "del map <map> [<key>|#<ref>]", "delete map entries matching <key>",
	  CLI_LVL_OPER, mcli_del },
	{ { "del", "acl" }, "del acl <acl> [<key>|#<ref>]", "delete acl entries matching <key>",
	  CLI_LVL_OPER, mcli_del },
	{ { "set", "map" }, "set map <map> [<key>|#<ref>] <value>", "modify a map entry",
	  CLI_LVL_OPER, mcli_set },
	{ { "clear", "map" }, "clear map [@<ver>] <map>", "clear the contents of this map",
	  CLI_LVL_OPER, mcli_clear },
	{ { "clear", "acl" }, "clear acl [@<ver>] <acl>", "clear the contents of this acl",
	  CLI_LVL_OPER, mcli_clear },
	{ { "prepare", "map" }, "prepare map <acl>", "prepare a new version for atomic map replacement",
	  CLI_LVL_OPER, mcli_prepare },
	{ { "prepare", "acl" }, "prepare acl <acl>", "prepare a new version for atomic ACL replacement",
	  CLI_LVL_OPER, mcli_prepare },
	{ { "commit", "map" }, "commit map @<ver> <map>", "commit the map at this version",
	  CLI_LVL_OPER, mcli_commit },
	{ { "commit", "acl" }, "commit acl @<ver> <acl>", "commit the ACL at this version",
	  CLI_LVL_OPER, mcli_commit },
	{ { NULL }, NULL, NULL, 0, NULL },
};
/* clang-format on */

CLI_REGISTER_KWS(map_cli_kws)
