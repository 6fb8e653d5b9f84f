/* What the layer 6 payload fetches (src/sample/fetch_payload.c) share with the layers
 * above them: the pure reader of the RDP cookie at the head of a client's bytes, also
 * used by "balance rdp-cookie" and "persist rdp-cookie".
 */
#ifndef SAMPLE_PAYLOAD_H
#define SAMPLE_PAYLOAD_H

#include <stddef.h>

#include <base/ist.h>

/* The first cookie of an RDP connection request at the start of d[0..n): a TPKT header
 * ("\x03\x00"), then at offset 11 "Cookie: NAME=VALUE\r\n" (NAME any case; an empty
 * <name> takes the first cookie whatever its name). Returns 1 with the value in <*val>,
 * 0 when the bytes are not that (not RDP, another cookie name), -1 when more bytes may
 * tell. Pure; any thread. */
int rdp_cookie_find(const char *d, size_t n, struct ist name, struct ist *val);

#endif
