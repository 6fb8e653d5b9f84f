// FUZZ_SRCS: src/base/addr.c src/base/parse.c
/* libFuzzer target for the master CLI's reading of client input (proc/mcli.c, included to
 * reach its session): the input is what a client sent before closing (first byte: prompt
 * mode, the rest the lines), run through mcli_work() as the master loop does. A fake
 * worker (pid 4242, current) has no link, so forwarded commands fail cleanly; "reload"
 * only records its signal. Output is discarded as it is produced.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int fz_kills;

static int fz_kill(pid_t pid, int sig)
{
	(void)pid;
	(void)sig;
	fz_kills++;
	return 0;
}

#define kill fz_kill
#include "../../src/proc/mcli.c"
#undef kill

static struct mworker_proc fz_kids[1] = { { 4242, 1, -1, true, 0, -1 } };
static struct program_proc fz_prg[1] = { { 4343, 0, true, 0, "prg" } };

const struct mworker_proc *mworker_procs(int *n)
{
	*n = 1;
	return fz_kids;
}

const struct program_proc *program_procs(int *n)
{
	*n = 1;
	return fz_prg;
}

void ha_alert(const char *fmt, ...)
{
	(void)fmt;
}

void ha_warning(const char *fmt, ...)
{
	(void)fmt;
}

void ha_notice(const char *fmt, ...)
{
	(void)fmt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcli_sess *s;
	size_t n;

	if (!size)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return 0;
	s->fd = -1;
	s->fwd = -1;
	s->prompt = data[0] & 1;
	s->rd_eof = true;
	n = size - 1 < sizeof(s->in) ? size - 1 : sizeof(s->in);
	memcpy(s->in, data + 1, n);
	s->in_len = n;
	for (int i = 0; i < 100000 && !s->closing; i++) {
		size_t before = s->in_len;

		mcli_work(s);
		if (s->out_len > sizeof(s->out) || s->out_off > s->out_len)
			abort();
		s->out_len = s->out_off = 0; /* the client read everything */
		if (s->fwd >= 0)
			abort(); /* no link: nothing can be forwarded */
		if (s->in_len == before && !s->closing)
			abort(); /* no progress: a session would hang */
	}
	free(s);
	return 0;
}
