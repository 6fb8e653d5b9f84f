/* Pure reader of the first MQTT control packet of a TCP payload (3.1.1 and 5.0), as the
 * mqtt_is_valid and mqtt_field_value converters read it: the fixed header of any packet
 * type, then the whole of a CONNECT or CONNACK packet with their 5.0 properties. No I/O,
 * no allocation, no globals; string results are views into the input.
 */
#ifndef SAMPLE_MQTT_H
#define SAMPLE_MQTT_H

#include <stddef.h>
#include <stdint.h>

#include <base/ist.h>

#define MQTT_INVALID (-1) /* not a valid packet (or a type other than CONNECT/CONNACK) */
#define MQTT_MORE 0	  /* valid so far, more bytes are needed to tell */
#define MQTT_VALID 1

#define MQTT_CONNECT 1
#define MQTT_CONNACK 2
#define MQTT_TYPES 16 /* packet types 1 to 15 */

/* Field names that are not 5.0 property identifiers (those are 1..42) */
#define MQTT_F_FLAGS 101
#define MQTT_F_REASON_CODE 102
#define MQTT_F_PROTOCOL_NAME 103
#define MQTT_F_PROTOCOL_VERSION 104
#define MQTT_F_CLIENT_IDENTIFIER 105
#define MQTT_F_WILL_TOPIC 106
#define MQTT_F_WILL_PAYLOAD 107
#define MQTT_F_USERNAME 108
#define MQTT_F_PASSWORD 109
#define MQTT_F_KEEPALIVE 110

#define MQTT_PROP_MAX 42

/* What a CONNECT or CONNACK packet holds. Properties absent from the packet read 0 or
 * empty. */
struct mqtt_pkt {
	uint8_t type;			   /* 1..15 */
	uint8_t version;		   /* 4 (3.1.1) or 5; CONNACK: 5 when longer than 2 bytes */
	uint8_t flags;			   /* CONNECT or CONNACK flags */
	uint8_t reason;			   /* CONNACK return / reason code */
	uint16_t keepalive;		   /* CONNECT */
	uint32_t remlen;		   /* remaining length of the fixed header */
	uint32_t num[MQTT_PROP_MAX + 1];   /* integer properties by identifier */
	struct ist str[MQTT_PROP_MAX + 1]; /* string and binary properties by identifier */
	struct ist proto, client_id, will_topic, will_payload, username, password;
};

/* Validates the packet at the start of d[0..n) into <p>: MQTT_VALID, MQTT_MORE or
 * MQTT_INVALID. Only CONNECT and CONNACK can be valid. */
int mqtt_validate(const unsigned char *d, size_t n, struct mqtt_pkt *p);

/* The value of <field> (MQTT_F_* or a property identifier) of the packet at the start of
 * d[0..n) if it is of <type>: 1 with a view in <*v> (numbers are written in decimal into
 * num[0..numsz) and <*v> points there), MQTT_MORE, or MQTT_INVALID when the packet is
 * invalid, of another type, or has no such field (an empty string is none). */
int mqtt_field(const unsigned char *d, size_t n, int type, int field, struct ist *v, char *num,
	       size_t numsz);

/* The packet type a converter argument names: leading digits giving 1..15, or the type's
 * name (CONNECT, CONNACK, PUBLISH...; any case); 0 if none. */
int mqtt_type_id(const char *s, size_t n);

/* The field <s> names for packets of <type>: a field name (any case) or a property
 * identifier in decimal that such packets may carry; 0 if none. */
int mqtt_field_id(int type, const char *s, size_t n);

#endif
