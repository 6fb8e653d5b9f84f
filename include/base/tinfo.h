/* The calling thread's identity, the lowest piece of per-thread state: its id (0-based)
 * and its group id (1-based). Set once by the thread layer when a thread starts.
 */
#ifndef BASE_TINFO_H
#define BASE_TINFO_H

#define MAX_THREADS 64
#define MAX_TGROUPS 16

extern __thread unsigned int tid;   /* 0..MAX_THREADS-1 */
extern __thread unsigned int tgid;  /* 1..MAX_TGROUPS */

#endif
