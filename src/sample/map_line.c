/* Map lines (map_ref.h): cutting one "key value" line of a map file or of a "<<" payload
 * in place, by HAProxy's rules. Pure: no allocation, no globals (fuzzed alone).
 */
#include <stdbool.h>
#include <string.h>

#include <sample/map_ref.h>

static bool ml_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool ml_is_eol(char c)
{
	return c == '\0' || c == '\r' || c == '\n';
}

int map_cut_line(char *p, char **key, char **value)
{
	char *k, *v, *ve, *end;

	*key = *value = NULL;
	if (*p == '#')
		return 0;
	for (k = p; ml_is_blank(*k); k++)
		;
	if (ml_is_eol(*k))
		return 0;
	for (v = k; !ml_is_eol(*v) && !ml_is_blank(*v); v++)
		;
	ve = v;
	for (; ml_is_blank(*v); v++)
		;
	for (end = v; !ml_is_eol(*end); end++)
		;
	while (end > v && ml_is_blank(end[-1]))
		end--;
	*end = '\0';
	*ve = '\0';
	*key = k;
	*value = v;
	return 1;
}

int map_payload_next(char **cur, char **key, char **value)
{
	char *p = *cur, *eol, *next;

	while (*p) {
		eol = strchr(p, '\n');
		next = eol ? eol + 1 : p + strlen(p);
		if (eol)
			*eol = '\0';
		*cur = next;
		if ((size_t)((eol ? eol : next) - p) > MAP_LINE_MAX)
			return -1;
		if (map_cut_line(p, key, value))
			return 1;
		p = next;
	}
	*cur = p;
	return 0;
}
