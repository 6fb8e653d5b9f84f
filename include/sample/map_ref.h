/* Map and ACL references (map.c): creating them at config time, and changing them at run
 * time from the CLI. Every change function is the one writer's: the caller holds map_lock;
 * readers of the pattern sets run meanwhile (see pattern.h). Functions returning int return
 * 0, or -1 with a message in err (nothing changed).
 */
#ifndef SAMPLE_MAP_REF_H
#define SAMPLE_MAP_REF_H

#include <pthread.h>
#include <stddef.h>
#include <sample/map_ref-t.h>

extern pthread_mutex_t map_lock; /* between writers only: readers take no lock */

/* A new, empty reference (next id), listed last; NULL when out of memory. */
struct map_ref *map_ref_new(const char *path, unsigned flags, const char *desc);
/* Reads file <path> into a new reference (MAP_REF_F_ACLFILE: a pattern per line, else
 * "key value" lines). NULL with err set. */
struct map_ref *map_ref_load_file(const char *path, unsigned flags, const char *desc, char *err,
				  size_t errsz);
/* The reference of file <path> with one of <flags>, or NULL. */
struct map_ref *map_ref_find_path(const char *path, unsigned flags);
/* By "#ID" or file name, with one of <flags>; NULL if none. */
struct map_ref *map_ref_lookup(const char *name, unsigned flags);
struct map_ref *map_ref_first(void);
/* Flags the references set <ps> is built over as copied by a condition index (a change
 * to one of them makes the indexes fall back: cond_index.h). Config time. */
void map_ref_mark_indexed(const struct pat_set *ps);

/* Builds a set over <r>: every current entry goes into <ps> (values of type <out>, or
 * out < 0 for none); later changes to <r> reach it. Config time. */
int map_ref_attach(struct map_ref *r, struct pat_set *ps, int out, char *err, size_t errsz);
/* Forgets set <ps> in every reference (its owner frees it). */
void map_ref_detach(const struct pat_set *ps);
/* Appends an entry (config time, not in the sets yet: map_ref_attach adds them). */
struct map_elt *map_ref_append(struct map_ref *r, const char *key, const char *value, int op,
			       unsigned gen);

/* Run time. Adds key/value to version <gen> (in the sets at once if it is the current one;
 * a key or value that one of the sets cannot take is refused). */
int map_ref_add(struct map_ref *r, const char *key, const char *value, unsigned gen, char *err,
		size_t errsz);
/* Removes an entry (retired: freed after a grace period). */
int map_ref_del(struct map_ref *r, struct map_elt *el);
/* Replaces an entry's value in every set (refused if one cannot parse it). */
int map_ref_set_value(struct map_ref *r, struct map_elt *el, const char *value, char *err,
		      size_t errsz);
/* Makes version <ver> current: its entries go into the sets, older ones out. */
int map_ref_commit(struct map_ref *r, unsigned ver, char *err, size_t errsz);
/* Removes every entry of version <gen>. */
int map_ref_purge(struct map_ref *r, unsigned gen);

/* Cuts one map line in place: *key and *value (NUL-terminated, value "" if none). Returns 1,
 * or 0 for a comment or blank line (HAProxy's rules: '#' in the first column only). Pure. */
int map_cut_line(char *line, char **key, char **value);

#define MAP_LINE_MAX 65535 /* longest payload line ("add map <map> <<") */

/* The next entry of a "<<" payload at *cur (lines ending in LF, NUL-terminated), cut in
 * place by map_cut_line's rules (blank lines and comments skipped); *cur moves past it.
 * Returns 1, 0 at the end, or -1 for a line over MAP_LINE_MAX bytes. Pure. */
int map_payload_next(char **cur, char **key, char **value);

#endif
