/* Maps (map.c): "key value" files used by the map* converters (map, map_str, map_beg,
 * map_ip_int, ...). A file is read once however many converters name it; each pair of
 * match method and output type gets its own pattern set over it (trees for str, beg and
 * ip), with the values converted to the output type at load time. Built at config time,
 * read-only afterwards: lookups take no lock and allocate nothing.
 */
#ifndef SAMPLE_MAP_H
#define SAMPLE_MAP_H

#include <stddef.h>
#include <sample/sample-t.h>

/* The map of file <path> matched with <match> (PAT_MATCH_STR .. PAT_MATCH_REGM,
 * PAT_MATCH_INT, PAT_MATCH_IP) whose values are of <out_type> (SMP_T_STR, SMP_T_SINT or
 * SMP_T_ADDR), loading the file on first use. Returns the map (owned by this module, freed
 * by map_deinit()), or NULL with a message in err: the file cannot be read, a key is not
 * valid for the method, or a value cannot be converted ("unable to parse 'x' at line 3 of
 * file 'f.map'"). Config time.
 */
struct map_desc *map_get(const char *path, int match, int out_type, char *err, size_t errsz);

/* Looks <smp> up in <map> (cast to the method's type first). On a match, replaces smp's
 * data by the value (a string stays in the map's storage: SMP_F_CONST; map_regm's \N
 * references are expanded into a scratch chunk) and returns 1; returns 0 otherwise. Any
 * thread.
 */
int map_lookup(const struct map_desc *map, struct sample *smp);

/* Number of entries of <map>, and of files read so far (tests, "show map"). */
size_t map_count(const struct map_desc *map);
unsigned int map_files_loaded(void);

/* Frees every map. Nothing may use them afterwards (exit, tests). */
void map_deinit(void);

#endif
