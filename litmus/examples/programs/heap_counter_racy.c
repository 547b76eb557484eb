/* herdsman: expect sc=unsafe tso=unsafe pso=unsafe
   main allocates a counter on the heap and publishes its address in a global; two
   threads each add 1 to it through the pointer with a plain read and write, so one
   update can be lost: the final check fails in the executions where both threads read
   0.  A pointer to a heap cell read from memory is dereferenced by the threads (their
   arguments differ, so no symmetry reduction: 4 executions under SC; GenMC stops
   earlier, at the non-atomic race). */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>

int *counter;

void *inc(void *arg)
{
	int *c = counter;
	*c = *c + 1;
	return NULL;
}

int main()
{
	pthread_t a, b;
	counter = malloc(sizeof(int));
	*counter = 0;
	pthread_create(&a, NULL, inc, (void *) 1);
	pthread_create(&b, NULL, inc, (void *) 2);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert(*counter == 2);
	free(counter);
	return 0;
}
