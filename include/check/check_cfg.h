/* Configuration of health checks: "option httpchk", "http-check", and the check-time pass
 * that validates servers with "check" and builds each backend's HTTP check.
 */
#ifndef CHECK_CHECK_CFG_H
#define CHECK_CHECK_CFG_H

/* Validates every server with "check" and builds the HTTP checks (request, expect regex).
 * Returns the number of errors, each printed with its file:line. After proxy_check_all. */
int check_cfg_check_all(void);

#endif
