/* Config-time API of the "userlist" sections (parsed by stream/userlist_cfg.c): the
 * post-parse check that resolves the group and user names of each userlist.
 */
#ifndef STREAM_USERLIST_CFG_H
#define STREAM_USERLIST_CFG_H

/* Resolves the "groups" of each user and the "users" of each group, printing an alert at
 * the line of each name that does not exist, and makes the userlists ready for the runtime
 * lookups. Returns the number of errors. Runs once after parsing, single-threaded, before
 * anything resolves a userlist's groups.
 */
int userlist_cfg_check(void);

#endif
