/* "setcap" names to capability bits: the four HAProxy 2.9+ accepts, the only ones a proxy
 * needs after dropping root (binding low ports, transparent binds, raw sockets, admin
 * tasks such as eBPF). The parser is pure; applying them is proc/privs.c's.
 */
#include <stdbool.h>
#include <string.h>
#include <linux/capability.h>

#include <proc/caps.h>

static const struct {
	const char *name;
	int cap;
} caps_names[] = {
	{ "cap_net_raw", CAP_NET_RAW },
	{ "cap_net_admin", CAP_NET_ADMIN },
	{ "cap_net_bind_service", CAP_NET_BIND_SERVICE },
	{ "cap_sys_admin", CAP_SYS_ADMIN },
};

/* The CAP_* number of the <len> bytes at <name>, or -1. */
static int caps_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(caps_names) / sizeof(caps_names[0]); i++) {
		if (strlen(caps_names[i].name) == len && memcmp(caps_names[i].name, name, len) == 0)
			return caps_names[i].cap;
	}
	return -1;
}

int caps_parse(const char *list, uint32_t *mask, const char **bad, size_t *badlen)
{
	const char *p = list;
	bool any = false;

	while (*p) {
		size_t len = strcspn(p, ",");
		int cap;

		if (len) {
			cap = caps_lookup(p, len);
			if (cap < 0) {
				*bad = p;
				*badlen = len;
				return -1;
			}
			*mask |= 1u << cap;
			any = true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!any) {
		*bad = list;
		*badlen = 0;
		return -1;
	}
	return 0;
}
