// FUZZ_SRCS: src/conn/proxy_proto.c
/* libFuzzer target for the PROXY protocol parser: any bytes are what a client sends first.
 * The result must be consistent (a length within the input, TLVs inside it, a v1 header
 * at most PP_V1_MAX bytes), every prefix of an accepted header must be incomplete, and a
 * header rebuilt from what was parsed must parse again. Findings: crashes, sanitizer
 * reports, broken invariants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <conn/proxy_proto.h>

static void fz_tlvs(const struct pp_info *pp, const uint8_t *data, int n)
{
	if (!pp->tlv)
		return;
	if (pp->version != 2 || pp->tlv < data || pp->tlv + pp->tlv_len > data + n)
		abort();
	for (unsigned int t = 0; t < 256; t++) {
		struct ist v = pp_tlv_find(pp->tlv, pp->tlv_len, (uint8_t)t);

		if (v.ptr && ((const uint8_t *)v.ptr < pp->tlv ||
			      (const uint8_t *)v.ptr + v.len > pp->tlv + pp->tlv_len))
			abort();
	}
}

static void fz_rebuild(const struct pp_info *pp)
{
	struct pp_out o = { .src = &pp->src, .dst = &pp->dst };
	uint8_t out[512];
	struct pp_info again;
	const char *why;
	int n;

	if (pp->local)
		o.src = o.dst = NULL;
	n = pp_build_v1((char *)out, sizeof(out), &o);
	if (n <= 0 || pp_parse(out, (size_t)n, &again, &why) != n)
		abort();
	o.opts = PP_O_V2 | PP_O_CRC32C | PP_O_SSL;
	n = pp_build_v2(out, sizeof(out), &o);
	if (n <= 0 || pp_parse(out, (size_t)n, &again, &why) != n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp_info pp;
	const char *why = NULL;
	int n = pp_parse(data, size, &pp, &why);

	if (n < -1 || (n > 0 && (size_t)n > size) || (n < 0 && !why))
		abort();
	if (n <= 0)
		return 0;
	if ((pp.version == 1 && n > PP_V1_MAX) || (pp.version != 1 && pp.version != 2))
		abort();
	fz_tlvs(&pp, data, n);
	for (int i = n - 1; i >= 0 && i >= n - 4; i--) {
		struct pp_info part;

		if (pp_parse(data, (size_t)i, &part, &why) != 0)
			abort();
	}
	if (pp.src.ss_family == AF_INET || pp.src.ss_family == AF_INET6 || pp.local)
		fz_rebuild(&pp);
	return 0;
}
