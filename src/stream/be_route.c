/* What the chosen server changes in a request: "redir PREFIX" servers answer GET and HEAD
 * with a 302 to PREFIX + URI instead of being connected to, "http-send-name-header"
 * puts the server's name in the request sent to it (again at each retry or redispatch),
 * and "retry-on" keeps the request for an L7 retry.
 * Loop thread.
 */
#include <string.h>

#include <backend/backend.h>
#include <backend/server-t.h>
#include <base/buf.h>
#include <conn/connection.h>
#include <http/h1.h>
#include <proxy/proxy-t.h>
#include <stream/l7_body.h>
#include <stream/stream.h>

int stream_srv_redirect(struct stream *s)
{
	static const char head[] = "HTTP/1.1 302 Found\r\ncache-control: no-cache\r\n"
				   "content-length: 0\r\nlocation: ";
	struct buf *ob = &s->front->obuf;
	const char *p = s->srv->redir;
	size_t plen = strlen(p);
	int start;

	backend_release_slot(s);    /* no connection is made */
	s->flags |= SF_FRONT_CLOSE; /* HAProxy closes after it */
	start = stream_reply_start(s);
	if (start < 0)
		return stream_abort(s);
	if (b_putblk(ob, head, sizeof(head) - 1) < 0 || b_putblk(ob, p, (uint32_t)plen) < 0 ||
	    b_putblk(ob, s->req.uri.ptr, (uint32_t)s->req.uri.len) < 0 ||
	    b_putblk(ob, "\r\n\r\n", 4) < 0) {
		ob->data = (uint32_t)start;
		return stream_reply_error(s, 500, false);
	}
	return stream_reply_finish(s, start, 302, false);
}

int stream_route_request(struct stream *s)
{
	struct ist name = s->be->srv_name_hdr;

	/* retry-on: a request is kept in the front buffer until its response is accepted
	 * (stream_established, http_ana.c), with its body if all of it is there */
	if ((s->be->rt_flags & PR_RT_L7_RETRY) && !(s->flags & SF_NO_L7_RETRY) &&
	    stream_l7_body_ready(s))
		s->flags |= SF_L7_RETRY;
	if (!(s->be->rt_flags & PR_RT_NAME_HDR))
		return 0;
	http_hdr_del(&s->req, name); /* the client's, or the one of a previous try */
	return http_hdr_add(s, &s->req, name, ist_str(s->srv->id));
}
