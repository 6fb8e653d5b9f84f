/* Server options about run-time state and weight: "slowstart", "track". Called by
 * server_cfg.c's option parser before its "not supported yet" table; "track" is resolved
 * after parsing (srv_track_check_all).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>

/* slowstart <time>: 0 disables it. Errors worded as 2.6's. */
static int srv_parse_slowstart(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *arg = *i + 1 < ctx->nargs ? ctx->args[*i + 1] : "";
	const char *bad;
	int ms = 0;

	bad = parse_time_ms(arg, 1, &ms);
	if (!*arg || (bad && ms != -1)) {
		cfg_alert(ctx,
			  "'server %s/%s' : unexpected character '%.1s' in 'slowstart' argument "
			  "of server %s.",
			  srv->px->id, srv->id, bad && *arg ? bad : "", srv->id);
		return -1;
	}
	if (bad) {
		cfg_alert(ctx,
			  "'server %s/%s' : timer overflow in argument '%s' to 'slowstart' of "
			  "server %s, maximum value is 2147483647 ms (~24.8 days).",
			  srv->px->id, srv->id, arg, srv->id);
		return -1;
	}
	srv->slowstart = ms;
	++*i;
	return 0;
}

/* track [<proxy>/]<server>: kept as written, resolved after parsing. */
static int srv_parse_track(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	char *name;

	if (*i + 1 >= ctx->nargs || !*ctx->args[*i + 1]) {
		cfg_alert(ctx, "'server %s/%s' : 'track' expects [<proxy>/]<server> as argument.",
			  srv->px->id, srv->id);
		return -1;
	}
	name = strdup(ctx->args[++*i]);
	if (!name) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(srv->track_name);
	srv->track_name = name;
	return 0;
}

/* The word after option args[*i], or "" (2.6 then says "expects ... but got ''"). */
static const char *srv_opt_word(const struct cfg_ctx *ctx, int i)
{
	return i + 1 < ctx->nargs ? ctx->args[i + 1] : "";
}

/* observe none|layer4|layer7 */
static int srv_parse_observe(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *w = srv_opt_word(ctx, *i);

	if (!*w) {
		cfg_alert(ctx, "'server %s/%s' : 'observe' expects <mode> as argument.",
			  srv->px->id, srv->id);
		return -1;
	}
	if (!strcmp(w, "none"))
		srv->observe = SRV_OBS_NONE;
	else if (!strcmp(w, "layer4"))
		srv->observe = SRV_OBS_LAYER4;
	else if (!strcmp(w, "layer7"))
		srv->observe = SRV_OBS_LAYER7;
	else {
		cfg_alert(ctx,
			  "'server %s/%s' : 'observe' expects one of 'none', 'layer4', 'layer7' "
			  "but got '%s'.",
			  srv->px->id, srv->id, w);
		return -1;
	}
	++*i;
	return 0;
}

/* error-limit N (N > 0) */
static int srv_parse_error_limit(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *w = srv_opt_word(ctx, *i);
	long v;

	if (!*w) {
		cfg_alert(ctx, "'server %s/%s' : 'error-limit' expects an integer argument.",
			  srv->px->id, srv->id);
		return -1;
	}
	if (parse_long(w, 1, INT_MAX, &v) < 0) {
		cfg_alert(ctx, "'server %s/%s' : error-limit has to be > 0.", srv->px->id, srv->id);
		return -1;
	}
	srv->error_limit = (int)v;
	++*i;
	return 0;
}

/* on-error fastinter|fail-check|sudden-death|mark-down */
static int srv_parse_on_error(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	static const char *const names[] = {
		[SRV_ONERR_FAILCHECK] = "fail-check",
		[SRV_ONERR_FASTINTER] = "fastinter",
		[SRV_ONERR_SUDDEN] = "sudden-death",
		[SRV_ONERR_MARKDOWN] = "mark-down",
	};
	const char *w = srv_opt_word(ctx, *i);

	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		if (!strcmp(w, names[k])) {
			srv->onerror = (uint8_t)k;
			++*i;
			return 0;
		}
	}
	cfg_alert(ctx,
		  "'server %s/%s' : 'on-error' expects one of 'fastinter', 'fail-check', "
		  "'sudden-death' or 'mark-down' but got '%s'.",
		  srv->px->id, srv->id, w);
	return -1;
}

