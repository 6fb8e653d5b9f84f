/* Lua scripting (src/lua/): what the rest of the process calls. The states are created
 * and the scripts loaded while the configuration is parsed (lua-load); the rest is
 * driven from here: the check phase, the start of the runtime, each thread's start and
 * stop, and the release at exit.
 */
#ifndef LUA_HLUA_H
#define LUA_HLUA_H

#include <stdbool.h>

/* True when a Lua file was loaded. */
bool hlua_configured(void);
/* Check phase: creates and loads the states of lua-load-per-thread for threads 2 and
 * up. Returns the number of errors (alerts printed). */
int hlua_cfg_check(void);
/* Runtime start (not with -c): runs the functions of core.register_init. Returns 0 or
 * -1 after an alert. */
int hlua_runtime_init(void);
/* Each thread, before its loop runs / after it ended: starts (stops) the tasks of
 * core.register_task that run on it. Returns 0 or -1. */
int hlua_thread_start(void);
void hlua_thread_stop(void);
/* Releases every state (at exit). */
void hlua_deinit(void);

#endif
