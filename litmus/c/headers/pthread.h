/* herdsman's pthread.h: threads (a pthread_t is the thread's number), mutexes (locks),
   barriers; attributes are ignored. */
#ifndef HERDSMAN_PTHREAD_H
#define HERDSMAN_PTHREAD_H
#include <stddef.h>
#include <stdint.h>
typedef unsigned long pthread_t;
typedef int pthread_mutex_t;
typedef int pthread_attr_t;
typedef int pthread_mutexattr_t;
typedef int pthread_barrier_t;
typedef int pthread_barrierattr_t;
#define PTHREAD_MUTEX_INITIALIZER 0
#define PTHREAD_BARRIER_SERIAL_THREAD (-1)
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg);
int pthread_join(pthread_t thread, void **result);
void pthread_exit(void *result);
pthread_t pthread_self(void);
int pthread_attr_init(pthread_attr_t *attr);
int pthread_attr_destroy(pthread_attr_t *attr);
int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_trylock(pthread_mutex_t *mutex);
int pthread_mutex_unlock(pthread_mutex_t *mutex);
int pthread_mutex_destroy(pthread_mutex_t *mutex);
int pthread_barrier_init(pthread_barrier_t *barrier, const pthread_barrierattr_t *attr,
                         unsigned count);
int pthread_barrier_wait(pthread_barrier_t *barrier);
int pthread_barrier_destroy(pthread_barrier_t *barrier);
#endif
