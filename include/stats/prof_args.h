/* The arguments of "show profiling" (which parts, which order, how many rows). Pure. */
#ifndef STATS_PROF_ARGS_H
#define STATS_PROF_ARGS_H

#include <stdint.h>

#define SP_STATUS 0x01	/* print the status lines */
#define SP_TASKS 0x02	/* print the tasks table */
#define SP_BYADDR 0x04	/* sort by function address */
#define SP_BYTIME 0x08	/* sort by CPU time */
#define SP_AGGR 0x10	/* merge rows of the same name */
#define SP_BYGROUP 0x20 /* one table per thread group */
#define SP_PCT 0x40	/* lat_p99 column */

struct sp_opts {
	uint32_t flags;	 /* SP_* */
	uint64_t maxcnt; /* rows per table, 0 = all */
};

/* Parses the words after "show profiling" (<args>[0..nargs), NUL-terminated strings):
 * all|status|tasks|memory, byaddr, bytime, aggr, bygroup, pct, or a decimal row limit.
 * Returns 0, or -1 on an unknown word. No allocation, no globals.
 */
int sp_parse_args(char *const *args, int nargs, struct sp_opts *o);

#endif
