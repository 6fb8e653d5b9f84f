/* The debug([PREFIX][,RING]) converter: each sample it sees is written to a ring ("buf0"
 * by default, which every process has) as HAProxy 2.6 writes it, "[debug] PREFIX: type=T
 * <VALUE>" after the ring's header ("<0>" and the date for buf0's "timed" format), and
 * passes on unchanged; "show events buf0" prints them. Bytes that are not printable show as
 * '.', and a string stops at its first NUL, as in 2.6. It lives in log/ with the rings.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <log/ring.h>
#include <sample/sample.h>

#define DBG_VALUE_MAX 1024 /* bytes of a value written (a ring line is cut anyway) */

/* The ring of args[1] (checked at startup), or buf0. */
static struct ring *dbg_ring(const struct arg *args)
{
	if (args && args[0].type && args[1].type == ARGT_STR && args[1].data.str.len)
		return ring_find(args[1].data.str.ptr);
	return ring_find("buf0"); /* made at startup */
}

/* The ring's header for a message of level 0 ("<0>" and/or the local ISO date, as the
 * ring's format asks); its length. */
static size_t dbg_header(const struct ring *r, char *out, size_t sz)
{
	struct timespec ts;
	struct tm tm;
	size_t n = 0;
	long off;

	if (r->fmt != LOG_FMT_ISO && r->fmt != LOG_FMT_RAW)
		n = (size_t)snprintf(out, sz, "<0>");
	if (r->fmt == LOG_FMT_SHORT || r->fmt == LOG_FMT_PRIO || r->fmt == LOG_FMT_RAW)
		return n;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	n += strftime(out + n, sz - n, "%Y-%m-%dT%H:%M:%S", &tm);
	off = tm.tm_gmtoff / 60;
	n += (size_t)snprintf(out + n, sz - n, ".%06ld%c%02ld:%02ld ", ts.tv_nsec / 1000,
			      off < 0 ? '-' : '+', (off < 0 ? -off : off) / 60,
			      (off < 0 ? -off : off) % 60);
	return n < sz ? n : sz - 1;
}

/* <smp>'s value as 2.6 prints it; its length. */
static size_t dbg_value(const struct sample *smp, char *out, size_t sz)
{
	size_t n = 0;

	switch (smp->data.type) {
	case SMP_T_BOOL:
	case SMP_T_SINT:
		return (size_t)snprintf(out, sz, "%lld", (long long)smp->data.u.sint);
	case SMP_T_IPV4:
		return inet_ntop(AF_INET, &smp->data.u.ipv4, out, (socklen_t)sz) ? strlen(out) : 0;
	case SMP_T_IPV6:
		return inet_ntop(AF_INET6, &smp->data.u.ipv6, out, (socklen_t)sz) ? strlen(out) : 0;
	}
	for (; n < smp->data.u.str.len && n < sz; n++) {
		unsigned char c = (unsigned char)smp->data.u.str.ptr[n];

		if (!c)
			break;
		out[n] = c < 0x20 || c >= 0x7f ? '.' : (char)c;
	}
	return n;
}

static int conv_debug(const struct arg *args, struct sample *smp, void *private)
{
	struct ring *r = dbg_ring(args);
	const char *pfx = args && args[0].type == ARGT_STR ? args[0].data.str.ptr : "";
	char hdr[64], head[320], val[DBG_VALUE_MAX];
	struct iovec iov[4];
	int hn;

	if (!r || !r->area)
		return 1;
	iov[0].iov_base = hdr;
	iov[0].iov_len = dbg_header(r, hdr, sizeof(hdr));
	hn = snprintf(head, sizeof(head), "[debug] %s: type=%s <", pfx,
		      smp_type_name(smp->data.type));
	iov[1].iov_base = head;
	iov[1].iov_len = hn < 0 ? 0 : (size_t)hn < sizeof(head) ? (size_t)hn : sizeof(head) - 1;
	iov[2].iov_base = val;
	iov[2].iov_len = dbg_value(smp, val, sizeof(val));
	iov[3].iov_base = (void *)">";
	iov[3].iov_len = 1;
	ring_write(r, iov, 4);
	return 1;
}

/* RING must name a ring known when the line is read (2.6's message). */
static int conv_debug_check(struct arg *args, void *private, char *err, size_t errsz)
{
	const struct ring *r;

	if (!args || !args[0].type || args[1].type != ARGT_STR || !args[1].data.str.len)
		return ring_buf0() ? 0 : (snprintf(err, errsz, "out of memory"), -1);
	r = ring_find(args[1].data.str.ptr);
	if (r && r->declared)
		return 0;
	snprintf(err, errsz, "No such sink '%s'", args[1].data.str.ptr);
	return -1;
}

/* clang-format off */
static const struct sample_conv debug_convs[] = {
	{ "debug", conv_debug, 0, { ARGT_STR, ARGT_STR }, conv_debug_check, SMP_T_ANY, SMP_T_ANY,
	  NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};
/* clang-format on */

SMP_REGISTER_CONVS(debug_convs)
