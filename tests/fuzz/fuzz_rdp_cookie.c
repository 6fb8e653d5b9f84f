// FUZZ_SRCS: src/sample/rdp_cookie.c
/* libFuzzer target for the RDP cookie reader (sample/payload.h): the input, in an
 * exact-size heap copy so that ASan catches any read past its end, is read with no name,
 * the default "mstshash" and "msts"; a value found must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/payload.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "", "mstshash", "msts" };
	char *in = malloc(size ? size : 1);

	if (!in)
		return 0;
	memcpy(in, data, size);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct ist v = { NULL, 0 };

		if (rdp_cookie_find(in, size, ist2(names[i], strlen(names[i])), &v) == 1 &&
		    (v.ptr < in || v.ptr + v.len > in + size))
			abort();
	}
	free(in);
	return 0;
}
