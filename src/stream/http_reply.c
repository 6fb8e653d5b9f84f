/* Responses made by the proxy (struct http_reply): parsing of the reply options shared by
 * "return", "deny", "tarpit", "auth" and "http-error" (status, content-type, string,
 * file, lf-string, lf-file, errorfile, errorfiles, default-errorfiles, hdr), and writing a
 * reply into the front output buffer at run time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <base/buf.h>
#include <http/status.h>
#include <proxy/proxy.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>
#include <stream/action.h>
#include <stream/http_reply.h>
#include <stream/stream.h>

#define REPLY_FILE_MAX 16384 /* a body read from a file must fit in one buffer */

void http_reply_free(struct http_reply *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nb_hdrs; i++) {
		free((char *)r->hdrs[i].name.ptr);
		lf_free(&r->hdrs[i].value);
	}
	free(r->hdrs);
	free((char *)r->ctype.ptr);
	free((char *)r->body.ptr);
	lf_free(&r->body_fmt);
	free(r->errfiles);
	if (r->type == HTTP_REPLY_ERRMSG && r->errmsg && r->owns_errmsg) {
		free((char *)r->errmsg->msg.ptr);
		free((void *)r->errmsg);
	}
	free(r);
}

/* Reads <path> whole (at most REPLY_FILE_MAX bytes) into a malloc'd string. */
static char *read_file(const char *path, size_t *len, char *err, size_t errsz)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f) {
		snprintf(err, errsz, "error opening file '%s' : %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(REPLY_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	n = fread(buf, 1, REPLY_FILE_MAX + 1, f);
	if (ferror(f) || n > REPLY_FILE_MAX) {
		snprintf(err, errsz, ferror(f) ? "error reading file '%s'"
					       : "file '%s' is too large (max 16384 bytes)", path);
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	*len = n;
	return buf;
}

static int reply_add_hdr(struct http_reply *r, const char *name, const char *value,
			 const struct act_parse *ap, char *err, size_t errsz)
{
	struct http_reply_hdr *h;

	if (!strcasecmp(name, "content-length") || !strcasecmp(name, "transfer-encoding") ||
	    !strcasecmp(name, "content-type"))
		return 0; /* HAProxy ignores them: the reply computes its own (it warns) */
	h = realloc(r->hdrs, (size_t)(r->nb_hdrs + 1) * sizeof(*h));
	if (!h) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	r->hdrs = h;
	h = &h[r->nb_hdrs];
	memset(h, 0, sizeof(*h));
	h->name.ptr = strdup(name);
	if (!h->name.ptr) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	h->name.len = strlen(name);
	r->nb_hdrs++;
	return lf_compile(&h->value, value, &ap->pc, err, errsz);
}

static int reply_set_body(struct http_reply *r, const char *opt, const char *arg,
			  const struct act_parse *ap, char *err, size_t errsz)
{
	size_t len;
	char *text;

	if (r->type != HTTP_REPLY_EMPTY) {
		snprintf(err, errsz, "only one of 'string', 'lf-string', 'file', 'lf-file', "
			 "'errorfile', 'errorfiles' or 'default-errorfiles' may be given");
		return -1;
	}
	if (!strcmp(opt, "string") || !strcmp(opt, "lf-string")) {
		text = strdup(arg);
		len = strlen(arg);
		if (!text) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
	} else if (!strcmp(opt, "errorfiles")) {
		r->type = HTTP_REPLY_ERRFILES;
		r->errfiles = strdup(arg);
		if (!r->errfiles) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		return 0;
	} else {
		text = read_file(arg, &len, err, errsz);
		if (!text)
			return -1;
	}
	if (!strcmp(opt, "errorfile")) {
		struct errorfile *ef = calloc(1, sizeof(*ef));

		if (!ef) {
			free(text);
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		ef->msg = ist2(text, len);
		r->errmsg = ef;
		r->owns_errmsg = 1;
		r->type = HTTP_REPLY_ERRMSG;
		return 0;
	}
	if (opt[0] == 'l') {
		int rc = lf_compile(&r->body_fmt, text, &ap->pc, err, errsz);

		free(text);
		r->type = HTTP_REPLY_LOGFMT;
		return rc;
	}
	r->body = ist2(text, len);
	r->type = HTTP_REPLY_RAW;
	return 0;
}

static int reply_status(struct http_reply *r, const char *arg, char *err, size_t errsz)
{
	char *end;
	long v = arg ? strtol(arg, &end, 10) : 0;

	if (!arg || *end || v < 200 || v > 599) {
		snprintf(err, errsz, "Unexpected status code '%s'", arg ? arg : "");
		return -1;
	}
	r->status = (int)v;
	return 0;
}

struct http_reply *http_reply_parse(char **args, int *pos, int nargs, const struct act_parse *ap,
				    int def_status, bool deny, char *err, size_t errsz)
{
	struct http_reply *r = calloc(1, sizeof(*r));
	bool has_status = false;

	if (!r) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	r->status = def_status;
	while (*pos < nargs && !act_is_cond_word(args[*pos])) {
		const char *opt = args[(*pos)++];
		const char *arg = *pos < nargs ? args[*pos] : NULL;

		if (!strcmp(opt, "default-errorfiles")) {
			if (r->type != HTTP_REPLY_EMPTY)
				goto one_body;
			r->type = HTTP_REPLY_ERRMSG;
			continue;
		}
		if (!arg) {
			snprintf(err, errsz, "'%s' expects an argument", opt);
			goto fail;
		}
		(*pos)++;
		if (!strcmp(opt, "status") || (deny && !strcmp(opt, "deny_status"))) {
			if (reply_status(r, arg, err, errsz) < 0)
				goto fail;
			has_status = true;
		} else if (!strcmp(opt, "content-type")) {
			free((char *)r->ctype.ptr);
			r->ctype = ist_str(strdup(arg));
			if (!r->ctype.ptr)
				goto oom;
		} else if (!strcmp(opt, "hdr")) {
			if (*pos >= nargs) {
				snprintf(err, errsz, "'hdr' expects <name> and <value> as arguments");
				goto fail;
			}
			if (reply_add_hdr(r, arg, args[(*pos)++], ap, err, errsz) < 0)
				goto fail;
		} else if (!strcmp(opt, "string") || !strcmp(opt, "lf-string") ||
			   !strcmp(opt, "file") || !strcmp(opt, "lf-file") ||
			   !strcmp(opt, "errorfile") || !strcmp(opt, "errorfiles")) {
			if (reply_set_body(r, opt, arg, ap, err, errsz) < 0)
				goto fail;
		} else {
			snprintf(err, errsz, "unknown argument '%s'", opt);
			goto fail;
		}
	}
	(void)has_status;
	if ((r->type == HTTP_REPLY_RAW || r->type == HTTP_REPLY_LOGFMT) && !r->ctype.len &&
	    (r->body.len || r->type == HTTP_REPLY_LOGFMT)) {
		snprintf(err, errsz, "a content type must be defined when non-empty payload is "
			 "configured");
		goto fail;
	}
	if ((r->status == 204 || r->status == 304) &&
	    (r->body.len || r->type == HTTP_REPLY_LOGFMT)) {
		snprintf(err, errsz, "No body expected for %d responses", r->status);
		goto fail;
	}
	if (r->type == HTTP_REPLY_ERRMSG || r->type == HTTP_REPLY_ERRFILES) {
		if (r->ctype.len || r->nb_hdrs) {
			snprintf(err, errsz, "'content-type' and 'hdr' cannot be used with an "
				 "error file");
			goto fail;
		}
	}
	return r;
one_body:
	snprintf(err, errsz, "only one of 'string', 'lf-string', 'file', 'lf-file', 'errorfile', "
		 "'errorfiles' or 'default-errorfiles' may be given");
	goto fail;
oom:
	snprintf(err, errsz, "out of memory");
fail:
	http_reply_free(r);
	return NULL;
}

/* Writes "name: value\r\n" with the name in lower case (as HAProxy emits them). */
static int put_hdr(struct buf *b, struct ist n, struct ist v)
{
	size_t need = n.len + v.len + 4;
	char *p;

	if (b_room(b) < need)
		return -1;
	p = b_tail(b);
	for (size_t i = 0; i < n.len; i++)
		p[i] = (char)((n.ptr[i] >= 'A' && n.ptr[i] <= 'Z') ? n.ptr[i] + 32 : n.ptr[i]);
	p += n.len;
	memcpy(p, ": ", 2);
	memmove(p + 2, v.ptr, v.len); /* the value may already be in place */
	memcpy(p + 2 + v.len, "\r\n", 2);
	b->data += (uint32_t)need;
	return 0;
}

/* The message of an error-file reply for <s>, or an empty view for the default page. */
static struct ist reply_errmsg(const struct http_reply *r, struct stream *s)
{
	const struct errorfile *ef = r->errmsg;

	if (!ef)
		ef = proxy_errorfile(s->be ? s->be : s->fe, r->status);
	return ef ? ef->msg : http_error_message(r->status);
}

int http_reply_write(struct buf *b, const struct http_reply *r, struct stream *s,
		     const struct smp_ctx *ctx)
{
	char line[64], len[24], *body;
	int n, blen = 0;

	b_realign(b);
	if (r->type == HTTP_REPLY_ERRMSG || r->type == HTTP_REPLY_ERRFILES) {
		struct ist m = reply_errmsg(r, s);

		return b_putblk(b, m.ptr, (uint32_t)m.len);
	}
	n = snprintf(line, sizeof(line), "HTTP/1.1 %d %s\r\n", r->status, http_reason(r->status));
	if (b_putblk(b, line, (uint32_t)n) < 0)
		return -1;
	for (int i = 0; i < r->nb_hdrs; i++) {
		char *v = b_tail(b) + r->hdrs[i].name.len + 2;
		size_t room = b_room(b);
		int vl;

		if (room < r->hdrs[i].name.len + 4)
			return -1;
		vl = lf_render(&r->hdrs[i].value, ctx, v, room - r->hdrs[i].name.len - 4);
		if (vl < 0)
			return -1;
		if (!vl)
			continue; /* HAProxy drops a header whose value is empty */
		if (put_hdr(b, r->hdrs[i].name, ist2(v, (size_t)vl)) < 0)
			return -1;
	}
	/* a log-format body is rendered in the buffer past room left for the last headers
	 * (not in a scratch chunk: its expressions use those), then moved behind them */
	body = r->type == HTTP_REPLY_RAW ? (char *)r->body.ptr : NULL;
	blen = (int)r->body.len;
	if (r->type == HTTP_REPLY_LOGFMT) {
		size_t gap = 64 + r->ctype.len;

		if (b_room(b) < gap)
			return -1;
		body = b_tail(b) + gap;
		blen = lf_render(&r->body_fmt, ctx, body, b_room(b) - gap);
		if (blen < 0)
			return -1;
	}
	snprintf(len, sizeof(len), "%d", blen);
	if (put_hdr(b, IST("content-length"), ist_str(len)) < 0)
		return -1;
	if (r->ctype.len && put_hdr(b, IST("content-type"), r->ctype) < 0)
		return -1;
	if (b_putblk(b, "\r\n", 2) < 0)
		return -1;
	if (r->type == HTTP_REPLY_LOGFMT && blen) {
		memmove(b_tail(b), body, (size_t)blen);
		b->data += (uint32_t)blen;
		return 0;
	}
	return blen ? b_putblk(b, body, (uint32_t)blen) : 0;
}
