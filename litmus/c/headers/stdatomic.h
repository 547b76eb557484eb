/* herdsman's stdatomic.h: atomic types are _Atomic typedefs (pycparser keeps the
   qualifier); the generic atomic_* operations are intrinsics of the lowering. */
#ifndef HERDSMAN_STDATOMIC_H
#define HERDSMAN_STDATOMIC_H
typedef enum memory_order {
  memory_order_relaxed,
  memory_order_consume,
  memory_order_acquire,
  memory_order_release,
  memory_order_acq_rel,
  memory_order_seq_cst
} memory_order;
typedef _Atomic _Bool atomic_bool;
typedef _Atomic char atomic_char;
typedef _Atomic int atomic_int;
typedef _Atomic unsigned int atomic_uint;
typedef _Atomic long atomic_long;
typedef _Atomic unsigned long atomic_ulong;
typedef _Atomic long long atomic_llong;
typedef _Atomic unsigned long long atomic_ullong;
typedef _Atomic long atomic_intptr_t;
typedef _Atomic unsigned long atomic_uintptr_t;
typedef _Atomic unsigned long atomic_size_t;
#define ATOMIC_VAR_INIT(value) (value)
void atomic_thread_fence(memory_order order);
void atomic_signal_fence(memory_order order);
#endif
