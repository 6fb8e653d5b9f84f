/* Unit tests of the event loop's release rule: a handler that closes another object whose
 * event is in the same epoll batch neither lets that event run nor frees the object before
 * the batch ends. */
#include <unistd.h>
#include <sys/eventfd.h>
#include <event/loop.h>
#include "../test.h"

struct victim {
	struct fd_handler h;
	struct tasklet release;
	struct victim *peer;
	int runs;                 /* iocb calls */
	int released;             /* release callbacks */
};

static struct victim v[2];

static void victim_release(struct tasklet *tl)
{
	struct victim *x = container_of(tl, struct victim, release);

	x->released++;
}

/* Whichever of the two runs first kills the other, as a stream closing its back
 * connection does, then ends the loop. */
static void victim_iocb(struct fd_handler *h, uint32_t events)
{
	struct victim *x = container_of(h, struct victim, h), *p = x->peer;

	x->runs++;
	if (p->h.fd >= 0) {
		fd_unregister(&p->h);
		close(p->h.fd);
		p->h.fd = -1;
		loop_defer_release(&p->release, victim_release);
		CHECK_INT(p->released, 0); /* not before the batch ends */
	}
	th_ctx->stopped = true;
}

TEST(loop_skips_and_defers_objects_closed_in_the_batch)
{
	uint64_t one = 1;

	CHECK_INT(loop_init_thread(), 0);
	for (int i = 0; i < 2; i++) {
		v[i] = (struct victim){ .peer = &v[1 - i] };
		tasklet_init(&v[i].release, NULL);
		v[i].h.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		v[i].h.iocb = victim_iocb;
		CHECK(v[i].h.fd >= 0);
		CHECK_INT(fd_register_listener(&v[i].h), 0);
		CHECK_INT((int)write(v[i].h.fd, &one, sizeof(one)), 8);
	}
	loop_run(NULL); /* one turn: both fds were ready in the same batch */
	CHECK_INT(v[0].runs + v[1].runs, 1);
	CHECK_INT(v[0].released + v[1].released, 1);
	CHECK(list_empty(&th_ctx->deferred));
	for (int i = 0; i < 2; i++)
		if (v[i].h.fd >= 0)
			close(v[i].h.fd);
	loop_deinit_thread();
}
