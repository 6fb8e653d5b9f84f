/* Actions rewriting the request line: set-path, set-pathq, set-query, set-uri,
 * replace-path, replace-pathq, replace-uri (a match replaces the whole part by the
 * expanded format, as HAProxy), set-method and normalize-uri. The new values are built in
 * the stream's rewrite buffer and the request's views point at them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <http/h1.h>
#include <http/meth.h>
#include <http/uri_norm.h>
#include <sample/logfmt.h>
#include <sample/regex.h>
#include <sample/sample.h>
#include <stream/action.h>
#include <stream/http_rw.h>
#include <stream/stream.h>

/* rule->arg.gen.i[0] for the URI actions */
enum uri_part {
	URI_PATH = 0, /* set-path, replace-path */
	URI_PATHQ,    /* set-pathq, replace-pathq */
	URI_QUERY,    /* set-query */
	URI_WHOLE,    /* set-uri, replace-uri */
	URI_METHOD,   /* set-method */
};

/* The parts of a request target: what precedes the path ("scheme://authority" of the
 * absolute form), the path, and the query with its '?'. A target that is neither in
 * origin nor absolute form ("*", CONNECT's authority) is all path. */
struct uri_parts {
	struct ist pre;
	struct ist path;
	struct ist query;
};

static void uri_split(struct ist uri, struct uri_parts *u)
{
	struct ist pq = h1_uri_pathq(uri);
	const char *q;

	if (!pq.len && uri.len && !memmem(uri.ptr, uri.len, "://", 3))
		pq = uri;
	u->pre = ist2(uri.ptr, (size_t)(pq.ptr - uri.ptr));
	q = memchr(pq.ptr, '?', pq.len);
	u->path = ist2(pq.ptr, q ? (size_t)(q - pq.ptr) : pq.len);
	u->query = q ? ist2(q, (size_t)(pq.ptr + pq.len - q)) : ist2(pq.ptr + pq.len, 0);
}

/* A request line may not carry controls or spaces: they would end the target early. */
static bool uri_is_safe(struct ist v)
{
	for (size_t i = 0; i < v.len; i++)
		if ((unsigned char)v.ptr[i] <= 0x20 || v.ptr[i] == 0x7f)
			return false;
	return true;
}

/* A method is a token (RFC 9110 section 5.6.2). */
static bool meth_is_token(struct ist v)
{
	static const char tchar[] = "!#$%&'*+-.^_`|~";

	if (!v.len)
		return false;
	for (size_t i = 0; i < v.len; i++) {
		unsigned char c = (unsigned char)v.ptr[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c && strchr(tchar, c))))
			return false;
	}
	return true;
}

/* Points the request of <s> at the new method and keeps the method flags in step. */
static void req_set_method(struct stream *s, struct ist meth)
{
	struct h1_msg *m = &s->req;

	s->meth = (uint8_t)http_meth_id(meth);
	m->meth = meth;
	m->flags &= ~(H1_MF_METH_GET | H1_MF_METH_HEAD | H1_MF_METH_CONNECT);
	if (ist_eq(meth, IST("GET")))
		m->flags |= H1_MF_METH_GET;
	else if (ist_eq(meth, IST("HEAD")))
		m->flags |= H1_MF_METH_HEAD;
	else if (ist_eq(meth, IST("CONNECT")))
		m->flags |= H1_MF_METH_CONNECT;
}

/* ---- set-path, set-pathq, set-query, set-uri, set-method ---- */

/* Puts the new value of the part: the literal <lit> when given, else <fmt> rendered. */
static void put_value(struct rw_build *b, const struct ist *lit, const struct lf_expr *fmt,
		      const struct smp_ctx *ctx)
{
	if (lit)
		rwb_put(b, *lit);
	else
		rwb_render(b, fmt, ctx);
}

/* Sets <part> of the request line to <lit> or to <fmt> rendered. 0, or -1 when the value
 * is invalid or does not fit. */
