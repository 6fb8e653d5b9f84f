// FUZZ_SRCS: src/sample/conv_fix.c
// FUZZ_FLAGS: -DFIX_PURE
/* libFuzzer target for the FIX reader behind fix_is_valid and fix_tag_value
 * (sample/fix.h): the input is a payload in an exact-size heap copy so that ASan catches
 * any read past its end; every value returned must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/fix.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned int tags[] = { 8, 9, 10, 35, 49, 56, 108, 10001 };
	char *in = malloc(size ? size : 1);
	struct ist v;

	if (!in)
		return 0;
	memcpy(in, data, size);
	fix_validate(in, size);
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (fix_tag_find(in, size, tags[i], &v) == 1 &&
		    (v.ptr < in || v.len > size || (size_t)(v.ptr - in) > size - v.len))
			abort();
	}
	fix_tag_id(in, size);
	free(in);
	return 0;
}
