/* Pure parsers of the runtime API's server arguments (backend/srv_cli_parse.c): weights
 * "N" or "N%", ports, IP address literals, with HAProxy 2.6's error messages. No I/O, no
 * globals, no allocation; any thread.
 */
#ifndef BACKEND_SRV_CLI_PARSE_H
#define BACKEND_SRV_CLI_PARSE_H

#include <stdbool.h>
#include <sys/socket.h>

/* A weight from NUL-terminated <str>: "N" (0..256) or "N%" of <iweight> (capped at 256).
 * Returns it, or -1 with *err set to 2.6's message (some have no newline, as in 2.6). */
int srv_parse_weight(const char *str, int iweight, const char **err);

/* A port in 1..65535 from <str>. Returns it, or -1 with *err set ("provided port is not
 * an integer" or "provided port is invalid"). */
int srv_parse_port(const char *str, const char **err);

/* An IPv4 or IPv6 literal <str> into <ss> (port 0). False when it is neither. */
bool srv_parse_ip(const char *str, struct sockaddr_storage *ss);

#endif
