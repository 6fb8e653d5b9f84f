/* The HTTP rule layers' part of a proxy (proxy->rules_ext): created on first use by the
 * keyword parsers of captures, unique ids, monitor fail, legacy redirects and error
 * sections; lookups through the defaults sections a proxy was created from; freeing.
 */
#include <stdlib.h>

#include <sample/acl.h>
#include <sample/logfmt.h>
#include <stream/action.h>
#include <stream/http_err.h>
#include <stream/px_ext.h>

struct px_rules_ext *px_ext_get(struct proxy *px)
{
	struct px_rules_ext *x = px->rules_ext;

	if (x)
		return x;
	x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	list_init(&x->redirects);
	list_init(&x->err_conf);
	px->rules_ext = x;
	return x;
}

const struct lf_expr *px_ext_uid_fmt(const struct proxy *px)
{
	for (; px; px = px->defpx)
		if (px_ext(px) && px_ext(px)->uid_fmt)
			return px_ext(px)->uid_fmt;
	return NULL;
}

struct ist px_ext_uid_hdr(const struct proxy *px)
{
	for (; px; px = px->defpx)
		if (px_ext(px) && px_ext(px)->uid_hdr.len)
			return px_ext(px)->uid_hdr;
	return ist2(NULL, 0);
}

void px_ext_free(struct proxy *px)
{
	struct px_rules_ext *x = px->rules_ext;

	if (!x)
		return;
	for (int i = 0; i < x->nb_req_cap; i++)
		free((char *)x->req_cap[i].hdr.ptr);
	for (int i = 0; i < x->nb_res_cap; i++)
		free((char *)x->res_cap[i].hdr.ptr);
	free(x->req_cap);
	free(x->res_cap);
	free(x->cookie_name);
	if (x->uid_fmt) {
		lf_free(x->uid_fmt);
		free(x->uid_fmt);
	}
	free((char *)x->uid_hdr.ptr);
	for (int i = 0; i < x->nb_monitor_fail; i++)
		acl_cond_free(x->monitor_fail[i]);
	free(x->monitor_fail);
	act_rules_free(&x->redirects);
	http_err_conf_free(&x->err_conf);
	free(x);
	px->rules_ext = NULL;
}
