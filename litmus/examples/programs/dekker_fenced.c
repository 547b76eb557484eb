/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: unroll 2
   Dekker's mutual exclusion for two threads (T. J. Dekker, as published by E. W.
   Dijkstra, "Cooperating sequential processes", EWD 123, 1965) with fences.  A fence
   after raising the flag keeps it ahead of the read of the other's flag (what TSO needs);
   under PSO a fence before the exit protocol also keeps the critical section's writes
   ahead of the writes of turn and flag.  These are the fences this two-thread, one-entry
   program needs (removing either breaks it; a flag raised again after backing off is
   only read by a thread that has left).  Safe under SC, TSO and PSO, within the
   unrolling bound of the outer loop.  See dekker.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int flag[2];
int turn;
int in_cs;

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int other = 1 - me;

	flag[me] = 1;
	atomic_thread_fence(memory_order_seq_cst);
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
	atomic_thread_fence(memory_order_seq_cst);
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
