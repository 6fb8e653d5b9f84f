/* TEMPORARY stand-in until the PROXY protocol library lands. */
#include <conn/proxy_proto.h>

int pp_parse(const uint8_t *data, size_t len, struct pp_info *pp, const char **why)
{
	(void)data; (void)len; (void)pp;
	*why = "Received something which does not look like a PROXY protocol header";
	return -1;
}

struct ist pp_tlv_find(const uint8_t *tlv, size_t len, uint8_t type)
{
	(void)tlv; (void)len; (void)type;
	return ist2(NULL, 0);
}

int pp_build_v1(char *out, size_t room, const struct pp_out *o)
{
	(void)out; (void)room; (void)o;
	return -1;
}

int pp_build_v2(uint8_t *out, size_t room, const struct pp_out *o)
{
	(void)out; (void)room; (void)o;
	return -1;
}
