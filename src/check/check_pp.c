/* check-send-proxy: whether a health check's connection opens with a PROXY header, and
 * writing that header once connected (before TLS and before any request). The header is
 * HAProxy 2.6's: v1 with the check connection's own addresses, v2 a LOCAL header with the
 * server's TLVs (proxy-v2-options). Runs on the check's thread.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <backend/server.h>
#include <check/check.h>
#include <check/check_pp.h>
#include <conn/proxy_proto.h>
#include <proc/global-t.h>

bool chk_pp_wanted(const struct server *s)
{
	if (s->pp_opts & PP_O_CHECK)
		return true;
	return (s->pp_opts & (PP_O_V1 | PP_O_V2)) && !s->check_port && !s->check_addr.ss_family;
}

/* Builds the header for <s> on connected socket <fd> into <out>. Returns its length, or
 * -1 when the addresses cannot be read. */
static int chk_pp_build(const struct server *s, int fd, uint8_t *out, size_t room)
{
	struct sockaddr_storage src, dst;
	socklen_t sl = sizeof(src), dl = sizeof(dst);
	struct pp_out o = { .opts = s->pp_opts };

	if ((s->pp_opts & PP_O_V2) && !global.pp2_never_send_local)
		return pp_build_v2(out, room, &o); /* LOCAL, as 2.6 */
	if (getsockname(fd, (struct sockaddr *)&src, &sl) < 0 ||
	    getpeername(fd, (struct sockaddr *)&dst, &dl) < 0)
		return -1;
	o.src = &src;
	o.dst = &dst;
	if (s->pp_opts & PP_O_V2) /* pp2-never-send-local: PROXY with the check's addresses */
		return pp_build_v2(out, room, &o);
	return pp_build_v1((char *)out, room, &o);
}

int chk_pp_send(struct check *c)
{
	uint8_t hdr[256];
	int n = chk_pp_build(c->srv, c->fh.fd, hdr, sizeof(hdr));
	ssize_t w;

	if (n < 0) {
		chk_finish(c, CHK_R_SOCKERR, 0, strerror(errno));
		return -1;
	}
	/* a socket that just connected has an empty send buffer: the few bytes go at once */
	w = send(c->fh.fd, hdr, (size_t)n, MSG_NOSIGNAL);
	if (w != n) {
		chk_finish(c, CHK_R_SOCKERR, 0, w < 0 ? strerror(errno) : NULL);
		return -1;
	}
	return 0;
}
