/* Types of what the HTTP rule layers of stream/ attach to a proxy (proxy->rules_ext):
 * header and cookie captures, the unique-id format and header, "monitor fail"
 * conditions, the legacy "redirect" rules and the error-message lines (errorfiles,
 * http-error) resolved at check time. Built at config time, read-only at run time.
 */
#ifndef STREAM_PX_EXT_T_H
#define STREAM_PX_EXT_T_H

#include <stdint.h>
#include <base/ist.h>
#include <base/list.h>

struct acl_cond;
struct lf_expr;
struct http_reply;

/* One capture slot of a frontend: "capture request|response header NAME len N" (named),
 * "http-request capture ... len N" or "declare capture request|response len N" (unnamed,
 * filled by rules). Slots are numbered in declaration order, per direction. */
struct cap_slot {
	struct ist hdr; /* header name (owned), empty for a slot filled by rules */
	uint32_t len;	/* bytes kept */
	uint32_t off;	/* offset of its bytes in a stream's capture area (check) */
};

/* px_err_conf->type */
#define ERRC_FILES 1 /* errorfiles NAME [CODE...] */
#define ERRC_REPLY 2 /* http-error status N ... */

/* An error-message line resolved at check time (its section may be declared after it).
 * <seq> orders it against the "errorfile" lines (struct errorfile.seq). */
struct px_err_conf {
	struct list list; /* member of px_rules_ext->err_conf, line order */
	uint8_t type;	  /* ERRC_* */
	uint32_t seq;
	char *section;		  /* ERRC_FILES: the http-errors section name (owned) */
	uint32_t codes;		  /* ERRC_FILES: bits of http_err_codes[] listed, 0 = all */
	int status;		  /* ERRC_REPLY */
	struct http_reply *reply; /* ERRC_REPLY (owned) */
	char *file;		  /* owned */
	int line;
};

struct px_rules_ext {
	/* captures: frontend side only */
	struct cap_slot *req_cap;
	uint16_t nb_req_cap;
	struct cap_slot *res_cap;
	uint16_t nb_res_cap;
	char *cookie_name;   /* capture cookie NAME (owned), NULL when none */
	uint32_t cookie_len; /* capture cookie ... len N (at most 63) */
	uint32_t cap_size;   /* bytes a stream's captures take (computed at check) */

	/* unique-id-format / unique-id-header */
	struct lf_expr *uid_fmt; /* owned, NULL when not set */
	struct ist uid_hdr;	 /* owned, empty when not set */

	/* monitor fail if|unless COND: the monitor-uri answers 503 when one holds */
	struct acl_cond **monitor_fail;
	int nb_monitor_fail;

	struct list redirects; /* legacy "redirect" rules (struct act_rule), run after the
				* proxy's http-request rules */
	struct list err_conf;  /* struct px_err_conf */
};

#endif
