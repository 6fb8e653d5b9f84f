/* Unit tests for base/atomic.h: the result and the memory effect of every macro on 32 and
 * 64-bit operands single-threaded, then 4 threads hammering shared words (INC, COUNTER_INC,
 * CAS loops, FETCH_ADD tickets, an XCHG spinlock) with exact totals checked at the end, and
 * a single-writer HA_OWNER_INC counter read concurrently by the others.
 * Also run under qemu-aarch64 by scripts/check-arm64.sh, where they exercise LSE code.
 */
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <base/atomic.h>
#include "../test.h"

TEST(atomic_load_store)
{
	unsigned int w = 7;
	uint64_t q = 0x100000000ULL;

	CHECK_INT(HA_ATOMIC_LOAD(&w), 7);
	CHECK_INT(HA_ATOMIC_LOAD_RLX(&w), 7);
	HA_ATOMIC_STORE(&w, 9);
	CHECK_INT(w, 9);
	HA_ATOMIC_STORE_RLX(&w, 11);
	CHECK_INT(w, 11);
	CHECK(HA_ATOMIC_LOAD(&q) == 0x100000000ULL);
	HA_ATOMIC_STORE(&q, 0xffffffffffULL);
	CHECK(HA_ATOMIC_LOAD_RLX(&q) == 0xffffffffffULL);
	HA_ATOMIC_STORE_RLX(&q, 3);
	CHECK(q == 3);
}

TEST(atomic_add_sub)
{
	unsigned int w = 10;
	uint64_t q = 0xfffffffeULL;
	int s = 1;

	CHECK_INT(HA_ATOMIC_ADD(&w, 5), 15); /* returns the new value */
	CHECK_INT(w, 15);
	CHECK_INT(HA_ATOMIC_SUB(&w, 3), 12);
	CHECK_INT(w, 12);
	CHECK(HA_ATOMIC_ADD(&q, 3) == 0x100000001ULL); /* carries into the high word */
	CHECK(HA_ATOMIC_SUB(&q, 2) == 0xffffffffULL);
	CHECK_INT(HA_ATOMIC_SUB(&s, 3), -2);
	CHECK_INT(s, -2);
	CHECK_INT(HA_ATOMIC_ADD(&s, -1), -3);
}

TEST(atomic_fetch_add_sub)
{
	unsigned int w = 10;
	uint64_t q = 0xffffffffULL;

	CHECK_INT(HA_ATOMIC_FETCH_ADD(&w, 5), 10); /* returns the old value */
	CHECK_INT(w, 15);
	CHECK_INT(HA_ATOMIC_FETCH_SUB(&w, 15), 15);
	CHECK_INT(w, 0);
	CHECK_INT(HA_ATOMIC_FETCH_SUB(&w, 1), 0); /* unsigned wrap */
	CHECK(w == 0xffffffffU);
	CHECK(HA_ATOMIC_FETCH_ADD(&q, 1) == 0xffffffffULL);
	CHECK(q == 0x100000000ULL);
	CHECK(HA_ATOMIC_FETCH_SUB(&q, 1) == 0x100000000ULL);
	CHECK(q == 0xffffffffULL);
}

TEST(atomic_inc_dec)
{
	unsigned int w = 0;
	uint64_t q = 41;

	CHECK_INT(HA_ATOMIC_INC(&w), 1);
	CHECK_INT(HA_ATOMIC_INC(&w), 2);
	CHECK_INT(HA_ATOMIC_DEC(&w), 1);
	CHECK_INT(w, 1);
	CHECK_INT(HA_ATOMIC_INC(&q), 42);
	CHECK_INT(HA_ATOMIC_DEC(&q), 41);
	CHECK_INT(HA_ATOMIC_DEC(&q), 40);
	CHECK_INT(q, 40);
}

TEST(atomic_xchg)
{
	unsigned int w = 3;
	uint64_t q = 1;
	int a, b, *p = &a;

	CHECK_INT(HA_ATOMIC_XCHG(&w, 8), 3);
	CHECK_INT(w, 8);
	CHECK_INT(HA_ATOMIC_XCHG(&w, 8), 8);
	CHECK(HA_ATOMIC_XCHG(&q, 0x123456789ULL) == 1);
	CHECK(q == 0x123456789ULL);
	CHECK(HA_ATOMIC_XCHG(&p, &b) == &a);
	CHECK(p == &b);
}

