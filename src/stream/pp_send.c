/* The PROXY header sent to servers with "send-proxy", "send-proxy-v2" and their options:
 * built from the client connection (its addresses, which a received PROXY header may have
 * set; its TLS facts; the stream's unique-id) before a server connection is chosen, so
 * that an idle connection is reused only when it was opened with the very same header
 * (its reuse key), then queued at the head of a new connection's output. Loop thread.
 */
#include <string.h>
#include <backend/server-t.h>
#include <base/buf.h>
#include <conn/conn_addr.h>
#include <conn/connection.h>
#include <conn/proxy_proto.h>
#include <sample/hash.h>
#include <ssl/ssl.h>
#include <stream/http_px.h>
#include <stream/pp_send.h>
#include <stream/stream.h>

#define PP_SEND_MAX 2048 /* v2 with every TLV: addresses, names, unique-id, TLS facts */

static __thread uint8_t pp_hdr[PP_SEND_MAX];
static __thread int pp_len;

/* A copy of the client connection's local address as a sockaddr_storage, or NULL. */
static const struct sockaddr_storage *pp_dst(struct conn *f, struct sockaddr_storage *ss)
{
	const struct sockaddr *sa = conn_local_addr(f);

	if (!sa)
		return NULL;
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, sa,
	       sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in));
	return ss;
}

uint64_t stream_pp_prepare(struct stream *s)
{
	struct conn *f = s->front;
	struct sockaddr_storage dst;
	struct pp_out o = { 0 };
	uint32_t opts = s->srv->pp_opts;
	uint64_t key;

	o.src = &f->peer;
	o.dst = pp_dst(f, &dst);
	o.opts = opts;
	if ((opts & PP_O_AUTHORITY) && f->pp)
		o.authority = pp_tlv_find(f->pp->tlv, f->pp->tlv_len, PP2_TYPE_AUTHORITY);
	if ((opts & PP_O_UNIQUE_ID) && http_unique_id(s, &o.unique_id) < 0)
		o.unique_id = ist2(NULL, 0);
	if (opts & PP_O_V2)
		ssl_pp_fill(f, &o);
	pp_len = (opts & PP_O_V2) ? pp_build_v2(pp_hdr, sizeof(pp_hdr), &o)
				  : pp_build_v1((char *)pp_hdr, sizeof(pp_hdr), &o);
	if (pp_len <= 0)
		return 0;
	key = hash_xxh64(pp_hdr, (size_t)pp_len, 0x5050);
	return key > 1 ? key : 2;
}

int stream_pp_queue(struct conn *b)
{
	if (pp_len <= 0 || b_get(&b->obuf) < 0 ||
	    b_putblk(&b->obuf, (const char *)pp_hdr, (uint32_t)pp_len) != 0)
		return -1;
	return 0;
}
