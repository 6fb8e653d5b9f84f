/* The limits that make compression back off: the process-wide input and output rates
 * (CompressBpsIn/Out, against maxcomprate) and each thread's idle share (against
 * maxcompcpuusage). A thread estimates its idle share from its own CPU time over at
 * least COMP_IDLE_WINDOW ms of wall time, read only when maxcompcpuusage is set and
 * compression asks (one clock_gettime per window). Any thread.
 */
#include <time.h>

#include <base/freq_ctr.h>
#include <comp/comp.h>
#include <event/loop.h>

#define COMP_IDLE_WINDOW 100 /* ms between two readings of the thread's CPU time */

static struct freq_ctr comp_in_rate;  /* bytes compressed (level > 0) per second */
static struct freq_ctr comp_out_rate; /* bytes they gave per second */

/* The calling thread's idle share and the reading it comes from. */
static __thread struct {
	uint64_t wall_ns;
	uint64_t cpu_ns;
	int idle;
} comp_idle = { 0, 0, 100 };

static uint64_t comp_now_ms(void)
{
	struct timespec ts;

	if (th_ctx)
		return now_ms();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t comp_clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's idle percentage over its last window (100 until measured). */
static int comp_idle_pct(void)
{
	uint64_t wall = comp_clock_ns(CLOCK_MONOTONIC), cpu, busy;

	if (wall - comp_idle.wall_ns < COMP_IDLE_WINDOW * 1000000ull)
		return comp_idle.idle;
	cpu = comp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (comp_idle.wall_ns) {
		busy = (cpu - comp_idle.cpu_ns) * 100 / (wall - comp_idle.wall_ns);
		comp_idle.idle = busy >= 100 ? 0 : 100 - (int)busy;
	}
	comp_idle.wall_ns = wall;
	comp_idle.cpu_ns = cpu;
	return comp_idle.idle;
}

bool comp_limits_refuse(void)
{
	if (comp_set.rate_lim && comp_bps_in() > comp_set.rate_lim)
		return true;
	return comp_set.min_idle && comp_idle_pct() < comp_set.min_idle;
}

bool comp_limits_over(void)
{
	if (comp_set.rate_lim && comp_bps_out() > comp_set.rate_lim)
		return true;
	return comp_set.min_idle && comp_idle_pct() < comp_set.min_idle;
}

void comp_rate_in(uint64_t n)
{
	freq_ctr_add(&comp_in_rate, comp_now_ms(), n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
}

void comp_rate_out(uint64_t n)
{
	freq_ctr_add(&comp_out_rate, comp_now_ms(), n > UINT32_MAX ? UINT32_MAX : (uint32_t)n);
}

uint32_t comp_bps_in(void)
{
	return freq_ctr_rate(&comp_in_rate, comp_now_ms());
}

uint32_t comp_bps_out(void)
{
	return freq_ctr_rate(&comp_out_rate, comp_now_ms());
}
