/* "show stat [{px|-1} {type|-1} {sid|-1}] [typed|json] [desc] [up|no-maint]": HAProxy
 * 2.6's report of proxies and servers, per proxy a FRONTEND line, one line per server
 * and a BACKEND line, rendered from the lines of the stats data model (stat_proxy.c) by
 * the writers of stat_out.c. Also "show schema json".
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <cli/cli.h>
#include <proxy/proxy.h>
#include <stats/stats.h>

/* Filter bits of the <type> argument, as HAProxy. */
#define STAT_TYPE_FE 0x1
#define STAT_TYPE_BE 0x2
#define STAT_TYPE_SRV 0x4

#define STAT_OPT_DESC 0x1     /* typed: descriptions */
#define STAT_OPT_UP 0x2	      /* only usable servers */
#define STAT_OPT_NO_MAINT 0x4 /* no server in maintenance */

/* A parsed command line. */
struct stat_req {
	enum stat_fmt fmt;
	uint32_t opts; /* STAT_OPT_* */
	int iid;       /* proxy, or -1 for all */
	int types;     /* STAT_TYPE_* bits, or -1 for all */
	int sid;       /* server, or -1 for all */
};

/* Parses the words after "show stat" as HAProxy 2.6 does: three words make a filter
 * (a proxy name or iid, a type mask, a server id), the options follow; unknown words are
 * ignored. Returns 0, or -1 when the proxy of a filter does not exist. */
static int stat_parse(const struct cli_ctx *ctx, struct stat_req *r)
{
	int arg = 2;

	memset(r, 0, sizeof(*r));
	r->iid = r->types = r->sid = -1;
	if (ctx->nargs >= 5) {
		const struct proxy *px = proxy_find(ctx->args[2], 0);

		r->iid = px ? stat_proxy_iid(px) : atoi(ctx->args[2]);
		if (!r->iid)
			return -1;
		r->types = atoi(ctx->args[3]);
		r->sid = atoi(ctx->args[4]);
		arg = 5;
	}
	for (; arg < ctx->nargs; arg++) {
		const char *w = ctx->args[arg];

		if (strcmp(w, "typed") == 0)
			r->fmt = STAT_FMT_TYPED;
		else if (strcmp(w, "json") == 0)
			r->fmt = STAT_FMT_JSON;
		else if (strcmp(w, "desc") == 0)
			r->opts |= STAT_OPT_DESC;
		else if (strcmp(w, "up") == 0)
			r->opts |= STAT_OPT_UP;
		else if (strcmp(w, "no-maint") == 0)
			r->opts |= STAT_OPT_NO_MAINT;
	}
	return 0;
}

static bool stat_type_wanted(const struct stat_req *r, int bit)
{
	return r->types == -1 || (r->types & bit);
}

static bool stat_srv_in_maint(const struct server *srv)
{
	return (srv->flags & SRV_F_DISABLED) ||
	       HA_ATOMIC_LOAD_RLX(&srv->run_state) == SRV_RS_RMAINT;
}

static bool stat_srv_hidden(const struct stat_req *r, const struct server *srv)
{
	if (!stat_type_wanted(r, STAT_TYPE_SRV) || (r->sid != -1 && srv->puid != r->sid))
		return true;
	if ((r->opts & STAT_OPT_UP) && !stats_srv_is_up(srv))
		return true;
	return (r->opts & STAT_OPT_NO_MAINT) && stat_srv_in_maint(srv);
}

/* With "up" or "no-maint", HAProxy appends "(usable/total)" servers to a backend's
 * status. */
static void stat_be_counts(struct stat_line *l, const struct proxy *px)
{
	int up = 0, tot = 0;

	for (const struct server *s = px->srv; s; s = s->next, tot++)
		up += stats_srv_is_up(s);
	stat_set_fmt(l, stat_cols, ST_status, "%s (%d/%d)", l->f[ST_status].u.str, up, tot);
}

/* Resumable state: ctx->st is 0 before the header, 1 while walking proxies, 2 at the end;
 * ctx->p[0] the proxy, ctx->p[1] its next server; ctx->n[0] the part of the proxy
 * (STAT_PART_*) and flags; ctx->n[1] the position in the line being written (0: its
 * opening, 1 + i: field i, ST_NCOLS + 1: its closing). */
#define STAT_PART_FE 0
#define STAT_PART_SRV 1
#define STAT_PART_BE 2
#define STAT_PART_MASK 0x3
#define STAT_N_LINE 0x100  /* JSON: a line was written (a comma before the next) */
#define STAT_N_FIELD 0x200 /* JSON: a field of this line was written */

/* One element of line <l> at position <pos> into <b>; returns its length or -1. */
static size_t stat_emit_one(char *b, size_t size, const struct cli_ctx *ctx,
			    const struct stat_req *r, const struct stat_line *l, int pos)
{
	bool json = r->fmt == STAT_FMT_JSON;

	if (pos == 0)
		return !json			   ? 0
		       : (ctx->n[0] & STAT_N_LINE) ? stat_out_str(b, size, ",[")
						   : stat_out_str(b, size, "[");
	if (pos == ST_NCOLS + 1)
		return json ? stat_out_str(b, size, "]") : 0;
	if (!json)
		return stat_out_typed_field(b, 0, size, l, pos - 1, r->opts & STAT_OPT_DESC);
	return stat_out_json_field(b, 0, size, l, pos - 1, !(ctx->n[0] & STAT_N_FIELD));
}

