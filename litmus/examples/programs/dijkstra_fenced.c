/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: unroll 2
   herdsman: reference-slow
   Dijkstra's mutual exclusion for two threads (E. W. Dijkstra, "Solution of a problem in
   concurrent programming control", CACM 8(9), 1965) with fences.  The fence after
   passed[me] = 1 keeps it ahead of the read of the other's passed flag, the store-load
   pair the second stage depends on (TSO); under PSO a fence also keeps the critical
   section's writes ahead of the exit's writes.  These are the fences this two-thread,
   one-entry program needs (removing either breaks it; fences after the first stage's
   writes turn out not to be needed).  Safe under SC, TSO and PSO, within the unrolling
   bound of the retry loop.  See dijkstra.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

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
			atomic_thread_fence(memory_order_seq_cst);
			if (passed[other] == 0)
				break;
		}
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	atomic_thread_fence(memory_order_seq_cst);
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
