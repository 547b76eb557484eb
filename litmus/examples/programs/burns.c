/* herdsman: expect sc=safe tso=unsafe pso=unsafe
   herdsman: unroll 2
   Burns' one-bit mutual exclusion for two threads (J. E. Burns, N. A. Lynch, "Mutual
   exclusion using indivisible reads and writes", Allerton 1980), without fences.  Each
   thread has one flag.  Thread 1 (the higher number) keeps its flag down while thread 0's
   is up, then raises it and retries if thread 0's flag went up meanwhile; thread 0 raises
   its flag and waits while thread 1's is up.  Correct under SC; under TSO each raised
   flag may still be in its store buffer when the other thread reads it as 0, and both
   enter.  Thread 1's retry loop stores, so it is bounded by the unrolling.  See
   burns_fenced.c. */
#include <assert.h>
#include <pthread.h>

int flag[2];
int in_cs;

void critical_section(void)
{
	assert(in_cs == 0);
	in_cs = 1;
	in_cs = 0;
}

void *thread0(void *arg)
{
	flag[0] = 1;
	while (flag[1] != 0)            /* wait for the higher thread */
		;
	critical_section();
	flag[0] = 0;
	return 0;
}

void *thread1(void *arg)
{
	for (;;) {
		flag[1] = 0;
		while (flag[0] != 0)    /* let the lower thread go first */
			;
		flag[1] = 1;
		if (flag[0] == 0)
			break;
	}
	critical_section();
	flag[1] = 0;
	return 0;
}

int main(void)
{
	pthread_t t0, t1;

	pthread_create(&t0, 0, thread0, 0);
	pthread_create(&t1, 0, thread1, 0);
	pthread_join(t0, 0);
	pthread_join(t1, 0);
	return 0;
}
