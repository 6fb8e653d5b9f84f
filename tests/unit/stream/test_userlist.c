/* Unit tests for userlists: sections loaded from temporary files through cfg_load_path()
 * and userlist_cfg_check() with stderr captured (HAProxy's messages with file:line), the
 * password checks for every crypt(3) method the system has (hashes made here with
 * crypt_r), insecure passwords, groups and group masks, concurrent checks from several
 * threads, and the "Authorization: Basic" decoder. Every test frees with
 * userlist_deinit_all().
 */
#ifdef USE_LIBCRYPT
#include <crypt.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/compiler.h>
#include <cfg/cfg.h>
#include <stream/userlist.h>
#include <stream/userlist_cfg.h>
#include "../test.h"

struct ult_run {
	int errors; /* alerts while parsing and checking */
	int warnings;
	int check;	/* userlist_cfg_check() */
	char err[8192]; /* captured stderr */
};

static char ult_dir[64];

/* Writes <text> as t.cfg, loads and checks it with stderr captured into r->err. */
static void ult_load(const char *text, struct ult_run *r)
{
	int e0 = cfg_errors, w0 = cfg_warnings, saved;
	char path[128];
	size_t len;

	test_write_file(ult_dir, "t.cfg", text);
	snprintf(path, sizeof(path), "%s/t.cfg", ult_dir);
	saved = test_capture_begin(ult_dir);
	cfg_load_path(path);
	test_capture_end(saved, ult_dir, r->err, sizeof(r->err));
	len = strlen(r->err);
	saved = test_capture_begin(ult_dir);
	r->check = userlist_cfg_check();
	test_capture_end(saved, ult_dir, r->err + len, sizeof(r->err) - len);
	r->errors = cfg_errors - e0;
	r->warnings = cfg_warnings - w0;
}

static void ult_setup(void)
{
	userlist_deinit_all();
	test_tmpdir(ult_dir, "ultest");
}

static void ult_cleanup(void)
{
	userlist_deinit_all();
	test_rmdir(ult_dir);
}

static bool ult_ok(const struct userlist *ul, const char *user, const char *pass)
{
	return userlist_check(ul, user, strlen(user), pass, strlen(pass));
}

#ifdef USE_LIBCRYPT
/* Hashes <pass> with <setting> into <out>; false when the system lacks the method. */
static bool ult_hash(const char *pass, const char *setting, char *out, size_t outsz)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h = cd ? crypt_r(pass, setting, cd) : NULL;
	bool ok = h && h[0] != '*' && strlen(h) < outsz;

	if (ok)
		strcpy(out, h);
	free(cd);
	return ok;
}

/* One crypt(3) method: its setting, and whether every system has it (glibc's and
 * libxcrypt's common ones) or it is optional.
 */
static const struct {
	const char *user;
	const char *setting;
	bool required;
} ult_methods[] = {
	{ "des", "ab", true },
	{ "md5", "$1$saltsalt$", true },
	{ "sha256", "$5$saltstring$", true },
	{ "sha256r", "$5$rounds=1000$saltstring$", true },
	{ "sha512", "$6$saltstring$", true },
	{ "bcrypt", "$2b$05$MNmUNQrcpEfvbKlNOsgPBu", false },
	{ "yescrypt", "$y$j9T$uz4dP4XPpETvazGmU3wWq1", false },
};

