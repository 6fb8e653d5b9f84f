// FUZZ_SRCS: src/sample/smp_http.c src/stream/cookie_date.c
/* libFuzzer target for the Cookie header readers of sample/smp_http: the persistence
 * cookie finder (smp_cookie_pair) and the req.cook reader (smp_cookie_next), the
 * comma-separated value splitter, and the "SRV|LAST|FIRST" date splitter of
 * stream/cookie_date (run on the found cookie's value: its views stay inside it, its dates
 * are multiples of 4 that encode back to what was read). The first byte gives the length of the
 * cookie name taken from the input's start; the rest is the header value. Each buffer is an
 * exact-size heap copy so that ASan catches any read past its end; every view returned must lie
 * inside the value, and a found pair must start with the name and hold its value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/smp_http.h>
#include <stream/cookie_date.h>

static char *fz_dup(const uint8_t *p, size_t n)
{
	char *d = malloc(n ? n : 1);

	if (!d)
		abort();
	memcpy(d, p, n);
	return d;
}

static void fz_inside(struct ist in, struct ist v)
{
	if (v.len && (v.ptr < in.ptr || v.ptr + v.len > in.ptr + in.len))
		abort();
}

/* A non-zero date read from a cookie is a multiple of 4 that encodes back to itself. */
static void fz_date(uint32_t d)
{
	char out[CK_DATE_LEN];

	if (!d)
		return;
	if (d & 3)
		abort();
	ck_date_enc(d, out);
	if (ck_date_dec(ist2(out, sizeof(out))) != d)
		abort();
}

static void fz_dates(struct ist v)
{
	struct ist id;
	uint32_t last, first;

	ck_date_split(v, &id, &last, &first);
	fz_inside(v, id);
	if (id.ptr != v.ptr || memchr(id.ptr, '|', id.len))
		abort();
	fz_date(last);
	fz_date(first);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t nlen;
	char *name, *val;
	struct ist n, v, pair, pv, rest, e;
	bool done = false;
	int guard;

	if (!size)
		return 0;
	nlen = data[0] % 16;
	if (nlen > size - 1)
		nlen = size - 1;
	name = fz_dup(data + 1, nlen);
	val = fz_dup(data + 1 + nlen, size - 1 - nlen);
	n = ist2(name, nlen);
	v = ist2(val, size - 1 - nlen);

	if (smp_cookie_pair(v, n, &pair, &pv)) {
		fz_inside(v, pair);
		fz_inside(pair, pv);
		if (pair.len < n.len + 1 || memcmp(pair.ptr, n.ptr, n.len) != 0)
			abort();
		if (pv.ptr + pv.len != pair.ptr + pair.len)
			abort();
		fz_dates(pv);
	}
	fz_dates(v);
	rest = v;
	for (guard = 0; guard < 10000 && smp_cookie_next(&rest, n, !nlen, true, &e); guard++) {
		fz_inside(v, e);
		fz_inside(v, rest);
	}
	rest = v;
	for (guard = 0; guard < 10000 && smp_hdr_next_value(&rest, &done, &e); guard++) {
		fz_inside(v, e);
		fz_inside(v, rest);
	}
	if (guard >= 10000)
		abort(); /* each call consumes at least one byte or ends */
	rest = v;
	done = false;
	while (smp_hdr_next_value_fast(&rest, &done, &e))
		fz_inside(v, e);
	free(name);
	free(val);
	return 0;
}
