// FUZZ_SRCS: src/proc/caps.c
/* libFuzzer target for the "setcap" list parser: any NUL-terminated text either parses
 * into known capability bits or names an unknown item that lies inside the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/capability.h>

#include <proc/caps.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[256];
	const char *bad = NULL;
	size_t badlen = 0;
	uint32_t mask = 0, known = (1u << CAP_NET_RAW) | (1u << CAP_NET_ADMIN) |
				   (1u << CAP_NET_BIND_SERVICE) | (1u << CAP_SYS_ADMIN);

	if (size >= sizeof(in))
		size = sizeof(in) - 1;
	memcpy(in, data, size);
	in[size] = 0;
	if (caps_parse(in, &mask, &bad, &badlen) == 0) {
		if (!mask || (mask & ~known))
			__builtin_trap();
	} else if (!bad || bad < in || bad + badlen > in + strlen(in)) {
		__builtin_trap();
	}
	return 0;
}
