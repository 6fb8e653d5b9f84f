/* Receiving the PROXY header on a front connection ("accept-proxy", "expect-proxy"): the
 * bytes are peeked until the header is complete, then exactly the header is read, so that
 * what follows (a TLS ClientHello, a request) stays in the socket for the next layer. The
 * header's addresses replace the connection's; its TLVs are kept for the fc_pp_* fetches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <base/buf.h>
#include <conn/connection.h>
#include <conn/pp_recv.h>
#include <conn/proxy_proto.h>
#include <event/loop.h>

/* Applies the parsed header <pp> to <c>; -1 when memory lacks. */
static int pp_apply(struct conn *c, const struct pp_info *pp)
{
	struct conn_pp *kept = malloc(sizeof(*kept) + pp->tlv_len);

	if (!kept)
		return -1;
	kept->version = pp->version;
	kept->local = pp->local;
	kept->tlv_len = pp->tlv_len;
	if (pp->tlv_len)
		memcpy(kept->tlv, pp->tlv, pp->tlv_len);
	c->pp = kept;
	if (pp->local)
		return 0;
	c->peer = pp->src;
	if (pp->dst.ss_family == AF_INET) {
		memcpy(&c->local.in, &pp->dst, sizeof(c->local.in));
		c->flags |= CO_FL_LOCAL_SET;
	} else if (pp->dst.ss_family == AF_INET6) {
		memcpy(&c->local.in6, &pp->dst, sizeof(c->local.in6));
		c->flags |= CO_FL_LOCAL_SET;
	}
	return 0;
}

int pp_recv(struct conn *c, const char **why)
{
	struct buf *b = &c->ibuf;
	struct pp_info pp;
	ssize_t n;
	int len;

	*why = NULL;
	if (!(c->flags & CO_FL_CAN_RECV) || (c->flags & (CO_FL_RD_EOF | CO_FL_ERROR)))
		return 0;
	if (b_get(b) < 0) {
		*why = "Out of memory while reading the PROXY protocol header";
		return -1;
	}
	n = recv(c->h.fd, b->area, b->size, MSG_PEEK);
	if (n <= 0) {
		b_release(b);
		if (n == 0)
			c->flags |= CO_FL_RD_EOF;
		else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			c->flags |= CO_FL_ERROR;
		c->flags &= ~CO_FL_CAN_RECV;
		return 0;
	}
	len = pp_parse((const uint8_t *)b->area, (size_t)n, &pp, why);
	if (len == 0 && (size_t)n >= b->size) {
		*why = "Received an invalid PROXY protocol header";
		len = -1; /* longer than anything it may hold */
	} else if (len == 0 && (c->flags & (CO_FL_RDHUP | CO_FL_HUP))) {
		*why = "Truncated PROXY protocol header received";
		len = -1; /* the rest will never come: a peek never sees the FIN */
	}
	if (len < 0 && pp.version == 2 && !pp.local && pp.src.ss_family)
		c->peer = pp.src; /* a v2 header read but refused (its CRC): 2.6 logs its source */
	if (len <= 0) {
		b_release(b);
		/* what was peeked stays queued: the next bytes bring a new edge */
		c->flags &= ~CO_FL_CAN_RECV;
		return len;
	}
	if (pp_apply(c, &pp) < 0) {
		b_release(b);
		*why = "Out of memory while reading the PROXY protocol header";
		return -1;
	}
	/* the header was peeked whole: reading it now cannot be short */
	n = recv(c->h.fd, b->area, (size_t)len, 0);
	b_release(b);
	if (n != len) {
		*why = "Error while reading the PROXY protocol header";
		return -1;
	}
	c->last_act = now_ms();
	return 1;
}
