/* Minimal unit-test framework: TEST(name) defines and registers a test; CHECK* record a
 * failure with its location and go on; the runner (tests/unit/main.c) prints
 * "N passed, N failed" and exits non-zero on any failure.
 */
#ifndef TESTS_UNIT_TEST_H
#define TESTS_UNIT_TEST_H

#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	const char *file;
	void (*fn)(void);
	struct unit_test *next;
};

void test_register(struct unit_test *t);
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes <text> to <dir>/<name>; records a failure when the file cannot be created. */
void test_write_file(const char *dir, const char *name, const char *text);

/* Creates a fresh temporary directory "/tmp/hapx-<tag>-XXXXXX" into dir[0..64). */
void test_tmpdir(char *dir, const char *tag);
/* Removes it and everything in it. */
void test_rmdir(const char *dir);

/* Sends stderr into <dir>/stderr.txt until test_capture_end(), which puts what was
 * written (NUL-terminated, truncated to outsz - 1) into <out>. */
int test_capture_begin(const char *dir);
void test_capture_end(int saved, const char *dir, char *out, size_t outsz);

/* Fails unless <buf> contains <s>, printing <buf>. */
#define CHECK_HAS(buf, s)                                                        \
	do {                                                                     \
		if (!strstr((buf), (s)))                                         \
			test_fail(__FILE__, __LINE__, "output lacks \"%s\":\n%s", (s), (buf)); \
	} while (0)

#define TEST(tname)                                                              \
	static void test_##tname(void);                                          \
	static struct unit_test utest_##tname = { #tname, __FILE__, test_##tname, 0 }; \
	__attribute__((constructor)) static void reg_##tname(void)               \
	{                                                                        \
		test_register(&utest_##tname);                                   \
	}                                                                        \
	static void test_##tname(void)

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond))                                                     \
			test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);       \
	} while (0)

#define CHECK_INT(a, b)                                                          \
	do {                                                                     \
		long long _a = (long long)(a), _b = (long long)(b);              \
		if (_a != _b)                                                    \
			test_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", \
				  #a, _a, #b, _b);                               \
	} while (0)

#define CHECK_STR(a, b)                                                          \
	do {                                                                     \
		const char *_a = (a), *_b = (b);                                 \
		if (!_a || !_b || strcmp(_a, _b) != 0)                           \
			test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", \
				  #a, _a ? _a : "(null)", _b ? _b : "(null)");   \
	} while (0)

#endif
