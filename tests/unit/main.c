/* Unit-test runner: runs every registered test (optionally only those whose name contains
 * argv[1]) and ends on "N passed, N failed".
 */
#include <stdarg.h>
#include <stdlib.h>
#include "test.h"

static struct unit_test *tests;
static int cur_failed;

void test_register(struct unit_test *t)
{
	t->next = tests;
	tests = t;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "  FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_failed = 1;
}

void test_write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		test_fail(__FILE__, __LINE__, "cannot create %s", path);
		return;
	}
	fputs(text, f);
	fclose(f);
}

int main(int argc, char **argv)
{
	struct unit_test *rev = NULL, *t, *next;
	int passed = 0, failed = 0;

	for (t = tests; t; t = next) { /* registration order was reversed */
		next = t->next;
		t->next = rev;
		rev = t;
	}
	for (t = rev; t; t = t->next) {
		if (argc > 1 && !strstr(t->name, argv[1]))
			continue;
		cur_failed = 0;
		t->fn();
		if (cur_failed) {
			failed++;
			fprintf(stderr, "FAILED %s (%s)\n", t->name, t->file);
		} else {
			passed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
