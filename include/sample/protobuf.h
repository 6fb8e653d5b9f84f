/* Protocol buffers reader behind the protobuf and ungrpc converters: finds a field by its
 * dotted field-number path ("1.2.3") in a message, or in a stream of gRPC messages (each a
 * 5-byte header: a compression flag and a 32-bit big-endian length), and decodes it as one
 * of the scalar types. Pure over (ptr, len): views into the input, no allocation, no
 * recursion (a path is walked level by level), never reads past len.
 *
 * HAProxy 2.6's reading is kept, quirks included: a field's value (and a key) is bounded
 * by the end of the whole message the walk started in, not by the submessage it sits in;
 * a varint with no byte left reads 0; every varint type keeps the 64-bit value read (int32
 * is not truncated, sint32 zigzags 64 bits); float and double become integers as 2.6's
 * x86-64 build converts them.
 */
#ifndef SAMPLE_PROTOBUF_H
#define SAMPLE_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Wire types. */
enum pb_wire {
	PB_W_VARINT = 0,
	PB_W_64BIT = 1,
	PB_W_LEN = 2,
	PB_W_32BIT = 5,
};

/* Field types of the converters' second argument; PB_T_RAW means none (the raw bytes). */
enum pb_type {
	PB_T_RAW = 0,
	PB_T_INT32,
	PB_T_INT64,
	PB_T_UINT32,
	PB_T_UINT64,
	PB_T_SINT32,
	PB_T_SINT64,
	PB_T_BOOL,
	PB_T_ENUM,
	PB_T_FIXED64,
	PB_T_SFIXED64,
	PB_T_DOUBLE,
	PB_T_FIXED32,
	PB_T_SFIXED32,
	PB_T_FLOAT,
};

/* A field found: its wire type and its value bytes (for a varint, the varint's bytes; for
 * a length-delimited field, the bytes after the length). */
struct pb_field {
	unsigned int wire;
	const uint8_t *val;
	size_t len;
};

/* The longest varint read (bytes); a longer one is invalid. */
#define PB_VARINT_MAX 10

/* Reads a varint at p[0..end). Returns the bytes it takes (0 when p == end: the value is
 * then 0), or -1 when it is cut short or longer than PB_VARINT_MAX bytes. Bits past the
 * 64th are dropped. */
int pb_varint(const uint8_t *p, const uint8_t *end, uint64_t *v);

/* Parses a type name ("int32" ... "float"); returns its enum pb_type or -1. */
int pb_type_parse(const char *name);

/* Checks a field path: digits and dots, ending with a digit (".1" and "1..2" are accepted
 * as HAProxy 2.6 accepts them: an empty number is 0). */
bool pb_path_valid(const char *path, size_t len);

/* Finds the field at <path> in msg[0..len) as HAProxy 2.6 walks a path (see pb_walk() in
 * protobuf.c): a repeated submessage is searched in each occurrence, a scalar matching a
 * number before the last is read on as the next key. Returns 1 with *f set, 0 when the
 * field is not there or the message is invalid before it. */
int pb_lookup(const uint8_t *msg, size_t len, const char *path, size_t pathlen, struct pb_field *f);

/* Same over gRPC messages: the first message holding the field, decoding as <type>
 * (PB_T_RAW: any), wins. As 2.6, a message whose walk fails before its end makes the next
 * header be read from where it stopped; a header or message cut short ends the search. */
int pb_grpc_lookup(const uint8_t *in, size_t len, const char *path, size_t pathlen,
		   enum pb_type type, struct pb_field *f);

/* Decodes a found field as <type> (not PB_T_RAW) into *v. Returns 1, or 0 when the
 * field's wire type is not the type's. */
int pb_field_int(const struct pb_field *f, enum pb_type type, int64_t *v);

#endif