/* Writes line <l> from position ctx->n[1] on. Returns CLI_DONE once all of it is out
 * (ctx->n[1] back to 0), CLI_MORE when the output is full. */
static int stat_emit(struct cli_ctx *ctx, const struct stat_req *r, const struct stat_line *l)
{
	char b[1024];
	size_t len;

	if (r->fmt == STAT_FMT_CSV) {
		char line[ST_NCOLS * 64];

		len = stat_out_csv_line(line, 0, sizeof(line), l);
		return len == (size_t)-1 || cli_write(ctx, line, len) < 0 ? CLI_MORE : CLI_DONE;
	}
	for (; ctx->n[1] <= ST_NCOLS + 1; ctx->n[1]++) {
		int pos = (int)ctx->n[1];

		len = stat_emit_one(b, sizeof(b), ctx, r, l, pos);
		if (len == (size_t)-1 || cli_write(ctx, b, len) < 0)
			return CLI_MORE;
		if (pos > 0 && pos <= ST_NCOLS && l->f[pos - 1].type != SF_EMPTY)
			ctx->n[0] |= STAT_N_FIELD;
	}
	ctx->n[1] = 0;
	ctx->n[0] = (ctx->n[0] & ~(uint64_t)STAT_N_FIELD) | STAT_N_LINE;
	return CLI_DONE;
}

static int stat_header(struct cli_ctx *ctx, const struct stat_req *r)
{
	char b[2048];
	size_t len = 0;

	if (r->fmt == STAT_FMT_CSV)
		len = stat_out_csv_header(b, 0, sizeof(b));
	else if (r->fmt == STAT_FMT_JSON)
		len = stat_out_str(b, sizeof(b), "[");
	return len == (size_t)-1 || cli_write(ctx, b, len) < 0 ? -1 : 0;
}

/* The lines of proxy <px> from the part in ctx->n[0] on. */
static int stat_proxy(struct cli_ctx *ctx, const struct stat_req *r, const struct proxy *px)
{
	struct stat_line l;

	if ((ctx->n[0] & STAT_PART_MASK) == STAT_PART_FE) {
		if ((px->cap & PR_CAP_FE) && stat_type_wanted(r, STAT_TYPE_FE)) {
			stats_fill_fe(&l, px);
			if (stat_emit(ctx, r, &l) != CLI_DONE)
				return CLI_MORE;
		}
		ctx->n[0] = (ctx->n[0] & ~(uint64_t)STAT_PART_MASK) | STAT_PART_SRV;
		ctx->p[1] = (px->cap & PR_CAP_BE) ? px->srv : NULL;
	}
	for (; (ctx->n[0] & STAT_PART_MASK) == STAT_PART_SRV && ctx->p[1];
	     ctx->p[1] = ((const struct server *)ctx->p[1])->next) {
		const struct server *srv = ctx->p[1];

		if (stat_srv_hidden(r, srv))
			continue;
		stats_fill_srv(&l, px, srv);
		if (stat_emit(ctx, r, &l) != CLI_DONE)
			return CLI_MORE;
	}
	ctx->n[0] = (ctx->n[0] & ~(uint64_t)STAT_PART_MASK) | STAT_PART_BE;
	if ((px->cap & PR_CAP_BE) && stat_type_wanted(r, STAT_TYPE_BE)) {
		stats_fill_be(&l, px);
		if (r->opts & (STAT_OPT_UP | STAT_OPT_NO_MAINT))
			stat_be_counts(&l, px);
		if (stat_emit(ctx, r, &l) != CLI_DONE)
			return CLI_MORE;
	}
	ctx->n[0] &= ~(uint64_t)STAT_PART_MASK;
	return CLI_DONE;
}

static int stat_show(struct cli_ctx *ctx)
{
	struct stat_req r;

	if (stat_parse(ctx, &r) < 0)
		return cli_printf(ctx, "No such proxy.\n") < 0 ? CLI_MORE : CLI_DONE;
	if (ctx->st == 0) {
		if (stat_header(ctx, &r) < 0)
			return CLI_MORE;
		ctx->st = 1;
		ctx->p[0] = proxies;
	}
	for (; ctx->st == 1 && ctx->p[0]; ctx->p[0] = ((const struct proxy *)ctx->p[0])->next) {
		const struct proxy *px = ctx->p[0];

		if (r.iid != -1 && stat_proxy_iid(px) != r.iid)
			continue;
		if (stat_proxy(ctx, &r, px) != CLI_DONE)
			return CLI_MORE;
	}
	ctx->st = 2;
	if (r.fmt == STAT_FMT_JSON && cli_write(ctx, "]\n", 2) < 0)
		return CLI_MORE;
	if (r.fmt == STAT_FMT_TYPED && !(ctx->n[0] & STAT_N_LINE) && cli_write(ctx, "\n", 1) < 0)
		return CLI_MORE;
	return CLI_DONE;
}

static int stat_schema(struct cli_ctx *ctx)
{
	size_t len = strlen(stat_json_schema);

	return cli_write(ctx, stat_json_schema, len) < 0 ? CLI_MORE : CLI_DONE;
}

static const struct cli_kw stat_kws[] = {
	{ { "show", "stat" },
	  "show stat [desc|json|no-maint|typed|up]*",
	  "report counters for each proxy and server",
	  CLI_LVL_USER,
	  stat_show },
	{ { "show", "schema", "json" },
	  "show schema json",
	  "report schema used for stats",
	  CLI_LVL_USER,
	  stat_schema },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(stat_kws)
