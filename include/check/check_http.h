/* Pure parts of HTTP health checks: the response parser, the expect matching, the
 * request builder and the rise/fall state machine. No I/O, no globals.
 * Parser convention: CHK_P_DONE, CHK_P_MORE (incomplete) or CHK_P_INVALID.
 */
#ifndef CHECK_CHECK_HTTP_H
#define CHECK_CHECK_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <check/check-t.h>

#define CHK_P_DONE 1
#define CHK_P_MORE 0
#define CHK_P_INVALID (-1)

/* Parses the response in buf[0..len). <full> says no more bytes can be read (peer closed
 * or buffer full). <need_body>: the body matters (string expects), so the response is
 * only complete at the end of the body (content-length, or <full>). Fills <rsp> on DONE.
 */
int chk_http_parse(const char *buf, size_t len, bool full, bool need_body,
		   struct chk_http_rsp *rsp);

/* True if <rsp> satisfies <e>, "!" included. CHK_EXP_NONE: a 2xx or 3xx status. */
bool chk_expect_match(const struct chk_expect *e, const struct chk_http_rsp *rsp);

/* True if <list> ("200", "200-299,304") is well formed. */
bool chk_status_list_valid(const char *list);

/* Builds the request of <cfg> into a malloc'ed string (*len set). NULL when out of memory. */
char *chk_http_build_req(const struct chk_http_cfg *cfg, size_t *len);

/* Transitions of the rise/fall machine. */
#define CHK_T_NONE 0
#define CHK_T_UP 1   /* the server just came up */
#define CHK_T_DOWN 2 /* the server just went down */

/* Applies one result (<ok>) to <*health> (0..rise+fall-1, up when >= rise): a success
 * while up restores full health, <rise> successes in a row bring a down server up;
 * a failure while up loses one point, and the one that would go below <rise> takes it
 * down at once (so a fully up server goes down after <fall> failures, and a server at
 * its initial health <rise> after one). Returns CHK_T_*. */
int chk_health_update(int *health, int rise, int fall, bool ok);

#endif
