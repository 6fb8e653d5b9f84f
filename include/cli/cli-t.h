/* Types of the runtime API: the command keywords that modules register, and the context a
 * command's handler runs with (its words, the session's access level, an output buffer it
 * fills line by line, and a small state kept between calls when the output is full).
 */
#ifndef CLI_CLI_T_H
#define CLI_CLI_T_H

#include <stdint.h>
#include <base/buf-t.h>

#define CLI_MAX_ARGS  64          /* words of one command */
#define CLI_MAX_WORDS 5           /* keyword words ("show servers state") */

/* Access levels ("level" option of "stats socket"); a command states the lowest it needs. */
#define CLI_LVL_USER  1
#define CLI_LVL_OPER  2           /* the default, as in HAProxy */
#define CLI_LVL_ADMIN 3

/* Handler results. */
#define CLI_DONE 0                /* the command has written all of its output */
#define CLI_MORE 1                /* the output buffer is full: call again with <st>, <p>, <n> */
#define CLI_YIELD 2               /* waiting (for other threads): call again on the next loop
				   * turn, whatever room the output buffer has */

/* Flags a handler sets in cli_ctx.flags to act on its session. */
#define CLI_CTX_F_QUIT   0x0001   /* close the session now, without a trailer */
#define CLI_CTX_F_PROMPT 0x0002   /* toggle interactive mode with prompt */

struct cli_ctx {
	char **args;              /* the command's words; args[nargs] is NULL */
	int nargs;
	int level;                /* CLI_LVL_* of the session */
	uint32_t flags;           /* CLI_CTX_F_*, set by the handler */
	struct buf *out;          /* written with cli_write()/cli_printf() only */
	int st;                   /* handler state: 0 on the first call */
	const void *p[2];         /* handler cursors (proxy, server ...) */
	uint64_t n[2];            /* handler counters */
	/* seamless reload (conn/listener_fds) */
	int fd;                   /* the session's socket when its "stats socket" has
				   * "expose-fd listeners", else -1 */
	/* "<<" payload: the lines after the command up to an empty line, each ending in LF;
	 * NULL when the command has none. NUL-terminated. */
	char *payload;
	size_t payload_len;
	/* set by a handler holding resources between calls (CLI_MORE, CLI_YIELD): called
	 * when the session ends before the handler returned CLI_DONE */
	void (*release)(struct cli_ctx *ctx);
};

/* One command. <usage> and <help> form its line of "help" ("  %-40s: %s", or the usage
 * alone without help, as Lua commands show); a NULL usage hides it. The handler returns CLI_DONE or CLI_MORE.
 */
struct cli_kw {
	const char *words[CLI_MAX_WORDS]; /* NULL-terminated unless all are used */
	const char *usage;
	const char *help;
	int level;                /* lowest CLI_LVL_* allowed to run it */
	int (*fn)(struct cli_ctx *ctx);
};

struct cli_kw_list {
	struct cli_kw_list *next;
	const struct cli_kw *kws; /* terminated by an entry whose words[0] is NULL */
};

#endif
