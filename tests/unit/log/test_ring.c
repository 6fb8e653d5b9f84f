/* The ring buffer: messages come out in order, across the end of the area; a full ring
 * drops its oldest messages and counts them; a reader the writers overtook restarts at the
 * oldest one; maxlen cuts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <log/ring.h>
#include "../test.h"

static void put(struct ring *r, const char *s)
{
	struct iovec iov[2] = { { (void *)s, 3 }, { (void *)(s + 3), strlen(s) - 3 } };

	ring_write(r, iov, 2);
}

TEST(ring_order_wrap_drop)
{
	struct ring *r = ring_new("t", "test", 1);
	uint64_t seq = 0;
	uint32_t off = 0;
	char buf[64], msg[32];
	long n;

	CHECK(r != NULL);
	if (!r)
		return;
	r->size = 64;
	r->maxlen = 20;
	r->area = malloc(r->size);
	CHECK(r->area != NULL);
	for (int i = 0; i < 10; i++) { /* 4 + 9 bytes each: 4 fit in 64 */
		snprintf(msg, sizeof(msg), "message-%d", i);
		put(r, msg);
	}
	CHECK(r->dropped == 6);
	for (int i = 6; i < 10; i++) {
		n = ring_read(r, &seq, &off, buf, sizeof(buf));
		snprintf(msg, sizeof(msg), "message-%d", i);
		CHECK_INT(n, (long)strlen(msg));
		CHECK(n > 0 && memcmp(buf, msg, (size_t)n) == 0);
	}
	CHECK_INT(ring_read(r, &seq, &off, buf, sizeof(buf)), -1);
	/* overtaken: the reader jumps to the oldest message */
	for (int i = 10; i < 16; i++) {
		snprintf(msg, sizeof(msg), "message-%d", i);
		put(r, msg);
	}
	n = ring_read(r, &seq, &off, buf, sizeof(buf));
	CHECK(n == 10 && memcmp(buf, "message-12", 10) == 0);
	/* maxlen cuts */
	put(r, "0123456789012345678901234567890");
	seq = 0;
	while ((n = ring_read(r, &seq, &off, buf, sizeof(buf))) >= 0 && buf[0] != '0')
		;
	CHECK_INT(n, 20);
	ring_release();
}
