/* The PROXY protocol (haproxy.org/download/2.6/doc/proxy-protocol.txt), versions 1 (text)
 * and 2 (binary): a pure parser of the header a client or a load balancer in front sends
 * first on a connection, and the builders of the header sent to servers. No I/O: the
 * callers (conn/ for "accept-proxy", stream/ and check/ for "send-proxy") own the sockets.
 */
#ifndef CONN_PROXY_PROTO_H
#define CONN_PROXY_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <base/ist.h>

#define PP_V1_MAX 107 /* longest v1 line, CRLF included */
#define PP_V2_HDR 16  /* v2 fixed part: signature, version/command, family, len */

/* v2 TLV types (PP2_TYPE_*) */
#define PP2_TYPE_ALPN 0x01
#define PP2_TYPE_AUTHORITY 0x02
#define PP2_TYPE_CRC32C 0x03
#define PP2_TYPE_NOOP 0x04
#define PP2_TYPE_UNIQUE_ID 0x05
#define PP2_TYPE_SSL 0x20
#define PP2_SUBTYPE_SSL_VERSION 0x21
#define PP2_SUBTYPE_SSL_CN 0x22
#define PP2_SUBTYPE_SSL_CIPHER 0x23
#define PP2_SUBTYPE_SSL_SIG_ALG 0x24
#define PP2_SUBTYPE_SSL_KEY_ALG 0x25
#define PP2_TYPE_NETNS 0x30

/* PP2_TYPE_SSL client flags */
#define PP2_CLIENT_SSL 0x01
#define PP2_CLIENT_CERT_CONN 0x02
#define PP2_CLIENT_CERT_SESS 0x04

/* A parsed header. Addresses are AF_INET or AF_INET6 (AF_UNIX for a v2 unix header), or
 * AF_UNSPEC with <local> set: v1 "UNKNOWN", v2 LOCAL or an unspecified family, where the
 * connection keeps its own addresses. <tlv> points into the parsed bytes. */
struct pp_info {
	uint8_t version;	     /* 1 or 2 */
	uint8_t local;		     /* keep the connection's own addresses */
	struct sockaddr_storage src; /* the client, as the sender saw it */
	struct sockaddr_storage dst; /* the address the client connected to */
	const uint8_t *tlv;	     /* v2: the TLVs after the addresses, or NULL */
	uint16_t tlv_len;
};

/* Parses the PROXY header at the start of <data> (<len> bytes received so far). Returns
 * the header's length (> 0) once it is complete and valid, with <pp> filled; 0 when it may
 * still be valid but more bytes are needed; -1 when it is not a valid header (no
 * signature, a v1 line over PP_V1_MAX bytes, a v2 length that does not hold the addresses
 * or a TLV, a bad CRC32C TLV...), with *why set to the message HAProxy logs for it
 * ("Received something which does not look like a PROXY protocol header", "Received an
 * invalid PROXY protocol header"...). Never reads past <len>. */
int pp_parse(const uint8_t *data, size_t len, struct pp_info *pp, const char **why);

/* Finds the first TLV of <type> in the TLV block <tlv>/<len> (as kept from pp_info);
 * returns its value, or an empty ist with ptr NULL when there is none. For PP2_TYPE_SSL's
 * sub-TLVs, search its value after its 5-byte head (client flags, verify). */
struct ist pp_tlv_find(const uint8_t *tlv, size_t len, uint8_t type);

/* What a server is sent ("send-proxy", "send-proxy-v2", "proxy-v2-options"). */
#define PP_O_V1 0x0001	       /* send-proxy */
#define PP_O_V2 0x0002	       /* send-proxy-v2 */
#define PP_O_SSL 0x0004	       /* v2: PP2_TYPE_SSL (send-proxy-v2-ssl, "ssl" option) */
#define PP_O_SSL_CN 0x0008     /* v2: with the client certificate's CN (…-ssl-cn, "cert-cn") */
#define PP_O_SSL_CIPHER 0x0010 /* v2 options "ssl-cipher", "cert-sig", "cert-key" */
#define PP_O_CERT_SIG 0x0020
#define PP_O_CERT_KEY 0x0040
#define PP_O_AUTHORITY 0x0080 /* v2: PP2_TYPE_AUTHORITY (the TLS SNI, or the received one) */
#define PP_O_CRC32C 0x0100    /* v2: PP2_TYPE_CRC32C over the whole header */
#define PP_O_UNIQUE_ID 0x0200 /* v2: PP2_TYPE_UNIQUE_ID (the stream's unique-id) */
#define PP_O_CHECK 0x0400     /* check-send-proxy: health checks send the header too */

/* The values of one header to send: the addresses (NULL, or a family other than AF_INET and
 * AF_INET6: v1 "PROXY UNKNOWN", v2 a LOCAL header; one IPv4 and one IPv6: both sent as IPv6,
 * the IPv4 one v4-mapped, as HAProxy does), and for
 * v2 the TLVs that <opts> (PP_O_*) ask for; an empty value's TLV is left out (but for SSL,
 * always sent when asked, with its flags). */
struct pp_out {
	const struct sockaddr_storage *src;
	const struct sockaddr_storage *dst;
	uint32_t opts;
	struct ist authority;
	struct ist unique_id;
	struct ist alpn;
	/* PP_O_SSL: the client's TLS side */
	uint8_t ssl_client;  /* PP2_CLIENT_* */
	uint32_t ssl_verify; /* 0 when the client certificate verified */
	struct ist ssl_version, ssl_cn, ssl_cipher, ssl_sig_alg, ssl_key_alg;
};

/* Writes the v1 line for <o>'s addresses into <out>; returns its length, or -1 when
 * <room> is too small (nothing useful written). */
int pp_build_v1(char *out, size_t room, const struct pp_out *o);
/* Writes the v2 header for <o> (with its TLVs and, with PP_O_CRC32C, its checksum) into
 * <out>; returns its length, or -1 when <room> is too small. */
int pp_build_v2(uint8_t *out, size_t room, const struct pp_out *o);
/* A bare header without addresses nor TLVs: v1 "PROXY UNKNOWN\r\n" or a v2 LOCAL header.
 * Health checks do not use it: HAProxy 2.6 sends them v1 with the check connection's
 * addresses and v2 with the server's TLVs (check/check_pp.c calls pp_build_v1/v2). */
int pp_build_check(uint8_t *out, size_t room, int version);

/* CRC32C (Castagnoli) of <len> bytes, as the PP2_TYPE_CRC32C TLV carries it. */
uint32_t pp_crc32c(const uint8_t *data, size_t len);

#endif
