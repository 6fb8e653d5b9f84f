/* The basic HTTP actions: allow, deny, return, set-header, add-header, del-header; the
 * header table helpers they and the other rewriting actions share; and the stream's
 * rewrite buffer where rendered values live until the message is serialized.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <base/buf.h>
#include <http/status.h>
#include <sample/logfmt.h>
#include <sample/pattern.h>
#include <sample/regex.h>
#include <stream/action.h>
#include <stream/http_err.h>
#include <stream/http_reply.h>
#include <stream/stream.h>

/* ---- header table ---- */

int http_hdr_add(struct stream *s, struct h1_msg *m, struct ist name, struct ist value)
{
	struct h1_hdr *h;

	if (m->nhdr >= s->hdr_cap)
		return -1;
	h = &m->hdr[m->nhdr++];
	h->n = name;
	h->v = value;
	h->id = H1_HDR_OTHER;
	h->skip = 0;
	h->folded = 0;
	return 0;
}

void http_hdr_del(struct h1_msg *m, struct ist name)
{
	for (uint16_t i = 0; i < m->nhdr; i++)
		if (ist_ieq(m->hdr[i].n, name))
			m->hdr[i].skip = 1;
}

/* ---- rewrite buffer ---- */

char *stream_rw_tail(struct stream *s, size_t *room)
{
	if (b_is_null(&s->rw) && b_get(&s->rw) < 0)
		return NULL;
	*room = b_room(&s->rw);
	return b_tail(&s->rw);
}

void stream_rw_commit(struct stream *s, size_t len)
{
	s->rw.data += (uint32_t)len;
}

int stream_rw_render(struct stream *s, const struct lf_expr *lf, const struct smp_ctx *ctx,
		     struct ist *out)
{
	size_t room;
	char *p;
	int n;

	if (lf_is_const(lf)) {
		*out = lf_text(lf);
		return 0;
	}
	p = stream_rw_tail(s, &room);
	if (!p)
		return -1;
	n = lf_render(lf, ctx, p, room);
	if (n < 0)
		return -1;
	stream_rw_commit(s, (size_t)n);
	*out = ist2(p, (size_t)n);
	return 0;
}

/* A value going into a header must not carry a line break or a NUL: it would end the
 * header early and let a client or a server inject what follows. */
bool http_value_is_safe(struct ist v)
{
	for (size_t i = 0; i < v.len; i++)
		if (v.ptr[i] == '\r' || v.ptr[i] == '\n' || v.ptr[i] == 0)
			return false;
	return true;
}

struct h1_msg *act_msg(struct stream *s, int from)
{
	return (from & ACT_F_HTTP_REQ) ? &s->req : &s->rsp;
}

/* ---- allow, deny, return ---- */

static enum act_return act_allow(struct act_rule *r, struct proxy *px, struct stream *s,
				 int from)
{
	return ACT_RET_STOP;
}

static enum act_return act_deny(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	return ACT_RET_DENY;
}

static void act_release_reply(struct act_rule *r)
{
	http_reply_free(r->arg.reply);
}

static int parse_allow(char **args, int *pos, int nargs, const struct act_parse *ap,
		       struct act_rule *r, char *err, size_t errsz)
{
	r->action = act_allow;
	r->flags |= ACT_FL_VERDICT;
	return 0;
}

static int parse_deny(char **args, int *pos, int nargs, const struct act_parse *ap,
		      struct act_rule *r, char *err, size_t errsz)
{
	bool req = ap->from & (ACT_F_HTTP_REQ);

	r->action = act_deny;
	r->release = act_release_reply;
	r->flags |= ACT_FL_FINAL | ACT_FL_VERDICT;
	r->arg.reply = http_reply_parse(args, pos, nargs, ap, req ? 403 : 502, true, err, errsz);
	if (!r->arg.reply)
		return -1;
	/* without a payload, deny answers the error page of its status */
	if (r->arg.reply->type == HTTP_REPLY_EMPTY && !r->arg.reply->nb_hdrs &&
	    !r->arg.reply->ctype.len)
		r->arg.reply->type = HTTP_REPLY_ERRMSG;
	if (r->arg.reply->type == HTTP_REPLY_ERRMSG && !r->arg.reply->errmsg &&
	    !http_status_has_page(r->arg.reply->status)) {
		snprintf(err, errsz, "status code '%d' not handled by default with "
			 "'default-errorfiles' argument", r->arg.reply->status);
		return -1;
	}
	if (r->arg.reply->type == HTTP_REPLY_ERRFILES)
		r->check = http_reply_check_rule; /* the section is found at check time */
	return 0;
}

static int parse_return(char **args, int *pos, int nargs, const struct act_parse *ap,
			struct act_rule *r, char *err, size_t errsz)
{
	r->action = act_deny; /* the runner answers with the reply; counted as intercepted */
	r->release = act_release_reply;
	r->flags |= ACT_FL_FINAL;
	r->arg.reply = http_reply_parse(args, pos, nargs, ap, 200, false, err, errsz);
	if (r->arg.reply && r->arg.reply->type == HTTP_REPLY_ERRFILES)
		r->check = http_reply_check_rule;
	return r->arg.reply ? 0 : -1;
}

/* ---- set-header, add-header, del-header ---- */

static enum act_return act_set_hdr(struct act_rule *r, struct proxy *px, struct stream *s,
				   int from)
{
	struct h1_msg *m = act_msg(s, from);
	struct smp_ctx ctx;
	struct ist v;

	act_smp_ctx(&ctx, s, px, from);
	if (stream_rw_render(s, &r->arg.hdr.fmt, &ctx, &v) < 0 || !http_value_is_safe(v))
		return ACT_RET_ERR;
	if (r->arg.gen.i[0] == 0) /* set-header */
		http_hdr_del(m, r->arg.hdr.name);
	return http_hdr_add(s, m, r->arg.hdr.name, v) < 0 ? ACT_RET_ERR : ACT_RET_CONT;
}

