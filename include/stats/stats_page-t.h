/* Types of the stats page settings of a proxy ("stats" keywords): built by
 * stats/stats_page_cfg.c, read-only once the configuration is checked.
 */
#ifndef STATS_STATS_PAGE_T_H
#define STATS_STATS_PAGE_T_H

#include <stdint.h>
#include <base/list.h>

struct proxy;
struct acl_cond;

#define STATS_DEFAULT_URI "/haproxy?stats"
#define STATS_DEFAULT_REALM "HAProxy Statistics"

/* stats_cfg->flags */
#define ST_F_HIDEVER 0x01 /* stats hide-version */
#define ST_F_LEGENDS 0x02 /* stats show-legends */
#define ST_F_NODE 0x04	  /* stats show-node */
#define ST_F_DESC 0x08	  /* stats show-desc */

struct stats_cfg {
	struct proxy *owner; /* the section that allocated it (frees it) */
	char *uri;	     /* the prefix that selects the page */
	char *realm;	     /* NULL: STATS_DEFAULT_REALM */
	char **users;	     /* "user:password" of "stats auth", <nb_users> */
	int nb_users;
	int refresh;	/* seconds, 0: none */
	uint32_t flags; /* ST_F_* */
	char *node;	/* show-node NAME, NULL: the global node name */
	char *desc;	/* show-desc TEXT, NULL: the global description */
	char **scope;	/* proxy names shown (stats scope), none: all */
	int nb_scope;
	struct acl_cond *admin; /* stats admin if/unless COND, NULL: read-only */
	struct list rules;	/* stats http-request rules (allow, deny, auth) */
};

#endif
