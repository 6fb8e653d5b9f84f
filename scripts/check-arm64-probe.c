/* Probe for scripts/check-arm64.sh: one out-of-line function per macro of base/atomic.h and
 * operand width, named probe_<macro without HA_, lower case>_<width>, so that the script
 * can read which instructions each macro becomes. Never linked into anything. Every macro
 * of atomic.h must have a probe here: the script fails on a macro without one.
 */
#include <stdbool.h>
#include <stdint.h>

#include <base/atomic.h>

#define PROBE __attribute__((noinline, used))

/* Value-returning macros of one operand: LOAD(p). */
#define PROBE_LOAD(name, M, T)     \
	PROBE T probe_##name(T *p) \
	{                          \
		return M(p);       \
	}

/* Macros with a value operand whose result is kept: ADD(p, v), XCHG(p, v)... */
#define PROBE_RMW(name, M, T)           \
	PROBE T probe_##name(T *p, T v) \
	{                               \
		return M(p, v);         \
	}

/* Macros with a value operand and no result: STORE(p, v), COUNTER_ADD(p, v). */
#define PROBE_PUT(name, M, T)              \
	PROBE void probe_##name(T *p, T v) \
	{                                  \
		M(p, v);                   \
	}

/* Macros of the pointer alone whose result is kept: INC(p), DEC(p). */
#define PROBE_STEP(name, M, T)     \
	PROBE T probe_##name(T *p) \
	{                          \
		return M(p);       \
	}

/* Macros of the pointer alone without a result: COUNTER_INC(p), COUNTER_DEC(p). */
#define PROBE_BUMP(name, M, T)        \
	PROBE void probe_##name(T *p) \
	{                             \
		M(p);                 \
	}

#define PROBE_CAS(name, M, T)                        \
	PROBE bool probe_##name(T *p, T *oldp, T nv) \
	{                                            \
		return M(p, oldp, nv);               \
	}

/* Each shape for 32 and 64-bit operands. */
#define PROBE_BOTH(shape, name, M) shape(name##_u32, M, uint32_t) shape(name##_u64, M, uint64_t)

PROBE_BOTH(PROBE_LOAD, atomic_load, HA_ATOMIC_LOAD)
PROBE_BOTH(PROBE_LOAD, atomic_load_rlx, HA_ATOMIC_LOAD_RLX)
PROBE_BOTH(PROBE_PUT, atomic_store, HA_ATOMIC_STORE)
PROBE_BOTH(PROBE_PUT, atomic_store_rlx, HA_ATOMIC_STORE_RLX)
PROBE_BOTH(PROBE_RMW, atomic_add, HA_ATOMIC_ADD)
PROBE_BOTH(PROBE_RMW, atomic_sub, HA_ATOMIC_SUB)
PROBE_BOTH(PROBE_RMW, atomic_fetch_add, HA_ATOMIC_FETCH_ADD)
PROBE_BOTH(PROBE_RMW, atomic_fetch_sub, HA_ATOMIC_FETCH_SUB)
PROBE_BOTH(PROBE_STEP, atomic_inc, HA_ATOMIC_INC)
PROBE_BOTH(PROBE_STEP, atomic_dec, HA_ATOMIC_DEC)
PROBE_BOTH(PROBE_RMW, atomic_xchg, HA_ATOMIC_XCHG)
PROBE_BOTH(PROBE_CAS, atomic_cas, HA_ATOMIC_CAS)
PROBE_BOTH(PROBE_PUT, counter_add, HA_COUNTER_ADD)
PROBE_BOTH(PROBE_BUMP, counter_inc, HA_COUNTER_INC)
PROBE_BOTH(PROBE_BUMP, counter_dec, HA_COUNTER_DEC)
PROBE_BOTH(PROBE_PUT, owner_add, HA_OWNER_ADD)
PROBE_BOTH(PROBE_BUMP, owner_inc, HA_OWNER_INC)

/* UPDATE_MAX exists for int only: a CAS loop that must be LSE cas, not ldxr/stxr. */
PROBE void probe_atomic_update_max(int *p, int v)
{
	HA_ATOMIC_UPDATE_MAX(p, v);
}

PROBE void probe_barrier(void)
{
	HA_BARRIER();
}
