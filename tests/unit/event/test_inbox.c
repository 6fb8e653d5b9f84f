/* Unit tests of the per-thread inbox: single-thread order, and a multi-producer stress
 * test (4 producers x 50k items) checking that every item arrives exactly once and that
 * each producer's items arrive in the order they were pushed. */
#include <pthread.h>
#include <poll.h>
#include <stdlib.h>
#include <event/inbox.h>
#include <base/tinfo.h>
#include <event/loop.h>
#include "../test.h"

#define PRODUCERS 4
#define PER_PRODUCER 50000

struct test_item {
	struct inbox_item it;
	int producer;
	int seq;
};

static int last_seq[PRODUCERS];
static int received, out_of_order;

static void on_item(struct inbox_item *it)
{
	struct test_item *ti = container_of(it, struct test_item, it);

	if (ti->seq != last_seq[ti->producer] + 1)
		out_of_order++;
	last_seq[ti->producer] = ti->seq;
	received++;
}

TEST(inbox_single_thread_fifo)
{
	struct test_item items[10];

	CHECK_INT(loop_init_thread(), 0);
	CHECK_INT(inbox_init(), 0);
	received = out_of_order = 0;
	last_seq[0] = -1;
	for (int i = 0; i < 10; i++) {
		items[i] = (struct test_item){ .it.fn = on_item, .producer = 0, .seq = i };
		inbox_push((int)tid, &items[i].it);
	}
	CHECK_INT(inbox_drain(), 10);
	CHECK_INT(received, 10);
	CHECK_INT(out_of_order, 0);
	CHECK_INT(inbox_drain(), 0);
	inbox_deinit();
	loop_deinit_thread();
}

static struct test_item *stress_items;

static void *producer(void *arg)
{
	int p = (int)(intptr_t)arg;

	for (int i = 0; i < PER_PRODUCER; i++) {
		struct test_item *ti = &stress_items[p * PER_PRODUCER + i];

		ti->it.fn = on_item;
		ti->producer = p;
		ti->seq = i;
		inbox_push(0, &ti->it);
	}
	return NULL;
}

TEST(inbox_multi_producer_stress)
{
	pthread_t th[PRODUCERS];
	int loops = 0;

	stress_items = calloc(PRODUCERS * PER_PRODUCER, sizeof(*stress_items));
	CHECK(stress_items != NULL);
	if (!stress_items)
		return;
	CHECK_INT(loop_init_thread(), 0); /* this thread is tid 0: the consumer */
	CHECK_INT(inbox_init(), 0);
	received = out_of_order = 0;
	for (int p = 0; p < PRODUCERS; p++)
		last_seq[p] = -1;
	for (int p = 0; p < PRODUCERS; p++)
		pthread_create(&th[p], NULL, producer, (void *)(intptr_t)p);
	/* consume as the loop does: wait for the eventfd, then drain; bounded */
	while (received < PRODUCERS * PER_PRODUCER && loops++ < 1000000) {
		struct pollfd pfd = { .fd = th_ctx->inbox_h.fd, .events = POLLIN };

		poll(&pfd, 1, 100);
		inbox_drain();
	}
	for (int p = 0; p < PRODUCERS; p++)
		pthread_join(th[p], NULL);
	inbox_drain();
	CHECK_INT(received, PRODUCERS * PER_PRODUCER);
	CHECK_INT(out_of_order, 0);
	for (int p = 0; p < PRODUCERS; p++)
		CHECK_INT(last_seq[p], PER_PRODUCER - 1);
	inbox_deinit();
	loop_deinit_thread();
	free(stress_items);
}
