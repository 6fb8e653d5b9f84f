// FUZZ_SRCS: src/stats/promex_query.c
/* libFuzzer target for the Prometheus exporter's query-string parser
 * (promex_parse_query), which reads client input, and its label writer: the input is
 * the query string, then a label value written into a small buffer. Findings are crashes,
 * sanitizer reports, flags outside the defined bits, and labels that leave the buffer or
 * keep an unescaped quote.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <base/buf.h>
#include <stats/promex.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int flags = promex_parse_query((const char *)data, size);
	char label[256], area[64];
	struct buf b = { .area = area, .size = sizeof(area) };
	size_t n = size < sizeof(label) - 1 ? size : sizeof(label) - 1;

	if (flags != -1 && (flags & ~(PROMEX_SC_ALL | PROMEX_FL_NO_MAINT)))
		abort();
	memcpy(label, data, n);
	label[n] = 0;
	if (promex_put_label(&b, label) == 0) {
		for (uint32_t i = 0; i < b.data; i++) {
			if (area[i] == '\n' || area[i] == '"')
				abort();
			if (area[i] == '\\')
				i++; /* the escaped byte */
		}
	}
	if (b.data > b.size)
		abort();
	return 0;
}
