/* The TLS side of the logs: the %sslc (cipher) and %sslv (protocol) log-format aliases,
 * and HAProxy 2.6's connection error line of a frontend that logs when a TLS handshake
 * fails or times out ("127.0.0.1:5000 [24/Nov/2026:10:00:00.123] fe/1: SSL handshake
 * failure"), hooked into the H1 mux through h1_conn_err_log.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <base/addr.h>
#include <conn/listener-t.h>
#include <event/loop.h>
#include <log/log.h>
#include <log/log_strm.h>
#include <mux/h1.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>

/* clang-format off */
static const struct lf_tag ssl_log_tags[] = {
	{ "sslc", NULL, 0, "ssl_fc_cipher", NULL, NULL },
	{ "sslv", NULL, 0, "ssl_fc_protocol", NULL, NULL },
	{ NULL, NULL, 0, NULL, NULL, NULL },
};
/* clang-format on */

LF_REGISTER_TAGS(ssl_log_tags)

/* The name HAProxy gives the listener of <c> in these lines: its "name", else its
 * position among the frontend's listeners (from 1). Writes it into buf[0..size). */
static void ssl_log_li_name(const struct conn *c, char *buf, size_t size)
{
	const struct list *binds, *b, *l;
	int n = 0;

	snprintf(buf, size, "?");
	if (!c->li)
		return;
	if (c->li->name) {
		snprintf(buf, size, "%s", c->li->name);
		return;
	}
	binds = &c->li->bind->px->binds;
	for (b = binds->next; b != binds; b = b->next) {
		const struct bind_conf *bc = list_elem(b, struct bind_conf, list);

		for (l = bc->listeners.next; l != &bc->listeners; l = l->next) {
			n++;
			if (list_elem(l, struct listener, list) == c->li) {
				snprintf(buf, size, "%d", n);
				return;
			}
		}
	}
}

/* "[24/Nov/2026:10:00:00.123]": the local date of the accept of <c>. */
static void ssl_log_date(const struct conn *c, char *buf, size_t size)
{
	struct timespec ts;
	uint64_t wall, now = now_ms(), ago;
	time_t sec;
	struct tm tm;
	char d[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	wall = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	ago = now >= c->idle_start ? now - c->idle_start : 0;
	wall = wall >= ago ? wall - ago : wall;
	sec = (time_t)(wall / 1000);
	if (!localtime_r(&sec, &tm) || !strftime(d, sizeof(d), "%d/%b/%Y:%H:%M:%S", &tm))
		d[0] = '\0';
	snprintf(buf, size, "[%s.%03u]", d, (unsigned)(wall % 1000));
}

/* h1_conn_err_log: the handshake of front connection <c> failed (<why>). As 2.6: logged
 * at "info", or "err" with log-separate-errors; dontlognull drops the timeouts and the
 * clients that went away, keeping the TLS errors; dontlog-normal does not apply. Loop
 * thread. */
static void ssl_log_conn_err(struct conn *c, const char *why)
{
	const struct proxy *fe = c->px;
	char addr[INET6_ADDRSTRLEN + 8], li[64], date[48], line[512];
	uint32_t opts;
	int n;

	if (!fe || !fe->loggers.next || list_empty(&fe->loggers))
		return;
	opts = log_px_opts(fe);
	if ((opts & PXL_DONTLOGNULL) &&
	    (!strncmp(why, "Timeout", 7) || !strncmp(why, "Connection closed", 17)))
		return;
	if (!addr_to_str_plain(&c->peer, addr, sizeof(addr)))
		snprintf(addr, sizeof(addr), "unix");
	ssl_log_li_name(c, li, sizeof(li));
	ssl_log_date(c, date, sizeof(date));
	n = snprintf(line, sizeof(line), "%s %s %s/%s: %s", addr, date, fe->id, li, why);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = (int)sizeof(line) - 1;
	log_send_px(fe, (opts & PXL_SEP_ERRORS) ? LOG_LVL_ERR : LOG_LVL_INFO, line, (size_t)n,
		    (struct ist){ NULL, 0 });
}

__attribute__((constructor)) static void ssl_log_register(void)
{
	h1_conn_err_log = ssl_log_conn_err;
}
