/* Configuration of health checks: "option httpchk", "http-check", and the check-time pass
 * that validates servers with "check" and builds each backend's HTTP check.
 */
#ifndef CHECK_CHECK_CFG_H
#define CHECK_CHECK_CFG_H

struct proxy;
struct server;

/* Validates every server with "check" and builds the HTTP checks (request, expect regex).
 * Returns the number of errors, each printed with its file:line. After proxy_check_all. */
int check_cfg_check_all(void);
/* The same checks for <s>, added at run time to <px> (not linked yet), and <px>'s HTTP
 * check built if no server of it had a check yet: 0, or -1 after an alert. Thread 0. */
int check_cfg_check_dyn(struct proxy *px, const struct server *s);

#endif
