/* herdsman's genmc.h: GenMC's verifier interface, as far as herdsman models it.
   __VERIFIER_assume blocks the execution when its argument is 0; __VERIFIER_spawn and
   __VERIFIER_join are pthread_create and pthread_join (__VERIFIER_spawn_symmetric too:
   herdsman finds symmetric threads itself); a helping CAS does nothing (as GenMC's:
   it waits for the helped CAS it matches, which does the work, and then goes on
   without an access); the other annotations of GenMC's own reductions (local and
   final writes, helped CAS) change no outcome and keep their statement;
   a hazard pointer's protection is an acquire load, and retired memory is never freed
   (no error can come of it); an optional block is skipped (GenMC explores it apart,
   and each of its executions ends blocked); __VERIFIER_nondet_int and recovery
   routines are not modelled (a call is an error naming it). */
#ifndef HERDSMAN_GENMC_H
#define HERDSMAN_GENMC_H
#include <stdbool.h>
#include <pthread.h>
typedef pthread_t __VERIFIER_thread_t;
void __VERIFIER_assume(int condition);
int __VERIFIER_nondet_int(void);
void assume(int condition);
void __VERIFIER_loop_begin(void);
void __VERIFIER_spin_start(void);
void __VERIFIER_spin_end(int condition);
__VERIFIER_thread_t __VERIFIER_spawn(void *(*start)(void *), void *arg);
__VERIFIER_thread_t __VERIFIER_spawn_symmetric(void *(*start)(void *), void *arg,
                                               __VERIFIER_thread_t other);
void *__VERIFIER_join(__VERIFIER_thread_t thread);
void __VERIFIER_join_symmetric(__VERIFIER_thread_t thread);
#define __VERIFIER_local_write(s) do { s; } while (0)
#define __VERIFIER_final_write(s) do { s; } while (0)
#define __VERIFIER_helped_CAS(c) do { c; } while (0)
#define __VERIFIER_helping_CAS(c) do { } while (0)
#define __VERIFIER_speculative_read(c) (c)
#define __VERIFIER_confirming_read(c) (c)
#define __VERIFIER_confirming_CAS(c) (c)
#define __VERIFIER_final_CAS(c) (c)
typedef struct { void *__unused; } __VERIFIER_hp_t;
#define __VERIFIER_hp_alloc() ((__VERIFIER_hp_t *) 0)
#define __VERIFIER_hp_protect(hp, p) __atomic_load_n((void **) (p), __ATOMIC_ACQUIRE)
#define __VERIFIER_hp_clear(hp) ((void) 0)
#define __VERIFIER_hp_free(hp) ((void) 0)
#define __VERIFIER_hp_retire(p) ((void) 0)
void __VERIFIER_optional_block(void);
#define __VERIFIER_optional(x) __VERIFIER_optional_block()
#endif
