/* The sample unit tests' evaluation helper (smp_eval.h), shared by their files. */
#include <stdio.h>

#include <sample/sample.h>

#include "smp_eval.h"

const char *smp_eval_text(const char *expr)
{
	static char out[8192];
	struct smp_ctx ctx = { 0 };
	struct sample smp = { .ctx = &ctx };
	struct sample_expr *e;
	char err[512];
	int n;

	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (!e) {
		snprintf(out, sizeof(out), "ERR: %s", err);
		return out;
	}
	if (!sample_process(e, &smp)) {
		snprintf(out, sizeof(out), "<none>");
	} else {
		n = smp_to_text(&smp, out, sizeof(out) - 1);
		out[n < 0 ? 0 : n] = '\0';
		if (n < 0)
			snprintf(out, sizeof(out), "<untextable>");
	}
	sample_expr_free(e);
	return out;
}
