// FUZZ_SRCS: src/sample/sample.c src/sample/arg.c src/sample/acl.c src/sample/pattern.c
// FUZZ_SRCS: src/sample/cond_index.c src/sample/logfmt.c src/sample/vars.c src/sample/regex.c
// FUZZ_SRCS: src/sample/iptree.c src/sample/strtree.c src/sample/fetch_misc.c src/base/parse.c
// FUZZ_SRCS: src/base/pool.c src/base/buf.c src/sample/conv.c src/base/array.c
// FUZZ_SRCS: src/sample/map.c src/sample/map_line.c src/event/qsbr.c
// FUZZ_FLAGS: -DUSE_PCRE2 -DUSE_PCRE2_JIT -lpcre2-8 -lpthread
/* libFuzzer target for ACL lines, conditions, pattern files and log-format strings. The
 * input is lines: "acl NAME WORDS..." lines define ACLs over constant fetches and proc
 * variables, "val TEXT" sets var(proc.v), "fmt TEXT" compiles and renders a log-format,
 * "file TEXT" adds a line to a pattern file loaded by the next "acl NAME CRIT -f @" line,
 * "if WORDS"/"unless WORDS" parse a condition, evaluate it, and when it can be indexed
 * check that the index agrees with the plain evaluation. Any parse error is fine; crashes,
 * sanitizer reports and disagreements are findings.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <base/list.h>
#include <proc/global-t.h>
#include <sample/acl.h>
#include <sample/cond_index.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <sample/vars.h>

/* what the sample layer links to above it */
struct global global;
void (*conn_vars_release)(struct vars *v);
__thread struct thread_ctx *th_ctx; /* the event loop's (stopping fetch) */
void ha_alert(const char *fmt, ...) { (void)fmt; }
void ha_warning(const char *fmt, ...) { (void)fmt; }
const char *proxy_type_str(const struct proxy *px) { return "frontend"; }
struct proxy *proxy_find(const char *name, uint32_t cap) { return NULL; }

#define FZ_MAXW 32

static int fz_split(char *line, char **w)
{
	int n = 0;

	for (char *p = strtok(line, " \t"); p && n < FZ_MAXW; p = strtok(NULL, " \t"))
		w[n++] = p;
	return n;
}

static void fz_cond(struct list *acls, char **w, int n, const struct smp_ctx *ctx)
{
	char err[256];
	struct acl_cond *c = acl_cond_parse(w, n, acls, NULL, err, sizeof(err));
	struct cond_index *ci;

	if (!c)
		return;
	if (cond_indexable(c)) {
		struct acl_cond *one[1] = { c };

		ci = cond_index_build(one, 1);
		if (ci) {
			unsigned int first = cond_index_first(ci, ctx);
			int res = acl_cond_exec(c, ctx) == ACL_TEST_PASS;

			if ((first == 0) != res)
				abort();
			cond_index_free(ci);
		}
	} else {
		(void)acl_cond_exec(c, ctx);
	}
	acl_cond_free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct smp_ctx ctx = { 0 };
	struct list acls;
	char *text, *line, *save = NULL, *w[FZ_MAXW], err[256], out[512];
	struct var_desc vd;
	FILE *pf;
	int n;

	if (size > 8192)
		return 0;
	if (!*path)
		snprintf(path, sizeof(path), "/tmp/fuzz_acl.%d", (int)getpid());
	global.tune_bufsize = 16384;
	pf = fopen(path, "w");
	if (!pf)
		return 0;
	text = malloc(size + 1);
	if (!text) {
		fclose(pf);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = 0;
	list_init(&acls);
	vars_parse_desc("proc.v", &vd, err, sizeof(err));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "file ", 5)) {
			fprintf(pf, "%s\n", line + 5);
			fflush(pf);
			continue;
		}
		if (!strncmp(line, "val ", 4)) {
			struct sample smp = { .ctx = &ctx };

			smp.data.type = SMP_T_STR;
			smp.data.u.str = ist_str(line + 4);
			vars_set(&ctx, &vd, &smp);
			continue;
		}
		if (!strncmp(line, "fmt ", 4)) {
			struct lf_expr lf;

			if (lf_compile(&lf, line + 4, NULL, err, sizeof(err)) == 0) {
				(void)lf_render(&lf, &ctx, out, sizeof(out));
				lf_free(&lf);
			}
			continue;
		}
		n = fz_split(line, w);
		for (int i = 0; i < n; i++)
			if (!strcmp(w[i], "@"))
				w[i] = path;
		if (n >= 3 && !strcmp(w[0], "acl"))
			(void)acl_add_line(&acls, w[1], w + 2, n - 2, NULL, err, sizeof(err));
		else if (n >= 1 && (!strcmp(w[0], "if") || !strcmp(w[0], "unless")))
			fz_cond(&acls, w, n, &ctx);
	}
	acl_free_list(&acls);
	acl_deinit();
	vars_deinit();
	sample_deinit();
	free(text);
	fclose(pf);
	return 0;
}