static int set_uri_part(struct stream *s, int part, const struct ist *lit,
			const struct lf_expr *fmt, const struct smp_ctx *ctx)
{
	struct h1_msg *m = &s->req;
	struct uri_parts u;
	struct rw_build b;
	struct ist out;
	size_t at;

	uri_split(m->uri, &u);
	rwb_begin(&b, s);
	switch (part) {
	case URI_PATH:
	case URI_PATHQ:
		rwb_put(&b, u.pre);
		at = b.len;
		put_value(&b, lit, fmt, ctx);
		if (!uri_is_safe(rwb_tail(&b, at)))
			return -1;
		if (part == URI_PATH)
			rwb_put(&b, u.query);
		break;
	case URI_QUERY:
		rwb_put(&b, u.pre);
		rwb_put(&b, u.path);
		at = b.len;
		put_value(&b, lit, fmt, ctx);
		if (!uri_is_safe(rwb_tail(&b, at)))
			return -1;
		if (b.ok && (u.query.len || b.len > at)) { /* '?' first: move the query by one */
			size_t ql = b.len - at;

			rwb_put(&b, IST("?"));
			if (b.ok) {
				memmove(b.p + at + 1, b.p + at, ql);
				b.p[at] = '?';
			}
		}
		break;
	case URI_METHOD:
		put_value(&b, lit, fmt, ctx);
		if (!b.ok || !meth_is_token(rwb_tail(&b, 0)) || !rwb_end(&b, s, &out))
			return -1;
		req_set_method(s, out);
		return 0;
	default: /* URI_WHOLE */
		put_value(&b, lit, fmt, ctx);
		if (!uri_is_safe(rwb_tail(&b, 0)) || !b.len)
			return -1;
		break;
	}
	if (!rwb_end(&b, s, &out) || !out.len)
		return -1;
	m->uri = out;
	return 0;
}

static enum act_return act_set_uri(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct smp_ctx ctx;

	act_smp_ctx(&ctx, s, px, from);
	return set_uri_part(s, (int)r->arg.gen.i[0], NULL, &r->arg.gen.fmt, &ctx) < 0
		       ? ACT_RET_ERR
		       : ACT_RET_CONT;
}

int http_req_set_line_part(struct stream *s, int part, struct ist v)
{
	static const int map[] = { URI_METHOD, URI_PATH, URI_QUERY, URI_WHOLE, URI_PATHQ };

	if (part < 0 || part > HTTP_LINE_PATHQ)
		return -1;
	return set_uri_part(s, map[part], &v, NULL, NULL);
}

/* ---- replace-path, replace-pathq, replace-uri ---- */

static enum act_return act_replace_uri(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	struct regex_match rm[REGEX_MAX_MATCH];
	struct h1_msg *m = &s->req;
	struct ist subject, out;
	struct uri_parts u;
	struct smp_ctx ctx;
	struct rw_build b;
	char *fmt = smp_trash();
	size_t at;
	int n;

	uri_split(m->uri, &u);
	switch (r->arg.gen.i[0]) {
	case URI_PATH:
		subject = u.path;
		break;
	case URI_PATHQ:
		subject = ist2(u.path.ptr, u.path.len + u.query.len);
		break;
	default:
		subject = m->uri;
		break;
	}
	if (!regex_exec_match(r->arg.gen.re, subject.ptr, subject.len, rm, REGEX_MAX_MATCH))
		return ACT_RET_CONT;
	act_smp_ctx(&ctx, s, px, from);
	/* the format is rendered first, then its \N references are expanded */
	n = fmt ? lf_render(&r->arg.gen.fmt, &ctx, fmt, smp_trash_size() - 1) : -1;
	if (n < 0)
		return ACT_RET_ERR;
	fmt[n] = 0;
	rwb_begin(&b, s);
	if (r->arg.gen.i[0] != URI_WHOLE)
		rwb_put(&b, u.pre);
	at = b.len;
	if (b.ok) {
		n = regex_expand(b.p + at, b.room - at, fmt, subject.ptr, rm, REGEX_MAX_MATCH);
		if (n < 0)
			return ACT_RET_ERR;
		b.len += (size_t)n;
	}
	if (!uri_is_safe(rwb_tail(&b, at)))
		return ACT_RET_ERR;
	if (r->arg.gen.i[0] == URI_PATH)
		rwb_put(&b, u.query);
	if (!rwb_end(&b, s, &out) || !out.len)
		return ACT_RET_ERR;
	m->uri = out;
	return ACT_RET_CONT;
}

/* ---- normalize-uri ---- */

/* rule->arg.gen.i[0] */
enum uri_normalizer {
	NORM_MERGE_SLASHES = 0,
	NORM_STRIP_DOT,
	NORM_STRIP_DOTDOT,
	NORM_PCT_DECODE,
	NORM_PCT_UPPER,
	NORM_QUERY_SORT,
	NORM_FRAG_STRIP,
	NORM_FRAG_ENCODE,
};

