/* The pure parser of server state files (version 1, as "show servers state" writes them):
 * space-separated fields per line, views into the caller's buffer, bounded numbers. No
 * allocation, no I/O, no globals: fuzzed by tests/fuzz/fuzz_srvstate.c.
 */
#include <stdbool.h>
#include <string.h>

#include <backend/srv_state.h>

/* Parses the decimal view <v> into *out in [min, max]; false if it is not one. */
static bool srvstate_num(struct ist v, long min, long max, int *out)
{
	long n = 0;

	if (!v.len || v.len > 10)
		return false;
	for (size_t i = 0; i < v.len; i++) {
		if (v.ptr[i] < '0' || v.ptr[i] > '9')
			return false;
		n = n * 10 + (v.ptr[i] - '0');
	}
	if (n < min || n > max)
		return false;
	*out = (int)n;
	return true;
}

/* Splits <line> on spaces and tabs into at most <max> views; returns their number, or
 * -1 when there are more. */
static int srvstate_split(const char *line, size_t len, struct ist *f, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		size_t start;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= len)
			break;
		if (n == max)
			return -1;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		f[n++] = ist2(line + start, i - start);
	}
	return n;
}

int srvstate_parse_line(const char *line, size_t len, struct srvstate_rec *r)
{
	struct ist f[SRVSTATE_MAX_FIELDS];
	int n;

	size_t i = 0;

	if (len > SRVSTATE_MAX_LINE)
		return -1;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#') /* 2.6's header comment has 26 words */
		return 0;
	n = srvstate_split(line, len, f, SRVSTATE_MAX_FIELDS);
	if (n < SRVSTATE_MIN_FIELDS)
		return -1;
	memset(r, 0, sizeof(*r));
	r->nfields = n;
	r->be_name = f[1];
	r->srv_name = f[3];
	r->srv_addr = f[4];
	if (!srvstate_num(f[0], 0, 2147483647L, &r->be_id) ||
	    !srvstate_num(f[2], 0, 2147483647L, &r->srv_id) ||
	    !srvstate_num(f[5], 0, 3, &r->op_state) ||
	    !srvstate_num(f[6], 0, 255, &r->admin_state) ||
	    !srvstate_num(f[7], 0, 256, &r->uweight) || !srvstate_num(f[8], 0, 256, &r->iweight))
		return -1;
	r->port = -1;
	if (n > 18 && !srvstate_num(f[18], 0, 65535, &r->port))
		return -1;
	return 1;
}

int srvstate_parse(const char *buf, size_t len, int (*cb)(void *arg, const struct srvstate_rec *r),
		   void *arg, int *bad)
{
	const char *p = buf, *end = buf + len;
	int line = 0;

	*bad = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct srvstate_rec r;
		int rc;

		if (l && p[l - 1] == '\r')
			l--;
		line++;
		if (line == 1) {
			if (l != 1 || p[0] != '1')
				return -1; /* only version 1 exists */
		} else {
			rc = srvstate_parse_line(p, l, &r);
			if (rc < 0)
				(*bad)++;
			if (rc > 0) {
				r.line = line;
				if (cb(arg, &r) < 0)
					return 0;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return line ? 0 : -1;
}
