/* Types of the pure HTTP/1 parser: a parsed message is a start line and a table of header
 * views into the caller's input, plus framing flags. Nothing here owns memory.
 */
#ifndef HTTP_H1_T_H
#define HTTP_H1_T_H

#include <stdbool.h>
#include <stdint.h>
#include <base/ist.h>

/* h1_parse_headers() return codes besides a positive length */
#define H1_INCOMPLETE 0
#define H1_INVALID    (-1)

/* Well-known header ids, set by the parser in h1_hdr.id (interned names). */
enum h1_hdr_id {
	H1_HDR_OTHER = 0,
	H1_HDR_CONTENT_LENGTH,
	H1_HDR_TRANSFER_ENCODING,
	H1_HDR_CONNECTION,
	H1_HDR_UPGRADE,
	H1_HDR_HOST,
	H1_HDR_EXPECT,
	H1_HDR_KEEP_ALIVE,
	H1_HDR_PROXY_CONNECTION,
	H1_HDR_TE,
	H1_HDR_SEC_WS_KEY,        /* Sec-WebSocket-Key */
	H1_HDR_SEC_WS_ACCEPT,     /* Sec-WebSocket-Accept */
};

struct h1_hdr {
	struct ist n;     /* name as received (never empty) */
	struct ist v;     /* value, leading/trailing spaces and tabs trimmed */
	uint16_t id;      /* enum h1_hdr_id */
	uint16_t skip;    /* set by later stages to drop the header on output */
	uint16_t folded;  /* the value spans obs-fold line breaks: output them as spaces */
};

/* Message flags (h1_msg.flags) */
#define H1_MF_RESP           0x00000001 /* the message is a response */
#define H1_MF_VER_11         0x00000002 /* version is HTTP/1.1 (else 1.0) */
#define H1_MF_CLEN           0x00000004 /* a valid Content-Length was found (body_len) */
#define H1_MF_CHNK           0x00000008 /* Transfer-Encoding whose last coding is chunked */
#define H1_MF_XFER_ENC       0x00000010 /* a Transfer-Encoding header was present */
#define H1_MF_XFER_LEN       0x00000020 /* body length is known: CLEN or CHNK (or no body) */
#define H1_MF_CONN_CLO       0x00000040 /* Connection: close token */
#define H1_MF_CONN_KAL       0x00000080 /* Connection: keep-alive token */
#define H1_MF_CONN_UPG       0x00000100 /* Connection: upgrade token */
#define H1_MF_UPG_WEBSOCKET  0x00000200 /* Upgrade: websocket */
#define H1_MF_METH_CONNECT   0x00000400 /* request method is CONNECT */
#define H1_MF_METH_HEAD      0x00000800 /* request method is HEAD */
#define H1_MF_FORCE_CLOSE    0x00001000 /* the connection must close after this exchange: TE
					 * with CL (CL headers are marked skip), or TE on a
					 * 1.0 response */
#define H1_MF_EXPECT_100     0x00002000 /* Expect: 100-continue */
#define H1_MF_HAS_BODY       0x00004000 /* a body follows (CL > 0 or chunked); for responses
					 * also set for close-delimited bodies */
#define H1_MF_METH_GET       0x00008000 /* request method is GET */
#define H1_MF_VER_10         0x00010000 /* version is HTTP/1.0 */

/* Limits the parser enforces; filled from the configuration. */
struct h1_limits {
	uint32_t max_hdr_block;   /* tune.bufsize - tune.maxrewrite: largest start line + headers */
	uint16_t max_hdr;         /* tune.http.maxhdr (default 101) */
	bool accept_payload_any_method; /* h1-accept-payload-with-any-method */
};

struct h1_msg {
	uint32_t flags;           /* H1_MF_* */
	int status;               /* response status code (100..999) */
	struct ist meth;          /* request method */
	struct ist uri;           /* request target */
	struct ist vsn;           /* "HTTP/1.1" or "HTTP/1.0" */
	struct ist reason;        /* response reason phrase (may be empty) */
	uint64_t body_len;        /* Content-Length value when H1_MF_CLEN */
	uint32_t hdr_len;         /* bytes of start line + headers + final empty line */
	uint16_t nhdr;            /* entries used in <hdr> */
	uint16_t max_hdr;         /* capacity of <hdr> (set by the caller) */
	struct h1_hdr *hdr;       /* caller-provided table */
	int err_code;             /* on H1_INVALID: status to answer (400, 413, 414, 422, 431,
				   * 501; for responses 502) */
	uint32_t err_pos;         /* on H1_INVALID: offset of the offending byte */
};

/* Chunked-body scanner state; zero-initialise before the first call. */
struct h1_chunk {
	uint64_t remain;          /* bytes of chunk data (plus CRLF) still to pass */
	uint32_t line_len;        /* bytes seen on the current size/trailer line */
	uint32_t trailers_len;    /* total trailer bytes seen */
	uint8_t state;            /* private to the scanner */
};

#endif
