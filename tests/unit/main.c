/* Unit-test runner: runs every registered test (optionally only those whose name contains
 * argv[1]) and ends on "N passed, N failed".
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
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

void test_tmpdir(char *dir, const char *tag)
{
	snprintf(dir, 64, "/tmp/hapx-%s-XXXXXX", tag);
	if (!mkdtemp(dir))
		test_fail(__FILE__, __LINE__, "mkdtemp failed for %s", dir);
}

void test_rmdir(const char *dir)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		test_fail(__FILE__, __LINE__, "cannot remove %s", dir);
}

int test_capture_begin(const char *dir)
{
	char cap[128];
	int fd, saved;

	snprintf(cap, sizeof(cap), "%s/stderr.txt", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(cap, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		test_fail(__FILE__, __LINE__, "cannot create %s", cap);
		return saved;
	}
	dup2(fd, 2);
	close(fd);
	return saved;
}

void test_capture_end(int saved, const char *dir, char *out, size_t outsz)
{
	char cap[128];
	ssize_t n = 0;
	int fd;

	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	snprintf(cap, sizeof(cap), "%s/stderr.txt", dir);
	fd = open(cap, O_RDONLY);
	if (fd >= 0) {
		n = read(fd, out, outsz - 1);
		close(fd);
	}
	out[n > 0 ? n : 0] = '\0';
	unlink(cap);
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
