/* Checks of dynamic servers (check_dyn.c): what "add server ... check|agent-check" and
 * "del server" do to them. Thread 0 (the CLI's). Actions return 0 or -1.
 */
#ifndef CHECK_CHECK_DYN_H
#define CHECK_CHECK_DYN_H

#include <stdbool.h>

struct proxy;
struct server;

/* Validates and builds the check and agent of <s>, not published yet, both stopped until
 * "enable health|agent". -1 after an alert (captured as the answer) or on memory. */
int chk_dyn_prepare(struct proxy *px, struct server *s);
/* <s> is published: arms its check and agent timers on their threads. -1: memory (then
 * neither is armed). */
int chk_dyn_start(struct server *s);
/* Stops the check and agent of <s> on their threads (before "del server" unlinks it);
 * chk_dyn_busy() is true until every thread did. -1: memory (then neither is stopped). */
int chk_dyn_stop_all(struct server *s);
bool chk_dyn_busy(void);
/* Frees the check and agent of <s> (never armed, or stopped: chk_dyn_busy() false). */
void chk_dyn_free(struct server *s);

#endif
