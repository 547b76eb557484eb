/* herdsman: expect sc=safe tso=unsafe pso=unsafe
   herdsman: unroll 2
   herdsman: reference-slow
   Dijkstra's mutual exclusion for two threads (E. W. Dijkstra, "Solution of a problem in
   concurrent programming control", CACM 8(9), 1965), the first solution for N threads,
   without fences.  want[i] is Dijkstra's "not b[i]", passed[i] his "not c[i]", k the
   favoured thread.  A thread that wants in takes k over when its holder does not want
   in; holding k, it passes to the second stage and enters if no other thread has passed
   too, else it starts again.  Correct under SC; under TSO the raised want and passed
   flags may still sit in the store buffers when the other thread reads them, and both
   enter.  The retry loop stores, so it is bounded by the unrolling (longer waits are
   cut).  See dijkstra_fenced.c. */
#include <assert.h>
#include <pthread.h>

int want[2];
int passed[2];
int k;
int in_cs;

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int other = 1 - me;

	want[me] = 1;
	for (;;) {
		int holder = k;

		if (holder != me) {
			passed[me] = 0;
			if (want[holder] == 0)
				k = me;
		} else {
			passed[me] = 1;
			if (passed[other] == 0)
				break;
		}
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	passed[me] = 0;
	want[me] = 0;
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
