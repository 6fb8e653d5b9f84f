/* Fetches of HTTP headers and cookies, request and response: req.hdr/res.hdr and their
 * legacy names (hdr, shdr), the full-line forms (fhdr), counts, integer and address
 * readings, the whole header block (req.hdrs, req.hdrs_bin), header names, and cookies
 * (req.cook, res.cook...). Values are views into the parsed message; ACLs walk every
 * value through smp->it/it2 (header index, offset in its value), an expression gets the
 * last one unless an occurrence is given, as HAProxy does.
 */
#include <arpa/inet.h>
#include <string.h>

#include <sample/smp_http.h>

#include "fetch_int.h"

#define HF_RES 0x1  /* the response's headers */
#define HF_FULL 0x2 /* whole lines (fhdr): commas do not split values */
#define HF_DIR 0x4  /* the message of the rule's direction (hdr, cookie) */

static inline const struct h1_msg *hf_msg(const struct sample *smp, int priv)
{
	if (priv & HF_DIR)
		return smp_dir_msg(smp);
	return (priv & HF_RES) ? smp_rsp(smp) : smp_req(smp);
}

/* An optional string argument; empty when absent. */
static struct ist arg_str(const struct arg *args, int i)
{
	if (!args || args[i].type != ARGT_STR)
		return ist2("", 0);
	return args[i].data.str;
}

/* ---- walking header values ---- */

struct hdr_walk {
	const struct h1_msg *m;
	struct ist name; /* empty: every header */
	bool full;
	uint16_t i;	 /* next header to load */
	bool done;	 /* the current header's value is exhausted */
	struct ist rest; /* what remains of it */
};

static void hw_init(struct hdr_walk *w, const struct h1_msg *m, struct ist name, bool full)
{
	w->m = m;
	w->name = name;
	w->full = full;
	w->i = 0;
	w->done = true;
	w->rest = ist2("", 0);
}

static bool hw_next(struct hdr_walk *w, struct ist *v)
{
	for (;;) {
		const struct h1_hdr *h;

		if (!w->done) {
			if (w->full) {
				*v = w->rest;
				w->done = true;
				return true;
			}
			if (smp_hdr_next_value_fast(&w->rest, &w->done, v))
				return true;
		}
		while (w->i < w->m->nhdr) {
			h = &w->m->hdr[w->i];
			if (!h->skip && (!w->name.len || ist_ieq(h->n, w->name)))
				break;
			w->i++;
		}
		if (w->i >= w->m->nhdr)
			return false;
		w->rest = w->m->hdr[w->i++].v;
		w->done = false;
	}
}

/* True when hw_next() would give another value: the current line goes on, or another line
 * of the header follows (checked on names only, without splitting values). */
static bool hw_more(const struct hdr_walk *w)
{
	if (!w->done)
		return true;
	for (uint16_t i = w->i; i < w->m->nhdr; i++) {
		const struct h1_hdr *h = &w->m->hdr[i];

		if (!h->skip && (!w->name.len || ist_ieq(h->n, w->name)))
			return true;
	}
	return false;
}

/* The walker's position kept in the sample between the calls of an ACL iteration. */
static void hw_save(const struct hdr_walk *w, struct sample *smp)
{
	smp->it = w->i;
	smp->it2 = w->done ? 0 : (uint32_t)(w->rest.ptr - w->m->hdr[w->i - 1].v.ptr) + 1;
}

static void hw_restore(struct hdr_walk *w, const struct sample *smp)
{
	w->i = (uint16_t)smp->it;
	w->done = !smp->it2 || !w->i;
	if (!w->done) {
		struct ist v = w->m->hdr[w->i - 1].v;
		size_t off = smp->it2 - 1;

		w->rest = ist2(v.ptr + off, v.len - off);
	}
}

static uint32_t hw_count(const struct h1_msg *m, struct ist name, bool full)
{
	struct hdr_walk w;
	struct ist v;
	uint32_t n = 0;

	hw_init(&w, m, name, full);
	while (hw_next(&w, &v))
		n++;
	return n;
}

