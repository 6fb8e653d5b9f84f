/* The log-format variables that are known while a request is processed ("%ci", "%b",
 * "%HU"...), as sample expressions with HAProxy's presentation. The timers, byte counts,
 * termination states, %ci %cp %f %ft %b %s %fc %ST %bc (written directly: they are in
 * every log line) and the request's %HU %HP %HQ %HV (which the log line
 * reads after the request left) are log/log_vars.c's.
 */
#include <stdio.h>
#include <unistd.h>

#include <base/atomic.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <stream/stream-t.h>

static int lf_put_num(char *out, size_t outsz, unsigned flags, long long v)
{
	int n = snprintf(out, outsz, (flags & LF_F_HEX) ? "%llX" : "%lld", v);

	return n < 0 || (size_t)n >= outsz ? -1 : n;
}

static int lf_tag_pid(char *out, size_t outsz, const struct smp_ctx *ctx, unsigned flags)
{
	return lf_put_num(out, outsz, flags, getpid());
}

/* clang-format off */
#define TAG(n, e) { n, NULL, 0, e, NULL, NULL }
/* clang-format on */

static const struct lf_tag lf_req_tags[] = {
	TAG("fi", "dst"),
	TAG("fp", "dst_port"),
	TAG("H", "hostname"),
	TAG("HM", "method"),
	TAG("ID", "unique-id"),
	{ "pid", lf_tag_pid, 0, NULL, NULL, NULL },
	{ NULL, NULL, 0, NULL, NULL, NULL },
};

LF_REGISTER_TAGS(lf_req_tags)
