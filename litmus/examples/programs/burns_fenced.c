/* herdsman: expect sc=safe tso=safe pso=safe
   herdsman: unroll 2
   Burns' one-bit mutual exclusion for two threads (J. E. Burns, N. A. Lynch, "Mutual
   exclusion using indivisible reads and writes", Allerton 1980) with fences.  A fence
   after each raising of a flag keeps it ahead of the following read of the other flag
   (TSO); under PSO a fence after the critical section also keeps its writes ahead of the
   release of the flag.  These are the fences this program needs (removing any one
   breaks it).  Safe under SC, TSO and PSO, within the unrolling bound of thread 1's
   retry loop.  See burns.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

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
	atomic_thread_fence(memory_order_seq_cst);
	while (flag[1] != 0)            /* wait for the higher thread */
		;
	critical_section();
	atomic_thread_fence(memory_order_seq_cst);
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
		atomic_thread_fence(memory_order_seq_cst);
		if (flag[0] == 0)
			break;
	}
	critical_section();
	atomic_thread_fence(memory_order_seq_cst);
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
