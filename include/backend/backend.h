/* Server assignment for streams: load-balancing pick, server slots (maxconn, process-wide
 * atomics) and the backend's per-group queues of streams waiting for a slot (by priority
 * class, then queue date plus offset; FIFO for streams without a priority). Called
 * by the thread owning the stream.
 */
#ifndef BACKEND_BACKEND_H
#define BACKEND_BACKEND_H

#include <stdbool.h>
#include <backend/queue-t.h>
#include <proxy/proxy-t.h>
#include <stream/stream-t.h>

#define ASSIGN_OK      0   /* s->srv set, slot taken (SF_HAS_SLOT) */
#define ASSIGN_QUEUED  1   /* every usable server is full: s is in the queue */
#define ASSIGN_NOSRV  (-1) /* no usable server at all */
#define ASSIGN_FULL   (-2) /* the server the key hashes to is full and so is its "maxqueue" */

/* Picks a server for <s> in s->be, avoiding <avoid> when another one is usable. When every
 * usable server is full, queues <s> in its group's queue of the backend (back at its
 * place, the head for a stream without priority, with <front_of_queue>: a woken stream
 * that lost the race, whose pick is not counted in the
 * server's lbtot, as HAProxy hands it the released slot); a released slot later calls
 * s->wake.fn on the stream's thread, which must call backend_woken() first.
 */
int backend_assign(struct stream *s, struct server *avoid, bool front_of_queue);

/* Takes a slot of <srv> for <s> without the load balancer (a "stick match" found it):
 * true with s->srv set and SF_HAS_SLOT, false when it is full (no per-server queue yet:
 * the caller leaves the choice to backend_assign()). */
bool backend_take_server(struct stream *s, struct server *srv);

/* Gives back s's server slot and wakes the first queued stream, if any. */
void backend_release_slot(struct stream *s);

/* Removes <s> from its queue if it is still there. Returns the state found: Q_NONE (not
 * queued), Q_QUEUED (removed now) or Q_WOKEN (a wake-up is in flight: the stream must not
 * be freed before s->wake.fn runs). Owner thread. */
int backend_unqueue(struct stream *s);

/* The owner thread received the wake-up of a dequeued stream. */
void backend_woken(struct stream *s);

/* Builds the LB state of <px> (runtime_prepare). Returns 0 or -1. */
int backend_init(struct proxy *px);

/* Runs one LB <round> over the active servers, then over the backups when no active
 * server is usable. <round> returns the chosen server and sets *usable when the tier has
 * usable servers (full or not). Returns the server, or NULL with *all_full set when the
 * stream should queue. */
struct server *lb_pick_tiered(struct proxy *px, struct server *avoid, bool *all_full,
			      struct server *(*round)(struct proxy *px, bool backup,
						      struct server *avoid, bool *usable));

/* Smooth weighted round-robin over the usable servers of <px> (lb_rr.c). Returns the
 * server, or NULL with *all_full set when usable servers exist but all are full. */
struct server *lb_rr_pick(struct proxy *px, struct server *avoid, bool *all_full);
/* (Re)builds the round-robin sequences of <px> from its servers' weights and states;
 * returns 0 or -1 (memory). lb_rr_free() releases them. */
int lb_rr_build(struct proxy *px);
void lb_rr_free(struct proxy *px);
/* Replaces the sequences of <px> after a weight or state change (lb_update lock held);
 * the old ones are retired. Returns 0 or -1 (memory: the old sequence of a tier stays). */
int lb_rr_rebuild(struct proxy *px);
/* leastconn and random(N), same contract (lb_lc_rand.c). */
struct server *lb_lc_pick(struct proxy *px, struct server *avoid, bool *all_full);
struct server *lb_rand_pick(struct proxy *px, struct server *avoid, bool *all_full);

/* Hash-based algorithms and "first" (lb_hash.c). Points per unit of weight on the ring. */
#define LB_RING_POINTS 32
/* Builds the id-ordered server list, the map and the ring of <px>; 0 or -1 (memory). */
int lb_hash_build(struct proxy *px);
void lb_hash_free(struct proxy *px);
/* Replaces the map and ring of <px> after a weight or state change (lb_update lock held);
 * the old ones are retired. Returns 0 or -1 (memory: the old tables stay). */
int lb_hash_rebuild(struct proxy *px);
/* The server for <hash> in the active tier, or the backup tier when no active server is
 * usable; NULL with *all_full set when that server is full (the stream queues). */
struct server *lb_hash_pick(struct proxy *px, uint32_t hash, struct server *avoid, bool *all_full);
/* The first usable server in id order with a free slot (same contract as lb_rr_pick). */
struct server *lb_first_pick(struct proxy *px, struct server *avoid, bool *all_full);
/* The ring position of point <k> of the server with id <puid> (unit tests). */
uint32_t lb_ring_point(int puid, int k);

/* Hash of the key of a hash-based algorithm taken from stream <s> (registered by
 * stream/lb_key.c, above this layer): true with *hash set, false when the stream has no
 * key (the pick falls back to round robin). Owner thread. */
extern bool (*lb_key_hash_hook)(struct stream *s, uint32_t *hash);

/* The server whose being full made the last hash pick of this thread report *all_full
 * (set by lb_hash_pick, reset by backend.c): the stream then waits for that server, within
 * its "maxqueue". */
extern __thread struct server *lb_full_srv;

#endif
