/* herdsman: expect sc=safe tso=safe pso=safe power=safe
   N threads (3 unless given: -D N=5) each add 1 to a shared counter with an atomic
   fetch-and-add; after joining them all, main checks that the counter is N.  Atomic
   read-modify-writes never lose an update, and a join makes the thread's writes visible
   to main, so the assertion holds under every model.  The classic workload of stateless
   model checkers: the N increments can be ordered in N! ways.  See counter_racy.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

#ifndef N
#define N 3
#endif

atomic_int counter;
pthread_t tid[N];

void *thread(void *arg)
{
	atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
	return 0;
}

int main(void)
{
	for (int i = 0; i < N; i++)
		pthread_create(&tid[i], 0, thread, 0);
	for (int i = 0; i < N; i++)
		pthread_join(tid[i], 0);
	assert(atomic_load_explicit(&counter, memory_order_relaxed) == N);
	return 0;
}
