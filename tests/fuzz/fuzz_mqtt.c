// FUZZ_SRCS: src/sample/conv_mqtt.c
// FUZZ_FLAGS: -DMQTT_PURE
/* libFuzzer target for the MQTT reader behind mqtt_is_valid and mqtt_field_value
 * (sample/mqtt.h): the input is a payload in an exact-size heap copy so that ASan catches
 * any read past its end; every field (all names, all property identifiers) is asked of
 * CONNECT and CONNACK, and each string returned must lie inside the input or the number
 * buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/mqtt.h>

static void fz_in(const char *in, size_t n, struct ist v)
{
	if (v.ptr < in || v.len > n || (size_t)(v.ptr - in) > n - v.len)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size ? size : 1), num[16];
	struct mqtt_pkt p;
	struct ist v;

	if (!in)
		return 0;
	memcpy(in, data, size);
	if (mqtt_validate((const unsigned char *)in, size, &p) == MQTT_VALID) {
		for (int type = 1; type <= 2; type++) {
			for (int f = 1; f <= 110; f++) {
				if (mqtt_field((const unsigned char *)in, size, type, f, &v, num,
					       sizeof(num)) != 1)
					continue;
				if (v.ptr != num)
					fz_in(in, size, v);
				else if (v.len >= sizeof(num))
					abort();
			}
		}
	}
	mqtt_type_id(in, size);
	mqtt_field_id(1, in, size);
	mqtt_field_id(2, in, size);
	free(in);
	return 0;
}
