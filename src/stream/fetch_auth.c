/* Fetches of HTTP authentication (they live here because they read userlists, which
 * belong to this layer): http_auth and http_auth_group check Basic credentials against a
 * userlist; http_auth_type, http_auth_user, http_auth_pass and http_auth_bearer read the
 * Authorization header. Also the resolver of userlist names in fetch arguments.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <sample/acl.h>
#include <sample/arg.h>
#include <sample/sample.h>
#include <stream/stream-t.h>
#include <stream/userlist.h>

#include "userlist_int.h"

/* The request of the sample's stream while its headers are still in the front buffer. */
static const struct h1_msg *auth_req(const struct sample *smp)
{
	const struct stream *s = smp->ctx->strm;

	if (!s || !s->req.hdr_len)
		return NULL;
	if ((s->flags & SF_REQ_HDRS_SENT) && !(s->flags & SF_REQ_KEPT))
		return NULL;
	return &s->req;
}

/* The first header <name> of <m>, ptr NULL when there is none. */
static struct ist auth_hdr(const struct h1_msg *m, struct ist name)
{
	for (uint16_t i = 0; i < m->nhdr; i++)
		if (!m->hdr[i].skip && ist_ieq(m->hdr[i].n, name))
			return m->hdr[i].v;
	return ist2(NULL, 0);
}

enum auth_kind {
	AUTH_NONE = 0, /* no header, another scheme, or undecodable credentials */
	AUTH_BASIC,
	AUTH_BEARER,
};

struct auth_info {
	enum auth_kind kind;
	struct ist user, pass; /* Basic: views into a scratch chunk */
	struct ist token;      /* Bearer */
};

/* Reads "SCHEME credentials" from <v>: HAProxy knows Basic (decoded into a scratch chunk)
 * and Bearer; a scheme followed by no space is nothing. */
static enum auth_kind auth_parse(struct ist v, struct auth_info *ai)
{
	const char *sp = v.ptr ? memchr(v.ptr, ' ', v.len) : NULL, *p, *e = v.ptr + v.len;
	size_t slen;
	char *buf;

	ai->kind = AUTH_NONE;
	if (!sp || sp == v.ptr)
		return AUTH_NONE;
	slen = (size_t)(sp - v.ptr);
	for (p = sp; p < e && *p == ' '; p++)
		;
	if (slen == 6 && !strncasecmp(v.ptr, "Bearer", 6)) {
		ai->token = ist2(p, (size_t)(e - p));
		return ai->kind = AUTH_BEARER;
	}
	if (slen != 5 || strncasecmp(v.ptr, "Basic", 5))
		return AUTH_NONE;
	buf = smp_trash();
	if (!buf ||
	    userlist_basic_decode(v.ptr, v.len, buf, smp_trash_size(), &ai->user, &ai->pass) < 0)
		return AUTH_NONE;
	return ai->kind = AUTH_BASIC;
}

static enum auth_kind smp_auth(const struct sample *smp, struct auth_info *ai)
{
	const struct h1_msg *m = auth_req(smp);

	ai->kind = AUTH_NONE;
	return m ? auth_parse(auth_hdr(m, IST("Authorization")), ai) : AUTH_NONE;
}

static int smp_set_view(struct sample *smp, struct ist v, bool writable)
{
	smp->data.type = SMP_T_STR;
	smp->data.u.str = v;
	if (writable)
		smp->flags &= ~SMP_F_CONST;
	else
		smp->flags |= SMP_F_CONST;
	return 1;
}

/* http_auth(userlist): whether the Basic credentials are valid; not found without them */
static int smp_fetch_http_auth(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	struct auth_info ai;

	if (args[0].unresolved || smp_auth(smp, &ai) != AUTH_BASIC)
		return 0;
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = userlist_check(args[0].data.usr, ai.user.ptr, ai.user.len, ai.pass.ptr,
					  ai.pass.len);
	return 1;
}

/* http_auth_group(userlist): with valid credentials, the user's name; under an ACL, each
 * group of the user in turn, so that the ACL's patterns (group names) test membership. */
