/* The one atomics API of the project: thin wrappers over the __atomic builtins with the
 * memory order spelled out. Counters use the relaxed forms. With -march=armv8.1-a the
 * builtins compile to LSE instructions (ldadd, cas, swp) on aarch64.
 */
#ifndef BASE_ATOMIC_H
#define BASE_ATOMIC_H

#define HA_ATOMIC_LOAD(p)          __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define HA_ATOMIC_LOAD_RLX(p)      __atomic_load_n((p), __ATOMIC_RELAXED)
#define HA_ATOMIC_STORE(p, v)      __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define HA_ATOMIC_STORE_RLX(p, v)  __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define HA_ATOMIC_ADD(p, v)        __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define HA_ATOMIC_SUB(p, v)        __atomic_sub_fetch((p), (v), __ATOMIC_SEQ_CST)
#define HA_ATOMIC_FETCH_ADD(p, v)  __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define HA_ATOMIC_FETCH_SUB(p, v)  __atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST)
#define HA_ATOMIC_INC(p)           HA_ATOMIC_ADD((p), 1)
#define HA_ATOMIC_DEC(p)           HA_ATOMIC_SUB((p), 1)
#define HA_ATOMIC_XCHG(p, v)       __atomic_exchange_n((p), (v), __ATOMIC_ACQ_REL)
#define HA_ATOMIC_CAS(p, oldp, nv) \
	__atomic_compare_exchange_n((p), (oldp), (nv), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
/* Raises the int *p to v when v is larger (relaxed: statistics maxima). A failed CAS
 * reloads a larger value, so the loop ends once *p >= v. */
static inline void ha_atomic_update_max_int(int *p, int v)
{
	int cur = HA_ATOMIC_LOAD_RLX(p);

	while (cur < v &&
	       !__atomic_compare_exchange_n(p, &cur, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}
#define HA_ATOMIC_UPDATE_MAX(p, v) ha_atomic_update_max_int((p), (v))
/* Relaxed counter updates: statistics that only need to add up eventually. */
#define HA_COUNTER_ADD(p, v)       ((void)__atomic_add_fetch((p), (v), __ATOMIC_RELAXED))
#define HA_COUNTER_INC(p)          HA_COUNTER_ADD((p), 1)
#define HA_COUNTER_DEC(p)          ((void)__atomic_sub_fetch((p), 1, __ATOMIC_RELAXED))
/* A counter written by one thread only and read by others: a relaxed load and store, no
 * locked instruction, yet no data race for the readers. */
#define HA_OWNER_ADD(p, v) \
	__atomic_store_n((p), __atomic_load_n((p), __ATOMIC_RELAXED) + (v), __ATOMIC_RELAXED)
#define HA_OWNER_INC(p)            HA_OWNER_ADD((p), 1)
#define HA_BARRIER()               __atomic_thread_fence(__ATOMIC_SEQ_CST)

#endif
