/* herdsman's prelude of C litmus tests (herd's LKMM and C11 types); the LKMM macros
   (READ_ONCE, smp_mb, ...) are intrinsics of the lowering. */
#ifndef HERDSMAN_LINUX_H
#define HERDSMAN_LINUX_H
#include <stdatomic.h>
typedef int spinlock_t;
typedef int atomic_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long int64_t;
typedef unsigned long uint64_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long __int128_t;
typedef unsigned long __uint128_t;
typedef int pthread_mutex_t;
typedef int mtx_t;
struct srcu_struct { int __herdsman_srcu; }; /* one cell, as herd's */
#ifndef NULL
#define NULL ((void *)0)
#endif
#define ATOMIC_INIT(value) (value)
#define ATOMIC_VAR_INIT(value) (value)
#endif
