/* Execution of http-request / http-response actions: header rewrites in the parsed
 * message's table, and the response of "return". Parsing of the rules is in
 * http_act_cfg.c.
 */
#include <stdio.h>
#include <string.h>
#include <base/buf.h>
#include <http/status.h>
#include <stream/stream.h>

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
	return 0;
}

void http_hdr_del(struct h1_msg *m, struct ist name)
{
	for (uint16_t i = 0; i < m->nhdr; i++)
		if (ist_ieq(m->hdr[i].n, name))
			m->hdr[i].skip = 1;
}

int http_rules_run(struct stream *s, struct list *rules, struct h1_msg *m,
		   struct act_rule **final)
{
	struct act_rule *r;

	list_for_each_entry(r, rules, list) {
		switch (r->type) {
		case ACT_RETURN:
		case ACT_DENY:
			*final = r;
			return RULES_STOP;
		case ACT_SET_HDR:
			http_hdr_del(m, r->name);
			/* fall through */
		case ACT_ADD_HDR:
			if (http_hdr_add(s, m, r->name, r->value) < 0)
				return RULES_ERROR;
			break;
		case ACT_DEL_HDR:
			http_hdr_del(m, r->name);
			break;
		}
	}
	return RULES_CONT;
}

static int put_hdr(struct buf *b, struct ist n, struct ist v)
{
	char *p;
	size_t need = n.len + v.len + 4;

	if (b_room(b) < need)
		return -1;
	p = b_tail(b);
	for (size_t i = 0; i < n.len; i++) /* HAProxy emits header names in lower case */
		p[i] = (char)((n.ptr[i] >= 'A' && n.ptr[i] <= 'Z') ? n.ptr[i] + 32 : n.ptr[i]);
	p += n.len;
	memcpy(p, ": ", 2);
	memcpy(p + 2, v.ptr, v.len);
	memcpy(p + 2 + v.len, "\r\n", 2);
	b->data += (uint32_t)need;
	return 0;
}

int http_reply_write(struct buf *b, const struct act_rule *r)
{
	char line[64], len[24];
	int status = r->status ? r->status : 200;
	int n = snprintf(line, sizeof(line), "HTTP/1.1 %d %s\r\n", status, http_reason(status));

	b_realign(b);
	if (b_putblk(b, line, (uint32_t)n) < 0)
		return -1;
	for (int i = 0; i < r->nb_hdrs; i++)
		if (put_hdr(b, r->hdrs[i].name, r->hdrs[i].value) < 0)
			return -1;
	snprintf(len, sizeof(len), "%zu", r->body.len);
	if (put_hdr(b, IST("content-length"), ist_str(len)) < 0)
		return -1;
	if (r->content_type.len && put_hdr(b, IST("content-type"), r->content_type) < 0)
		return -1;
	if (b_putblk(b, "\r\n", 2) < 0)
		return -1;
	return b_putblk(b, r->body.ptr, (uint32_t)r->body.len);
}
