/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: reference-slow
   Szymanski's mutual exclusion for two threads (B. K. Szymanski, "A simple solution to
   Lamport's concurrent programming problem with linear wait", ICS 1988) with fences.  A
   fence after flag = 1 and after flag = 3 keeps each ahead of the following read of the
   other's flag (TSO); under PSO a fence also keeps the critical section's writes ahead of
   the final flag = 0.  These are the fences this two-thread, one-entry program needs
   (removing any one of them breaks it).  Safe under SC, TSO and PSO.  See szymanski.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int flag[2];
int in_cs;

void *thread(void *arg)
{
	int me = (int)(long)arg;
	int other = 1 - me;

	flag[me] = 1;                   /* stand outside the waiting room */
	atomic_thread_fence(memory_order_seq_cst);
	while (flag[other] >= 3)        /* wait for the door to open */
		;
	flag[me] = 3;                   /* stand in the doorway */
	atomic_thread_fence(memory_order_seq_cst);
	if (flag[other] == 1) {         /* another thread wants in: wait for it */
		flag[me] = 2;
		while (flag[other] != 4)
			;
	}
	flag[me] = 4;                   /* close the door */
	if (other < me) {               /* lower numbers go first */
		while (flag[other] >= 2)
			;
	}
	/* critical section */
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
	atomic_thread_fence(memory_order_seq_cst);
	if (other > me) {               /* let the waiting room see the door closed */
		while (flag[other] == 2 || flag[other] == 3)
			;
	}
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