TEST(atomic_cas)
{
	unsigned int w = 5, old = 5;
	uint64_t q = 0x100000000ULL, qold = 0;
	int a, b, *p = &a, *pold = &a;

	CHECK(HA_ATOMIC_CAS(&w, &old, 6)); /* success: stores, leaves <old> alone */
	CHECK_INT(w, 6);
	CHECK_INT(old, 5);
	CHECK(!HA_ATOMIC_CAS(&w, &old, 7)); /* failure: no store, <old> gets the value */
	CHECK_INT(w, 6);
	CHECK_INT(old, 6);
	CHECK(HA_ATOMIC_CAS(&w, &old, 7));
	CHECK_INT(w, 7);
	CHECK(!HA_ATOMIC_CAS(&q, &qold, 1)); /* the high word differs */
	CHECK(qold == 0x100000000ULL);
	CHECK(q == 0x100000000ULL);
	CHECK(HA_ATOMIC_CAS(&q, &qold, 1));
	CHECK(q == 1);
	CHECK(HA_ATOMIC_CAS(&p, &pold, &b));
	CHECK(p == &b);
	CHECK(!HA_ATOMIC_CAS(&p, &pold, NULL));
	CHECK(pold == &b && p == &b);
}

TEST(atomic_counter)
{
	unsigned int w = 0;
	uint64_t q = 0xffffffffULL;

	HA_COUNTER_INC(&w);
	HA_COUNTER_INC(&w);
	HA_COUNTER_ADD(&w, 10);
	HA_COUNTER_DEC(&w);
	CHECK_INT(w, 11);
	HA_COUNTER_INC(&q);
	CHECK(q == 0x100000000ULL);
	HA_COUNTER_ADD(&q, 0x100000000ULL);
	CHECK(q == 0x200000000ULL);
	HA_COUNTER_DEC(&q);
	CHECK(q == 0x1ffffffffULL);
	HA_BARRIER(); /* a full fence: only checks that it compiles and returns */
	CHECK(q == 0x1ffffffffULL);
}

TEST(atomic_owner)
{
	unsigned int w = 5;
	uint64_t q = 0xffffffffULL;

	HA_OWNER_INC(&w);
	HA_OWNER_ADD(&w, 10);
	CHECK_INT(w, 16);
	HA_OWNER_INC(&q);
	CHECK(q == 0x100000000ULL);
	HA_OWNER_ADD(&q, 0x100000000ULL);
	CHECK(q == 0x200000000ULL);
}

TEST(atomic_update_max)
{
	int m = 5;

	HA_ATOMIC_UPDATE_MAX(&m, 3); /* smaller: unchanged */
	CHECK_INT(m, 5);
	HA_ATOMIC_UPDATE_MAX(&m, 9);
	CHECK_INT(m, 9);
	HA_ATOMIC_UPDATE_MAX(&m, -1);
	CHECK_INT(m, 9);
}

#define ATOMT_THREADS 4
#define ATOMT_LOOPS 100000

struct atomt_max {
	int max;
	int id;
};

/* Each thread raises the shared maximum with its own interleaved sequence of values. */
static void *atomt_max_worker(void *arg)
{
	struct atomt_max *am = arg;
	int id = HA_ATOMIC_FETCH_ADD(&am->id, 1);

	for (int i = 0; i < ATOMT_LOOPS; i++)
		HA_ATOMIC_UPDATE_MAX(&am->max, i * ATOMT_THREADS + id);
	return NULL;
}

TEST(atomic_update_max_threads)
{
	struct atomt_max am = { 0, 0 };
	pthread_t th[ATOMT_THREADS];
	int started = 0;

	for (int i = 0; i < ATOMT_THREADS; i++) {
		if (pthread_create(&th[i], NULL, atomt_max_worker, &am) != 0)
			break;
		started++;
	}
	CHECK_INT(started, ATOMT_THREADS);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (started == ATOMT_THREADS)
		CHECK_INT(am.max, ATOMT_LOOPS * ATOMT_THREADS - 1);
}

/* The words all threads hit; each on its own cache line so the test also measures nothing
 * but the atomics themselves. <locked> is a plain int guarded by the XCHG spinlock.
 */
struct atomt_shared {
	unsigned int inc __attribute__((aligned(64)));
	uint64_t counter __attribute__((aligned(64)));
	unsigned int cas __attribute__((aligned(64)));
	unsigned int ticket __attribute__((aligned(64)));
	unsigned int lock __attribute__((aligned(64)));
	int locked;
	uint64_t down __attribute__((aligned(64)));
	unsigned char *seen; /* seen[t] = times FETCH_ADD handed out ticket t */
	unsigned int go;     /* start barrier: threads wait until it equals the count */
};

/* Takes the XCHG spinlock (acquire), yielding now and then: with fewer CPUs than threads,
 * or under qemu, the holder may be descheduled.
 */
static void atomt_lock(unsigned int *lock)
{
	unsigned int spins = 0;

	while (HA_ATOMIC_XCHG(lock, 1)) {
		while (HA_ATOMIC_LOAD_RLX(lock))
			if (++spins % 64 == 0)
				sched_yield();
	}
}

