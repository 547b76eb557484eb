/* herdsman: expect sc=safe tso=unsafe pso=unsafe
   herdsman: unroll 2
   Dekker's mutual exclusion for two threads, the first correct solution (T. J. Dekker,
   as published by E. W. Dijkstra, "Cooperating sequential processes", EWD 123, 1965),
   without fences.  A thread raises its flag and, while the other's flag is up, backs off
   (lowers its flag until the turn is its own) unless it holds the turn.  Correct under
   SC; under TSO both threads may read the other's flag as 0 while their own raised flag
   is still in the store buffer, and both enter.  The outer loop stores, so it is bounded
   by the unrolling (longer waits are cut); the inner wait is a spin loop.  See
   dekker_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag[2];
int turn;
int in_cs;

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int other = 1 - me;

	flag[me] = 1;
	while (flag[other] == 1) {
		if (turn != me) {
			flag[me] = 0;
			while (turn != me)
				;
			flag[me] = 1;
		}
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	turn = other;
	flag[me] = 0;
	return 0;
}

int main(void)
{
	pthread_t t0, t1;

	pthread_create(&t0, 0, thread, (void *)0);
	pthread_create(&t1, 0, thread, (void *)1);
	pthread_join(t0, 0);
	pthread_join(t1, 0);
	return 0;
}
