/* Userlists at run time: the list of userlists, user lookups (binary search over the users
 * sorted by the config check), password checks with crypt_r(3) or a plain comparison, both
 * in constant time, group masks, and the "Authorization: Basic" decoder with its small
 * base64 decoder. Objects are read-only after the config check; parsing is in
 * userlist_cfg.c.
 */
#ifdef USE_LIBCRYPT
#include <crypt.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <base/compiler.h>
#include <base/parse.h>
#include <stream/userlist.h>

#include "userlist_int.h"

struct userlist *userlists;

/* True when <in>/<inlen> equals <secret>/<slen> (NUL-terminated). The time depends on
 * <inlen> only: neither the length nor the bytes of the secret show.
 */
static bool userlist_ct_eq(const char *in, size_t inlen, const char *secret, size_t slen)
{
	unsigned char diff = inlen != slen;
	size_t i, m;

	for (i = 0; i < inlen; i++) {
		m = (size_t)0 - (size_t)(i < slen); /* all ones while inside the secret */
		diff |= (unsigned char)in[i] ^ (unsigned char)secret[i & m];
	}
	return diff == 0;
}

#ifdef USE_LIBCRYPT

#ifdef CRYPT_MAX_PASSPHRASE_SIZE
#define USERLIST_MAX_PASS CRYPT_MAX_PASSPHRASE_SIZE /* libxcrypt refuses longer ones */
#else
#define USERLIST_MAX_PASS 512
#endif

/* crypt_r()'s work area, one per thread. It is 32 kB with libxcrypt: too much to zero on
 * every check (crypt_r wants it zeroed before first use, not between uses) and to put on a
 * worker's stack under the rule engine, and too much to reserve in the static TLS of every
 * thread when few ever check a hash. So each thread allocates it on its first check and
 * keeps it; a pthread key frees it when the thread exits.
 */
static __thread struct crypt_data *userlist_cd;
static pthread_key_t userlist_cd_key;
static pthread_once_t userlist_cd_once = PTHREAD_ONCE_INIT;
static bool userlist_cd_key_ok;

static void userlist_cd_free(void *p)
{
	explicit_bzero(p, sizeof(struct crypt_data));
	free(p);
}

static void userlist_cd_key_init(void)
{
	userlist_cd_key_ok = pthread_key_create(&userlist_cd_key, userlist_cd_free) == 0;
}

/* The calling thread's work area, or NULL when out of memory (the check then fails). */
static struct crypt_data *userlist_cd_get(void)
{
	struct crypt_data *cd = userlist_cd;

	if (likely(cd))
		return cd;
	pthread_once(&userlist_cd_once, userlist_cd_key_init);
	if (!userlist_cd_key_ok)
		return NULL;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return NULL;
	if (pthread_setspecific(userlist_cd_key, cd) != 0) {
		free(cd);
		return NULL;
	}
	userlist_cd = cd;
	return cd;
}

/* True when <pass>/<plen> hashes to <hash>/<hlen> with crypt_r(). A password holding a NUL
 * byte or longer than crypt(3) accepts never matches.
 */
static bool userlist_crypt_match(const char *pass, size_t plen, const char *hash, size_t hlen)
{
	char key[USERLIST_MAX_PASS];
	struct crypt_data *cd;
	const char *out;
	bool ok = false;

	if (plen >= sizeof(key) || memchr(pass, '\0', plen))
		return false;
	cd = userlist_cd_get();
	if (!cd)
		return false;
	memcpy(key, pass, plen);
	key[plen] = '\0';
	out = crypt_r(key, hash, cd);
	/* a failure is NULL or a token starting with '*' (never a valid hash) */
	if (out && out[0] != '*') {
		ok = userlist_ct_eq(out, strlen(out), hash, hlen);
		explicit_bzero((char *)out, strlen(out)); /* it lies in <cd> */
	}
	explicit_bzero(key, plen);
	return ok;
}

