/* "on-marked-down shutdown-sessions" and "on-marked-up shutdown-backup-sessions": when a
 * server changes state, the streams using it (or the backup servers of its backend) are
 * killed. Streams belong to their threads, so one request is posted to every thread's
 * inbox; each thread ends its own matching streams (the client gets a 502, or its
 * connection cut when the response had started, as with HAProxy). Registered into backend/ as
 * srv_shutdown_hook.
 */
#include <stdlib.h>

#include <backend/server.h>
#include <conn/connection-t.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <stream/stream.h>

/* One thread's share of a shutdown; freed by that thread. */
struct srv_shut_req {
	struct inbox_item it;
	struct server *srv; /* its streams, or with <backups> those of px's backup servers */
	struct proxy *px;
	bool backups;
};

static bool srv_shut_match(const struct srv_shut_req *r, const struct stream *st)
{
	/* a stream holding a slot of the server; ending it releases the slot, so a stream
	 * whose 502 is still being written is not found again */
	if (!st->srv || !(st->flags & SF_HAS_SLOT) || st->queue_state != Q_NONE)
		return false;
	if (r->backups)
		return st->srv->px == r->px && (st->srv->flags & SRV_F_BACKUP);
	return st->srv == r->srv;
}

/* The first stream of this thread that <r> targets, or NULL. */
static struct stream *srv_shut_next(const struct srv_shut_req *r)
{
	struct conn *c;

	list_for_each_entry(c, &th_ctx->conns,
			    by_thread) if (c->strm && c->strm->front == c &&
					   srv_shut_match(r, c->strm)) return c->strm;
	return NULL;
}

/* On each thread: aborts the matching streams. Aborting one closes its connections, which
 * may be the next ones of the thread's list: the targets are collected first (one walk),
 * then killed. Without memory for the list, the walk starts again after each kill
 * (bounded by the connections the thread had). */
static void srv_shut_run(struct inbox_item *it)
{
	struct srv_shut_req *r = (struct srv_shut_req *)it;
	struct stream *st, **v;
	size_t bound = 0, n = 0;
	struct conn *c;

	list_for_each_entry(c, &th_ctx->conns, by_thread)
	{
		bound++;
		n += c->strm && c->strm->front == c && srv_shut_match(r, c->strm);
	}
	v = n ? malloc(n * sizeof(*v)) : NULL;
	if (v) {
		size_t i = 0;

		list_for_each_entry(c, &th_ctx->conns, by_thread)
		{
			if (i < n && c->strm && c->strm->front == c && srv_shut_match(r, c->strm))
				v[i++] = c->strm;
		}
		while (i)
			stream_server_killed(v[--i]);
		free(v);
	} else {
		while (n && bound-- && (st = srv_shut_next(r)))
			stream_server_killed(st);
	}
	free(r);
}

/* srv_shutdown_hook: any thread. A thread whose request cannot be allocated keeps its
 * streams (they end normally). */
static void srv_shut_post(struct server *s, bool backups)
{
	int n = global.nbthread > 0 ? global.nbthread : 1;

	for (int t = 0; t < n; t++) {
		struct srv_shut_req *r = calloc(1, sizeof(*r));

		if (!r)
			continue;
		r->srv = s;
		r->px = s->px;
		r->backups = backups;
		r->it.fn = srv_shut_run;
		inbox_push(t, &r->it);
	}
}

__attribute__((constructor)) static void srv_shut_register(void)
{
	srv_shutdown_hook = srv_shut_post;
}