TEST(userlist_crypt_methods)
{
	char cfg[4096], hash[256];
	const struct userlist *ul;
	bool have[ARRAY_SIZE(ult_methods)];
	struct ult_run r;
	size_t i, o;

	ult_setup();
	o = (size_t)snprintf(cfg, sizeof(cfg), "userlist L\n");
	for (i = 0; i < ARRAY_SIZE(ult_methods); i++) {
		have[i] = ult_hash("s3cret pass", ult_methods[i].setting, hash, sizeof(hash));
		if (!have[i]) {
			if (ult_methods[i].required)
				test_fail(__FILE__, __LINE__, "crypt_r lacks %s",
					  ult_methods[i].user);
			continue;
		}
		o += (size_t)snprintf(cfg + o, sizeof(cfg) - o, "  user %s password %s\n",
				      ult_methods[i].user, hash);
	}
	ult_load(cfg, &r);
	CHECK_INT(r.errors, 0);
	CHECK_INT(r.warnings, 0);
	CHECK_INT(r.check, 0);
	ul = userlist_find("L");
	CHECK(ul != NULL);
	for (i = 0; ul && i < ARRAY_SIZE(ult_methods); i++) {
		if (!have[i])
			continue;
		if (!ult_ok(ul, ult_methods[i].user, "s3cret pass"))
			test_fail(__FILE__, __LINE__, "%s: good password refused",
				  ult_methods[i].user);
		if (ult_ok(ul, ult_methods[i].user, "s3cretpass") ||
		    ult_ok(ul, ult_methods[i].user, "S3cret pass") ||
		    ult_ok(ul, ult_methods[i].user, "") ||
		    ult_ok(ul, ult_methods[i].user, ult_methods[i].setting))
			test_fail(__FILE__, __LINE__, "%s: bad password accepted",
				  ult_methods[i].user);
		/* a NUL byte must not cut the password short */
		CHECK(!userlist_check(ul, ult_methods[i].user, strlen(ult_methods[i].user),
				      "s3cret pass\0x", 13));
	}
	/* DES only reads 8 characters: crypt(3)'s own rule */
	CHECK(ul && ult_ok(ul, "des", "s3cret pXXXXXX"));
	CHECK(ul && !ult_ok(ul, "md5", "s3cret passX"));
	CHECK(ul && !ult_ok(ul, "nobody", "s3cret pass"));
	CHECK(ul && !ult_ok(ul, "sha51", "s3cret pass"));
	CHECK(ul && !ult_ok(ul, "sha5120", "s3cret pass"));
	ult_cleanup();
}

#endif /* USE_LIBCRYPT */

TEST(userlist_insecure_and_unknown)
{
	static char longpw[700];
	char cfg[1024];
	const struct userlist *ul;
	struct ult_run r;

	ult_setup();
	memset(longpw, 'p', sizeof(longpw) - 1);
	snprintf(cfg, sizeof(cfg),
		 "userlist L\n"
		 "  user scott insecure-password elgato\n"
		 "  user empty insecure-password \"\"\n"
		 "  user nopass\n"
		 "  user \"sp ace\" insecure-password 'a b:c'\n");
	ult_load(cfg, &r);
	CHECK_INT(r.errors, 0);
	CHECK_INT(r.check, 0);
	ul = userlist_find("L");
	CHECK(ul != NULL);
	CHECK_STR(ul ? userlist_name(ul) : NULL, "L");
	CHECK(ult_ok(ul, "scott", "elgato"));
	CHECK(!ult_ok(ul, "scott", "elgat"));
	CHECK(!ult_ok(ul, "scott", "elgato "));
	CHECK(!ult_ok(ul, "scott", "ELGATO"));
	CHECK(!ult_ok(ul, "Scott", "elgato"));
	CHECK(!ult_ok(ul, "scot", "elgato"));
	CHECK(!userlist_check(ul, "scott", 5, "elgato\0", 7));
	CHECK(userlist_check(ul, "scottish", 5, "elgato!", 6)); /* lengths are honoured */
	CHECK(ult_ok(ul, "empty", ""));
	CHECK(!ult_ok(ul, "empty", "x"));
	CHECK(!ult_ok(ul, "nopass", ""));
	CHECK(!ult_ok(ul, "nopass", "x"));
	CHECK(ult_ok(ul, "sp ace", "a b:c"));
	CHECK(!ult_ok(ul, "", ""));
	CHECK(!ult_ok(ul, "scott", longpw));
	CHECK(!userlist_check(NULL, "scott", 5, "elgato", 6));
	CHECK(userlist_find("M") == NULL);
	ult_cleanup();
	CHECK(userlist_find("L") == NULL);
}

#ifdef USE_LIBCRYPT
TEST(userlist_long_passwords)
{
	static char pw[700], cfg[2048];
	char hash[256];
	const struct userlist *ul;
	struct ult_run r;

	ult_setup();
	memset(pw, 'q', 600);
	CHECK(ult_hash("short", "$6$saltstring$", hash, sizeof(hash)));
	snprintf(cfg, sizeof(cfg),
		 "userlist L\n  user p insecure-password %s\n"
		 "  user h password %s\n",
		 pw, hash);
	ult_load(cfg, &r);
	CHECK_INT(r.errors, 0);
	ul = userlist_find("L");
	CHECK(ult_ok(ul, "p", pw));
	pw[599] = 'r';
	CHECK(!ult_ok(ul, "p", pw));
	/* longer than crypt(3) accepts: refused without hashing */
	CHECK(!ult_ok(ul, "h", pw));
	CHECK(ult_ok(ul, "h", "short"));
	ult_cleanup();
}

