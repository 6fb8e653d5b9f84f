/* Version and build facts: the "-v"/"-vv" output in HAProxy's layout, and the facts that
 * "-cc" and ".if" conditions test (version, built-in features, TLS library). Owns nothing
 * else: the condition evaluator itself lives in cfg/cond.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <base/compiler.h>
#include <comp/comp.h>
#include <base/tinfo.h>
#include <proc/version.h>
#include <thread/thread_cfg.h>

#ifdef USE_OPENSSL
#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#endif
#ifdef USE_LUA
#include <lua.h>
#endif
#ifdef USE_ZLIB
#include <zlib.h>
#endif
#ifdef USE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif

#ifndef BUILD_VERSION
#define BUILD_VERSION "dev"
#endif
#ifndef BUILD_CC
#define BUILD_CC "cc"
#endif
#ifndef BUILD_CFLAGS
#define BUILD_CFLAGS ""
#endif
#ifndef BUILD_OPTIONS
#define BUILD_OPTIONS ""
#endif
#ifndef BUILD_CPU
#define BUILD_CPU "generic"
#endif

#define PRODUCT_DATE "2026/11/22"     /* release date of this project's VERSION */
#define PRODUCT_URL  "https://haproxy.org/"

#define STR_(x) #x
#define STR(x) STR_(x)

/* One entry of the feature list; <on> reflects the USE_* macros this object was built with. */
struct version_feature {
	const char *name;
	bool on;
};

/* Sorted by name, as HAProxy prints them. Features HAProxy knows that we do not provide
 * are listed with on = false so that "feature(X)" answers false instead of being unknown.
 */
static const struct version_feature version_features[] = {
	{ "51DEGREES", false },
	{ "DEVICEATLAS", false },
	{ "EPOLL", true },
	{ "EVPORTS", false },
	{ "KQUEUE", false },
#ifdef USE_LIBCRYPT
	{ "LIBCRYPT", true },
#else
	{ "LIBCRYPT", false },
#endif
	{ "LINUX_SPLICE", false },
	{ "LINUX_TPROXY", false },
#ifdef USE_LUA
	{ "LUA", true },
#else
	{ "LUA", false },
#endif
	{ "MEMORY_PROFILING", false },
#ifdef USE_OPENSSL
	{ "OPENSSL", true },
#else
	{ "OPENSSL", false },
#endif
	{ "OT", false },
	{ "PCRE", false },
#ifdef USE_PCRE2
	{ "PCRE2", true },
#else
	{ "PCRE2", false },
#endif
#if defined(USE_PCRE2) && defined(USE_PCRE2_JIT)
	{ "PCRE2_JIT", true },
#else
	{ "PCRE2_JIT", false },
#endif
	{ "PCRE_JIT", false },
	{ "POLL", false },
	{ "PROMEX", true }, /* stats/promex.c, always built */
	{ "QUIC", false },
	{ "SLZ", false },
	{ "STATIC_PCRE", false },
	{ "STATIC_PCRE2", false },
	{ "THREAD", true },
	{ "TPROXY", false },
	{ "WURFL", false },
#ifdef USE_ZLIB
	{ "ZLIB", true },
#else
	{ "ZLIB", false },
#endif
};

/* Prints the lines shared by -v and -vv: version, status, running kernel. */
static void version_print_header(void)
{
	struct utsname uts;

	printf("HAProxy version %s (%s %s) %s - %s\n", HAPROXY_COMPAT_VERSION, PRODUCT_NAME,
	       BUILD_VERSION, PRODUCT_DATE, PRODUCT_URL);
	printf("Status: development branch - not safe for use in production.\n");
	if (uname(&uts) == 0)
		printf("Running on: %s %s %s %s\n", uts.sysname, uts.release, uts.version,
		       uts.machine);
}

static void version_print_build(void)
{
	size_t i;

	printf("Build options :\n");
	printf("  TARGET  = linux-glibc\n");
	printf("  CPU     = %s\n", BUILD_CPU);
	printf("  CC      = %s\n", BUILD_CC);
	printf("  CFLAGS  = %s\n", BUILD_CFLAGS);
	printf("  OPTIONS = %s\n", BUILD_OPTIONS);
	printf("  DEBUG   = \n\n");

	printf("Feature list :");
	for (i = 0; i < ARRAY_SIZE(version_features); i++)
		printf(" %c%s", version_features[i].on ? '+' : '-', version_features[i].name);
	printf("\n\n");

	printf("Default settings :\n");
	printf("  bufsize = 16384, maxrewrite = 1024, maxpollevents = 200\n\n");
}

