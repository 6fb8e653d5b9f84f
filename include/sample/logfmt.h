/* Log-format strings (logfmt.c): "text %[sample,conv] %ci %{+Q}ST %%" compiled once at
 * config time (wherever HAProxy takes one: set-header values, redirect locations,
 * return lf-string, unique-id-format, log-format) and rendered at run time into a caller
 * buffer. Variables ("%ci") come from tag tables that modules register.
 */
#ifndef SAMPLE_LOGFMT_H
#define SAMPLE_LOGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <sample/logfmt-t.h>
#include <sample/sample-t.h>

struct smp_parse_ctx;

void lf_register_tags(struct lf_tag_list *tl);

#define LF_REGISTER_TAGS(tbl)                                         \
	static struct lf_tag_list tbl##_list = { NULL, tbl };         \
	__attribute__((constructor)) static void tbl##_register(void) \
	{                                                             \
		lf_register_tags(&tbl##_list);                        \
	}

/* Compiles <str> into <lf>. Returns 0, or -1 with a message in err. Config time. */
int lf_compile(struct lf_expr *lf, const char *str, const struct smp_parse_ctx *pc, char *err,
	       size_t errsz);
void lf_free(struct lf_expr *lf);
/* True when <lf> is only literal text (then lf_text() gives it). */
bool lf_is_const(const struct lf_expr *lf);
struct ist lf_text(const struct lf_expr *lf);

/* Renders <lf> into out[0..outsz). Returns the length, or -1 when it does not fit. Loop
 * thread; no allocation. */
int lf_render(const struct lf_expr *lf, const struct smp_ctx *ctx, char *out, size_t outsz);

#endif
