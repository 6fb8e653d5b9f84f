/* Threads and groups at configuration time: the pure functions that split threads into
 * groups, parse thread sets and CPU sets, resolve cpu-map rules, and the check that turns
 * the global keywords into thread_cfg's resolved part. Pure functions have no globals and
 * no I/O; the check prints alerts with file:line.
 */
#ifndef THREAD_THREAD_CFG_H
#define THREAD_THREAD_CFG_H

#include <stddef.h>
#include <thread/thread-t.h>

/* Splits <nbthread> threads into groups. <nbtgroups> 0 means ceil(nbthread /
 * max_per_group) groups (max_per_group 0 = DEF_MAX_THREADS_PER_GROUP); <assigned>
 * (MAX_TGROUPS entries, may be NULL) holds the absolute thread bits of explicit
 * "thread-group" lines. Explicitly assigned groups get exactly their (contiguous) threads;
 * the remaining threads fill the remaining groups in contiguous, balanced ranges: with q =
 * remaining threads / remaining groups and r the remainder, each next group gets q+1 while
 * r > 0, else q (40 threads in 3 groups: 14/13/13). Errors (returns -1, message in err):
 * more groups than threads, more than MAX_TGROUPS groups, a group over
 * MAX_THREADS_PER_GROUP threads, a thread in two groups, a thread beyond nbthread, an
 * explicit range that is not contiguous, threads left without a group or groups left
 * without threads. Returns the number of groups, out[0..n) filled.
 */
int thread_split_groups(int nbthread, int nbtgroups, int max_per_group,
			const uint64_t *assigned, struct tgroup_info *out, char *err,
			size_t errsz);

/* Parses a thread set: comma-separated items "all", "odd", "even", "N", "N-M", each
 * optionally prefixed with "G/" or "G-H/" (groups, 1-based; relative thread numbers
 * follow), e.g. "1/all", "2/1-4", "1-3", "odd". Absolute and relative items may not be
 * mixed. Thread numbers are 1..64 (MAX_THREADS), groups 1..MAX_TGROUPS. Returns 0 or -1
 * with a message. A bare group written for cpu-map ("1") is the caller's business
 * (cpu_map_parse).
 */
int thread_set_parse(const char *str, struct thread_set *ts, char *err, size_t errsz);

/* Resolves <ts> against the groups: fills masks[g] (group-relative thread bits of group
 * g+1) for g in 0..ngroups. Absolute thread numbers are mapped to their group. Returns the
 * number of threads in the set, or -1 with a message when it names a group that does not
 * exist, or resolves to no thread at all. Thread numbers beyond the existing threads are
 * dropped, as HAProxy does ("thread 1-8" with 4 threads means threads 1-4), so that a
 * config written for a larger machine stays valid.
 */
int thread_set_resolve(const struct thread_set *ts, const struct tgroup_info *grps,
		       int ngroups, uint64_t *masks, char *err, size_t errsz);

/* Parses a CPU list "0-7", "0,2,4-6" (several words are the caller's to join with ',').
 * CPUs must be below CPU_SETSIZE. Returns 0 or -1 with a message. */
int cpuset_parse(const char *str, cpu_set_t *set, char *err, size_t errsz);

/* Parses the arguments of "cpu-map [auto:]G[/T] CPUS...": <grp> is the second word,
 * <cpus> the remaining words. "1" alone means "1/all"; "all", "odd", "even" and ranges are
 * accepted for G. Returns 0 or -1 with a message. */
int cpu_map_parse(const char *grp, char *const *cpus, int ncpus, struct cpu_map_rule *rule,
		  char *err, size_t errsz);

/* Applies <rules> in order to the threads of <grps>: each thread named by a rule gets the
 * rule's CPUs (or, with automap, the i-th CPU of the rule for the i-th thread of the set,
 * both sets having the same size); a later rule overrides an earlier one. Threads of the
 * rule that do not exist are skipped (as HAProxy does). <available> holds the CPUs that
 * exist for this process: the CPUs of a plain rule are intersected with it, and a rule
 * left without any CPU is an error ("cpu-map 1/all 0-7" on a 2-CPU machine binds to CPUs
 * 0-1, as HAProxy does; "cpu-map 1/all 5" there is an error); with automap, a thread whose
 * CPU is not available is an error. Fills cpus[tid] and has_cpus[tid] for every tid of the
 * groups. Returns 0 or -1 with a message "parsing [file:line] : cpu-map: ..." naming the
 * rule. */
int cpu_map_resolve(const struct cpu_map_rule *rules, const struct tgroup_info *grps,
		    int ngroups, const cpu_set_t *available, cpu_set_t *cpus, bool *has_cpus,
		    char *err, size_t errsz);

/* Parses a "shards" / "tune.listener.default-shards" value: "by-group" (SHARDS_BY_GROUP),
 * "by-thread" (SHARDS_BY_THREAD) or N in 1..MAX_THREADS. Returns 0 or -1 with a message. */
int thread_shards_parse(const char *str, int *shards, char *err, size_t errsz);

/* The default thread count: the CPUs this process may run on (sched_getaffinity), capped
 * at MAX_THREADS; 1 if that cannot be read. */
int thread_default_nbthread(void);

/* Sockets the runtime creates for listener <li> after thread_cfg_check(): 1 for unix
 * sockets and inherited fds (fd@), which SO_REUSEPORT cannot shard, else the bind's
 * nb_shards. */
struct listener;
int thread_listener_shards(const struct listener *li);

/* Frees what the parsers allocated in thread_cfg (cpu-map rules, file names) and restores
 * the defaults. For tests and clean exits. */
void thread_cfg_reset(void);

/* After parsing: sets the default nbthread (CPUs the process may run on, capped at
 * MAX_THREADS), splits the groups, resolves cpu-map, and resolves every bind's thread set
 * and shards (see bind_conf). Prints alerts naming file:line; returns the error count.
 */
int thread_cfg_check(void);

#endif
