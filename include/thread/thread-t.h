/* Types of threads and thread groups: the static split of threads into groups, thread
 * sets as "bind ... thread" and "cpu-map" write them, and cpu-map rules.
 */
#ifndef THREAD_THREAD_T_H
#define THREAD_THREAD_T_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <base/tinfo.h>

#define MAX_THREADS_PER_GROUP     64  /* per-group thread sets are 64-bit masks */
#define DEF_MAX_THREADS_PER_GROUP 16  /* max-threads-per-group default */

/* Threads of one group: a contiguous range of thread ids. */
struct tgroup_info {
	uint16_t base;            /* first tid of the group (0-based) */
	uint16_t count;           /* threads in the group */
};

/* A thread set: either absolute thread numbers ("1-4", "all", "odd") or, per group,
 * group-relative thread numbers ("2/1-4", "1/all"). Bit n stands for thread n+1. Both
 * forms may not be mixed in one set.
 */
struct thread_set {
	bool is_abs;              /* absolute form: <abs> is used */
	uint64_t abs;             /* absolute thread bits */
	uint64_t rel[MAX_TGROUPS]; /* relative thread bits of each group ("G/..."), ~0 = all */
	uint32_t grps;            /* bit g-1 set when group g appears in the relative form */
};

/* One "cpu-map [auto:]G[/T] CPUS" line. */
struct cpu_map_rule {
	struct cpu_map_rule *next;
	struct thread_set ts;     /* the threads the line names (relative form) */
	cpu_set_t cpus;
	bool automap;             /* "auto:": thread i of the set gets the i-th CPU */
	char *file;               /* config location, for errors found at check time */
	int line;
};

/* Thread and group configuration from the global section (parsing fills it; the check
 * resolves it; read-only at run time). */
struct thread_cfg {
	int nbthread;             /* "nbthread", 0 = all CPUs the process may use */
	int nbtgroups;            /* "thread-groups", 0 = from max-threads-per-group */
	int max_per_group;        /* "max-threads-per-group", 0 = default 16 */
	uint64_t assigned[MAX_TGROUPS]; /* "thread-group G RANGE": absolute thread bits */
	char *assigned_file[MAX_TGROUPS];
	int assigned_line[MAX_TGROUPS];
	struct cpu_map_rule *cpu_maps; /* config order */
	int default_shards;       /* tune.listener.default-shards: SHARDS_BY_* or N > 0 */
	char *nbthread_file;      /* location of "nbthread", for errors found at check time */
	int nbthread_line;
	char *nbtgroups_file;     /* location of "thread-groups" */
	int nbtgroups_line;

	/* resolved by thread_cfg_check() */
	int ngroups;
	struct tgroup_info groups[MAX_TGROUPS];
	cpu_set_t cpus[MAX_THREADS];   /* binding of each thread */
	bool has_cpus[MAX_THREADS];    /* a cpu-map line applies to the thread */
};

#define SHARDS_BY_THREAD (-1)
#define SHARDS_BY_GROUP  (-2)

extern struct thread_cfg thread_cfg;

#endif
