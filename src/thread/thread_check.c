/* The thread configuration (struct thread_cfg, filled by the global keywords) and its
 * check: default thread count, split into groups, cpu-map resolution, and each bind's
 * threads and shard count. Runs once at startup, single-threaded, before any thread
 * starts; prints alerts with file:line. Starting threads and sockets is the runtime's job.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cfg/cfg.h>
#include <conn/listener-t.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <thread/thread_cfg.h>

struct thread_cfg thread_cfg = {
	.default_shards = SHARDS_BY_GROUP,
};

/* See thread/thread_cfg.h. */
void thread_cfg_reset(void)
{
	struct cpu_map_rule *r, *next;
	int g;

	for (r = thread_cfg.cpu_maps; r; r = next) {
		next = r->next;
		free(r->file);
		free(r);
	}
	for (g = 0; g < MAX_TGROUPS; g++)
		free(thread_cfg.assigned_file[g]);
	free(thread_cfg.nbthread_file);
	free(thread_cfg.nbtgroups_file);
	memset(&thread_cfg, 0, sizeof(thread_cfg));
	thread_cfg.default_shards = SHARDS_BY_GROUP;
}

/* Fills <set> with the CPUs this process may run on; CPU 0 alone if unreadable. */
static void thread_cpus_available(cpu_set_t *set)
{
	if (sched_getaffinity(0, sizeof(*set), set) == 0 && CPU_COUNT(set) > 0)
		return;
	CPU_ZERO(set);
	CPU_SET(0, set);
}

/* See thread/thread_cfg.h. */
int thread_default_nbthread(void)
{
	cpu_set_t set;
	int n;

	thread_cpus_available(&set);
	n = CPU_COUNT(&set);
	return n > MAX_THREADS ? MAX_THREADS : n;
}

/* See thread/thread_cfg.h. */
int thread_listener_shards(const struct listener *li)
{
	if (li->inherited_fd >= 0 || li->addr.ss_family == AF_UNIX)
		return 1;
	return li->bind->nb_shards > 0 ? li->bind->nb_shards : 1;
}

/* Alerts "parsing [file:line] : msg" when a location is known, else "msg". */
static void thread_alert_at(const char *file, int line, const char *msg)
{
	struct cfg_ctx ctx = { .file = file, .line = line };

	if (file)
		cfg_alert(&ctx, "%s", msg);
	else
		ha_alert("%s\n", msg);
}

/* Errors of explicit "thread-group" lines found once nbthread and thread-groups are
 * known, reported at the line of the group. Returns the error count.
 */
static int thread_check_assigned(void)
{
	uint64_t all = thread_cfg.nbthread >= 64 ? ~0ULL : (1ULL << thread_cfg.nbthread) - 1;
	char msg[256];
	int g, errs = 0;

	for (g = 0; g < MAX_TGROUPS; g++) {
		uint64_t a = thread_cfg.assigned[g];

		if (!a)
			continue;
		if (a & ~all)
			snprintf(msg, sizeof(msg), "'thread-group %d' : thread %d is beyond nbthread "
				 "%d.", g + 1, 64 - __builtin_clzll(a), thread_cfg.nbthread);
		else if (thread_cfg.nbtgroups && g >= thread_cfg.nbtgroups)
			snprintf(msg, sizeof(msg), "'thread-group %d' : thread group number must be "
				 "between 1 and %d ('thread-groups').", g + 1, thread_cfg.nbtgroups);
		else if (((a >> __builtin_ctzll(a)) & ((a >> __builtin_ctzll(a)) + 1)) != 0)
			snprintf(msg, sizeof(msg), "'thread-group %d' : its threads must form one "
				 "contiguous range.", g + 1);
		else
			continue;
		thread_alert_at(thread_cfg.assigned_file[g], thread_cfg.assigned_line[g], msg);
		errs++;
	}
	return errs;
}

/* Sets nbthread and splits the groups. Returns the error count. */
static int thread_check_groups(void)
{
	char err[256], msg[320];
	int n;

	if (!thread_cfg.nbthread)
		thread_cfg.nbthread = thread_default_nbthread();
	if (thread_cfg.nbthread > MAX_THREADS) {
		snprintf(msg, sizeof(msg), "'nbthread' value must be between 1 and %d (was %d).",
			 MAX_THREADS, thread_cfg.nbthread);
		thread_alert_at(thread_cfg.nbthread_file, thread_cfg.nbthread_line, msg);
		return 1;
	}
	if (thread_cfg.nbtgroups && thread_cfg.max_per_group)
		ha_notice("'max-threads-per-group' is ignored when 'thread-groups' is set.\n");
	n = thread_check_assigned();
	if (n)
		return n;
	n = thread_split_groups(thread_cfg.nbthread, thread_cfg.nbtgroups,
				thread_cfg.nbtgroups ? 0 : thread_cfg.max_per_group,
				thread_cfg.assigned, thread_cfg.groups, err, sizeof(err));
	if (n < 0) {
		snprintf(msg, sizeof(msg), "thread groups: %s", err);
		if (thread_cfg.nbtgroups_file)
			thread_alert_at(thread_cfg.nbtgroups_file, thread_cfg.nbtgroups_line, msg);
		else
			thread_alert_at(thread_cfg.nbthread_file, thread_cfg.nbthread_line, msg);
		return 1;
	}
	thread_cfg.ngroups = n;
	return 0;
}

