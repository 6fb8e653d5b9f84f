/* Unit tests of the per-group counter blocks: updates land in the calling thread's
 * group, sums add every group exactly, also with concurrent writers in several groups. */
#include <pthread.h>
#include <stdlib.h>
#include <stats/counters.h>
#include "../test.h"

TEST(counters_sum_adds_groups)
{
	struct fe_counters *b = aligned_alloc(64, sizeof(*b) * 3), sum;
	unsigned int saved = tgid;

	memset(b, 0, sizeof(*b) * 3);
	counters_ngroups = 3;
	for (unsigned int g = 1; g <= 3; g++) {
		tgid = g;
		for (unsigned int i = 0; i < g * 10; i++)
			CNT_INC(b, cum_req);
		CNT_ADD(b, bytes_in, 100 * g);
		CNT_INC(b, rsp[status_class(200)]);
	}
	tgid = saved;
	CHECK_INT(b[0].cum_req, 10);
	CHECK_INT(b[2].cum_req, 30);
	fe_counters_sum(b, &sum);
	CHECK_INT(sum.cum_req, 60);
	CHECK_INT(sum.bytes_in, 600);
	CHECK_INT(sum.rsp[2], 3);
	CHECK_INT(sum.rsp[0], 0);
	counters_ngroups = 1;
	free(b);
}

TEST(counters_status_class)
{
	CHECK_INT(status_class(101), 1);
	CHECK_INT(status_class(204), 2);
	CHECK_INT(status_class(399), 3);
	CHECK_INT(status_class(404), 4);
	CHECK_INT(status_class(503), 5);
	CHECK_INT(status_class(99), 0);
	CHECK_INT(status_class(600), 0);
}

#define WRITERS 4
#define INCS 100000
static struct be_counters *shared_blocks;

/* Two writers per group, as two threads of one group share a block. */
static void *writer(void *arg)
{
	tgid = (unsigned int)(intptr_t)arg / 2 + 1;
	for (int i = 0; i < INCS; i++) {
		CNT_INC(shared_blocks, cum_sess);
		CNT_ADD(shared_blocks, bytes_out, 2);
	}
	return NULL;
}

TEST(counters_concurrent_groups_add_up)
{
	pthread_t th[WRITERS];
	struct be_counters sum;

	shared_blocks = aligned_alloc(64, sizeof(*shared_blocks) * 2);
	memset(shared_blocks, 0, sizeof(*shared_blocks) * 2);
	counters_ngroups = 2;
	for (int i = 0; i < WRITERS; i++)
		pthread_create(&th[i], NULL, writer, (void *)(intptr_t)i);
	for (int i = 0; i < WRITERS; i++)
		pthread_join(th[i], NULL);
	CHECK_INT(shared_blocks[0].cum_sess, 2 * INCS);
	CHECK_INT(shared_blocks[1].cum_sess, 2 * INCS);
	be_counters_sum(shared_blocks, &sum);
	CHECK_INT(sum.cum_sess, WRITERS * INCS);
	CHECK_INT(sum.bytes_out, 2 * WRITERS * INCS);
	counters_ngroups = 1;
	free(shared_blocks);
}