/* Value number <occ> (1-based from the first, negative from the last) into *v. */
static bool hw_occ(const struct h1_msg *m, struct ist name, bool full, long long occ, struct ist *v)
{
	struct hdr_walk w;
	uint32_t n;

	if (occ == -1) { /* the last one, the usual case: one walk */
		struct ist last;
		bool found = false;

		hw_init(&w, m, name, full);
		while (hw_next(&w, &last))
			found = true;
		if (found)
			*v = last;
		return found;
	}
	if (occ < 0) {
		n = hw_count(m, name, full);
		if ((unsigned long long)-occ > n)
			return false;
		occ = (long long)n + occ + 1;
	}
	hw_init(&w, m, name, full);
	while (hw_next(&w, v))
		if (--occ == 0)
			return true;
	return false;
}

/* hdr_value() under an ACL when the walker is between two lines (see hw_save()): finds
 * the next line of <name>, its first value, and whether more follow, in one pass. */
static bool hdr_iter_next(const struct h1_msg *m, struct ist name, bool full, struct sample *smp,
			  struct ist *v)
{
	const struct h1_hdr *h = m->hdr + smp->it, *end = m->hdr + m->nhdr, *o = end;
	struct ist rest;
	bool done = true;

	for (; h < end; h++)
		if (!h->skip && (!name.len || ist_ieq(h->n, name)))
			break;
	if (h >= end)
		return false;
	rest = h->v;
	if (full) {
		*v = rest;
	} else {
		done = false;
		smp_hdr_next_value_fast(&rest, &done, v);
	}
	smp->it = (uint32_t)(h - m->hdr) + 1;
	smp->it2 = done ? 0 : (uint32_t)(rest.ptr - h->v.ptr) + 1;
	if (done)
		for (o = h + 1; o < end; o++)
			if (!o->skip && (!name.len || ist_ieq(o->n, name)))
				break;
	smp_more(smp, !done || o < end);
	return true;
}

/* One value of header <name>: the next one under an ACL (no occurrence given), else
 * occurrence <occ> (default -1, the last). */
static bool hdr_value(const struct h1_msg *m, struct ist name, bool full, long long occ,
		      struct sample *smp, struct ist *v)
{
	struct hdr_walk w;

	if (occ || !(smp->flags & SMP_F_ITER)) {
		smp_more(smp, false);
		return hw_occ(m, name, full, occ ? occ : -1, v);
	}
	if (!smp->it2 || !smp->it)
		return hdr_iter_next(m, name, full, smp, v); /* the usual case, in one pass */
	hw_init(&w, m, name, full);
	hw_restore(&w, smp);
	if (!hw_next(&w, v))
		return false;
	hw_save(&w, smp);
	smp_more(smp, hw_more(&w));
	return true;
}

static long long arg_occ(const struct arg *args)
{
	return args && args[1].type == ARGT_SINT ? args[1].data.sint : 0;
}

/* req.hdr([name[,occ]]), hdr, req.fhdr, res.hdr, shdr, res.fhdr */
static int smp_fetch_hdr(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = hf_msg(smp, kw->private);
	struct ist v;

	if (!m || !hdr_value(m, arg_str(args, 0), kw->private & HF_FULL, arg_occ(args), smp, &v))
		return 0;
	return smp_set_str(smp, v);
}

/* req.hdr_cnt([name]), req.fhdr_cnt, res.hdr_cnt...: values (or lines) of the header,
 * of every header without a name. */
static int smp_fetch_hdr_cnt(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	const struct h1_msg *m = hf_msg(smp, kw->private);

	if (!m)
		return 0;
	return smp_set_int(smp, hw_count(m, arg_str(args, 0), kw->private & HF_FULL));
}

/* req.hdr_val(name[,occ]): the value read as an integer, HAProxy's lenient way */
static int smp_fetch_hdr_val(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	if (!smp_fetch_hdr(args, smp, kw))
		return 0;
	return smp_set_int(smp, smp_strl2ic(smp->data.u.str));
}

