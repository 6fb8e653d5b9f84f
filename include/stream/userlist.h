/* Userlists at run time: user/password checks against crypt(3) hashes or insecure
 * passwords, group membership for http_auth/http_auth_group, and the decoding of an
 * "Authorization: Basic" value. The objects are built by userlist_cfg.c and read-only once
 * userlist_cfg_check() has run, so every lookup below is safe from any thread.
 */
#ifndef STREAM_USERLIST_H
#define STREAM_USERLIST_H

#include <stdbool.h>
#include <stddef.h>

#include <base/ist.h>

#define USERLIST_MAX_GROUPS 64 /* groups per userlist: one bit each in a group mask */

struct userlist;

/* The userlist named <name>, or NULL. Config time (single thread). */
struct userlist *userlist_find(const char *name);

/* The name of <ul> as declared. */
const char *userlist_name(const struct userlist *ul);

/* True when <user>/<pass> are valid in <ul>: the user exists and its password matches
 * (crypt(3) hash or insecure password, compared in constant time). A user without a
 * password never matches. Any thread; a crypt(3) hash costs what its algorithm costs
 * (up to milliseconds). Returns false when <ul> is NULL.
 */
bool userlist_check(const struct userlist *ul, const char *user, size_t ulen, const char *pass,
		    size_t plen);

/* Compiles the comma-separated group names <names_csv> of <ul> into a mask for
 * userlist_user_in_groups() (empty items are skipped). Returns the mask, never 0 on
 * success; returns 0 after writing why into <err> when a group does not exist or no name
 * is given. Config time.
 */
unsigned long long userlist_group_mask(const struct userlist *ul, const char *names_csv, char *err,
				       size_t errsz);

/* True when <user> exists in <ul> and belongs to one of the groups of <mask>. Any thread. */
bool userlist_user_in_groups(const struct userlist *ul, const char *user, size_t ulen,
			     unsigned long long mask);

/* The name of the first group (in declaration order) of <user>, or NULL when the user does
 * not exist or belongs to no group. Any thread.
 */
const char *userlist_first_group(const struct userlist *ul, const char *user, size_t ulen);

/* The name of the <n>th group (from 0, in declaration order) of <user>, or NULL past the
 * last one or when the user does not exist (http_auth_group walks them). Any thread.
 */
const char *userlist_user_group(const struct userlist *ul, const char *user, size_t ulen, int n);

/* Decodes the Authorization value <v>/<len> ("Basic <base64 of user:pass>", scheme
 * case-insensitive) into <buf>/<bufsz>; <user> and <pass> then point into <buf> (split at
 * the first ':', either may be empty, the password may hold any byte). Returns 0, or -1
 * when <v> is not Basic credentials, is not valid base64, has no ':' or does not fit.
 * Pure; any thread.
 */
int userlist_basic_decode(const char *v, size_t len, char *buf, size_t bufsz, struct ist *user,
			  struct ist *pass);

/* Frees every userlist and the calling thread's crypt(3) work area. At exit, or between
 * unit tests; no lookup may run concurrently.
 */
void userlist_deinit_all(void);

#endif