static const struct {
	const char *name;
	const char *opt; /* its option word, or NULL */
} normalizers[] = {
	[NORM_MERGE_SLASHES] = { "path-merge-slashes", NULL },
	[NORM_STRIP_DOT] = { "path-strip-dot", NULL },
	[NORM_STRIP_DOTDOT] = { "path-strip-dotdot", "full" },
	[NORM_PCT_DECODE] = { "percent-decode-unreserved", "strict" },
	[NORM_PCT_UPPER] = { "percent-to-uppercase", "strict" },
	[NORM_QUERY_SORT] = { "query-sort-by-name", NULL },
	[NORM_FRAG_STRIP] = { "fragment-strip", NULL },
	[NORM_FRAG_ENCODE] = { "fragment-encode", NULL },
};

#define NB_NORMALIZERS ((int)(sizeof(normalizers) / sizeof(normalizers[0])))

/* Runs normalizer <r> over in[0..len) into out. */
static int normalize(const struct act_rule *r, struct ist in, char *out, size_t outsz)
{
	bool opt = r->arg.gen.i[1];

	switch (r->arg.gen.i[0]) {
	case NORM_MERGE_SLASHES:
		return uri_norm_merge_slashes(in.ptr, in.len, out, outsz);
	case NORM_STRIP_DOT:
		return uri_norm_strip_dot(in.ptr, in.len, out, outsz);
	case NORM_STRIP_DOTDOT:
		return uri_norm_strip_dotdot(in.ptr, in.len, opt, out, outsz);
	case NORM_PCT_DECODE:
		return uri_norm_pct_decode_unreserved(in.ptr, in.len, opt, out, outsz);
	case NORM_PCT_UPPER:
		return uri_norm_pct_upper(in.ptr, in.len, opt, out, outsz);
	case NORM_QUERY_SORT:
		return uri_norm_query_sort(in.ptr, in.len, out, outsz);
	case NORM_FRAG_STRIP:
		return uri_norm_fragment_strip(in.ptr, in.len, out, outsz);
	}
	return uri_norm_fragment_encode(in.ptr, in.len, out, outsz);
}

static enum act_return act_normalize_uri(struct act_rule *r, struct proxy *px, struct stream *s,
					 int from)
{
	struct h1_msg *m = &s->req;
	long long which = r->arg.gen.i[0];
	struct ist in, keep, out;
	struct uri_parts u;
	struct rw_build b;
	size_t at;
	int n;

	uri_split(m->uri, &u);
	if (!u.path.len || u.path.ptr[0] != '/')
		return ACT_RET_CONT; /* "*", CONNECT: no path to normalize */
	keep = ist2(NULL, 0);
	if (which == NORM_QUERY_SORT) {
		if (u.query.len <= 1)
			return ACT_RET_CONT;
		in = ist2(u.query.ptr + 1, u.query.len - 1);
	} else if (which <= NORM_STRIP_DOTDOT) {
		in = u.path; /* the path alone */
		keep = u.query;
	} else {
		in = ist2(u.path.ptr, u.path.len + u.query.len);
	}
	rwb_begin(&b, s);
	rwb_put(&b, u.pre);
	if (which == NORM_QUERY_SORT) {
		rwb_put(&b, u.path);
		rwb_put(&b, IST("?"));
	}
	at = b.len;
	if (!b.ok)
		return ACT_RET_ERR;
	n = normalize(r, in, b.p + at, b.room - at);
	if (n == URI_NORM_INVALID)
		return ACT_RET_INV;
	if (n < 0)
		return ACT_RET_ERR;
	b.len += (size_t)n;
	rwb_put(&b, keep);
	if (!rwb_end(&b, s, &out))
		return ACT_RET_ERR;
	m->uri = out;
	return ACT_RET_CONT;
}

/* ---- parsing ---- */

static void act_uri_release(struct act_rule *r)
{
	lf_free(&r->arg.gen.fmt);
	regex_free(r->arg.gen.re);
}

static const char *uri_kw_part(const char *kw, long long *part)
{
	static const struct {
		const char *kw;
		enum uri_part part;
	} t[] = {
		{ "set-path", URI_PATH },	{ "set-pathq", URI_PATHQ },
		{ "set-query", URI_QUERY },	{ "set-uri", URI_WHOLE },
		{ "set-method", URI_METHOD },	{ "replace-path", URI_PATH },
		{ "replace-pathq", URI_PATHQ }, { "replace-uri", URI_WHOLE },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(kw, t[i].kw)) {
			*part = t[i].part;
			return kw;
		}
	*part = URI_WHOLE;
	return kw;
}

