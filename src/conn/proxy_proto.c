/* TEMPORARY stand-in until the PROXY protocol library lands. */
#include <conn/proxy_proto.h>

int pp_parse(const uint8_t *data, size_t len, struct pp_info *pp, const char **why)
{
	(void)data; (void)len; (void)pp;
	*why = "Received something which does not look like a PROXY protocol header";
	return -1;
}
