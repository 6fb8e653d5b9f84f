// FUZZ_SRCS: src/stream/userlist.c
/* libFuzzer target for the "Authorization: Basic" decoder (userlist_basic_decode), which
 * reads client input: the input is the header value, decoded into buffers of several
 * sizes. Findings are crashes, sanitizer reports, and views that leave the buffer or
 * overlap. Built without USE_LIBCRYPT: nothing here needs crypt(3).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <stream/userlist.h>

static void fuzz_check(const char *buf, size_t bufsz, struct ist user, struct ist pass)
{
	if (user.ptr != buf || user.len + 1 + pass.len > bufsz || pass.ptr != buf + user.len + 1 ||
	    buf[user.len] != ':' || memchr(user.ptr, ':', user.len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t sizes[] = { 0, 1, 3, 16, 4096 };
	struct ist user, pass;
	char *buf;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* exact-size heap buffers: the sanitizer sees any overflow */
		buf = malloc(sizes[i] ? sizes[i] : 1);
		if (!buf)
			return 0;
		if (userlist_basic_decode((const char *)data, size, buf, sizes[i], &user, &pass) ==
		    0)
			fuzz_check(buf, sizes[i], user, pass);
		free(buf);
	}
	return 0;
}