bool userlist_hash_supported(const char *hash)
{
#ifdef CRYPT_CHECKSALT_AVAILABLE
	/* libxcrypt: checks the method and its setting without hashing (a crypt_r() here
	 * would cost each user its full hashing time at startup)
	 */
	int r = crypt_checksalt(hash);

	return r == CRYPT_SALT_OK || r == CRYPT_SALT_METHOD_LEGACY;
#else
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *out;
	bool ok;

	if (!cd)
		return true; /* cannot tell: do not warn */
	out = crypt_r("", hash, cd);
	ok = out && out[0] != '*';
	free(cd);
	return ok;
#endif
}

/* Frees the calling thread's work area (the key's destructor does it for the others). */
static void userlist_cd_release(void)
{
	if (!userlist_cd)
		return;
	pthread_setspecific(userlist_cd_key, NULL);
	userlist_cd_free(userlist_cd);
	userlist_cd = NULL;
}

#else /* !USE_LIBCRYPT: the config refuses "password", nothing here is reached */

static bool userlist_crypt_match(const char *pass, size_t plen, const char *hash, size_t hlen)
{
	return false;
}

bool userlist_hash_supported(const char *hash)
{
	return false;
}

static void userlist_cd_release(void)
{
}

#endif /* USE_LIBCRYPT */

struct userlist *userlist_new(const char *name)
{
	struct userlist *ul = calloc(1, sizeof(*ul)), **tail;

	if (!ul)
		return NULL;
	ul->name = strdup(name);
	if (!ul->name) {
		free(ul);
		return NULL;
	}
	for (tail = &userlists; *tail; tail = &(*tail)->next)
		;
	*tail = ul;
	return ul;
}

struct userlist *userlist_find(const char *name)
{
	struct userlist *ul;

	for (ul = userlists; ul; ul = ul->next) {
		if (strcmp(ul->name, name) == 0)
			return ul;
	}
	return NULL;
}

const char *userlist_name(const struct userlist *ul)
{
	return ul->name;
}

int userlist_user_cmp(const void *a, const void *b)
{
	const struct userlist_user *x = a, *y = b;
	int r = memcmp(x->name, y->name, MIN(x->nlen, y->nlen));

	if (r)
		return r;
	return (x->nlen > y->nlen) - (x->nlen < y->nlen);
}

const struct userlist_user *userlist_user_get(const struct userlist *ul, const char *name,
					      size_t len)
{
	struct userlist_user key = { .name = (char *)name, .nlen = len };

	if (!ul || !ul->resolved || !ul->nusers)
		return NULL;
	return bsearch(&key, ul->users, ul->nusers, sizeof(*ul->users), userlist_user_cmp);
}

int userlist_group_index(const struct userlist *ul, const char *name, size_t len)
{
	int i;

	for (i = 0; i < ul->ngroups; i++) {
		if (strlen(ul->groups[i].name) == len && memcmp(ul->groups[i].name, name, len) == 0)
			return i;
	}
	return -1;
}

bool userlist_check(const struct userlist *ul, const char *user, size_t ulen, const char *pass,
		    size_t plen)
{
	const struct userlist_user *u = userlist_user_get(ul, user, ulen);

	if (!u)
		return false;
	switch (u->kind) {
	case USERLIST_PASS_CRYPT:
		return userlist_crypt_match(pass, plen, u->pass, u->plen);
	case USERLIST_PASS_PLAIN:
		return userlist_ct_eq(pass, plen, u->pass, u->plen);
	case USERLIST_PASS_NONE:
		break;
	}
	return false;
}

