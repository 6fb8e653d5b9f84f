/* Per-stream settings that rules and Lua (TXN:set_mark, set_tos, set_priority_class,
 * set_priority_offset) both change: the client socket's mark and TOS (act_sockopt.c) and
 * the queue priority (prio_act.c), with HAProxy's value handling.
 */
#ifndef STREAM_STREAM_OPTS_H
#define STREAM_STREAM_OPTS_H

struct stream;

/* SO_MARK on the client connection's socket; a refusal (no CAP_NET_ADMIN) is ignored. */
void stream_set_mark(struct stream *s, unsigned int mark);
/* IP_TOS (IPV6_TCLASS on an IPv6 socket) on the client connection's socket. */
void stream_set_tos(struct stream *s, int tos);
/* The queue class (clamped to -2047..2047) and offset in ms (-524287..524287), from the
 * low 32 bits of <v> read as a signed int, as HAProxy does. */
void stream_set_prio_class(struct stream *s, long long v);
void stream_set_prio_offset(struct stream *s, long long v);

#endif
