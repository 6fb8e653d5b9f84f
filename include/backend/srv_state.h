/* Server state files: what "show servers state" writes (version 1), read back at startup
 * ("server-state-file", "load-server-state-from-file"). The parser is pure (views into the
 * caller's buffer, no allocation, no I/O); srv_state_load_all() reads the files and
 * applies them before the load-balancing state is built.
 */
#ifndef BACKEND_SRV_STATE_H
#define BACKEND_SRV_STATE_H

#include <stddef.h>
#include <base/ist.h>

struct server;

#define SRVSTATE_MIN_FIELDS 9  /* up to srv_iweight: what is applied */
#define SRVSTATE_MAX_FIELDS 25 /* version 1 as 2.6 writes it */
#define SRVSTATE_MAX_LINE 4096

/* One data line. Numbers are checked (digits only, in range); names and the address are
 * views into the buffer. */
struct srvstate_rec {
	int be_id;
	struct ist be_name;
	int srv_id;
	struct ist srv_name;
	struct ist srv_addr;
	int op_state;	 /* 0 stopped, 1 starting, 2 running, 3 stopping */
	int admin_state; /* SRVSTATE_ADM_* bits */
	int uweight;	 /* 0..256 */
	int iweight;	 /* 0..256 */
	int nfields;
	int line; /* 1-based line number in the file */
	int port; /* srv_port (field 19) 0..65535, -1 when the line is shorter */
};

#define SRVSTATE_ADM_FMAINT 0x01 /* maintenance forced (CLI) */
#define SRVSTATE_ADM_IMAINT 0x02 /* inherited from a tracked server */
#define SRVSTATE_ADM_CMAINT 0x04 /* "disabled" in the configuration */
#define SRVSTATE_ADM_FDRAIN 0x08 /* drain forced */

/* Parses data line <line>[0..len) (no newline). Returns 1 with *r filled, 0 for a line
 * to skip (empty, comment), -1 for an invalid line. */
int srvstate_parse_line(const char *line, size_t len, struct srvstate_rec *r);

/* Parses a whole file: the version line "1", then data lines, each given to <cb> (which
 * returns 0, or -1 to stop). Invalid lines are counted in *bad and skipped. Returns 0, or
 * -1 for a missing or unknown version (nothing applied). */
int srvstate_parse(const char *buf, size_t len, int (*cb)(void *arg, const struct srvstate_rec *r),
		   void *arg, int *bad);

/* Set by dns/dns_srv_cfg.c: offers <srv> the srv_addr and srv_port (-1: none) of its
 * state line, for "init-addr last" (after the backend applied the port). Start-up only. */
extern void (*srv_ext_state_addr)(struct server *srv, struct ist addr, int port);

/* Reads and applies the state files of every backend that asks for one. At the end of
 * the configuration check (with -c too, as HAProxy), before the LB state. Problems are
 * warnings, as in HAProxy. */
void srv_state_load_all(void);

#endif