/* Library versions, each compiled only when the library is linked. */
static void version_print_libs(void)
{
	printf("Built with multi-threading support (MAX_TGROUPS=%d, MAX_THREADS=%d, default=%d).\n",
	       MAX_TGROUPS, MAX_THREADS, thread_default_nbthread());
#ifdef USE_OPENSSL
	printf("Built with OpenSSL version : %s\n", OPENSSL_VERSION_TEXT);
	printf("Running on OpenSSL version : %s\n", OpenSSL_version(OPENSSL_VERSION));
#endif
#ifdef USE_LUA
	printf("Built with Lua version : %s\n", LUA_RELEASE);
#endif
	printf("Built with the Prometheus exporter as a service\n");
#ifdef USE_ZLIB
	printf("Built with zlib version : %s\n", ZLIB_VERSION);
	printf("Running on zlib version : %s\n", zlibVersion());
#else
	printf("Built without compression support (neither USE_ZLIB nor USE_SLZ are set).\n");
#endif
	printf("%s\n", comp_algos_line()); /* comp/comp_algo.c */
#ifdef USE_PCRE2
	{
		char ver[64] = "";
		uint32_t jit = 0;

		pcre2_config(PCRE2_CONFIG_VERSION, ver);
		printf("Built with PCRE2 version : %d.%d %s\n", PCRE2_MAJOR, PCRE2_MINOR,
		       STR(PCRE2_DATE));
		printf("Running on PCRE2 version : %s\n", ver);
#ifdef USE_PCRE2_JIT
		pcre2_config(PCRE2_CONFIG_JIT, &jit);
		printf("PCRE2 library supports JIT : %s\n",
		       jit ? "yes" : "no (libpcre2 built without JIT)");
#else
		(void)jit;
		printf("PCRE2 library supports JIT : no (USE_PCRE2_JIT not set)\n");
#endif
	}
#endif
#if defined(__clang__)
	printf("Built with clang compiler version %s\n", __clang_version__);
#elif defined(__GNUC__)
	printf("Built with gcc compiler version %s\n", __VERSION__);
#endif
	printf("\n");
}

static void version_print_runtime(void)
{
	printf("Available polling systems :\n");
	printf("      epoll : pref=300,  test result OK\n");
	printf("Total: 1 (1 usable), will use epoll.\n\n");

	printf("Available multiplexer protocols :\n");
	printf("(protocols marked as <default> cannot be specified using 'proto' keyword)\n");
	printf(" %10s : mode=%-5s side=%-6s mux=%-5s flags=%s\n", "h1", "HTTP", "FE|BE", "H1", "");
	printf("\n");
	printf("Available services : prometheus-exporter\n"); /* stats/promex.c */
	printf("Available filters : none\n");
}

/* Prints "-v" (verbose false) or "-vv" (verbose true) to stdout. */
void version_print(bool verbose)
{
	version_print_header();
	if (!verbose)
		return;
	version_print_build();
	version_print_libs();
	version_print_runtime();
}

/* Space-separated names of the built-in features, built once. */
static const char *version_feature_names(void)
{
	static char names[512];
	size_t i, len = 0;

	if (names[0])
		return names;
	for (i = 0; i < ARRAY_SIZE(version_features); i++) {
		int n;

		if (!version_features[i].on)
			continue;
		n = snprintf(names + len, sizeof(names) - len, "%s%s", len ? " " : "",
			     version_features[i].name);
		if (n < 0 || (size_t)n >= sizeof(names) - len)
			break;
		len += n;
	}
	return names;
}

static bool version_env_defined(const char *name)
{
	return getenv(name) != NULL;
}

/* Runtime switches; none can be turned off yet, so only the ones always on are true. */
static bool version_enabled(const char *name)
{
	return strcmp(name, "EPOLL") == 0 || strcmp(name, "THREAD") == 0;
}

#ifdef USE_OPENSSL
/* Running OpenSSL version as "X.Y.Z" (the second word of "OpenSSL X.Y.Z date"). */
static const char *version_ssl_number(void)
{
	static char num[32];
	const char *txt = OpenSSL_version(OPENSSL_VERSION);
	const char *sp = strchr(txt, ' ');
	size_t len;

	if (num[0])
		return num;
	txt = sp ? sp + 1 : txt;
	len = strcspn(txt, " ");
	if (len >= sizeof(num))
		len = sizeof(num) - 1;
	memcpy(num, txt, len);
	num[len] = '\0';
	return num;
}
#endif

/* Facts for cond_eval(): static storage, filled on first call (single-threaded startup). */
const struct cond_facts *version_cond_facts(void)
{
	static struct cond_facts facts;

	facts.version = HAPROXY_COMPAT_VERSION;
	facts.features = version_feature_names();
#ifdef USE_OPENSSL
	facts.ssl_version = version_ssl_number();
	facts.ssl_name = "OpenSSL";
#else
	facts.ssl_version = NULL;
	facts.ssl_name = NULL;
#endif
	facts.defined = version_env_defined;
	facts.enabled = version_enabled;
	return &facts;
}