static int smp_fetch_http_auth_group(const struct arg *args, struct sample *smp,
				     const struct sample_fetch *kw)
{
	const struct userlist *ul = args[0].data.usr;
	struct auth_info ai;
	const char *g;

	if (args[0].unresolved || smp_auth(smp, &ai) != AUTH_BASIC)
		return 0;
	/* an ACL walking the groups checks the password once (it2 remembers it) */
	if (!smp->it2 && !userlist_check(ul, ai.user.ptr, ai.user.len, ai.pass.ptr, ai.pass.len))
		return 0;
	if (!(smp->flags & SMP_F_ITER))
		return smp_set_view(smp, ai.user, true);
	smp->it2 = 1;
	g = userlist_user_group(ul, ai.user.ptr, ai.user.len, (int)smp->it);
	if (!g)
		return 0;
	smp->it++;
	if (userlist_user_group(ul, ai.user.ptr, ai.user.len, (int)smp->it))
		smp->flags |= SMP_F_NOT_LAST;
	else
		smp->flags &= ~SMP_F_NOT_LAST;
	return smp_set_view(smp, ist_str(g), false);
}

/* ACL patterns of http_auth_group name groups of its userlist (HAProxy's check). */
static int auth_group_pat_check(const struct arg *args, struct ist pat, char *err, size_t errsz)
{
	const struct userlist *ul = args[0].data.usr;

	if (args[0].unresolved || userlist_group_index(ul, pat.ptr, pat.len) >= 0)
		return 0;
	snprintf(err, errsz, "invalid group '%.*s' (userlist '%s' has no such group)", (int)pat.len,
		 pat.ptr, userlist_name(ul));
	return -1;
}

/* http_auth_type: "Basic" or "Bearer" */
static int smp_fetch_http_auth_type(const struct arg *args, struct sample *smp,
				    const struct sample_fetch *kw)
{
	struct auth_info ai;

	switch (smp_auth(smp, &ai)) {
	case AUTH_BASIC:
		return smp_set_view(smp, IST("Basic"), false);
	case AUTH_BEARER:
		return smp_set_view(smp, IST("Bearer"), false);
	default:
		return 0;
	}
}

/* http_auth_user, http_auth_pass (private 1): the Basic credentials as sent */
static int smp_fetch_http_auth_cred(const struct arg *args, struct sample *smp,
				    const struct sample_fetch *kw)
{
	struct auth_info ai;

	if (smp_auth(smp, &ai) != AUTH_BASIC)
		return 0;
	return smp_set_view(smp, kw->private ? ai.pass : ai.user, true);
}

/* http_auth_bearer([header]): the token of "Bearer TOKEN" in Authorization or <header> */
static int smp_fetch_http_auth_bearer(const struct arg *args, struct sample *smp,
				      const struct sample_fetch *kw)
{
	const struct h1_msg *m = auth_req(smp);
	bool named = args && args[0].type == ARGT_STR && args[0].data.str.len;
	struct auth_info ai;

	if (!m)
		return 0;
	if (auth_parse(auth_hdr(m, named ? args[0].data.str : IST("Authorization")), &ai) ==
	    AUTH_BEARER)
		return smp_set_view(smp, ai.token, false);
	/* as HAProxy: with a header named, an empty token rather than nothing */
	return named ? smp_set_view(smp, IST(""), false) : 0;
}

/* clang-format off */
#define HRQ SMP_USE_HRQHV

static const struct sample_fetch auth_fetches[] = {
	{ "http_auth", smp_fetch_http_auth, 1, { ARGT_USR }, NULL, SMP_T_BOOL, HRQ, 0 },
	{ "http_auth_group", smp_fetch_http_auth_group, 1, { ARGT_USR }, NULL, SMP_T_STR, HRQ, 0 },
	{ "http_auth_type", smp_fetch_http_auth_type, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "http_auth_user", smp_fetch_http_auth_cred, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "http_auth_pass", smp_fetch_http_auth_cred, 0, { 0 }, NULL, SMP_T_STR, HRQ, 1 },
	{ "http_auth_bearer", smp_fetch_http_auth_bearer, 0, { ARGT_STR }, NULL, SMP_T_STR, HRQ, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(auth_fetches)
/* clang-format on */

/* Userlist names in fetch arguments (http_auth...), resolved at check time. */
static int auth_resolve_userlist(struct arg *a, const char *name, struct proxy *px, char *err,
				 size_t errsz)
{
	struct userlist *ul = userlist_find(name);

	if (!ul) {
		snprintf(err, errsz, "unable to find userlist '%s'", name);
		return -1;
	}
	a->data.usr = ul;
	return 0;
}

__attribute__((constructor)) static void auth_register_resolver(void)
{
	arg_register_resolver(ARGT_USR, auth_resolve_userlist);
	acl_register_pat_check(smp_fetch_http_auth_group, auth_group_pat_check);
}