unsigned long long userlist_group_mask(const struct userlist *ul, const char *names_csv, char *err,
				       size_t errsz)
{
	unsigned long long mask = 0;
	const char *p = names_csv;
	struct ist g;
	int i;

	while (userlist_csv_next(&p, &g)) {
		i = userlist_group_index(ul, g.ptr, g.len);
		if (i < 0) {
			snprintf(err, errsz, "no such group '%.*s' in userlist '%s'", (int)g.len,
				 g.ptr, ul->name);
			return 0;
		}
		mask |= 1ULL << i;
	}
	if (!mask)
		snprintf(err, errsz, "no group name given for userlist '%s'", ul->name);
	return mask;
}

bool userlist_user_in_groups(const struct userlist *ul, const char *user, size_t ulen,
			     unsigned long long mask)
{
	const struct userlist_user *u = userlist_user_get(ul, user, ulen);

	return u && (u->groups & mask);
}

const char *userlist_first_group(const struct userlist *ul, const char *user, size_t ulen)
{
	const struct userlist_user *u = userlist_user_get(ul, user, ulen);

	if (!u || !u->groups)
		return NULL;
	return ul->groups[__builtin_ctzll(u->groups)].name;
}

const char *userlist_user_group(const struct userlist *ul, const char *user, size_t ulen, int n)
{
	const struct userlist_user *u = userlist_user_get(ul, user, ulen);
	uint64_t g = u ? u->groups : 0;

	for (; g; g &= g - 1)
		if (n-- == 0)
			return ul->groups[__builtin_ctzll(g)].name;
	return NULL;
}

/* Decodes the standard base64 <in>/<len> (padding optional, but complete when present)
 * into <out>/<outsz>. Returns the decoded length, or -1 if invalid or too long. Local until
 * the shared codec lands.
 */
static long userlist_b64_decode(const char *in, size_t len, char *out, size_t outsz)
{
	uint32_t acc = 0;
	size_t i, o = 0, pad = 0;
	int bits = 0, d;

	while (len && in[len - 1] == '=' && pad < 2) {
		len--;
		pad++;
	}
	if (len % 4 == 1 || (pad && (len + pad) % 4))
		return -1;
	for (i = 0; i < len; i++) {
		d = b64_digit_val((unsigned char)in[i], false);
		if (d < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)d;
		bits += 6;
		if (bits < 8)
			continue;
		bits -= 8;
		if (o >= outsz)
			return -1;
		out[o++] = (char)(acc >> bits);
		acc &= (1U << bits) - 1;
	}
	return (long)o;
}

int userlist_basic_decode(const char *v, size_t len, char *buf, size_t bufsz, struct ist *user,
			  struct ist *pass)
{
	const char *colon;
	size_t i = 5;
	long n;

	if (len <= i || strncasecmp(v, "Basic", 5) != 0 || (v[i] != ' ' && v[i] != '\t'))
		return -1;
	while (i < len && (v[i] == ' ' || v[i] == '\t'))
		i++;
	while (len > i && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	n = userlist_b64_decode(v + i, len - i, buf, bufsz);
	if (n <= 0)
		return -1;
	colon = memchr(buf, ':', (size_t)n);
	if (!colon)
		return -1;
	*user = ist2(buf, (size_t)(colon - buf));
	*pass = ist2(colon + 1, (size_t)n - (size_t)(colon - buf) - 1);
	return 0;
}

static void userlist_free(struct userlist *ul)
{
	size_t i;
	int g;

	for (i = 0; i < ul->nusers; i++) {
		if (ul->users[i].pass)
			explicit_bzero(ul->users[i].pass, ul->users[i].plen);
		free(ul->users[i].pass);
		free(ul->users[i].name);
		free(ul->users[i].group_names);
	}
	for (g = 0; g < ul->ngroups; g++) {
		free(ul->groups[g].name);
		free(ul->groups[g].user_names);
	}
	free(ul->users);
	free(ul->name);
	free(ul);
}

void userlist_deinit_all(void)
{
	struct userlist *ul, *next;

	for (ul = userlists; ul; ul = next) {
		next = ul->next;
		userlist_free(ul);
	}
	userlists = NULL;
	userlist_cd_release();
}
