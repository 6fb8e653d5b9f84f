// FUZZ_SRCS: src/check/agent_parse.c
/* libFuzzer target for the agent-check reply parser: any bytes are a reply line; the views
 * it returns must lie inside the input and the numbers within their ranges. Crashes,
 * sanitizer reports and broken invariants are findings.
 */
#include <stdint.h>
#include <stdlib.h>

#include <check/agent.h>

static void fz_in(const struct ist v, const uint8_t *data, size_t size)
{
	if (v.len &&
	    ((const uint8_t *)v.ptr < data || (const uint8_t *)v.ptr + v.len > data + size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct agent_reply r;
	long ll = agent_line_len((const char *)data, size);

	if (ll >= 0 && (size_t)ll >= size)
		abort();
	agent_parse((const char *)data, size, &r);
	fz_in(r.word, data, size);
	fz_in(r.desc, data, size);
	if (r.weight_pct < -1 || r.weight_pct > 1000000 || r.maxconn < -1 || r.maxconn > 1000000000)
		abort();
	if (r.state < AGENT_ST_NONE || r.state > AGENT_ST_DOWN || r.admin < AGENT_ADM_NONE ||
	    r.admin > AGENT_ADM_MAINT)
		abort();
	if ((r.state == AGENT_ST_NONE) != (r.word.len == 0))
		abort();
	return 0;
}
