/* Pure reader of FIX (Financial Information eXchange 4.x / FIXT.1.1) messages, as the
 * fix_is_valid and fix_tag_value converters read the first message of a TCP payload:
 * "TAG=VALUE" fields separated by SOH (0x01). No I/O, no allocation, no globals; results
 * are views into the input.
 */
#ifndef SAMPLE_FIX_H
#define SAMPLE_FIX_H

#include <stddef.h>

#include <base/ist.h>

#define FIX_INVALID (-1) /* not a valid FIX message */
#define FIX_MORE 0	 /* valid so far, more bytes are needed to tell */
#define FIX_VALID 1

#define FIX_TAG_BEGIN_STRING 8
#define FIX_TAG_BODY_LENGTH 9
#define FIX_TAG_CHECKSUM 10
#define FIX_TAG_MSG_TYPE 35
#define FIX_TAG_SENDER_COMP_ID 49
#define FIX_TAG_TARGET_COMP_ID 56

/* Checks the message at the start of d[0..n): BeginString first with a known version,
 * BodyLength second matching the body, MsgType third, every tag numeric and within the
 * version's range (10000-19999 always), and a CheckSum tag whose 3 digits match. Bytes
 * after the CheckSum field are ignored. Returns FIX_VALID, FIX_MORE or FIX_INVALID. */
int fix_validate(const char *d, size_t n);

/* The value of the first field <tag> of d[0..n), without validating the message: 1 with
 * the view in <*v> (which may be empty), FIX_MORE (0) when the bytes end before it, or
 * FIX_INVALID when it is absent (the CheckSum field ends the search) or a field is
 * malformed. */
int fix_tag_find(const char *d, size_t n, unsigned int tag, struct ist *v);

/* The tag number a converter argument names: digits (not 0), or BeginString,
 * BodyLength, MsgType, SenderCompID, TargetCompID, CheckSum (any case); 0 if none. */
unsigned int fix_tag_id(const char *s, size_t n);

#endif