/* A notice for each plain cpu-map rule naming CPUs that this process cannot use: they are
 * ignored (HAProxy accepts them too), and the rule still has usable CPUs or it fails.
 */
static void thread_notice_missing_cpus(const cpu_set_t *avail)
{
	const struct cpu_map_rule *r;
	cpu_set_t eff;

	for (r = thread_cfg.cpu_maps; r; r = r->next) {
		CPU_AND(&eff, &r->cpus, avail);
		if (r->automap || !CPU_COUNT(&eff) || CPU_EQUAL(&eff, &r->cpus))
			continue;
		ha_notice("parsing [%s:%d] : cpu-map: %d of its %d CPUs do not exist / are not "
			  "available to this process and are ignored.\n", r->file ? r->file : "?",
			  r->line, CPU_COUNT(&r->cpus) - CPU_COUNT(&eff), CPU_COUNT(&r->cpus));
	}
}

/* Resolves the cpu-map rules. Returns the error count. */
static int thread_check_cpu_map(void)
{
	cpu_set_t avail;
	char err[512];

	thread_cpus_available(&avail);
	if (cpu_map_resolve(thread_cfg.cpu_maps, thread_cfg.groups, thread_cfg.ngroups, &avail,
			    thread_cfg.cpus, thread_cfg.has_cpus, err, sizeof(err)) < 0) {
		ha_alert("%s\n", err);
		return 1;
	}
	thread_notice_missing_cpus(&avail);
	return 0;
}

/* Number of sockets per listener of <bc> spanning <nthr> threads in <ngrp> groups. */
static int thread_bind_shards(const struct bind_conf *bc, int nthr, int ngrp)
{
	int s = bc->shards ? bc->shards : thread_cfg.default_shards;

	if (s == SHARDS_BY_THREAD)
		return nthr;
	if (s > 0)
		return s < nthr ? s : nthr;
	return ngrp;
}

/* True when no listener of <bc> can be sharded (all are unix sockets or fd@). */
static bool thread_bind_unshardable(const struct bind_conf *bc)
{
	const struct listener *l;

	list_for_each_entry(l, &bc->listeners, list) {
		if (l->inherited_fd < 0 && l->addr.ss_family != AF_UNIX)
			return false;
	}
	return true;
}

/* Resolves one bind's thread set into thr_masks[] and its nb_shards. Returns 0 or 1. */
static int thread_check_bind(struct bind_conf *bc)
{
	const struct thread_cfg *tc = &thread_cfg;
	char err[256];
	int g, n = 0, ngrp = 0;

	memset(bc->thr_masks, 0, sizeof(bc->thr_masks));
	if (bc->has_thread_set) {
		n = thread_set_resolve(&bc->thread_set, tc->groups, tc->ngroups, bc->thr_masks,
				       err, sizeof(err));
		if (n < 0) {
			ha_alert("Proxy '%s': 'thread' on the 'bind' at [%s:%d]: %s\n",
				 bc->px ? bc->px->id : "?", bc->file, bc->line, err);
			return 1;
		}
	} else {
		for (g = 0; g < tc->ngroups; g++) {
			bc->thr_masks[g] = tc->groups[g].count >= 64 ? ~0ULL :
					   (1ULL << tc->groups[g].count) - 1;
			n += tc->groups[g].count;
		}
	}
	for (g = 0; g < tc->ngroups; g++)
		ngrp += bc->thr_masks[g] != 0;
	bc->nb_shards = thread_bind_unshardable(bc) ? 1 : thread_bind_shards(bc, n, ngrp);
	return 0;
}

/* See thread/thread_cfg.h. */
int thread_cfg_check(void)
{
	struct proxy *px;
	struct bind_conf *bc;
	int errs;

	errs = thread_check_groups();
	if (errs)
		return errs;
	errs += thread_check_cpu_map();
	global.nbthread = thread_cfg.nbthread;
	for (px = proxies; px; px = px->next) {
		list_for_each_entry(bc, &px->binds, list)
			errs += thread_check_bind(bc);
	}
	return errs;
}
