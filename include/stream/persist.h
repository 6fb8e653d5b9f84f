/* Server choice by rules before load balancing (persist.c): use-server, force-persist,
 * ignore-persist.
 */
#ifndef STREAM_PERSIST_H
#define STREAM_PERSIST_H

struct proxy;
struct stream;

/* Resolves the servers named by use-server rules; returns the number of errors. */
int persist_check_proxy(struct proxy *px);
void persist_free_proxy(struct proxy *px);
/* Runs the persist and use-server rules of the stream's backend (before stick rules and
 * the load balancer). Loop thread. */
void persist_process(struct stream *s);

#endif
