/* Changes of map and ACL files made by traffic (http-request/http-response add-acl,
 * del-acl, set-map, del-map; map_act.c): each is one locked change as the runtime API makes
 * it, callable from any loop thread. The reference is found by its file name at run time,
 * as HAProxy 2.6 does: a file no map converter or ACL loaded is not changed.
 */
#ifndef SAMPLE_MAP_ACT_H
#define SAMPLE_MAP_ACT_H

#include <stdbool.h>

/* The reference of map or ACL file <path>, or NULL. Any thread (references are created at
 * config time only). */
struct map_ref *map_act_find(const char *path);

/* Adds pattern <key> to <r> unless an entry of the current version has it already. A
 * pattern one of the file's users cannot take is ignored. */
void map_act_add_acl(struct map_ref *r, const char *key);
/* Removes every entry of <key> (current version). */
void map_act_del(struct map_ref *r, const char *key);
/* Sets the value of every entry of <key>, or adds the entry when there is none. A value
 * one of the file's maps cannot take (not a number for map_str_int...) is ignored. */
void map_act_set(struct map_ref *r, const char *key, const char *value);

#endif
