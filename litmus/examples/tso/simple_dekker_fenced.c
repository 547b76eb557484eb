/* herdsman: expect sc=safe tso=safe
   herdsman: paper-fences 3
   The simple Dekker of simple_dekker.c (three processes) with one fence in each
   process, after raising its flag and before reading the others': a process reads the
   other flags only with its own raised flag in memory.  Safe under SC and TSO, with
   the paper's 3 fences.  See simple_dekker.c. */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>

int flag0;
int flag1;
int flag2;
int in_cs;

void *p0(void *arg)
{
	while (1) {
		flag0 = 1;
		atomic_thread_fence(memory_order_seq_cst);
		while (flag1 == 1 || flag2 == 1)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag0 = 0;
	}
	return 0;
}

void *p1(void *arg)
{
	while (1) {
		flag1 = 1;
		atomic_thread_fence(memory_order_seq_cst);
		while (flag0 == 1 || flag2 == 1)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag1 = 0;
	}
	return 0;
}

void *p2(void *arg)
{
	while (1) {
		flag2 = 1;
		atomic_thread_fence(memory_order_seq_cst);
		while (flag0 == 1 || flag1 == 1)
			;
		/* critical section */
		assert(in_cs == 0);
		in_cs = 1;
		in_cs = 0;
		flag2 = 0;
	}
	return 0;
}

int main(void)
{
	pthread_t a, b, c;

	pthread_create(&a, 0, p0, 0);
	pthread_create(&b, 0, p1, 0);
	pthread_create(&c, 0, p2, 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	pthread_join(c, 0);
	return 0;
}
