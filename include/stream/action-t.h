/* Types of http-request / http-response rules (the actions of the foundation; conditions
 * come with the ACL engine).
 */
#ifndef STREAM_ACTION_T_H
#define STREAM_ACTION_T_H

#include <stdint.h>
#include <base/ist.h>
#include <base/list.h>

enum act_type {
	ACT_RETURN = 0,   /* http-request return */
	ACT_DENY,         /* http-request/response deny */
	ACT_SET_HDR,      /* set-header NAME VALUE */
	ACT_ADD_HDR,      /* add-header NAME VALUE */
	ACT_DEL_HDR,      /* del-header NAME */
};

/* An extra header of a "return" action ("hdr NAME VALUE"). */
struct act_hdr {
	struct ist name;
	struct ist value;
};

struct act_rule {
	struct list list;         /* member of proxy->http_req_rules / http_res_rules */
	enum act_type type;
	char *file;
	int line;
	int status;               /* return/deny: status code (return default 200, deny 403) */
	struct ist name;          /* header name (set/add/del-header) */
	struct ist value;         /* header value (set/add-header), a plain string */
	/* return: complete response, built at config check time by the action code: status
	 * line, headers (content-type, content-length, extra hdrs), then the body. */
	struct ist content_type;  /* return: content-type, or empty */
	struct ist body;          /* return: body from "string" or "file" (owned) */
	struct act_hdr *hdrs;     /* return: extra headers */
	int nb_hdrs;
};

#endif