#endif /* USE_LIBCRYPT */

TEST(userlist_groups)
{
	const struct userlist *ul, *ul2;
	unsigned long long m1, m2, m12;
	struct ult_run r;
	char err[256];

	ult_setup();
	ult_load("userlist L1\n"
		 "  group G1 users tiger,scott\n"
		 "  group G2 users xdb,,scott\n"
		 "  group G3\n"
		 "  user tiger insecure-password t\n"
		 "  user scott insecure-password elgato\n"
		 "  user xdb insecure-password hello\n"
		 "  user lone insecure-password x\n"
		 "userlist L2\n"
		 "  group G1\n"
		 "  group G2\n"
		 "  user tiger insecure-password t groups G1\n"
		 "  user scott insecure-password elgato groups G1,G2\n"
		 "  user xdb insecure-password hello groups G2 groups G1\n",
		 &r);
	CHECK_INT(r.errors, 0);
	CHECK_INT(r.warnings, 0);
	CHECK_INT(r.check, 0);
	ul = userlist_find("L1");
	ul2 = userlist_find("L2");
	CHECK(ul && ul2 && ul != ul2);
	if (!ul || !ul2)
		goto out;
	m1 = userlist_group_mask(ul, "G1", err, sizeof(err));
	m2 = userlist_group_mask(ul, "G2", err, sizeof(err));
	m12 = userlist_group_mask(ul, "G1,G2", err, sizeof(err));
	CHECK(m1 && m2 && m1 != m2 && m12 == (m1 | m2));
	CHECK(userlist_user_in_groups(ul, "tiger", 5, m1));
	CHECK(!userlist_user_in_groups(ul, "tiger", 5, m2));
	CHECK(userlist_user_in_groups(ul, "tiger", 5, m12));
	CHECK(userlist_user_in_groups(ul, "scott", 5, m2));
	CHECK(userlist_user_in_groups(ul, "xdb", 3, m2));
	CHECK(!userlist_user_in_groups(ul, "lone", 4, m12));
	CHECK(!userlist_user_in_groups(ul, "nobody", 6, m12));
	CHECK_STR(userlist_first_group(ul, "tiger", 5), "G1");
	CHECK_STR(userlist_first_group(ul, "scott", 5), "G1");
	CHECK_STR(userlist_first_group(ul, "xdb", 3), "G2");
	CHECK(userlist_first_group(ul, "lone", 4) == NULL);
	CHECK(userlist_first_group(ul, "nobody", 6) == NULL);

	/* the same memberships declared from the user side */
	m1 = userlist_group_mask(ul2, "G1", err, sizeof(err));
	m2 = userlist_group_mask(ul2, ",G2,", err, sizeof(err));
	CHECK(userlist_user_in_groups(ul2, "tiger", 5, m1));
	CHECK(!userlist_user_in_groups(ul2, "tiger", 5, m2));
	CHECK(userlist_user_in_groups(ul2, "scott", 5, m1));
	CHECK(userlist_user_in_groups(ul2, "scott", 5, m2));
	CHECK(userlist_user_in_groups(ul2, "xdb", 3, m1)); /* two "groups" add up */
	CHECK(userlist_user_in_groups(ul2, "xdb", 3, m2));
	CHECK_STR(userlist_first_group(ul2, "xdb", 3), "G1");
	/* every group of a user, in declaration order (http_auth_group under an ACL) */
	CHECK_STR(userlist_user_group(ul2, "scott", 5, 0), "G1");
	CHECK_STR(userlist_user_group(ul2, "scott", 5, 1), "G2");
	CHECK(userlist_user_group(ul2, "scott", 5, 2) == NULL);
	CHECK_STR(userlist_user_group(ul2, "tiger", 5, 0), "G1");
	CHECK(userlist_user_group(ul2, "tiger", 5, 1) == NULL);
	CHECK(userlist_user_group(ul2, "nobody", 6, 0) == NULL);

	err[0] = 0;
	CHECK(userlist_group_mask(ul, "G1,G9", err, sizeof(err)) == 0);
	CHECK_STR(err, "no such group 'G9' in userlist 'L1'");
	CHECK(userlist_group_mask(ul, ",,", err, sizeof(err)) == 0);
	CHECK_STR(err, "no group name given for userlist 'L1'");
	CHECK(userlist_group_mask(ul, "g1", err, sizeof(err)) == 0); /* case matters */
out:
	ult_cleanup();
}

