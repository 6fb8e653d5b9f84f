/* Parsing of the "show profiling" arguments (stats/prof_args.h). Pure: only the words it
 * is given, no allocation.
 */
#include <string.h>
#include <stats/prof_args.h>

/* A decimal row count; false on anything else (or on overflow). */
static int sp_parse_count(const char *a, uint64_t *out)
{
	uint64_t v = 0;

	if (!*a)
		return 0;
	for (; *a; a++) {
		if (*a < '0' || *a > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*a - '0');
	}
	*out = v;
	return 1;
}

int sp_parse_args(char *const *args, int nargs, struct sp_opts *o)
{
	static const struct {
		const char *word;
		uint32_t clear, set;
	} words[] = {
		{ "all", 0, SP_STATUS | SP_TASKS },
		{ "status", SP_STATUS | SP_TASKS, SP_STATUS },
		{ "tasks", SP_STATUS | SP_TASKS, SP_TASKS },
		{ "memory", SP_STATUS | SP_TASKS, 0 }, /* memory profiling is not built: nothing */
		{ "byaddr", 0, SP_BYADDR },
		{ "bytime", 0, SP_BYTIME },
		{ "aggr", 0, SP_AGGR },
		{ "bygroup", 0, SP_BYGROUP },
		{ "pct", 0, SP_PCT },
	};

	o->flags = SP_STATUS | SP_TASKS;
	o->maxcnt = 0;
	for (int i = 0; i < nargs; i++) {
		size_t w;

		for (w = 0; w < sizeof(words) / sizeof(words[0]); w++)
			if (!strcmp(args[i], words[w].word))
				break;
		if (w < sizeof(words) / sizeof(words[0]))
			o->flags = (o->flags & ~words[w].clear) | words[w].set;
		else if (!sp_parse_count(args[i], &o->maxcnt))
			return -1;
	}
	return 0;
}
