/* Config-time creation of "bind" lines (struct bind_conf) and their listeners. The "bind"
 * keyword registers itself; the "listen NAME ADDR" section line uses bind_cfg_add_addrs().
 */
#ifndef CONN_BIND_CFG_H
#define CONN_BIND_CFG_H

#include <cfg/cfg.h>
#include <conn/listener-t.h>

/* Creates a bind_conf on <px> located at ctx's file:line with one listener per address and
 * port of the comma-separated list <addrs>, and appends it to px->binds. Returns 0, or -1
 * after an alert (nothing is added then).
 */
int bind_cfg_add_addrs(struct cfg_ctx *ctx, struct proxy *px, const char *addrs);

/* Frees a bind line, its listeners and their names (sockets are not closed). NULL is ok. */
void bind_conf_free(struct bind_conf *bc);

#endif
