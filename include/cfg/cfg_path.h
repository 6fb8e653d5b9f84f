/* "default-path": the directory relative paths of the configuration are read from while
 * it is parsed (HAProxy's current|config|parent|origin), applied as HAProxy does by
 * changing the working directory during parsing only.
 */
#ifndef CFG_CFG_PATH_H
#define CFG_CFG_PATH_H

/* Goes back to the directory haproxy was started in (after -C): before opening each
 * configuration file (its path is relative to it) and once every file is parsed.
 * Returns 0, or -1 after an alert.
 */
int cfg_path_reset(void);

/* Applies the current default-path mode for the configuration file <path> just opened:
 * its directory ("config"), the parent of it ("parent"), the "origin" directory, or the
 * starting directory. Returns 0, or -1 after an alert.
 */
int cfg_path_enter_file(const char *path);

#endif