TEST(userlist_group_limit)
{
	static char cfg[8192];
	const struct userlist *ul;
	struct ult_run r;
	char err[128];
	size_t o;
	int i;

	ult_setup();
	o = (size_t)snprintf(cfg, sizeof(cfg), "userlist L\n");
	for (i = 0; i < USERLIST_MAX_GROUPS + 1; i++)
		o += (size_t)snprintf(cfg + o, sizeof(cfg) - o, "  group g%d\n", i);
	o += (size_t)snprintf(cfg + o, sizeof(cfg) - o,
			      "  user u insecure-password p groups g63\n");
	ult_load(cfg, &r);
	CHECK_INT(r.errors, 1);
	CHECK_HAS(r.err, "parsing [");
	CHECK_HAS(r.err, "t.cfg:66] : too many groups in userlist 'L' (at most 64).");
	ul = userlist_find("L");
	CHECK(userlist_user_in_groups(ul, "u", 1,
				      userlist_group_mask(ul, "g63", err, sizeof(err))));
	CHECK(userlist_group_mask(ul, "g63", err, sizeof(err)) == 1ULL << 63);
	CHECK_STR(userlist_first_group(ul, "u", 1), "g63");
	ult_cleanup();
}

TEST(userlist_cfg_messages)
{
	struct ult_run r;

	ult_setup();
	ult_load("userlist L1\n"		     /* 1 */
		 "  user a\n"			     /* 2 */
		 "  user\n"			     /* 3 */
		 "  group\n"			     /* 4 */
		 "  user f foo bar\n"		     /* 5 */
		 "  group I foo\n"		     /* 6 */
		 "  bogus kw\n"			     /* 7 */
		 "  user g password $9$abc\n"	     /* 8 */
		 "  stats enable\n"		     /* 9 */
		 "userlist\n"			     /* 10 */
		 "  user lost insecure-password x\n" /* 11 */
		 "userlist L2 extra\n"		     /* 12 */
		 "userlist L3\n"		     /* 13 */
		 "  user d groups\n"		     /* 14 */
		 "  group E users\n",		     /* 15 */
		 &r);
	CHECK_HAS(r.err, "/t.cfg:3] : 'user' expects <name> as arguments.");
	CHECK_HAS(r.err, "/t.cfg:4] : 'group' expects <name> as arguments.");
	CHECK_HAS(r.err, "/t.cfg:5] : 'user' only supports 'password', 'insecure-password' and "
			 "'groups' options.");
	CHECK_HAS(r.err, "/t.cfg:6] : 'group' only supports 'users' option.");
	CHECK_HAS(r.err, "/t.cfg:7] : unknown keyword 'bogus' in 'userlist' section");
#ifdef USE_LIBCRYPT
	CHECK_HAS(r.err, "[WARNING]");
	CHECK_HAS(r.err, "/t.cfg:8] : the encrypted password used for user 'g' is not supported "
			 "by crypt(3).");
	CHECK_INT(r.warnings, 1);
	CHECK_INT(r.errors, 8);
#else
	CHECK_HAS(r.err, "/t.cfg:8] : encrypted passwords are not supported: this binary was "
			 "built without USE_LIBCRYPT (user 'g').");
	CHECK_INT(r.warnings, 0);
	CHECK_INT(r.errors, 9);
#endif
	/* a proxy keyword is unknown here, not "not supported yet" */
	CHECK_HAS(r.err, "/t.cfg:9] : unknown keyword 'stats' in 'userlist' section");
	CHECK_HAS(r.err, "/t.cfg:10] : 'userlist' expects <name> as arguments.");
	CHECK_HAS(r.err, "/t.cfg:12] : 'userlist' cannot handle unexpected argument 'extra'.");
	CHECK(strstr(r.err, "t.cfg:11") == NULL); /* the broken section's lines are skipped */
	CHECK(strstr(r.err, "t.cfg:14") == NULL); /* empty lists are accepted, as HAProxy */
	CHECK(strstr(r.err, "t.cfg:15") == NULL);
	CHECK(strstr(r.err, "t.cfg:2]") == NULL);
	CHECK(userlist_find("L2") == NULL);
	CHECK(userlist_find("L3") != NULL);
	ult_cleanup();
}

