/* Per-thread inboxes: a lock-free multi-producer, single-consumer list plus an eventfd.
 * Push is a CAS loop on the head (Treiber stack); the consumer detaches the whole list
 * with one exchange, so there is no ABA problem, and reverses it to run items in the order
 * they were pushed.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <base/atomic.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <stats/counters.h>

static void inbox_iocb(struct fd_handler *h, uint32_t events)
{
	inbox_drain();
}

int inbox_init(void)
{
	struct thread_ctx *tc = th_ctx;

	tc->sh.inbox_head = NULL;
	tc->sh.inbox_notified = 0;
	tc->inbox_h.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (tc->inbox_h.fd < 0)
		return -1;
	tc->inbox_h.iocb = inbox_iocb;
	if (fd_register_listener(&tc->inbox_h) < 0) {
		close(tc->inbox_h.fd);
		tc->inbox_h.fd = -1;
		return -1;
	}
	return 0;
}

void inbox_deinit(void)
{
	if (th_ctx->inbox_h.fd >= 0)
		close(th_ctx->inbox_h.fd);
	th_ctx->inbox_h.fd = -1;
}

void inbox_push(int target, struct inbox_item *it)
{
	struct thread_ctx *tc = ha_thread_ctx[target];
	struct inbox_item *old = HA_ATOMIC_LOAD_RLX(&tc->sh.inbox_head);
	uint64_t one = 1;

	do {
		it->next = old;
	} while (!__atomic_compare_exchange_n(&tc->sh.inbox_head, &old, it, 1,
					      __ATOMIC_RELEASE, __ATOMIC_RELAXED));
	/* the owner clears <inbox_notified> before draining: one write per drain at most */
	if (!HA_ATOMIC_XCHG(&tc->sh.inbox_notified, 1)) {
		while (write(tc->inbox_h.fd, &one, sizeof(one)) < 0 && errno == EINTR)
			;
	}
}

int inbox_drain(void)
{
	struct thread_ctx *tc = th_ctx;
	struct inbox_item *list, *rev = NULL;
	uint64_t val;
	int n = 0;

	if (HA_ATOMIC_LOAD_RLX(&tc->sh.inbox_notified)) {
		while (read(tc->inbox_h.fd, &val, sizeof(val)) < 0 && errno == EINTR)
			;
		HA_OWNER_INC(&activity[tid].wakeups);
		HA_ATOMIC_STORE(&tc->sh.inbox_notified, 0);
		/* store(notified) then exchange(head) here, CAS(head) then exchange(notified)
		 * in inbox_push(): a full fence so that one side always sees the other */
		HA_BARRIER();
	}
	list = HA_ATOMIC_XCHG(&tc->sh.inbox_head, NULL);
	while (list) { /* pushed last first: reverse to run in push order */
		struct inbox_item *next = list->next;

		list->next = rev;
		rev = list;
		list = next;
	}
	while (rev) {
		struct inbox_item *it = rev;

		rev = rev->next;
		it->next = NULL;
		if (unlikely(tc->prof))
			prof_run_inbox(it);
		else
			it->fn(it);
		n++;
	}
	HA_OWNER_ADD(&activity[tid].inbox_items, (uint64_t)n);
	return n;
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(inbox_iocb, "inbox_iocb")
