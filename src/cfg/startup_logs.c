/* The startup messages (alerts, warnings, notices printed while the configuration loads
 * and the process starts), kept in memory for the runtime API's "show startup-logs".
 * Appended by cfg_vemit(); frozen when the runtime API starts serving, after which the
 * buffer is only read.
 */
#include <string.h>

#include <base/atomic.h>
#include <cfg/cfg.h>

#define STARTUP_LOGS_SIZE 65536

static char startup_logs[STARTUP_LOGS_SIZE];
static size_t startup_len; /* bytes reserved by writers (atomic) */
static int startup_frozen; /* no more appends (atomic) */

void cfg_startup_log_add(const char *line, size_t len)
{
	size_t off;

	if (HA_ATOMIC_LOAD(&startup_frozen) || len > STARTUP_LOGS_SIZE)
		return;
	/* a reservation per message: writers from several threads never overlap */
	off = HA_ATOMIC_FETCH_ADD(&startup_len, len);
	if (off + len > STARTUP_LOGS_SIZE) {
		HA_ATOMIC_STORE(&startup_len, (size_t)STARTUP_LOGS_SIZE); /* full: dropped */
		return;
	}
	memcpy(startup_logs + off, line, len);
}

void cfg_startup_logs_freeze(void)
{
	HA_ATOMIC_STORE(&startup_frozen, 1);
}

const char *cfg_startup_logs(size_t *len)
{
	size_t l = HA_ATOMIC_LOAD(&startup_len);

	*len = l > STARTUP_LOGS_SIZE ? STARTUP_LOGS_SIZE : l;
	return startup_logs;
}
