/* Compiled log lines: a log-format string split into literal text, separators (runs of
 * spaces, written once and only after a value, as HAProxy does) and variables with how
 * each is written in a line (quoted strings, numbers, lists that may write nothing); and
 * their rendering, cut where the line buffer ends. No allocation at run time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <log/log_strm.h>
#include <log/log_vars.h>
#include <sample/logfmt.h>
#include <sample/sample.h>

void log_fmt_free(struct logline_fmt *f)
{
	lf_free(&f->lf);
	free(f->items);
	f->items = NULL;
	f->nb = 0;
}

static int log_item_add(struct logline_fmt *f, int *cap, const struct log_item *it)
{
	if (f->nb == *cap) {
		int ncap = *cap ? *cap * 2 : 16;
		struct log_item *n = realloc(f->items, (size_t)ncap * sizeof(*n));

		if (!n)
			return -1;
		f->items = n;
		*cap = ncap;
	}
	f->items[f->nb++] = *it;
	return 0;
}

/* Splits a literal into text and separators (runs of spaces). */
static int log_split_text(struct logline_fmt *f, int *cap, struct ist t)
{
	size_t i = 0;

	while (i < t.len) {
		struct log_item it = { 0 };
		size_t j = i;

		if (t.ptr[i] == ' ') {
			while (j < t.len && t.ptr[j] == ' ')
				j++;
			it.type = LOGI_SEP;
		} else {
			while (j < t.len && t.ptr[j] != ' ')
				j++;
			it.type = LOGI_TEXT;
			it.text = ist2(t.ptr + i, j - i);
		}
		if (log_item_add(f, cap, &it) < 0)
			return -1;
		i = j;
	}
	return 0;
}

int log_fmt_compile(struct logline_fmt *f, const char *str, const struct smp_parse_ctx *pc,
		    char *err, size_t errsz)
{
	int cap = 0;

	memset(f, 0, sizeof(*f));
	if (lf_compile(&f->lf, str, pc, err, errsz) < 0)
		return -1;
	for (int i = 0; i < f->lf.nb; i++) {
		const struct lf_node *n = &f->lf.nodes[i];
		struct log_item it = { 0 };

		if (n->type == LF_TEXT) {
			if (log_split_text(f, &cap, n->text) < 0)
				goto out_oom;
			continue;
		}
		it.type = LOGI_NODE;
		it.node = n;
		it.kind = n->type == LF_TAG ? (uint8_t)log_tag_kind(n->tag) : LOG_TK_STR;
		it.quote = (n->flags & LF_F_QUOTE) && it.kind == LOG_TK_STR;
		if (log_item_add(f, &cap, &it) < 0)
			goto out_oom;
	}
	return 0;
out_oom:
	snprintf(err, errsz, "out of memory");
	log_fmt_free(f);
	return -1;
}

/* Renders one variable at out[0..room): its value, or -1 when it does not fit. */
static int log_node_value(const struct lf_node *n, const struct smp_ctx *ctx, char *out,
			  size_t room)
{
	struct lf_node one;
	struct lf_expr e;

	if (n->type == LF_TAG && n->tag->render)
		return n->tag->render(out, room, ctx, n->flags);
	one = *n;
	one.flags &= (uint8_t) ~(LF_F_QUOTE | LF_F_MANDATORY);
	e.nb = 1;
	e.use = 0;
	e.nodes = &one;
	return lf_render(&e, ctx, out, room);
}

size_t log_fmt_render(const struct logline_fmt *f, const struct smp_ctx *ctx, char *out,
		      size_t outsz)
{
	bool sp = true; /* a separator is written only after something else */
	size_t o = 0;

	for (int i = 0; i < f->nb; i++) {
		const struct log_item *it = &f->items[i];
		size_t q = it->quote;
		int len;

		if (it->type == LOGI_SEP) {
			if (!sp && o < outsz) {
				out[o++] = ' ';
				sp = true;
			}
			continue;
		}
		if (it->type == LOGI_TEXT) {
			if (it->text.len > outsz - o)
				break;
			memcpy(out + o, it->text.ptr, it->text.len);
			o += it->text.len;
			sp = false;
			continue;
		}
		if (outsz - o < 2 * q + 1)
			break;
		len = log_node_value(it->node, ctx, out + o + q, outsz - o - 2 * q);
		if (len < 0)
			break;
		if (!len && it->kind == LOG_TK_OPT)
			continue;
		if (!len && !q) {
			out[o++] = '-';
		} else if (q) {
			out[o] = '"';
			o += (size_t)len + 1;
			out[o++] = '"';
		} else {
			o += (size_t)len;
		}
		sp = false;
	}
	return o;
}

