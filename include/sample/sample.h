/* The sample engine (sample.c, arg.c): keyword registries of fetches and converters,
 * parsing of "fetch(args),conv(args)..." expressions at config time, type casts, and
 * evaluation at run time over a smp_ctx. Evaluation allocates nothing: converters write
 * into per-thread scratch chunks (smp_trash_*).
 */
#ifndef SAMPLE_SAMPLE_H
#define SAMPLE_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <sample/sample-t.h>

void sample_register_fetches(struct sample_fetch_kw_list *kwl);
void sample_register_convs(struct sample_conv_kw_list *kwl);

#define SMP_REGISTER_FETCHES(tbl)                                      \
	static struct sample_fetch_kw_list tbl##_list = { NULL, tbl }; \
	__attribute__((constructor)) static void tbl##_register(void)  \
	{                                                              \
		sample_register_fetches(&tbl##_list);                  \
	}

#define SMP_REGISTER_CONVS(tbl)                                       \
	static struct sample_conv_kw_list tbl##_list = { NULL, tbl }; \
	__attribute__((constructor)) static void tbl##_register(void) \
	{                                                             \
		sample_register_convs(&tbl##_list);                   \
	}

const struct sample_fetch *sample_find_fetch(const char *kw, size_t len);
const struct sample_conv *sample_find_conv(const char *kw, size_t len);
const char *smp_type_name(int type);

/* Where an expression is parsed: location for messages and deferred name resolution. */
struct smp_parse_ctx {
	const char *file;
	int line;
	struct proxy *px;	/* proxy of the rule (default for ARGT_BE/TAB), or NULL */
	uint32_t where;		/* SMP_VAL_* of the rule, 0 to skip the check */
	const char *where_name; /* "http-request" ... for messages */
};

/* The context of the converter being checked (config time, for map.c's messages). */
extern const struct smp_parse_ctx *smp_parse_cur;

/* Parses the expression at <str>, which ends at NUL or, when <endp> is not NULL, at the
 * first ']' outside parentheses and quotes (log-format "%[...]"); *endp then points to
 * it. Returns the expression (malloc'd) or NULL with a message in err. Config time.
 */
struct sample_expr *sample_parse_expr(const char *str, const char **endp,
				      const struct smp_parse_ctx *pc, char *err, size_t errsz);
void sample_expr_free(struct sample_expr *expr);
/* True when <a> and <b> compute the same thing (same fetch, converters and arguments). */
bool sample_expr_equal(const struct sample_expr *a, const struct sample_expr *b);

/* Parses "(a,b,...)" at *str (after a keyword) into an ARGT_STOP-terminated array per
 * <types>; names of proxies, servers, tables and userlists are queued for
 * sample_resolve_args(). Returns the array (NULL when no argument) and sets *nb.
 * Returns -1 in *nb with a message in err on error. arg.c. */
struct arg *arg_parse_list(const char **str, uint8_t arg_min, const uint8_t *types, const char *kw,
			   const struct smp_parse_ctx *pc, int *nb, char *err, size_t errsz);
void arg_free_list(struct arg *args);
/* Resolves every queued name argument; prints an alert per failure. Returns the number of
 * errors. Check phase. */
int sample_resolve_args(void);
/* Drops the queue and frees what the engine owns (at exit). */
void sample_deinit(void);

/* Evaluates <expr> into <smp> (smp->ctx must be set). Returns 1 when a sample was
 * produced, 0 when not found or a converter failed. Loop thread; no allocation. */
int sample_process(const struct sample_expr *expr, struct sample *smp);
/* The same, cast to <type> (SMP_T_STR, SMP_T_SINT, ...). */
int sample_process_as(const struct sample_expr *expr, struct sample *smp, int type);

/* Casts smp in place to <type>; returns 1 or 0 when impossible (bad text, no cast). */
int sample_cast(struct sample *smp, int type);
/* True when a cast from <from> to <to> exists (parse-time check). */
int sample_can_cast(int from, int to);
/* Makes a string sample writable (copies it into a trash chunk when SMP_F_CONST). */
int smp_make_rw(struct sample *smp);
/* Renders any sample as text into out[0..outsz) (no NUL); returns the length, or -1. */
int smp_to_text(const struct sample *smp, char *out, size_t outsz);

/* Per-thread scratch chunks of tune.bufsize bytes used in rotation by converters: the
 * result of one converter stays valid while the next few run. */
char *smp_trash(void);
size_t smp_trash_size(void);
/* Allocates the calling thread's chunks; 0 or -1. Called at thread start. */
int smp_trash_init_thread(void);
void smp_trash_deinit_thread(void);

/* The parsed HTTP response of the health check evaluating on this thread, or NULL: set
 * and cleared around each evaluation by check/tcpcheck_vars.c, read by the response
 * fetches when there is no stream (a per-thread pointer leaves struct smp_ctx as is). */
struct h1_msg;
extern __thread const struct h1_msg *smp_check_rsp;

/* Checks that a fetch with <use> may run where <where> says; 0 or -1 with the name of
 * the missing information in err ("HTTP response headers"). */
int sample_check_use(uint32_t use, uint32_t where, char *err, size_t errsz);

#endif
