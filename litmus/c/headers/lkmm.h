/* herdsman's lkmm.h: the Linux kernel's primitives (READ_ONCE, WRITE_ONCE, smp_mb...)
   are intrinsics of the lowering, as in C litmus tests. */
#ifndef HERDSMAN_LKMM_H
#define HERDSMAN_LKMM_H
#include <stdatomic.h>
typedef int atomic_t;
#endif