/* An address value: an IPv4 address alone or followed by ":port", else an IPv6 one. */
static bool hdr_parse_ip(struct ist v, struct sample *smp)
{
	struct in_addr a4;
	size_t n = smp_ipv4_prefix(v, &a4);
	char tmp[INET6_ADDRSTRLEN + 1];

	if (n && n < v.len && v.ptr[n] == ':' && n + 1 < v.len && v.len - n - 1 <= 5) {
		unsigned port = 0;
		size_t i;

		for (i = n + 1; i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9'; i++)
			port = port * 10 + (unsigned)(v.ptr[i] - '0');
		if (i == v.len && port <= 65535)
			n = v.len;
	}
	if (n && n == v.len) {
		smp->data.type = SMP_T_IPV4;
		smp->data.u.ipv4 = a4;
		return true;
	}
	if (v.len >= sizeof(tmp))
		return false;
	memcpy(tmp, v.ptr, v.len);
	tmp[v.len] = 0;
	if (inet_pton(AF_INET6, tmp, &smp->data.u.ipv6) != 1)
		return false;
	smp->data.type = SMP_T_IPV6;
	return true;
}

/* req.hdr_ip(name[,occ]): under an ACL the values that are addresses, one by one */
static int smp_fetch_hdr_ip(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	while (smp_fetch_hdr(args, smp, kw)) {
		if (hdr_parse_ip(smp->data.u.str, smp))
			return 1;
		if (!(smp->flags & SMP_F_NOT_LAST))
			return 0;
	}
	return 0;
}

/* Writes header name <n> in lower case at <t> (room checked by the caller); returns its
 * length. HAProxy shows header names in lower case. */
static size_t put_lower(char *t, struct ist n)
{
	for (size_t k = 0; k < n.len; k++)
		t[k] = (n.ptr[k] >= 'A' && n.ptr[k] <= 'Z') ? (char)(n.ptr[k] + 32) : n.ptr[k];
	return n.len;
}

/* req.hdrs: the header block as HAProxy forwards it ("name: value" lines, lower-case
 * names, then the empty line), built in a scratch chunk. */
static int smp_fetch_hdrs(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = hf_msg(smp, kw->private);
	char *t = smp_trash();
	size_t room = smp_trash_size(), o = 0;

	if (!m || !t)
		return 0;
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (h->skip)
			continue;
		if (o + h->n.len + h->v.len + 4 > room)
			return 0;
		o += put_lower(t + o, h->n);
		memcpy(t + o, ": ", 2);
		memcpy(t + o + 2, h->v.ptr, h->v.len);
		o += 2 + h->v.len;
		memcpy(t + o, "\r\n", 2);
		o += 2;
	}
	if (o + 2 > room)
		return 0;
	memcpy(t + o, "\r\n", 2);
	smp_set_bin(smp, ist2(t, o + 2));
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* req.hdrs_bin: each header as varint name length, name, varint value length, value (names
 * in lower case), ended by two zero lengths. */
static int smp_fetch_hdrs_bin(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	const struct h1_msg *m = hf_msg(smp, kw->private);
	char *t = smp_trash();
	size_t room = smp_trash_size(), o = 0;

	if (!m || !t)
		return 0;
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (h->skip)
			continue;
		if (smp_varint_put(t, room, &o, h->n.len) < 0 || o + h->n.len > room)
			return 0;
		o += put_lower(t + o, h->n);
		if (smp_varint_put(t, room, &o, h->v.len) < 0 || o + h->v.len > room)
			return 0;
		memcpy(t + o, h->v.ptr, h->v.len);
		o += h->v.len;
	}
	if (smp_varint_put(t, room, &o, 0) < 0 || smp_varint_put(t, room, &o, 0) < 0)
		return 0;
	smp_set_bin(smp, ist2(t, o));
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* req.hdr_names([delim]): the names in order, lower case, joined by the first character
 * of <delim> (',' by default). */
static int smp_fetch_hdr_names(const struct arg *args, struct sample *smp,
			       const struct sample_fetch *kw)
{
	const struct h1_msg *m = hf_msg(smp, kw->private);
	struct ist d = arg_str(args, 0);
	char sep = d.len ? d.ptr[0] : ',';
	char *t = smp_trash();
	size_t room = smp_trash_size(), o = 0;

	if (!m || !t)
		return 0;
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (h->skip)
			continue;
		if (o + h->n.len + 1 > room)
			return 0;
		if (o)
			t[o++] = sep;
		o += put_lower(t + o, h->n);
	}
	smp_set_str(smp, ist2(t, o));
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

/* ---- cookies ---- */

struct cook_walk {
	const struct h1_msg *m;
	struct ist hname; /* Cookie or Set-Cookie */
	struct ist name;
	bool any, list;
	uint16_t i; /* next header to load */
	bool loaded;
	struct ist rest;
};

static void cw_init(struct cook_walk *w, const struct h1_msg *m, bool res, struct ist name)
{
	w->m = m;
	w->hname = res ? IST("Set-Cookie") : IST("Cookie");
	w->name = name;
	w->any = !name.len;
	w->list = !res;
	w->i = 0;
	w->loaded = false;
}

static bool cw_next(struct cook_walk *w, struct ist *v)
{
	for (;;) {
		if (w->loaded && smp_cookie_next(&w->rest, w->name, w->any, w->list, v))
			return true;
		w->loaded = false;
		while (w->i < w->m->nhdr &&
		       (w->m->hdr[w->i].skip || !ist_ieq(w->m->hdr[w->i].n, w->hname)))
			w->i++;
		if (w->i >= w->m->nhdr)
			return false;
		w->rest = w->m->hdr[w->i++].v;
		w->loaded = true;
	}
}

static bool cook_res(const struct sample *smp, int priv)
{
	if (priv & HF_DIR)
		return (smp->ctx->opt & SMP_OPT_DIR) == SMP_OPT_DIR_RES;
	return priv & HF_RES;
}

/* req.cook([name]), cook, res.cook, scook, cookie: under an ACL each matching cookie in
 * turn; otherwise the last one named <name>, or the first cookie without a name. */
static int smp_fetch_cook(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const struct h1_msg *m = hf_msg(smp, kw->private);
	struct cook_walk w;
	struct ist v, last;
	bool found = false;

	if (!m)
		return 0;
	cw_init(&w, m, cook_res(smp, kw->private), arg_str(args, 0));
	if (smp->flags & SMP_F_ITER) {
		if (smp->it2) {
			struct ist hv = m->hdr[smp->it - 1].v;

			w.i = (uint16_t)smp->it;
			w.rest = ist2(hv.ptr + smp->it2 - 1, hv.len - (smp->it2 - 1));
			w.loaded = true;
		} else {
			w.i = (uint16_t)smp->it;
		}
		if (!cw_next(&w, &v))
			return 0;
		smp->it = w.i;
		smp->it2 = w.loaded ? (uint32_t)(w.rest.ptr - m->hdr[w.i - 1].v.ptr) + 1 : 0;
		smp_more(smp, cw_next(&w, &(struct ist){ 0 }));
		return smp_set_str(smp, v);
	}
	while (cw_next(&w, &v)) {
		last = v;
		found = true;
		if (w.any)
			break;
	}
	return found ? smp_set_str(smp, last) : 0;
}

/* req.cook_cnt([name]), res.cook_cnt...: cookies named <name>, or every cookie */
static int smp_fetch_cook_cnt(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	const struct h1_msg *m = hf_msg(smp, kw->private);
	struct cook_walk w;
	struct ist v;
	long long n = 0;

	if (!m)
		return 0;
	cw_init(&w, m, cook_res(smp, kw->private), arg_str(args, 0));
	while (cw_next(&w, &v))
		n++;
	return smp_set_int(smp, n);
}

/* req.cook_val([name]): the cookie read as an integer */
static int smp_fetch_cook_val(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	if (!smp_fetch_cook(args, smp, kw))
		return 0;
	return smp_set_int(smp, smp_strl2ic(smp->data.u.str));
}

/* clang-format off */
#define HRQ SMP_USE_HRQHV
#define HRS SMP_USE_HRSHV
#define A_HDR { ARGT_STR, ARGT_SINT }
#define A_STR { ARGT_STR }

static const struct sample_fetch hdr_fetches[] = {
	{ "req.hdr", smp_fetch_hdr, 0, A_HDR, NULL, SMP_T_STR, HRQ, 0 },
	{ "hdr", smp_fetch_hdr, 0, A_HDR, NULL, SMP_T_STR, HRQ | HRS, HF_DIR },
	{ "req.fhdr", smp_fetch_hdr, 0, A_HDR, NULL, SMP_T_STR, HRQ, HF_FULL },
	{ "res.hdr", smp_fetch_hdr, 0, A_HDR, NULL, SMP_T_STR, HRS, HF_RES },
	{ "shdr", smp_fetch_hdr, 0, A_HDR, NULL, SMP_T_STR, HRS, HF_RES },
	{ "res.fhdr", smp_fetch_hdr, 0, A_HDR, NULL, SMP_T_STR, HRS, HF_RES | HF_FULL },
	{ "req.hdr_cnt", smp_fetch_hdr_cnt, 0, A_STR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "hdr_cnt", smp_fetch_hdr_cnt, 0, A_STR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "req.fhdr_cnt", smp_fetch_hdr_cnt, 0, A_STR, NULL, SMP_T_SINT, HRQ, HF_FULL },
	{ "res.hdr_cnt", smp_fetch_hdr_cnt, 0, A_STR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ "shdr_cnt", smp_fetch_hdr_cnt, 0, A_STR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ "res.fhdr_cnt", smp_fetch_hdr_cnt, 0, A_STR, NULL, SMP_T_SINT, HRS, HF_RES | HF_FULL },
	{ "req.hdr_ip", smp_fetch_hdr_ip, 0, A_HDR, NULL, SMP_T_IPV4, HRQ, 0 },
	{ "hdr_ip", smp_fetch_hdr_ip, 0, A_HDR, NULL, SMP_T_IPV4, HRQ, 0 },
	{ "res.hdr_ip", smp_fetch_hdr_ip, 0, A_HDR, NULL, SMP_T_IPV4, HRS, HF_RES },
	{ "shdr_ip", smp_fetch_hdr_ip, 0, A_HDR, NULL, SMP_T_IPV4, HRS, HF_RES },
	{ "req.hdr_val", smp_fetch_hdr_val, 0, A_HDR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "hdr_val", smp_fetch_hdr_val, 0, A_HDR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "res.hdr_val", smp_fetch_hdr_val, 0, A_HDR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ "shdr_val", smp_fetch_hdr_val, 0, A_HDR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ "req.hdrs", smp_fetch_hdrs, 0, { 0 }, NULL, SMP_T_BIN, HRQ, 0 },
	{ "res.hdrs", smp_fetch_hdrs, 0, { 0 }, NULL, SMP_T_BIN, HRS, HF_RES },
	{ "req.hdrs_bin", smp_fetch_hdrs_bin, 0, { 0 }, NULL, SMP_T_BIN, HRQ, 0 },
	{ "res.hdrs_bin", smp_fetch_hdrs_bin, 0, { 0 }, NULL, SMP_T_BIN, HRS, HF_RES },
	{ "req.hdr_names", smp_fetch_hdr_names, 0, A_STR, NULL, SMP_T_STR, HRQ, 0 },
	{ "res.hdr_names", smp_fetch_hdr_names, 0, A_STR, NULL, SMP_T_STR, HRS, HF_RES },
	{ "req.cook", smp_fetch_cook, 0, A_STR, NULL, SMP_T_STR, HRQ, 0 },
	{ "cook", smp_fetch_cook, 0, A_STR, NULL, SMP_T_STR, HRQ, 0 },
	{ "cookie", smp_fetch_cook, 0, A_STR, NULL, SMP_T_STR, HRQ | HRS, HF_DIR },
	{ "req.cook_cnt", smp_fetch_cook_cnt, 0, A_STR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "cook_cnt", smp_fetch_cook_cnt, 0, A_STR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "req.cook_val", smp_fetch_cook_val, 0, A_STR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "cook_val", smp_fetch_cook_val, 0, A_STR, NULL, SMP_T_SINT, HRQ, 0 },
	{ "res.cook", smp_fetch_cook, 0, A_STR, NULL, SMP_T_STR, HRS, HF_RES },
	{ "scook", smp_fetch_cook, 0, A_STR, NULL, SMP_T_STR, HRS, HF_RES },
	{ "res.cook_cnt", smp_fetch_cook_cnt, 0, A_STR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ "scook_cnt", smp_fetch_cook_cnt, 0, A_STR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ "res.cook_val", smp_fetch_cook_val, 0, A_STR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ "scook_val", smp_fetch_cook_val, 0, A_STR, NULL, SMP_T_SINT, HRS, HF_RES },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(hdr_fetches)
/* clang-format on */
