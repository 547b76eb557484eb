/* herdsman's pthread.h: declarations only (threads are static: see litmus/c). */
#ifndef HERDSMAN_PTHREAD_H
#define HERDSMAN_PTHREAD_H
#ifndef NULL
#define NULL ((void *)0)
#endif
typedef unsigned long pthread_t;
typedef int pthread_mutex_t;
typedef int pthread_attr_t;
typedef int pthread_mutexattr_t;
#define PTHREAD_MUTEX_INITIALIZER 0
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg);
int pthread_join(pthread_t thread, void **result);
void pthread_exit(void *result);
int pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int pthread_mutex_lock(pthread_mutex_t *mutex);
int pthread_mutex_unlock(pthread_mutex_t *mutex);
int pthread_mutex_destroy(pthread_mutex_t *mutex);
#endif
