// FUZZ_SRCS: src/stats/stats_form.c
/* libFuzzer target for the stats page's client input parsers: the input is both the text
 * after the stats uri (stats_opts_parse) and an admin form POST body (stats_form_parse),
 * copied into exact-size heap buffers. Findings are crashes, sanitizer reports, and
 * results that leave the body.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stats/stats_form.h>

static void fuzz_in_body(const char *body, size_t len, const char *p)
{
	if (p && (p < body || p > body + len || memchr(p, 0, (size_t)(body + len + 1 - p)) == NULL))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats_opts o;
	struct stats_form f;
	char *buf = malloc(size + 1);

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	stats_opts_parse(buf, size, &o);
	if (o.fmt > STATS_OUT_SCHEMA || o.st[4] != 0)
		abort();
	stats_form_parse(buf, size, &f);
	if (f.nb_srv < 0 || f.nb_srv > STATS_FORM_MAX_SRV)
		abort();
	for (int i = 0; i < f.nb_srv; i++)
		fuzz_in_body(buf, size, f.srv[i]);
	fuzz_in_body(buf, size, f.action);
	fuzz_in_body(buf, size, f.backend);
	free(buf);
	return 0;
}