/* on-marked-down shutdown-sessions, on-marked-up shutdown-backup-sessions */
static int srv_parse_on_marked(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	bool down = !strcmp(ctx->args[*i], "on-marked-down");
	const char *want = down ? "shutdown-sessions" : "shutdown-backup-sessions";
	const char *w = srv_opt_word(ctx, *i);

	if (strcmp(w, want)) {
		cfg_alert(ctx, "'server %s/%s' : '%s' expects '%s' but got '%s'.", srv->px->id,
			  srv->id, ctx->args[*i], want, w);
		return -1;
	}
	srv->on_marked |= down ? SRV_OM_DOWN_SHUT : SRV_OM_UP_SHUT_BCK;
	++*i;
	return 0;
}

int srv_state_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];

	if (!strcmp(opt, "observe"))
		return srv_parse_observe(ctx, srv, i);
	if (!strcmp(opt, "error-limit"))
		return srv_parse_error_limit(ctx, srv, i);
	if (!strcmp(opt, "on-error"))
		return srv_parse_on_error(ctx, srv, i);
	if (!strcmp(opt, "on-marked-down") || !strcmp(opt, "on-marked-up"))
		return srv_parse_on_marked(ctx, srv, i);

	if (!strcmp(opt, "slowstart"))
		return srv_parse_slowstart(ctx, srv, i);
	if (!strcmp(opt, "track"))
		return srv_parse_track(ctx, srv, i);
	return 1;
}

/* Finds the server "[BE/]SRV" named by <t>'s track; alerts and returns NULL if none. */
static struct server *srv_track_find(struct server *t)
{
	char *slash = strchr(t->track_name, '/'), *sname = slash ? slash + 1 : t->track_name;
	struct proxy *px = t->px;
	struct server *s;

	if (slash) {
		*slash = 0;
		px = proxy_find(t->track_name, PR_CAP_BE);
		if (!px)
			ha_alert(
				"[%s:%d] : 'server %s/%s' : unable to find required proxy '%s' for "
				"tracking.",
				t->file, t->line, t->px->id, t->id, t->track_name);
		*slash = '/';
		if (!px)
			return NULL;
	}
	for (s = px->srv; s && strcmp(s->id, sname); s = s->next)
		;
	if (!s)
		ha_alert("[%s:%d] : 'server %s/%s' : unable to find required server '%s' for "
			 "tracking.",
			 t->file, t->line, t->px->id, t->id, sname);
	return s;
}

/* Resolves the track of <t>; 0, or 1 after an alert. */
static int srv_track_resolve(struct server *t)
{
	struct server *s, *loop;

	if (t->flags & SRV_F_CHECK) {
		ha_alert("[%s:%d] : 'server %s/%s' : unable to enable checks and tracking at the "
			 "same "
			 "time!",
			 t->file, t->line, t->px->id, t->id);
		return 1;
	}
	s = srv_track_find(t);
	if (!s)
		return 1;
	if (!(s->flags & SRV_F_CHECK) && !s->agent_enabled && !s->track_name) {
		ha_alert("[%s:%d] : 'server %s/%s' : unable to use %s/%s for tracking as it does "
			 "not "
			 "have any check nor agent enabled.",
			 t->file, t->line, t->px->id, t->id, s->px->id, s->id);
		return 1;
	}
	for (loop = s; loop && loop != t; loop = loop->track)
		;
	if (loop) {
		ha_alert("[%s:%d] : 'server %s/%s' : unable to track %s/%s as it belongs to a "
			 "tracking chain looping back to %s/%s.",
			 t->file, t->line, t->px->id, t->id, s->px->id, s->id, t->px->id, t->id);
		return 1;
	}
	t->track = s;
	t->tracknext = s->trackers;
	s->trackers = t;
	return 0;
}

int srv_track_check_all(void)
{
	int errs = 0;

	for (struct proxy *px = proxies; px; px = px->next)
		for (struct server *t = px->srv; t; t = t->next)
			if (t->track_name && !t->track)
				errs += srv_track_resolve(t);
	return errs;
}
