/* DNS messages (RFC 1035, EDNS0 RFC 6891): building one A or AAAA query and a strict,
 * pure parser of the response. No I/O, no allocation, no globals: the parser reads only
 * msg[0..len) and writes only the caller's result.
 */
#ifndef DNS_DNS_MSG_H
#define DNS_DNS_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DNS_HDR_LEN 12
#define DNS_NAME_MAX 255 /* wire length of a name, labels and lengths included */
#define DNS_TXT_MAX 254	 /* dotted text of the longest name, without the NUL */
#define DNS_MAX_ADDRS 16 /* addresses kept from one answer */
#define DNS_MAX_CNAME 8	 /* CNAME links followed from the question name */
#define DNS_MAX_JUMPS 16 /* compression pointers followed within one name */

#define DNS_T_A 1
#define DNS_T_CNAME 5
#define DNS_T_AAAA 28
#define DNS_T_OPT 41
#define DNS_C_IN 1

/* What dns_parse_response() concluded; names follow HAProxy's resolution statuses. */
enum dns_status {
	DNS_ST_VALID = 0,      /* at least one address of the asked type */
	DNS_ST_INVALID,	       /* malformed: bounds, header, loop, bad record */
	DNS_ST_WRONG_ID,       /* not the answer to our query id */
	DNS_ST_WRONG_QUESTION, /* the question is not ours (name, type or class) */
	DNS_ST_TRUNCATED,      /* TC bit: the answer did not fit */
	DNS_ST_NX,	       /* NXDOMAIN */
	DNS_ST_REFUSED,
	DNS_ST_SERVFAIL,
	DNS_ST_OTHER,	  /* any other rcode */
	DNS_ST_NO_ANSWER, /* well formed, but no address of the asked type */
};

struct dns_addr_rr {
	int family;	/* AF_INET or AF_INET6 */
	uint8_t ip[16]; /* 4 or 16 bytes, network order */
	uint32_t ttl;
};

struct dns_result {
	int naddr;
	struct dns_addr_rr addr[DNS_MAX_ADDRS];
};

/* Writes the query "<name> IN <qtype>" with id <id> and recursion desired into
 * out[0..outsz); with <payload> >= 512, adds an EDNS0 OPT record announcing it. <name> is
 * a dotted host name (an ending dot is allowed). Returns the length, or -1 when the name is
 * invalid (empty label, label over 63, name over 255) or out is too small.
 */
int dns_build_query(uint8_t *out, size_t outsz, uint16_t id, const char *name, uint16_t qtype,
		    int payload);

/* Parses the response msg[0..len) to the query (<id>, <name>, <qtype>): checks the header
 * (QR set, standard opcode, id, one question), that the question echoes ours (name compared
 * without case), the rcode, then follows the CNAME chain from <name> through the answer
 * section and keeps up to DNS_MAX_ADDRS addresses of <qtype> in <res>. Names may be
 * compressed; a pointer must point before the label it replaces, so a name cannot loop, and
 * every read is bounds-checked. The authority and additional sections are walked for
 * well-formedness only. Returns a dns_status.
 */
enum dns_status dns_parse_response(const uint8_t *msg, size_t len, uint16_t id, const char *name,
				   uint16_t qtype, struct dns_result *res);

/* Reads the (possibly compressed) name at msg[*pos] into txt[0..DNS_TXT_MAX] as lowercase
 * dotted text ("" for the root), and moves *pos past it in the record. Returns 0 or -1. */
int dns_read_name(const uint8_t *msg, size_t len, size_t *pos, char *txt);

/* Text of a status for logs and notices. */
const char *dns_status_str(enum dns_status st);

/* DNS over TCP framing (RFC 7766): the message at the start of <buf>[0..len). Returns the
 * bytes it takes with its 2-byte length prefix (its body: buf + 2, *mlen bytes), or 0 when
 * it is not complete yet. Pure. */
size_t dns_tcp_frame(const uint8_t *buf, size_t len, size_t *mlen);

#endif