/* One worker: ATOMT_LOOPS rounds of every kind of update on the shared words. */
static void *atomt_worker(void *arg)
{
	struct atomt_shared *sh = arg;
	unsigned int i, old, t;

	HA_ATOMIC_INC(&sh->go);
	while (HA_ATOMIC_LOAD(&sh->go) < ATOMT_THREADS)
		sched_yield();
	for (i = 0; i < ATOMT_LOOPS; i++) {
		HA_ATOMIC_INC(&sh->inc);
		HA_COUNTER_INC(&sh->counter);
		HA_COUNTER_ADD(&sh->counter, 2);
		HA_COUNTER_DEC(&sh->counter);
		old = HA_ATOMIC_LOAD_RLX(&sh->cas);
		while (!HA_ATOMIC_CAS(&sh->cas, &old, old + 3))
			;
		t = HA_ATOMIC_FETCH_ADD(&sh->ticket, 1);
		if (t < ATOMT_THREADS * ATOMT_LOOPS)
			HA_ATOMIC_INC(&sh->seen[t]);
		atomt_lock(&sh->lock);
		sh->locked++;
		HA_ATOMIC_STORE(&sh->lock, 0);
		HA_ATOMIC_DEC(&sh->down);
		HA_ATOMIC_SUB(&sh->down, 1);
		HA_ATOMIC_FETCH_SUB(&sh->down, 1);
	}
	return NULL;
}

TEST(atomic_threads_exact_totals)
{
	const unsigned int total = ATOMT_THREADS * ATOMT_LOOPS;
	pthread_t th[ATOMT_THREADS];
	struct atomt_shared *sh;
	unsigned int i, bad = 0;
	int started = 0;

	sh = aligned_alloc(64, sizeof(*sh));
	CHECK(sh != NULL);
	if (!sh)
		return;
	memset(sh, 0, sizeof(*sh));
	sh->down = 3ULL * total;
	sh->seen = calloc(total, 1);
	CHECK(sh->seen != NULL);
	if (!sh->seen)
		goto out_free_sh;
	for (i = 0; i < ATOMT_THREADS; i++) {
		if (pthread_create(&th[i], NULL, atomt_worker, sh) != 0)
			break;
		started++;
	}
	CHECK_INT(started, ATOMT_THREADS);
	if (started < ATOMT_THREADS)
		HA_ATOMIC_ADD(&sh->go, ATOMT_THREADS); /* release the ones that did start */
	for (i = 0; i < (unsigned int)started; i++)
		pthread_join(th[i], NULL);
	if (started < ATOMT_THREADS)
		goto out_free_seen;
	CHECK_INT(sh->inc, total);
	CHECK_INT(sh->counter, 2ULL * total);
	CHECK_INT(sh->cas, 3ULL * total);
	CHECK_INT(sh->ticket, total);
	CHECK_INT(sh->locked, total);
	CHECK_INT(sh->lock, 0);
	CHECK_INT(sh->down, 0);
	for (i = 0; i < total; i++)
		bad += sh->seen[i] != 1;
	CHECK_INT(bad, 0); /* every ticket handed out exactly once */
out_free_seen:
	free(sh->seen);
out_free_sh:
	free(sh);
}

#define ATOMT_OWNER_LOOPS 200000

struct atomt_owner {
	uint64_t count __attribute__((aligned(64))); /* written by the owner thread only */
	unsigned int done;			     /* set (release) by the owner when finished */
	unsigned int backwards;			     /* readers: times a value went down */
};

/* The single writer: ATOMT_OWNER_LOOPS owner increments, then raises <done>. */
static void *atomt_owner_writer(void *arg)
{
	struct atomt_owner *o = arg;
	unsigned int i;

	for (i = 0; i < ATOMT_OWNER_LOOPS; i++)
		HA_OWNER_INC(&o->count);
	HA_ATOMIC_STORE(&o->done, 1);
	return NULL;
}

/* A reader: relaxed loads of the owner's counter must never go backwards. */
static void *atomt_owner_reader(void *arg)
{
	struct atomt_owner *o = arg;
	uint64_t last = 0, v;

	while (!HA_ATOMIC_LOAD(&o->done)) {
		v = HA_ATOMIC_LOAD_RLX(&o->count);
		if (v < last)
			HA_ATOMIC_INC(&o->backwards);
		last = v;
	}
	return NULL;
}

TEST(atomic_owner_threads)
{
	struct atomt_owner o = { 0 };
	pthread_t th[ATOMT_THREADS];
	int i, started = 0;

	for (i = 0; i < ATOMT_THREADS; i++) {
		void *(*fn)(void *) = i ? atomt_owner_reader : atomt_owner_writer;

		if (pthread_create(&th[i], NULL, fn, &o) != 0) {
			HA_ATOMIC_STORE(&o.done, 1); /* lets the started readers end */
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	CHECK_INT(started, ATOMT_THREADS);
	if (started == ATOMT_THREADS)
		CHECK_INT(o.count, ATOMT_OWNER_LOOPS);
	CHECK_INT(o.backwards, 0);
}
