/* Fetches of HTTP requests and responses: the start line (method, path, url, query...),
 * headers (req.hdr and friends, which walk comma-separated values for ACLs), cookies,
 * URL parameters and bodies. Views into the parsed message of the stream; nothing is
 * copied unless a value must be rebuilt.
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <http/h1.h>
#include <sample/sample.h>
#include <stream/stream-t.h>

/* The message a fetch reads: the request for req.* fetches, the response for res.*. */
static const struct h1_msg *smp_msg(const struct sample *smp, bool res)
{
	const struct stream *s = smp->ctx->strm;

	if (!s)
		return NULL;
	if (res)
		return s->rsp.hdr_len ? &s->rsp : NULL;
	return s->req.hdr_len ? &s->req : NULL;
}

static int smp_set_str(struct sample *smp, struct ist v)
{
	smp->data.type = SMP_T_STR;
	smp->data.u.str = v;
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* method: the request method, type meth */
static int smp_fetch_meth(const struct arg *args, struct sample *smp,
			  const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_msg(smp, false);

	if (!m)
		return 0;
	smp_set_str(smp, m->meth);
	smp->data.type = SMP_T_METH;
	return 1;
}

/* path: from the first '/' of the path to '?' (excluded) */
static int smp_fetch_path(const struct arg *args, struct sample *smp,
			  const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_msg(smp, false);
	struct ist p;
	const char *q;

	if (!m)
		return 0;
	p = h1_uri_pathq(m->uri);
	if (!p.len)
		return 0;
	if (!kw->private) { /* path: without the query string */
		q = memchr(p.ptr, '?', p.len);
		if (q)
			p.len = (size_t)(q - p.ptr);
	}
	return smp_set_str(smp, p);
}

/* url: the request target as received */
static int smp_fetch_url(const struct arg *args, struct sample *smp,
			 const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_msg(smp, false);

	return m ? smp_set_str(smp, m->uri) : 0;
}

/* Value number <idx> (0-based) of header <name> in <m>, or when <idx> is UINT32_MAX the
 * number of values in *count. A full-line header (fhdr) is one value; otherwise each
 * comma-separated element is one, trimmed. */
static bool hdr_nth(const struct h1_msg *m, struct ist name, bool full, uint32_t idx,
		    struct ist *out, uint32_t *count)
{
	uint32_t n = 0;

	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];
		const char *p, *e;

		if (h->skip || !ist_ieq(h->n, name))
			continue;
		p = h->v.ptr;
		e = p + h->v.len;
		while (1) {
			const char *c = full ? NULL : memchr(p, ',', (size_t)(e - p));
			struct ist v;

			if (!c)
				c = e;
			if (n++ == idx) {
				v = ist2(p, (size_t)(c - p));
				while (v.len && (*v.ptr == ' ' || *v.ptr == '\t'))
					v.ptr++, v.len--;
				while (v.len && (v.ptr[v.len - 1] == ' ' || v.ptr[v.len - 1] == '\t'))
					v.len--;
				*out = v;
				return true;
			}
			if (c >= e)
				break;
			p = c + 1;
		}
	}
	if (count)
		*count = n;
	return false;
}

/* req.hdr(name[,occ]), hdr, res.hdr, shdr, req.fhdr, res.fhdr: occ > 0 counts from the
 * first value, occ < 0 from the last; without occ, an ACL walks every value and an
 * expression gets the last one. */
static int smp_fetch_hdr(const struct arg *args, struct sample *smp,
			 const struct sample_fetch *kw)
{
	bool res = kw->private & 1, full = kw->private & 2;
	const struct h1_msg *m = smp_msg(smp, res);
	struct ist name = args[0].data.str, v;
	uint32_t count = 0, idx;
	long occ = args[1].type == ARGT_SINT ? (long)args[1].data.sint : 0;

	if (!m)
		return 0;
	if (!occ && (smp->flags & SMP_F_ITER)) {
		if (!hdr_nth(m, name, full, smp->it, &v, NULL))
			return 0;
		smp->it++;
		if (hdr_nth(m, name, full, smp->it, &(struct ist){ 0 }, NULL))
			smp->flags |= SMP_F_NOT_LAST;
		else
			smp->flags &= ~SMP_F_NOT_LAST;
		return smp_set_str(smp, v);
	}
	if (occ > 0) {
		idx = (uint32_t)(occ - 1);
	} else {
		hdr_nth(m, name, full, UINT32_MAX, &v, &count);
		if (!occ)
			occ = -1;
		if ((unsigned long)-occ > count)
			return 0;
		idx = count - (uint32_t)-occ;
	}
	if (!hdr_nth(m, name, full, idx, &v, NULL))
		return 0;
	return smp_set_str(smp, v);
}

/* req.ver: "1.1" or "1.0" */
static int smp_fetch_ver(const struct arg *args, struct sample *smp,
			 const struct sample_fetch *kw)
{
	const struct h1_msg *m = smp_msg(smp, kw->private);

	if (!m || m->vsn.len < 8)
		return 0;
	return smp_set_str(smp, ist2(m->vsn.ptr + 5, m->vsn.len - 5));
}

static int smp_fetch_proto_http(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = smp_msg(smp, false) != NULL;
	return 1;
}

#define HRQ SMP_USE_HRQHV
#define HRS SMP_USE_HRSHV

static const struct sample_fetch http_fetches[] = {
	{ "method", smp_fetch_meth, 0, { 0 }, NULL, SMP_T_METH, HRQ, 0 },
	{ "path", smp_fetch_path, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "pathq", smp_fetch_path, 0, { 0 }, NULL, SMP_T_STR, HRQ, 1 },
	{ "url", smp_fetch_url, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "req.hdr", smp_fetch_hdr, 1, { ARGT_STR, ARGT_SINT }, NULL, SMP_T_STR, HRQ, 0 },
	{ "hdr", smp_fetch_hdr, 1, { ARGT_STR, ARGT_SINT }, NULL, SMP_T_STR, HRQ, 0 },
	{ "req.fhdr", smp_fetch_hdr, 1, { ARGT_STR, ARGT_SINT }, NULL, SMP_T_STR, HRQ, 2 },
	{ "res.hdr", smp_fetch_hdr, 1, { ARGT_STR, ARGT_SINT }, NULL, SMP_T_STR, HRS, 1 },
	{ "shdr", smp_fetch_hdr, 1, { ARGT_STR, ARGT_SINT }, NULL, SMP_T_STR, HRS, 1 },
	{ "res.fhdr", smp_fetch_hdr, 1, { ARGT_STR, ARGT_SINT }, NULL, SMP_T_STR, HRS, 3 },
	{ "req.ver", smp_fetch_ver, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "res.ver", smp_fetch_ver, 0, { 0 }, NULL, SMP_T_STR, HRS, 1 },
	{ "req.proto_http", smp_fetch_proto_http, 0, { 0 }, NULL, SMP_T_BOOL, HRQ, 0 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(http_fetches)
