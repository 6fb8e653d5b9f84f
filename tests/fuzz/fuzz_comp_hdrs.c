// FUZZ_SRCS: src/comp/comp_sel.c
/* libFuzzer target for what compression reads in headers from the network
 * (comp/comp_sel.c): Accept-Encoding values with their q-values against a list of
 * algorithms, the list splitter (quoted strings), Cache-Control's no-transform, the
 * User-Agent rule, ETag forms and Content-Type prefixes. The input is one header value,
 * copied to an exact-size heap buffer so that ASan catches any read past its end. Every
 * element returned must lie inside the value, the list must end within as many steps as
 * it has bytes (plus one), and a choice must be one of the algorithms with a q-value in
 * (0, 1000].
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <comp/comp_sel.h>

static const struct comp_algo fz_algos[] = {
	{ "raw-deflate", IST("deflate"), COMP_RAW_DEFLATE, -1 },
	{ "deflate", IST("deflate"), COMP_DEFLATE, 1 },
	{ "gzip", IST("gzip"), COMP_GZIP, 2 },
	{ "identity", IST("identity"), COMP_IDENTITY, 0 },
};

static void fz_inside(struct ist in, struct ist v)
{
	if (v.len && (v.ptr < in.ptr || v.ptr + v.len > in.ptr + in.len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct comp_algo *list[4] = { &fz_algos[0], &fz_algos[1], &fz_algos[2],
					    &fz_algos[3] };
	const struct comp_algo *best = NULL;
	char *buf = malloc(size ? size : 1);
	struct ist in, v, e;
	struct ist types[2] = { IST("text/"), IST("application/json") };
	size_t steps = 0;
	int q = 0, t;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	in = ist2(buf, size);
	for (v = in; comp_list_next(&v, &e); steps++) {
		fz_inside(in, e);
		fz_inside(in, v);
		if (steps > size + 1)
			abort(); /* the list must end */
	}
	comp_ae_scan(in, list, 4, &best, &q);
	if (best && (q <= 0 || q > 1000 ||
		     (best != list[0] && best != list[1] && best != list[2] && best != list[3])))
		abort();
	if (!best && q)
		abort();
	t = comp_qvalue(in);
	if (t < 0 || t > 1000)
		abort();
	(void)comp_list_has(in, IST("no-transform"));
	(void)comp_ua_refused(in);
	if (comp_etag_type(in) == COMP_ETAG_STRONG && (size < 2 || buf[0] != '"'))
		abort();
	(void)comp_type_match(in, types, 2);
	free(buf);
	return 0;
}