TEST(userlist_duplicates)
{
	const struct userlist *ul;
	struct ult_run r;
	char err[128];

	ult_setup();
	ult_load("userlist L1\n"
		 "  group G1 users tiger\n"
		 "  user tiger insecure-password first\n"
		 "  user tiger insecure-password second\n"
		 "  group G1 users scott\n"
		 "userlist L2\n"
		 "userlist L1\n"
		 "  user scott insecure-password elgato\n",
		 &r);
	CHECK_INT(r.errors, 0);
	CHECK_INT(r.warnings, 3);
	CHECK_INT(r.check, 0);
	CHECK_HAS(r.err, "[WARNING]");
	CHECK_HAS(r.err, "/t.cfg:4] : ignoring duplicated user 'tiger' in userlist 'L1'.");
	CHECK_HAS(r.err, "/t.cfg:5] : ignoring duplicated group 'G1' in userlist 'L1'.");
	CHECK_HAS(r.err, "/t.cfg:7] : ignoring duplicated userlist 'L1'.");
	ul = userlist_find("L1");
	CHECK(ult_ok(ul, "tiger", "first"));
	CHECK(!ult_ok(ul, "tiger", "second"));
	/* the second section's lines go to the first one */
	CHECK(ult_ok(ul, "scott", "elgato"));
	CHECK(!userlist_user_in_groups(ul, "scott", 5, userlist_group_mask(ul, "G1", err, 128)));
	ult_cleanup();
}

TEST(userlist_check_unresolved)
{
	struct ult_run r;

	ult_setup();
	ult_load("userlist L1\n"
		 "  group G1 users tiger,ghost\n"
		 "  user tiger insecure-password t groups G1,G3,,G4\n"
		 "userlist L2\n"
		 "  user ok insecure-password t\n",
		 &r);
	CHECK_INT(r.check, 3);
	CHECK_INT(r.errors, 3);
	CHECK_HAS(r.err, "parsing [");
	CHECK_HAS(r.err, "t.cfg:3] : userlist 'L1': no such group 'G3' specified in user 'tiger'");
	CHECK_HAS(r.err, "t.cfg:3] : userlist 'L1': no such group 'G4' specified in user 'tiger'");
	CHECK_HAS(r.err, "t.cfg:2] : userlist 'L1': no such user 'ghost' specified in group 'G1'");
	ult_cleanup();
}

#ifdef USE_LIBCRYPT
/* Threads check passwords concurrently, each with its own crypt_r() work area (freed at
 * its exit: the leak checker of unit-asan watches that).
 */
struct ult_thr {
	const struct userlist *ul;
	int bad;
};

static void *ult_thread(void *arg)
{
	struct ult_thr *t = arg;
	int i;

	for (i = 0; i < 20; i++) {
		if (!ult_ok(t->ul, "md5", "pw") || ult_ok(t->ul, "md5", "px") ||
		    !ult_ok(t->ul, "sha", "pw") || !ult_ok(t->ul, "plain", "pw"))
			t->bad++;
	}
	return NULL;
}

