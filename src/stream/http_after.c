/* http-after-response on the replies the proxy makes itself (error pages, return, deny,
 * redirects, auth, services; on a service's response the http-response rules run first):
 * the reply, written as bytes into the front output buffer, is parsed back with the H1
 * parser into the stream's response table, the backend's then the frontend's rules run on
 * it, and the table is serialized again with the reply's body.
 * A failure there gives the 500 page (rules run on it once more; raw if they fail again).
 */
#include <string.h>

#include <base/buf.h>
#include <http/h1.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <stream/action.h>
#include <stream/stream.h>

int http_local_parse(struct stream *s, uint32_t start)
{
	struct buf *ob = &s->front->obuf;
	struct h1_limits lim = { .max_hdr_block = ob->data - start + 1, .max_hdr = 0 };
	int ret;

	s->rsp.max_hdr = s->hdr_cap;
	ret = h1_parse_headers(b_head(ob) + start, ob->data - start, &s->rsp, true, &lim);
	s->rsp.max_hdr = global.tune_maxhdr;
	return ret > 0 ? 0 : -1;
}

int http_local_rebuild(struct stream *s, uint32_t start)
{
	struct buf *ob = &s->front->obuf;
	struct buf tmp = { 0 };
	uint32_t body = start + s->rsp.hdr_len, blen = ob->data - body;
	int ret = -1;

	if (b_get(&tmp) < 0)
		return -1;
	if (h1_write_response(&tmp, &s->rsp, NULL) < 0 ||
	    b_putblk(&tmp, b_head(ob) + body, blen) < 0)
		goto out;
	ob->data = start;
	if (b_putblk(ob, b_head(&tmp), tmp.data) < 0)
		goto out;
	ret = 0;
out:
	b_release(&tmp);
	return ret;
}

/* True when <px> or its defaults section has http-after-response rules. */
static bool has_after_rules(const struct proxy *px)
{
	return px && (px->rule_sets & PR_RS_HTTP_AFTER);
}

/* True when <px> or its defaults section has http-response rules. */
static bool has_res_rules(const struct proxy *px)
{
	return px && (px->rule_sets & PR_RS_HTTP_RES);
}

/* The http-response rules of <px> (its defaults section's first) on a service's response:
 * HAProxy runs them on what its applets answer (not on the other replies of the proxy).
 * They cannot wait here: a rule that would is an error. */
static enum act_return run_res(struct stream *s, struct proxy *px)
{
	struct act_rule *last = NULL;
	enum act_return r = ACT_RET_CONT;

	if (!has_res_rules(px))
		return ACT_RET_CONT;
	if (px->defpx && !list_empty(&px->defpx->http_res_rules))
		r = act_rules_run(&px->defpx->http_res_rules, px, s, ACT_F_HTTP_RES, &last);
	if (r == ACT_RET_CONT && !(last && last->action))
		r = act_rules_run(&px->http_res_rules, px, s, ACT_F_HTTP_RES, &last);
	if (r == ACT_RET_YIELD) { /* forget the rule: nothing resumes it here */
		s->resume_rule = NULL;
		r = ACT_RET_ERR;
	}
	return r;
}

/* Runs the after-response rules of <px> (its defaults section's first). */
static enum act_return run_after(struct stream *s, struct proxy *px)
{
	struct act_rule *last = NULL;
	enum act_return r = ACT_RET_CONT;

	if (px->defpx && !list_empty(&px->defpx->http_after_rules))
		r = act_rules_run(&px->defpx->http_after_rules, px, s, ACT_F_HTTP_AFTER, &last);
	if (r == ACT_RET_CONT && !(last && last->action))
		r = act_rules_run(&px->http_after_rules, px, s, ACT_F_HTTP_AFTER, &last);
	return r;
}

/* Parses, runs the rules and rebuilds; 0 or -1. */
static int after_local_once(struct stream *s, uint32_t start)
{
	struct proxy *be = s->be ? s->be : s->fe;
	enum act_return r;

	if (http_local_parse(s, start) < 0)
		return -1;
	s->flags |= SF_AFTER_LOCAL;
	r = ACT_RET_CONT;
	if (s->svc) { /* a service's response: the http-response rules first */
		r = run_res(s, be);
		if (r == ACT_RET_CONT && s->fe != be)
			r = run_res(s, s->fe);
	}
	if (r == ACT_RET_CONT)
		r = run_after(s, be);
	if (r == ACT_RET_CONT && s->fe != be)
		r = run_after(s, s->fe);
	s->flags &= ~SF_AFTER_LOCAL;
	if (r != ACT_RET_CONT)
		return -1;
	s->status = s->rsp.status;
	return http_local_rebuild(s, start);
}

int http_after_local(struct stream *s, uint32_t start)
{
	struct buf *ob = &s->front->obuf;

	if (!s->req.hdr_len || (!has_after_rules(s->be) && !has_after_rules(s->fe) &&
				(!s->svc || (!has_res_rules(s->be) && !has_res_rules(s->fe)))))
		return 0;
	if (after_local_once(s, start) == 0)
		return 0;
	/* the reply becomes the 500 page, which goes through the rules once */
	stream_count_rewrite_failed(s);
	ob->data = start;
	s->status = 500;
	if (stream_put_error_page(s, 500, false) != 0)
		return -1;
	if (after_local_once(s, start) == 0)
		return 0;
	ob->data = start;
	return stream_put_error_page(s, 500, false) == 0 ? 0 : -1;
}
