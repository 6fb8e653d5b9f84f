// FUZZ_SRCS: src/thread/thread_cfg.c
/* libFuzzer target for the thread and CPU set parsers of the global section: thread sets
 * ("bind ... thread", "thread-group"), CPU lists, cpu-map arguments and shard counts, then
 * resolution of what parsed against fixed thread groups. Crashes and sanitizer reports
 * are the findings; error messages must stay NUL-terminated within their buffer.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <thread/thread_cfg.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct tgroup_info grps[2] = { { 0, 3 }, { 3, 2 } };
	char in[512], err[128], *words[1];
	struct thread_set ts;
	struct cpu_map_rule rule;
	cpu_set_t set, avail, cpus[8];
	bool has[8];
	uint64_t masks[MAX_TGROUPS];
	int shards;
	char *sp;

	if (size >= sizeof(in))
		size = sizeof(in) - 1;
	memcpy(in, data, size);
	in[size] = 0;
	if (thread_set_parse(in, &ts, err, sizeof(err)) == 0)
		thread_set_resolve(&ts, grps, 2, masks, err, sizeof(err));
	if (memchr(err, 0, sizeof(err)) == NULL)
		__builtin_trap();
	cpuset_parse(in, &set, err, sizeof(err));
	thread_shards_parse(in, &shards, err, sizeof(err));
	/* "GROUP CPUS": the first word is the group part of cpu-map */
	sp = strchr(in, ' ');
	if (sp) {
		*sp = 0;
		words[0] = sp + 1;
		memset(&rule, 0, sizeof(rule));
		if (cpu_map_parse(in, words, 1, &rule, err, sizeof(err)) == 0) {
			CPU_ZERO(&avail);
			CPU_SET(0, &avail);
			CPU_SET(1, &avail);
			cpu_map_resolve(&rule, grps, 2, &avail, cpus, has, err, sizeof(err));
		}
	}
	return 0;
}
