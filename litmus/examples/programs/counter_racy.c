/* herdsman: expect sc=unsafe tso=unsafe pso=unsafe power=unsafe
   N threads (3 unless given: -D N=5) each increment a shared counter non-atomically (a
   load, then a store of the value plus one); after joining them all, main checks that the
   counter is N.  Two threads may read the same value, and one update is lost, already
   under SC: the assertion fails under every model.  Under SC there are (N!)^2 executions
   (which value each read sees, and the order of the writes).  See counter.c. */
#include <assert.h>
#include <pthread.h>

#ifndef N
#define N 3
#endif

int counter;
pthread_t tid[N];

void *thread(void *arg)
{
	int r = counter;

	counter = r + 1;
	return 0;
}

int main(void)
{
	for (int i = 0; i < N; i++)
		pthread_create(&tid[i], 0, thread, 0);
	for (int i = 0; i < N; i++)
		pthread_join(tid[i], 0);
	assert(counter == N);
	return 0;
}
