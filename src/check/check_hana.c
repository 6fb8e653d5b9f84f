/* Health adjustment from live traffic ("observe layer4|layer7", "error-limit", "on-error"):
 * streams on any thread report what they saw of a server (HANA_*); errors in a row are
 * counted with one atomic per server, and when "error-limit" is reached the on-error action
 * is posted to the thread that owns the server's check (its inbox), which applies it to the
 * rise/fall state as 2.6 does. Owns nothing else of the checks (check.c).
 */
#include <stdio.h>

#include <backend/server.h>
#include <base/atomic.h>
#include <check/check-t.h>
#include <check/check_http.h>
#include <event/inbox.h>
#include <event/loop.h>

#define HANA_DEFAULT_LIMIT 10

/* Wording of each status, and what it means per mode: [0] layer4, [1] layer7. */
#define HANA_IGN 0
#define HANA_ERR 1
#define HANA_OK 2
static const struct {
	const char *desc;
	uint8_t lr[2];
} hana_tab[HANA_COUNT] = {
	[HANA_L4_OK] = { "L4 successful connection", { HANA_OK, HANA_IGN } },
	[HANA_L4_ERR] = { "L4 unsuccessful connection", { HANA_ERR, HANA_ERR } },
	[HANA_HTTP_OK] = { "Correct http response", { HANA_IGN, HANA_OK } },
	[HANA_HTTP_STS] = { "Wrong http response", { HANA_IGN, HANA_ERR } },
	[HANA_HTTP_HDRRSP] = { "Invalid http response (headers)", { HANA_IGN, HANA_ERR } },
	[HANA_HTTP_RSP] = { "Invalid http response", { HANA_IGN, HANA_ERR } },
	[HANA_HTTP_READ_ERR] = { "Read error (http)", { HANA_IGN, HANA_ERR } },
	[HANA_HTTP_READ_TO] = { "Read timeout (http)", { HANA_IGN, HANA_ERR } },
	[HANA_HTTP_PIPE] = { "Write error (http)", { HANA_IGN, HANA_ERR } },
};

/* The on-error action of <s>, on its check's thread: a simulated failed check (after
 * putting the server one failure from DOWN for sudden-death and mark-down, as 2.6), then
 * the next check at fastinter. */
static void chk_hana_run(struct inbox_item *it)
{
	struct server *s = (struct server *)((char *)it - offsetof(struct server, hana_item));
	struct check *c = s->check;
	uint64_t now = now_ms();
	int nerr = s->hana_nerr, st = s->hana_status, health = c->health, tr = CHK_T_NONE;
	char why[256];

	HA_ATOMIC_STORE(&s->hana_pending, 0);
	if (s->onerror == SRV_ONERR_SUDDEN && health > s->rise)
		health = s->rise + 1;
	else if (s->onerror == SRV_ONERR_MARKDOWN)
		health = s->rise;
	if (s->onerror != SRV_ONERR_FASTINTER) {
		HA_ATOMIC_INC(&s->chk_fail);
		tr = chk_health_update(&health, s->rise, s->fall, false);
	}
	HA_ATOMIC_STORE_RLX(&c->health, health);
	if (tr == CHK_T_DOWN) {
		snprintf(why, sizeof(why),
			 "Health analyze, info: \"Detected %d consecutive errors, last one was: "
			 "%s\"",
			 nerr, hana_tab[st].desc);
		srv_set_state(s, SRV_RS_DOWN, why, now);
	}
	if (s->fastinter && c->fh.fd < 0 && c->timer.expire > now + (uint64_t)s->fastinter)
		timer_set(&c->timer, now + (uint64_t)s->fastinter);
}

/* srv_observe_hook: any thread. */
static void chk_observe(struct server *s, int status)
{
	int limit = s->error_limit > 0 ? s->error_limit : HANA_DEFAULT_LIMIT, n;
	int verdict;

	if (!s->observe || status < 0 || status >= HANA_COUNT)
		return;
	verdict = hana_tab[status].lr[s->observe - 1];
	if (verdict == HANA_IGN)
		return;
	if (verdict == HANA_OK) {
		if (HA_ATOMIC_LOAD_RLX(&s->consec_errors)) /* no write while all is well */
			HA_ATOMIC_STORE_RLX(&s->consec_errors, 0);
		return;
	}
	n = HA_ATOMIC_ADD(&s->consec_errors, 1);
	if (n < limit)
		return;
	HA_ATOMIC_STORE_RLX(&s->consec_errors, 0);
	if (!s->check || HA_ATOMIC_XCHG(&s->hana_pending, 1))
		return; /* no check to act on, or an action is already on its way */
	s->hana_nerr = n;
	s->hana_status = status;
	s->hana_item.fn = chk_hana_run;
	inbox_push(s->check->tid, &s->hana_item); /* publishes the fields above */
}

__attribute__((constructor)) static void chk_hana_register(void)
{
	srv_observe_hook = chk_observe;
}
