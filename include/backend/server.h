/* Server runtime state per thread: idle (reusable) connections. */
#ifndef BACKEND_SERVER_H
#define BACKEND_SERVER_H

#include <base/compiler.h>
#include <base/list.h>
#include <backend/server-t.h>

#define SRV_MAX_IDLE_PER_THREAD 1024

/* Only touched by its thread. */
struct srv_per_thread {
	struct list idle;         /* struct conn, most recently parked first */
	int nb_idle;
} ALIGNED_CL;

#endif