/* set-path|set-pathq|set-query|set-uri|set-method FMT */
static int parse_set_uri(char **args, int *pos, int nargs, const struct act_parse *ap,
			 struct act_rule *r, char *err, size_t errsz)
{
	const char *fmt = act_next_word(args, pos, nargs);

	if (!fmt || act_next_word(args, pos, nargs)) {
		snprintf(err, errsz, "expects exactly 1 argument <format>");
		return -1;
	}
	uri_kw_part(r->kw, &r->arg.gen.i[0]);
	r->action = act_set_uri;
	r->release = act_uri_release;
	r->flags |= ACT_FL_REWRITE;
	return act_parse_fmt(&r->arg.gen.fmt, fmt, ap, err, errsz);
}

/* Compiles the regex of a replace-* action and checks its replacement. */
static int act_parse_replace(struct act_rule *r, const char *re, const char *fmt,
			     const struct act_parse *ap, char *err, size_t errsz)
{
	char rerr[256];

	r->arg.gen.re = regex_comp(re, 0, rerr, sizeof(rerr));
	if (!r->arg.gen.re) {
		snprintf(err, errsz, "regex '%s' is invalid (%s)", re, rerr);
		return -1;
	}
	if (regex_subst_check(fmt)) {
		snprintf(err, errsz, "invalid escape sequence in replacement '%s'", fmt);
		return -1;
	}
	return act_parse_fmt(&r->arg.gen.fmt, fmt, ap, err, errsz);
}

/* replace-path|replace-pathq|replace-uri REGEX FMT */
static int parse_replace_uri(char **args, int *pos, int nargs, const struct act_parse *ap,
			     struct act_rule *r, char *err, size_t errsz)
{
	const char *re = act_next_word(args, pos, nargs);
	const char *fmt = re ? act_next_word(args, pos, nargs) : NULL;

	if (!fmt || act_next_word(args, pos, nargs)) {
		snprintf(err, errsz,
			 "expects exactly 2 arguments <match-regex> and "
			 "<replace-format>");
		return -1;
	}
	uri_kw_part(r->kw, &r->arg.gen.i[0]);
	r->action = act_replace_uri;
	r->release = act_uri_release;
	r->flags |= ACT_FL_REWRITE;
	return act_parse_replace(r, re, fmt, ap, err, errsz);
}

/* normalize-uri NORMALIZER [full|strict] */
static int parse_normalize_uri(char **args, int *pos, int nargs, const struct act_parse *ap,
			       struct act_rule *r, char *err, size_t errsz)
{
	const char *name = act_next_word(args, pos, nargs);
	const char *opt;
	int i;

	if (!name) {
		snprintf(err, errsz, "missing argument <normalizer>");
		return -1;
	}
	for (i = 0; i < NB_NORMALIZERS && strcmp(name, normalizers[i].name); i++)
		;
	if (i == NB_NORMALIZERS) {
		snprintf(err, errsz, "unknown normalizer '%s'", name);
		return -1;
	}
	r->arg.gen.i[0] = i;
	opt = act_next_word(args, pos, nargs);
	if (opt) {
		if (!normalizers[i].opt || strcmp(opt, normalizers[i].opt)) {
			snprintf(err, errsz, "unknown argument '%s' for '%s' normalizer", opt,
				 name);
			return -1;
		}
		r->arg.gen.i[1] = 1;
	}
	r->action = act_normalize_uri;
	r->flags |= ACT_FL_REWRITE;
	return 0;
}

static const struct action_kw http_act_uri_kws[] = {
	{ "set-path", ACT_F_HTTP_REQ, 0, parse_set_uri },
	{ "set-pathq", ACT_F_HTTP_REQ, 0, parse_set_uri },
	{ "set-query", ACT_F_HTTP_REQ, 0, parse_set_uri },
	{ "set-uri", ACT_F_HTTP_REQ, 0, parse_set_uri },
	{ "set-method", ACT_F_HTTP_REQ, 0, parse_set_uri },
	{ "replace-path", ACT_F_HTTP_REQ, 0, parse_replace_uri },
	{ "replace-pathq", ACT_F_HTTP_REQ, 0, parse_replace_uri },
	{ "replace-uri", ACT_F_HTTP_REQ, 0, parse_replace_uri },
	{ "normalize-uri", ACT_F_HTTP_REQ, 0, parse_normalize_uri },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_uri_kws);
