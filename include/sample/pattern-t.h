/* Types of patterns: the values an ACL line (or a map file) compares samples with, and the
 * set that holds them for one match method, indexed in a tree where the method allows
 * (exact strings, prefixes, IP networks) and scanned in order otherwise.
 */
#ifndef SAMPLE_PATTERN_T_H
#define SAMPLE_PATTERN_T_H

#include <stdint.h>
#include <netinet/in.h>
#include <base/ist.h>

struct regex;
struct strtree;
struct iptree;

/* Match methods ("-m NAME"). */
enum pat_match {
	PAT_MATCH_FOUND = 0, /* the sample exists */
	PAT_MATCH_BOOL,	     /* the sample is true */
	PAT_MATCH_INT,	     /* integer equal or in a range */
	PAT_MATCH_IP,	     /* address in a network */
	PAT_MATCH_BIN,	     /* bytes equal to a hex pattern */
	PAT_MATCH_LEN,	     /* length in a range */
	PAT_MATCH_STR,	     /* string equal */
	PAT_MATCH_BEG,	     /* string starts with */
	PAT_MATCH_SUB,	     /* string contains */
	PAT_MATCH_DIR,	     /* a '/'-delimited component */
	PAT_MATCH_DOM,	     /* a '.'-delimited component */
	PAT_MATCH_END,	     /* string ends with */
	PAT_MATCH_REG,	     /* regex */
	PAT_MATCH_REGM,	     /* regex, with captures for map_regm */
	PAT_MATCH_NUM
};

/* pattern->flags */
#define PAT_F_V4 0x01 /* IP: an IPv4 network */
#define PAT_F_V6 0x02 /* IP: an IPv6 network */

struct pattern {
	struct pattern *next; /* next in the set, insertion order */
	unsigned int idx;     /* insertion order, 0-based */
	uint8_t flags;	      /* PAT_F_* */
	uint8_t match;	      /* its set's method (to free it after the set is gone) */
	union {
		struct {
			long long min, max;
		} range;	/* INT, LEN: [min, max] */
		struct ist str; /* STR .. END, BIN: owned */
		struct {
			struct in_addr addr, mask;
		} v4;
		struct {
			struct in6_addr addr;
			uint8_t plen;
		} v6;
		struct regex *reg; /* REG, REGM: owned */
	} val;
	void *value; /* maps: the value of this key (owned by the map; changed
		      * at run time by a release store, read once by readers) */
	/* run-time changes (pattern.c, map.c): written by the one writer only */
	struct pattern **pprev;	  /* the link pointing to this pattern in the set's list */
	struct pattern *dup;	  /* indexed sets: next pattern with the same key (the tree
				   * holds the first one) */
	struct pat_set *set;	  /* the set holding it */
	void *ref;		  /* the map/ACL entry it was made from (map.c), or NULL */
	struct pattern *ref_next; /* next pattern made from the same entry, in another set */
};

/* pat_set->flags */
#define PAT_SET_ICASE 0x01  /* "-i": strings compare without case */
#define PAT_SET_DOTVER 0x02 /* integers written "MAJOR[.MINOR]" (req.ssl_ver ACLs) */

struct pat_set {
	uint8_t match; /* enum pat_match */
	uint8_t flags; /* PAT_SET_* */
	unsigned int count;
	struct pattern *head; /* every pattern, insertion order (owned) */
	struct pattern **tail;
	struct strtree *str; /* STR and BEG patterns, when indexed */
	struct iptree *ip;   /* IP patterns */
	/* run time: <head>, the list links, <str> and <ip> change under the readers by release
	 * stores; readers load them once (see pat_set_add_live) */
	unsigned int next_idx; /* idx of the next pattern added */
};

#endif