static bool hdr_name_matches(const struct act_rule *r, struct ist n)
{
	struct ist p = r->arg.hdr.name;

	switch (r->arg.hdr.match) {
	case PAT_MATCH_BEG:
		return ist_istarts(n, p);
	case PAT_MATCH_END:
		return n.len >= p.len && !strncasecmp(n.ptr + n.len - p.len, p.ptr, p.len);
	case PAT_MATCH_SUB:
		for (size_t i = 0; i + p.len <= n.len; i++)
			if (!strncasecmp(n.ptr + i, p.ptr, p.len))
				return true;
		return false;
	case PAT_MATCH_REG:
		return regex_exec(r->arg.hdr.re, n.ptr, n.len);
	}
	return ist_ieq(n, p);
}

static enum act_return act_del_hdr(struct act_rule *r, struct proxy *px, struct stream *s,
				   int from)
{
	struct h1_msg *m = act_msg(s, from);

	for (uint16_t i = 0; i < m->nhdr; i++)
		if (!m->hdr[i].skip && hdr_name_matches(r, m->hdr[i].n))
			m->hdr[i].skip = 1;
	return ACT_RET_CONT;
}

static void act_release_hdr(struct act_rule *r)
{
	free((char *)r->arg.hdr.name.ptr);
	lf_free(&r->arg.hdr.fmt);
	regex_free(r->arg.hdr.re);
}

/* Refuses the headers the proxy writes itself. */
int act_check_hdr_name(const char *name, bool del, char *err, size_t errsz)
{
	/* the framing headers are the proxy's to write: a rule changing them would make
	 * the server or the client read the body differently from the proxy */
	if (!strcasecmp(name, "content-length") || !strcasecmp(name, "transfer-encoding")) {
		snprintf(err, errsz, "header '%s' carries the message framing and cannot be "
			 "rewritten (the body would be read differently on each side)", name);
		return -1;
	}
	if (!del && !strcasecmp(name, "connection")) {
		snprintf(err, errsz, "the proxy writes the 'connection' header itself; use "
			 "'option httpclose' or 'option http-server-close' to choose the "
			 "connection mode");
		return -1;
	}
	return 0;
}

int act_set_name(struct ist *dst, const char *name, char *err, size_t errsz)
{
	char *c = strdup(name);

	if (!c) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	*dst = ist_str(c);
	return 0;
}

static int parse_set_hdr(char **args, int *pos, int nargs, const struct act_parse *ap,
			 struct act_rule *r, char *err, size_t errsz)
{
	const char *name = act_next_word(args, pos, nargs);
	const char *fmt = name ? act_next_word(args, pos, nargs) : NULL;

	if (!fmt) {
		snprintf(err, errsz, "expects exactly 2 arguments");
		return -1;
	}
	r->action = act_set_hdr;
	r->release = act_release_hdr;
	r->flags |= ACT_FL_REWRITE;
	r->arg.gen.i[0] = !strcmp(r->kw, "add-header");
	if (act_check_hdr_name(name, false, err, errsz) < 0 ||
	    act_set_name(&r->arg.hdr.name, name, err, errsz) < 0)
		return -1;
	return act_parse_fmt(&r->arg.hdr.fmt, fmt, ap, err, errsz);
}

static int parse_del_hdr(char **args, int *pos, int nargs, const struct act_parse *ap,
			 struct act_rule *r, char *err, size_t errsz)
{
	const char *name = act_next_word(args, pos, nargs);

	if (!name) {
		snprintf(err, errsz, "expects at least 1 argument");
		return -1;
	}
	r->action = act_del_hdr;
	r->release = act_release_hdr;
	r->arg.hdr.match = PAT_MATCH_STR;
	if (act_check_hdr_name(name, true, err, errsz) < 0 ||
	    act_set_name(&r->arg.hdr.name, name, err, errsz) < 0)
		return -1;
	if (*pos < nargs && !strcmp(args[*pos], "-m")) {
		const char *m = *pos + 1 < nargs ? args[*pos + 1] : "";

		r->arg.hdr.match = pat_match_by_name(m);
		if (r->arg.hdr.match != PAT_MATCH_STR && r->arg.hdr.match != PAT_MATCH_BEG &&
		    r->arg.hdr.match != PAT_MATCH_END && r->arg.hdr.match != PAT_MATCH_SUB &&
		    r->arg.hdr.match != PAT_MATCH_REG) {
			snprintf(err, errsz, "-m: unsupported matching method '%s' (expects "
				 "'str', 'beg', 'end', 'sub' or 'reg')", m);
			return -1;
		}
		*pos += 2;
		if (r->arg.hdr.match == PAT_MATCH_REG) {
			char rerr[256];

			r->arg.hdr.re = regex_comp(name, REGEX_ICASE | REGEX_NOSUB, rerr,
						   sizeof(rerr));
			if (!r->arg.hdr.re) {
				snprintf(err, errsz, "invalid regex '%s': %s", name, rerr);
				return -1;
			}
		}
	}
	return 0;
}

static const struct action_kw http_act_kws[] = {
	{ "allow", ACT_F_HTTP_ANY, 0, parse_allow },
	{ "deny", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 0, parse_deny },
	{ "return", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 0, parse_return },
	{ "set-header", ACT_F_HTTP_ANY, 0, parse_set_hdr },
	{ "add-header", ACT_F_HTTP_ANY, 0, parse_set_hdr },
	{ "del-header", ACT_F_HTTP_ANY, 0, parse_del_hdr },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_kws);
