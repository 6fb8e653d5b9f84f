/* The setting the backend queue tests start from (queue_fixture.c): a backend "be" with
 * one server "s1" (weight 1, maxconn 1) over <ngroups> groups, the thread's loop and inbox,
 * and <nst> streams of that backend whose wake-up calls <wake>.
 */
#ifndef TEST_QUEUE_FIXTURE_H
#define TEST_QUEUE_FIXTURE_H

#include <event/inbox.h>
#include <proxy/proxy.h>
#include <backend/server.h>
#include <stream/stream-t.h>

/* Sets <px> and <srv> up and returns the calloc'ed streams (NULL after a failed check). */
struct stream *queue_fixture_setup(struct proxy *px, struct server *srv, int ngroups, int nst,
				   void (*wake)(struct inbox_item *));

/* Frees <st> and what the setup and backend_init() built. */
void queue_fixture_teardown(struct proxy *px, struct server *srv, struct stream *st);

#endif
