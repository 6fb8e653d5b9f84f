/* Unit tests of proc/caps: the "setcap" list parser. */
#include <stdint.h>
#include <string.h>
#include <linux/capability.h>

#include <proc/caps.h>

#include "../test.h"

TEST(proc_caps_parse_known)
{
	const char *bad = NULL;
	size_t badlen = 0;
	uint32_t m = 0;

	CHECK_INT(caps_parse("cap_net_bind_service", &m, &bad, &badlen), 0);
	CHECK_INT((int)m, 1 << CAP_NET_BIND_SERVICE);
	m = 0;
	CHECK_INT(caps_parse("cap_net_raw,cap_net_admin,,cap_sys_admin,", &m, &bad, &badlen), 0);
	CHECK_INT((int)m, (1 << CAP_NET_RAW) | (1 << CAP_NET_ADMIN) | (1 << CAP_SYS_ADMIN));
}

TEST(proc_caps_parse_unknown)
{
	const char *in = "cap_net_raw,cap_chown,cap_sys_admin", *bad = NULL;
	size_t badlen = 0;
	uint32_t m = 0;

	CHECK_INT(caps_parse(in, &m, &bad, &badlen), -1);
	CHECK(bad == in + 12);
	CHECK_INT((int)badlen, 9);
	CHECK_INT(caps_parse(",,", &m, &bad, &badlen), -1);
	CHECK_INT((int)badlen, 0);
	CHECK_INT(caps_parse("CAP_NET_RAW", &m, &bad, &badlen), -1);
	CHECK_INT(caps_parse("cap_net_raw ", &m, &bad, &badlen), -1);
}
