/* The runtime API ("stats socket"): sockets declared in the global section, served by
 * thread 0's event loop; a line protocol of ';'-separated commands, interactive "prompt"
 * mode, and commands registered by the modules that own the data.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stddef.h>
#include <cli/cli-t.h>

/* Binds every "stats socket" (before the daemon fork and before threads start). Returns
 * 0, or -1 after printing an alert naming the socket. */
int cli_bind_all(void);

/* After thread_cfg_check(): checks what depends on the threads ("stats socket ...
 * thread"). Returns the number of errors (alerts printed). */
int cli_cfg_check(void);

/* Thread 0, once its loop exists: registers the CLI sockets in its poller. 0 or -1. */
int cli_start(void);

/* Stops accepting CLI connections and closes the sockets (graceful and hard stop). */
void cli_stop(void);

/* Registers a table of commands (from a constructor: see CLI_REGISTER_KWS). */
void cli_register_kws(struct cli_kw_list *kwl);

#define CLI_REGISTER_KWS(tbl)                                                      \
	static struct cli_kw_list tbl##_list = { NULL, tbl };                      \
	__attribute__((constructor)) static void tbl##_register(void)              \
	{                                                                          \
		cli_register_kws(&tbl##_list);                                     \
	}

/* The command whose words start <args> (the longest match), NULL if none. Other modules
 * use it to run a registered command with a cli_ctx of their own (the stats page runs
 * "show stat" and "set server" this way). */
const struct cli_kw *cli_kw_find(char **args, int nargs);

/* Output of a handler: appends all of the text or nothing. Returns 0, or -1 when it does
 * not fit in the room left (the handler then returns CLI_MORE and writes it next time).
 */
int cli_write(struct cli_ctx *ctx, const char *s, size_t len);
int cli_printf(struct cli_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* CLI sessions open now (thread 0 only), and accepted since start (any thread). */
int cli_sessions(void);
unsigned long long cli_cum_sessions(void);
/* Bound "stats socket" listeners. */
int cli_listeners(void);
/* "stats socket" lines of the configuration (bound or not). */
int cli_configured(void);

/* Master-worker: the worker's end of its socketpair with the master (called in the
 * worker after the fork, before the threads start). The master sends one connected
 * socket per forwarded command over it; each is served as an admin-level session.
 */
void cli_master_link_set(int fd);

/* Master re-exec: appends ",FD:0" entries (LFDS_ENV format) for the bound inet "stats
 * socket"s to the NUL-terminated list in out[0..outsz) and clears their FD_CLOEXEC; the
 * new image adopts them instead of binding again. Returns 0, or -1 when it does not fit.
 */
int cli_export_fds(char *out, size_t outsz);

/* Time the process started (wall clock, seconds) and its uptime in milliseconds. */
long long cli_start_time(void);
unsigned long long cli_uptime_ms(void);

/* Pure helpers of the line protocol (exposed for tests).
 * cli_next_cmd: from <line>[<pos>..<len>), finds the end of the next ';'-separated command
 * (a '\;' does not separate). Returns the offset of the separator or <len>.
 * cli_tokenize: splits <cmd> (NUL-terminated, modified in place) into words separated by
 * spaces or tabs; a backslash escapes the next character. Returns the number of words
 * (at most <max>; extra words are dropped) with args[n] = NULL.
 */
size_t cli_next_cmd(const char *line, size_t pos, size_t len);
int cli_tokenize(char *cmd, char **args, int max);

/* "<<" payloads (cli_line.c, pure). cli_payload_mark: <line>[0..len) announces a payload
 * when it ends in " <<" (or is "<<"); returns the length of the command part (trailing
 * blank and "<<" removed), or -1 when it announces none.
 * cli_payload_feed: adds one payload line (without its LF) to <pl>: an empty line ends the
 * payload (CLI_PL_DONE), another is appended with a LF (CLI_PL_MORE); <area> stays
 * NUL-terminated. A line that does not fit sets <overflow>: the payload is then dropped
 * (its lines are still consumed up to the empty line).
 */
struct cli_payload {
	char *area;               /* <size> bytes, owned by the caller */
	size_t size, len;
	int overflow;
};

#define CLI_PL_MORE 0
#define CLI_PL_DONE 1

long cli_payload_mark(const char *line, size_t len);
int cli_payload_feed(struct cli_payload *pl, const char *line, size_t len);

#endif
