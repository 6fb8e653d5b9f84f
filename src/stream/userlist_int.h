/* Private to src/stream/userlist*.c: the userlist objects, built by the config parser
 * (userlist_cfg.c), resolved by its check, and read by the runtime lookups (userlist.c).
 * Everything is owned by the userlist and freed by userlist_deinit_all().
 */
#ifndef STREAM_USERLIST_INT_H
#define STREAM_USERLIST_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <base/ist.h>
#include <stream/userlist.h>

enum userlist_pass {
	USERLIST_PASS_NONE = 0, /* no password given: never authenticates */
	USERLIST_PASS_CRYPT,	/* "password": a crypt(3) hash */
	USERLIST_PASS_PLAIN,	/* "insecure-password": the password itself */
};

struct userlist_user {
	char *name;
	size_t nlen;
	char *pass; /* hash or plain password (NUL-terminated); NULL if none */
	size_t plen;
	enum userlist_pass kind;
	uint64_t groups;   /* bit i: member of groups[i]; set by the check */
	char *group_names; /* "groups" lists as written, until the check resolves them */
	const char *file;  /* declaration, for the check's messages (interned name) */
	int line;
};

struct userlist_group {
	char *name;
	char *user_names; /* "users" lists as written, until the check resolves them */
	const char *file;
	int line;
};

struct userlist {
	struct userlist *next;
	char *name;
	struct userlist_user *users; /* sorted by name once resolved (bsearch) */
	size_t nusers;
	size_t users_cap;
	struct userlist_group groups[USERLIST_MAX_GROUPS];
	int ngroups;
	bool resolved; /* the check ran: users sorted, group bits set */
};

extern struct userlist *userlists; /* every userlist, in declaration order */

/* Allocates an empty userlist named <name> and links it last. NULL when out of memory. */
struct userlist *userlist_new(const char *name);

/* Orders users by (name, nlen) bytes; the order bsearch uses in userlist_user_get(). */
int userlist_user_cmp(const void *a, const void *b);

/* The user <name>/<len> of a resolved <ul>, or NULL. */
const struct userlist_user *userlist_user_get(const struct userlist *ul, const char *name,
					      size_t len);

/* The index of group <name>/<len> in <ul>, or -1. */
int userlist_group_index(const struct userlist *ul, const char *name, size_t len);

/* False when the system's crypt(3) cannot check passwords against <hash> (an unknown or
 * disabled method, a malformed setting). Config time.
 */
bool userlist_hash_supported(const char *hash);

/* Walks a comma-separated list: stores the next non-empty item of *<p> into <item> and
 * advances *<p> past it. Returns false at the end of the list.
 */
static inline bool userlist_csv_next(const char **p, struct ist *item)
{
	const char *s = *p, *e;

	while (*s == ',')
		s++;
	if (!*s)
		return false;
	for (e = s; *e && *e != ','; e++)
		;
	*item = ist2(s, (size_t)(e - s));
	*p = e;
	return true;
}

#endif
