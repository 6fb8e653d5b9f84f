/* Types of map and ACL references (map.c): the entries of one map file, ACL pattern file or
 * inline ACL line, as "show map" / "show acl" list them and the runtime API changes them,
 * and the pattern sets built over them.
 */
#ifndef SAMPLE_MAP_REF_T_H
#define SAMPLE_MAP_REF_T_H

#include <stddef.h>
#include <sample/pattern-t.h>

/* map_ref->flags */
#define MAP_REF_F_MAP 0x01     /* used by map converters (or an ACL with -M) */
#define MAP_REF_F_ACL 0x02     /* used by an ACL */
#define MAP_REF_F_ACLFILE 0x04 /* read as an ACL file: the whole line is the pattern */
#define MAP_REF_F_INDEXED 0x08 /* a condition index of rules copies its patterns */

/* One entry. Its fields are the writer's (the CLI, thread 0): readers reach the patterns
 * and values only, never the entry. */
struct map_elt {
	struct map_elt *next, *prev; /* in the reference, insertion order */
	char *key;
	char *value;	      /* "" without one (ACLs) */
	struct pattern *pats; /* its pattern in each set, chained by p->ref_next */
	unsigned gen;	      /* version it belongs to */
	int op;		      /* PAT_OP_* of an inline ACL integer pattern */
	int line;	      /* line in its file, 0 if added at run time */
};

/* A set over the reference's current entries: a map's (values of type <out>) or an ACL
 * expression's (out < 0, no values). */
struct map_ref_set {
	struct pat_set *ps;
	int out;
};

struct map_ref {
	struct map_ref *next; /* every reference, creation order */
	char *path;	      /* file, NULL for an inline ACL */
	char *desc;	      /* "show map" / "show acl" description */
	int id;		      /* unique id ("#ID"), creation order, as HAProxy's */
	unsigned flags;	      /* MAP_REF_F_* */
	struct map_elt *head, *tail;
	size_t count;		     /* entries of the current version */
	unsigned curr_ver, next_ver; /* versions ("prepare map", "commit map") */
	unsigned long dels;	     /* entries removed so far ("show map" cursors) */
	struct map_ref_set *sets;
	int nsets;
};

#endif
