// FUZZ_SRCS: src/backend/srv_state_parse.c
/* libFuzzer target for the server state file parser: any input is parsed as a whole file;
 * every record handed to the callback must hold views inside the input and numbers in
 * their ranges. Crashes, sanitizer reports and out-of-range records are findings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <backend/srv_state.h>

struct fz_in {
	const char *buf;
	size_t len;
};

static void fz_inside(const struct fz_in *in, struct ist v)
{
	if (v.len && (v.ptr < in->buf || v.ptr + v.len > in->buf + in->len))
		abort();
}

static int fz_cb(void *arg, const struct srvstate_rec *r)
{
	const struct fz_in *in = arg;

	fz_inside(in, r->be_name);
	fz_inside(in, r->srv_name);
	fz_inside(in, r->srv_addr);
	if (r->op_state < 0 || r->op_state > 3 || r->uweight < 0 || r->uweight > 256 ||
	    r->iweight < 0 || r->iweight > 256 || r->admin_state < 0 || r->admin_state > 255 ||
	    r->be_id < 0 || r->srv_id < 0 || r->port < -1 || r->port > 65535 ||
	    (r->port >= 0) != (r->nfields > 18) || r->nfields < SRVSTATE_MIN_FIELDS ||
	    r->nfields > SRVSTATE_MAX_FIELDS || !r->be_name.len || !r->srv_name.len)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that ASan sees any read past the end */
	char *buf = malloc(size ? size : 1);
	struct fz_in in;
	int bad;

	if (!buf)
		return 0;
	memcpy(buf, data, size);
	in.buf = buf;
	in.len = size;
	srvstate_parse(buf, size, fz_cb, &in, &bad);
	free(buf);
	return 0;
}