TEST(userlist_threads)
{
	char cfg[1024], h1[128], h2[128];
	struct ult_thr t[4];
	pthread_t th[4];
	struct ult_run r;
	int i;

	ult_setup();
	CHECK(ult_hash("pw", "$1$abcdefgh$", h1, sizeof(h1)));
	CHECK(ult_hash("pw", "$5$rounds=1000$abcdefgh$", h2, sizeof(h2)));
	snprintf(cfg, sizeof(cfg),
		 "userlist L\n  user md5 password %s\n  user sha password %s\n"
		 "  user plain insecure-password pw\n",
		 h1, h2);
	ult_load(cfg, &r);
	CHECK_INT(r.errors, 0);
	for (i = 0; i < 4; i++) {
		t[i].ul = userlist_find("L");
		t[i].bad = 0;
		CHECK(pthread_create(&th[i], NULL, ult_thread, &t[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(t[i].bad, 0);
	}
	ult_cleanup();
}

#endif /* USE_LIBCRYPT */

/* Decodes <hdr>; on success checks the user and password it gives. */
static int ult_basic(const char *hdr, size_t bufsz, const char *user, const char *pass,
		     size_t passlen)
{
	struct ist u = { NULL, 0 }, p = { NULL, 0 };
	char buf[256];
	int ret;

	ret = userlist_basic_decode(hdr, strlen(hdr), buf, bufsz, &u, &p);
	if (ret == 0 && user) {
		if (u.len != strlen(user) || memcmp(u.ptr, user, u.len) != 0 || p.len != passlen ||
		    memcmp(p.ptr, pass, passlen) != 0)
			return -2;
	}
	return ret;
}

TEST(userlist_basic_decode)
{
	/* "Aladdin:open sesame" (RFC 7617's example) */
	CHECK_INT(
		ult_basic("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", 256, "Aladdin", "open sesame", 11),
		0);
	CHECK_INT(
		ult_basic("basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==", 256, "Aladdin", "open sesame", 11),
		0);
	CHECK_INT(ult_basic("BASIC \t QWxhZGRpbjpvcGVuIHNlc2FtZQ== \t", 256, "Aladdin",
			    "open sesame", 11),
		  0);
	/* padding may be left out */
	CHECK_INT(ult_basic("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ", 256, "Aladdin", "open sesame", 11),
		  0);
	/* "u:" "a:" ":p" "u:p:q" "u:\0x" */
	CHECK_INT(ult_basic("Basic dTo=", 256, "u", "", 0), 0);
	CHECK_INT(ult_basic("Basic OnA=", 256, "", "p", 1), 0);
	CHECK_INT(ult_basic("Basic dTpwOnE=", 256, "u", "p:q", 3), 0);
	CHECK_INT(ult_basic("Basic dToAeA==", 256, "u", "\0x", 2), 0);
	/* exactly fits: "u:pw" is 4 bytes */
	CHECK_INT(ult_basic("Basic dTpwdw==", 4, "u", "pw", 2), 0);
	CHECK_INT(ult_basic("Basic dTpwdw==", 3, NULL, NULL, 0), -1);
	/* not Basic, or malformed */
	CHECK_INT(ult_basic("Bearer dTpwdw==", 256, NULL, NULL, 0), -1);
	CHECK_INT(ult_basic("Basic", 256, NULL, NULL, 0), -1);
	CHECK_INT(ult_basic("Basic ", 256, NULL, NULL, 0), -1);
	CHECK_INT(ult_basic("BasicdTpwdw==", 256, NULL, NULL, 0), -1);
	CHECK_INT(ult_basic("Basics dTpwdw==", 256, NULL, NULL, 0), -1);
	CHECK_INT(ult_basic("Basic dXNlcg==", 256, NULL, NULL, 0), -1); /* "user": no ':' */
	CHECK_INT(ult_basic("Basic dTpwdw=", 256, NULL, NULL, 0), -1);	/* bad padding */
	CHECK_INT(ult_basic("Basic dTpwdw===", 256, NULL, NULL, 0), -1);
	CHECK_INT(ult_basic("Basic dTp=wdw=", 256, NULL, NULL, 0), -1); /* '=' inside */
	CHECK_INT(ult_basic("Basic dTpwd", 256, NULL, NULL, 0), -1);	/* 5 digits */
	CHECK_INT(ult_basic("Basic dTp wdw==", 256, NULL, NULL, 0), -1);
	CHECK_INT(ult_basic("Basic dTp-dw==", 256, NULL, NULL, 0), -1); /* base64url */
	CHECK_INT(ult_basic("Basic ====", 256, NULL, NULL, 0), -1);
	/* '+' and '/' digits: ">>>?" then ":" */
	CHECK_INT(ult_basic("Basic Pj4+Pzo=", 256, ">>>?", "", 0), 0);
	CHECK_INT(ult_basic("Basic Pz8/Ojo=", 256, "???", ":", 1), 0);
}
