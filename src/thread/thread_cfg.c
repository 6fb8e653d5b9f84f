/* The pure side of thread configuration: the split of threads into groups, thread sets
 * ("bind ... thread", "thread-group"), CPU sets, cpu-map rules and their resolution against
 * the groups, and "shards" values. No globals, no I/O, no allocation: every function
 * reports errors as a message in the caller's buffer. The check that applies them to the
 * configuration lives in thread/thread_check.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <thread/thread_cfg.h>

/* Formats an error message into <err> and returns -1. */
static int __attribute__((format(printf, 3, 4))) thr_err(char *err, size_t errsz,
							 const char *fmt, ...)
{
	va_list ap;

	if (err && errsz) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Bits 0..n-1 set (n = 0..64). */
static uint64_t thr_low_mask(int n)
{
	return n >= 64 ? ~0ULL : (1ULL << n) - 1;
}

static int thr_popcount(uint64_t v)
{
	return __builtin_popcountll(v);
}

/* True when the set bits of <v> (non-zero) form one contiguous run. */
static bool thr_is_contiguous(uint64_t v)
{
	uint64_t shifted = v >> __builtin_ctzll(v);

	return (shifted & (shifted + 1)) == 0;
}

/* Parses a decimal number of <len> chars at <s> into *out. Returns 0 or -1. */
static int thr_parse_num(const char *s, size_t len, unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (!len || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Parses one item "all", "odd", "even", "N" or "N-M" of <len> chars into bits: bit n-1
 * stands for number n, numbers are 1..max (max <= 64). <what> names the numbers in errors.
 */
static int thr_parse_item(const char *s, size_t len, int max, const char *what, uint64_t *bits,
			  char *err, size_t errsz)
{
	const char *dash = memchr(s, '-', len);
	unsigned long lo, hi;

	if (len == 3 && !memcmp(s, "all", 3)) {
		*bits = thr_low_mask(max);
		return 0;
	}
	if (len == 3 && !memcmp(s, "odd", 3)) {
		*bits = 0x5555555555555555ULL & thr_low_mask(max);
		return 0;
	}
	if (len == 4 && !memcmp(s, "even", 4)) {
		*bits = 0xAAAAAAAAAAAAAAAAULL & thr_low_mask(max);
		return 0;
	}
	if (dash) {
		if (thr_parse_num(s, dash - s, &lo) < 0 ||
		    thr_parse_num(dash + 1, len - (dash + 1 - s), &hi) < 0)
			goto bad;
	} else if (thr_parse_num(s, len, &lo) < 0) {
		goto bad;
	} else {
		hi = lo;
	}
	if (lo < 1 || hi > (unsigned long)max || lo > hi)
		goto bad;
	*bits = thr_low_mask((int)hi) & ~thr_low_mask((int)lo - 1);
	return 0;
bad:
	return thr_err(err, errsz, "'%.*s' is not a valid %s number/range. It supports numbers "
		       "from 1 to %d, 'all', 'odd' and 'even'.", (int)len, s, what, max);
}

/* Parses one comma-separated item of a thread set into <ts>. */
static int thr_set_add_item(const char *s, size_t len, struct thread_set *ts, char *err,
			    size_t errsz)
{
	const char *slash = memchr(s, '/', len);
	uint64_t gbits = 0, tbits;
	int g;

	if (!len)
		return thr_err(err, errsz, "empty thread range.");
	if (slash) {
		if (thr_parse_item(s, slash - s, MAX_TGROUPS, "thread group", &gbits, err,
				   errsz) < 0)
			return -1;
		len -= slash + 1 - s;
		s = slash + 1;
	}
	if (thr_parse_item(s, len, MAX_THREADS, "thread", &tbits, err, errsz) < 0)
		return -1;
	if (!slash) {
		ts->is_abs = true;
		ts->abs |= tbits;
		return 0;
	}
	for (g = 0; g < MAX_TGROUPS; g++) {
		if (gbits & (1ULL << g))
			ts->rel[g] |= tbits;
	}
	ts->grps |= (uint32_t)gbits;
	return 0;
}

/* See thread/thread_cfg.h. */
int thread_set_parse(const char *str, struct thread_set *ts, char *err, size_t errsz)
{
	const char *p = str, *comma;
	size_t len;

	memset(ts, 0, sizeof(*ts));
	if (!str || !*str)
		return thr_err(err, errsz, "missing thread set.");
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (thr_set_add_item(p, len, ts, err, errsz) < 0)
			return -1;
		if (ts->is_abs && ts->grps)
			return thr_err(err, errsz, "'%s': absolute thread numbers and group-relative "
				       "ones (G/...) cannot be mixed.", str);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* See thread/thread_cfg.h. */
int thread_set_resolve(const struct thread_set *ts, const struct tgroup_info *grps,
		       int ngroups, uint64_t *masks, char *err, size_t errsz)
{
	int g, n = 0;

	for (g = 0; g < ngroups; g++) {
		uint64_t own = thr_low_mask(grps[g].count);

		if (ts->is_abs)
			masks[g] = grps[g].base < 64 ? (ts->abs >> grps[g].base) & own : 0;
		else
			masks[g] = (ts->grps & (1U << g)) ? ts->rel[g] & own : 0;
		n += thr_popcount(masks[g]);
	}
	if (!ts->is_abs) {
		for (g = ngroups; g < MAX_TGROUPS; g++) {
			if (ts->grps & (1U << g))
				return thr_err(err, errsz, "thread group %d does not exist (%d "
					       "group%s configured).", g + 1, ngroups,
					       ngroups > 1 ? "s" : "");
		}
	}
	if (!n)
		return thr_err(err, errsz, "the thread set names no existing thread.");
	return n;
}

/* Parses one CPU number of <len> chars. */
static int thr_parse_cpu(const char *s, size_t len, unsigned long *cpu, char *err, size_t errsz)
{
	if (thr_parse_num(s, len, cpu) < 0)
		return thr_err(err, errsz, "'%.*s' is not a CPU range.", (int)len, s);
	if (*cpu >= CPU_SETSIZE)
		return thr_err(err, errsz, "CPU %lu is out of range: supports CPU numbers from 0 "
			       "to %d.", *cpu, CPU_SETSIZE - 1);
	return 0;
}

/* Adds one item "N", "N-M" (reversed bounds are swapped) or "N-" (to the last CPU). */
static int thr_cpuset_add(const char *s, size_t len, cpu_set_t *set, char *err, size_t errsz)
{
	const char *dash = memchr(s, '-', len);
	unsigned long lo, hi, c;

	if (!len)
		return thr_err(err, errsz, "empty CPU range.");
	if (!dash) {
		if (thr_parse_cpu(s, len, &lo, err, errsz) < 0)
			return -1;
		hi = lo;
	} else {
		if (thr_parse_cpu(s, dash - s, &lo, err, errsz) < 0)
			return -1;
		if (dash + 1 == s + len)
			hi = CPU_SETSIZE - 1;
		else if (thr_parse_cpu(dash + 1, len - (dash + 1 - s), &hi, err, errsz) < 0)
			return -1;
	}
	if (lo > hi) {
		c = lo;
		lo = hi;
		hi = c;
	}
	for (c = lo; c <= hi; c++)
		CPU_SET(c, set);
	return 0;
}

/* See thread/thread_cfg.h. */
int cpuset_parse(const char *str, cpu_set_t *set, char *err, size_t errsz)
{
	const char *p = str, *comma;
	size_t len;

	CPU_ZERO(set);
	if (!str || !*str)
		return thr_err(err, errsz, "missing CPU set.");
	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (thr_cpuset_add(p, len, set, err, errsz) < 0)
			return -1;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/* Parses the thread part of a cpu-map group word: comma-separated relative ranges. */
static int thr_parse_thread_list(const char *s, uint64_t *bits, char *err, size_t errsz)
{
	const char *comma;
	uint64_t b;
	size_t len;

	*bits = 0;
	for (;;) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (thr_parse_item(s, len, MAX_THREADS, "thread", &b, err, errsz) < 0)
			return -1;
		*bits |= b;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

/* See thread/thread_cfg.h. */
int cpu_map_parse(const char *grp, char *const *cpus, int ncpus, struct cpu_map_rule *rule,
		  char *err, size_t errsz)
{
	const char *slash;
	uint64_t gbits, tbits = ~0ULL;
	cpu_set_t one;
	int g, i;

	memset(&rule->ts, 0, sizeof(rule->ts));
	CPU_ZERO(&rule->cpus);
	rule->automap = !strncmp(grp, "auto:", 5);
	if (rule->automap)
		grp += 5;
	if (ncpus < 1)
		return thr_err(err, errsz, "expects a thread group ('all', 'odd', 'even', a number "
			       "from 1 to %d or a range) optionally followed by '/' and a thread "
			       "set, then a list of CPU ranges.", MAX_TGROUPS);
	slash = strchr(grp, '/');
	if (thr_parse_item(grp, slash ? (size_t)(slash - grp) : strlen(grp), MAX_TGROUPS,
			   "thread group", &gbits, err, errsz) < 0)
		return -1;
	if (slash && thr_parse_thread_list(slash + 1, &tbits, err, errsz) < 0)
		return -1;
	for (i = 0; i < ncpus; i++) {
		if (cpuset_parse(cpus[i], &one, err, errsz) < 0)
			return -1;
		CPU_OR(&rule->cpus, &rule->cpus, &one);
	}
	if (rule->automap &&
	    thr_popcount(gbits) * thr_popcount(tbits) != CPU_COUNT(&rule->cpus))
		return thr_err(err, errsz, "the thread set and the CPU set must have the same "
			       "size to be automatically bound (%d threads, %d CPUs).",
			       thr_popcount(gbits) * thr_popcount(tbits), CPU_COUNT(&rule->cpus));
	for (g = 0; g < MAX_TGROUPS; g++) {
		if (gbits & (1ULL << g))
			rule->ts.rel[g] = tbits;
	}
	rule->ts.grps = (uint32_t)gbits;
	return 0;
}

/* Writes the CPUs of <set> as "0-3,6" into <buf>. */
static void thr_cpus_str(const cpu_set_t *set, char *buf, size_t size)
{
	size_t o = 0;
	int c, lo = -1;

	buf[0] = '\0';
	for (c = 0; c <= CPU_SETSIZE; c++) {
		bool in = c < CPU_SETSIZE && CPU_ISSET(c, set);

		if (in && lo < 0)
			lo = c;
		if (in || lo < 0)
			continue;
		if (o < size && lo == c - 1)
			o += snprintf(buf + o, size - o, "%s%d", o ? "," : "", lo);
		else if (o < size)
			o += snprintf(buf + o, size - o, "%s%d-%d", o ? "," : "", lo, c - 1);
		lo = -1;
	}
}

/* Error for a rule naming CPUs outside <available>. */
static int thr_cpu_missing(const struct cpu_map_rule *r, const cpu_set_t *missing, char *err,
			   size_t errsz)
{
	char list[128];

	thr_cpus_str(missing, list, sizeof(list));
	return thr_err(err, errsz, "parsing [%s:%d] : cpu-map: CPU %s does not exist / is not "
		       "available to this process.", r->file ? r->file : "?", r->line, list);
}

/* Applies the automap rule <r>: the i-th (group, thread) pair of the rule, groups first,
 * gets the i-th CPU. Pairs naming threads that do not exist are skipped.
 */
static int thr_cpu_map_auto(const struct cpu_map_rule *r, const struct tgroup_info *grps,
			    int ngroups, const cpu_set_t *available, cpu_set_t *cpus,
			    bool *has_cpus, char *err, size_t errsz)
{
	int g, t, cpu = -1;
	cpu_set_t one;

	for (g = 0; g < MAX_TGROUPS; g++) {
		if (!(r->ts.grps & (1U << g)))
			continue;
		for (t = 0; t < 64; t++) {
			if (!(r->ts.rel[g] & (1ULL << t)))
				continue;
			do {
				cpu++;
			} while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &r->cpus));
			if (cpu >= CPU_SETSIZE || g >= ngroups || t >= grps[g].count)
				continue;
			if (!CPU_ISSET(cpu, available)) {
				CPU_ZERO(&one);
				CPU_SET(cpu, &one);
				return thr_cpu_missing(r, &one, err, errsz);
			}
			CPU_ZERO(&cpus[grps[g].base + t]);
			CPU_SET(cpu, &cpus[grps[g].base + t]);
			has_cpus[grps[g].base + t] = true;
		}
	}
	return 0;
}

/* See thread/thread_cfg.h. */
int cpu_map_resolve(const struct cpu_map_rule *rules, const struct tgroup_info *grps,
		    int ngroups, const cpu_set_t *available, cpu_set_t *cpus, bool *has_cpus,
		    char *err, size_t errsz)
{
	const struct cpu_map_rule *r;
	cpu_set_t eff, missing;
	int g, t, nthr = 0;

	for (g = 0; g < ngroups; g++)
		nthr = grps[g].base + grps[g].count > nthr ? grps[g].base + grps[g].count : nthr;
	for (t = 0; t < nthr; t++) {
		CPU_ZERO(&cpus[t]);
		has_cpus[t] = false;
	}
	for (r = rules; r; r = r->next) {
		if (r->automap) {
			if (thr_cpu_map_auto(r, grps, ngroups, available, cpus, has_cpus, err,
					     errsz) < 0)
				return -1;
			continue;
		}
		CPU_AND(&eff, &r->cpus, available);
		if (!CPU_COUNT(&eff)) {
			CPU_XOR(&missing, &r->cpus, &eff);
			return thr_cpu_missing(r, &missing, err, errsz);
		}
		for (g = 0; g < ngroups; g++) {
			if (!(r->ts.grps & (1U << g)))
				continue;
			for (t = 0; t < grps[g].count; t++) {
				if (!(r->ts.rel[g] & (1ULL << t)))
					continue;
				cpus[grps[g].base + t] = eff;
				has_cpus[grps[g].base + t] = true;
			}
		}
	}
	return 0;
}

/* Checks the explicit assignments against nbthread and each other. */
static int thr_check_assigned(int nbthread, const uint64_t *assigned, char *err, size_t errsz)
{
	uint64_t taken = 0, a;
	int g;

	for (g = 0; assigned && g < MAX_TGROUPS; g++) {
		a = assigned[g];
		if (!a)
			continue;
		if (a & ~thr_low_mask(nbthread))
			return thr_err(err, errsz, "thread-group %d: thread %d is beyond nbthread "
				       "%d.", g + 1, 64 - __builtin_clzll(a), nbthread);
		if (a & taken)
			return thr_err(err, errsz, "thread-group %d: thread %d already belongs to "
				       "another group.", g + 1, __builtin_ctzll(a & taken) + 1);
		if (!thr_is_contiguous(a))
			return thr_err(err, errsz, "thread-group %d: threads must form one "
				       "contiguous range.", g + 1);
		if (thr_popcount(a) > MAX_THREADS_PER_GROUP)
			return thr_err(err, errsz, "thread-group %d: more than %d threads.", g + 1,
				       MAX_THREADS_PER_GROUP);
		taken |= a;
	}
	return 0;
}

/* Number of groups when "thread-groups" is not set: enough for the explicit groups and
 * for the other threads at <max_per_group> per group.
 */
static int thr_auto_groups(int nbthread, int max_per_group, const uint64_t *assigned)
{
	int g, explicit = 0, highest = 0, left = nbthread, n;

	for (g = 0; assigned && g < MAX_TGROUPS; g++) {
		if (!assigned[g])
			continue;
		explicit++;
		highest = g + 1;
		left -= thr_popcount(assigned[g]);
	}
	n = explicit + (left + max_per_group - 1) / max_per_group;
	return n > highest ? n : highest;
}

/* See thread/thread_cfg.h. */
int thread_split_groups(int nbthread, int nbtgroups, int max_per_group,
			const uint64_t *assigned, struct tgroup_info *out, char *err,
			size_t errsz)
{
	int ngroups, g, left_thr = nbthread, left_grp, next = 0, q, t;
	uint64_t taken = 0;

	if (nbthread < 1 || nbthread > MAX_THREADS)
		return thr_err(err, errsz, "nbthread %d is out of range (1..%d).", nbthread,
			       MAX_THREADS);
	if (max_per_group <= 0)
		max_per_group = DEF_MAX_THREADS_PER_GROUP;
	if (max_per_group > MAX_THREADS_PER_GROUP)
		return thr_err(err, errsz, "max-threads-per-group %d is out of range (1..%d).",
			       max_per_group, MAX_THREADS_PER_GROUP);
	if (thr_check_assigned(nbthread, assigned, err, errsz) < 0)
		return -1;
	ngroups = nbtgroups > 0 ? nbtgroups : thr_auto_groups(nbthread, max_per_group, assigned);
	if (ngroups > MAX_TGROUPS)
		return thr_err(err, errsz, "%d thread groups exceed the maximum of %d.", ngroups,
			       MAX_TGROUPS);
	if (ngroups > nbthread)
		return thr_err(err, errsz, "%d thread groups for %d thread%s: more groups than "
			       "threads.", ngroups, nbthread, nbthread > 1 ? "s" : "");
	left_grp = ngroups;
	for (g = 0; assigned && g < MAX_TGROUPS; g++) {
		if (!assigned[g])
			continue;
		if (g >= ngroups)
			return thr_err(err, errsz, "thread-group %d is beyond the %d thread "
				       "groups.", g + 1, ngroups);
		out[g].base = (uint16_t)__builtin_ctzll(assigned[g]);
		out[g].count = (uint16_t)thr_popcount(assigned[g]);
		taken |= assigned[g];
		left_thr -= out[g].count;
		left_grp--;
	}
	if (!left_grp && left_thr)
		return thr_err(err, errsz, "%d thread%s left without a group.", left_thr,
			       left_thr > 1 ? "s are" : " is");
	if (left_thr < left_grp)
		return thr_err(err, errsz, "%d thread group%s left for %d thread%s: more groups "
			       "than threads.", left_grp, left_grp > 1 ? "s" : "", left_thr,
			       left_thr > 1 ? "s" : "");
	for (g = 0; g < ngroups; g++) {
		if (assigned && assigned[g])
			continue;
		q = left_thr / left_grp + (left_thr % left_grp ? 1 : 0);
		while (taken & (1ULL << next))
			next++;
		for (t = next; t < next + q; t++) {
			if (taken & (1ULL << t))
				return thr_err(err, errsz, "thread group %d cannot get %d contiguous "
					       "threads from thread %d: the explicit thread-group "
					       "ranges split the remaining threads.", g + 1, q,
					       next + 1);
		}
		if (q > MAX_THREADS_PER_GROUP)
			return thr_err(err, errsz, "thread group %d would get %d threads, more than "
				       "%d.", g + 1, q, MAX_THREADS_PER_GROUP);
		out[g].base = (uint16_t)next;
		out[g].count = (uint16_t)q;
		next += q;
		left_thr -= q;
		left_grp--;
	}
	return ngroups;
}

/* See thread/thread_cfg.h. */
int thread_shards_parse(const char *str, int *shards, char *err, size_t errsz)
{
	unsigned long v;

	if (str && !strcmp(str, "by-group")) {
		*shards = SHARDS_BY_GROUP;
		return 0;
	}
	if (str && !strcmp(str, "by-thread")) {
		*shards = SHARDS_BY_THREAD;
		return 0;
	}
	if (!str || thr_parse_num(str, strlen(str), &v) < 0 || v < 1 || v > MAX_THREADS)
		return thr_err(err, errsz, "invalid value '%s', allowed range is 1..%d, "
			       "'by-thread' or 'by-group'.", str ? str : "", MAX_THREADS);
	*shards = (int)v;
	return 0;
}
