/* herdsman's threads.h: C11 threads as pthreads: thrd_create/thrd_join/thrd_exit,
   thrd_current, thrd_yield (no effect), mtx_init/mtx_lock/mtx_unlock/mtx_destroy. */
#ifndef HERDSMAN_THREADS_H
#define HERDSMAN_THREADS_H
#include <stddef.h>
typedef unsigned long thrd_t;
typedef int mtx_t;
typedef int (*thrd_start_t)(void *);
enum { thrd_success = 0, thrd_nomem = 1, thrd_timedout = 2, thrd_busy = 3, thrd_error = 4 };
enum { mtx_plain = 0, mtx_recursive = 1, mtx_timed = 2 };
int thrd_create(thrd_t *thread, thrd_start_t start, void *arg);
int thrd_join(thrd_t thread, int *result);
void thrd_exit(int result);
thrd_t thrd_current(void);
void thrd_yield(void);
int mtx_init(mtx_t *mutex, int type);
int mtx_lock(mtx_t *mutex);
int mtx_unlock(mtx_t *mutex);
void mtx_destroy(mtx_t *mutex);
#endif
